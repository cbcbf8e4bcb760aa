"""NTCIREVAL's graded RBP, its ERR and iRBU: measures of a user who reads down the list and may stop."""
from __future__ import annotations

from typing import Any

from ir_measures import measures as irm

from irmeasures_ext.errors import MeasureParamError
from irmeasures_ext.measures.base import (
    CUTOFF_PARAM,
    GAINS_PARAM,
    MAX_LEVEL_PARAM,
    REL_PARAM,
    REQUIRED_CUTOFF_PARAM,
    Check,
    ExtMeasure,
    Param,
    declare,
)

_GRADED_PARAMS: dict[str, irm.ParamInfo] = {'gains': GAINS_PARAM, 'max_level': MAX_LEVEL_PARAM, 'rel': REL_PARAM}


def probability(below_one: bool) -> Check:
    """The check of a probability parameter (:func:`check_probability`)."""
    return lambda measure_name, name, value: check_probability(measure_name, name, value, below_one)


def check_probability(measure_name: str, name: str, value: Any, below_one: bool) -> float:
    """``value`` as a float if it is a number from 0 to 1 (below 1 if ``below_one``), else MeasureParamError."""
    top = '< 1' if below_one else '<= 1'
    if (isinstance(value, bool) or not isinstance(value, (int, float))
            or not (0 <= value < 1 if below_one else 0 <= value <= 1)):
        raise MeasureParamError(f'{measure_name}: {name} must be a number with 0 <= {name} {top}, got {value!r}')
    return float(value)


@declare
class RBP_NTCIR(ExtMeasure):
    """
    Graded rank-biased precision, as NTCIREVAL computes its "RBP" (and "RBP@k"):

        RBP_NTCIR = (1 − p) · Σ_r g(r) · p^{r−1} / g_max,    @k: the sum over r ≤ k

    with persistence ``p`` (NTCIREVAL's ``-rbp``, default 0.95). Gains as in ``Q`` (label, or
    ``gains[label]``; 0 for non-relevant and unjudged docs). g_max is the gain of ``max_level`` (by
    default the largest label of ``gains`` if given, else of the qrels), NTCIREVAL's top level of
    ``-g``; labels above it, or of a greater gain, are an error. A query with R = 0 scores 0.

    Differs from ir_measures' ``RBP`` (Moffat & Zobel; p = 0.8 by default): that one counts binary
    relevance (label >= rel) or, without ``rel``, the providers' own graded form, not divided by
    the gain of the top level. Under ``ties='expected'`` its exact mean over the orderings of
    tied docs: each doc's gain times the mean of p^{r−1} over its tie group's ranks (RBP is linear
    in the ranks).

    .. cite:: Alistair Moffat and Justin Zobel. Rank-biased precision for measurement of retrieval
       effectiveness. ACM TOIS 27(1), 2008.
    .. cite:: Tetsuya Sakai. NTCIREVAL (version 190111), http://research.nii.ac.jp/ntcir/tools/ntcireval-en.html
    """
    PRETTY_NAME = 'graded RBP (NTCIREVAL)'
    SHORT_DESC = 'Rank-biased precision with graded gains divided by the top gain.'
    SUPPORTED_PARAMS = {
        'cutoff': CUTOFF_PARAM,
        'p': Param(probability(below_one=True), dtype=float, default=0.95,
                   desc='persistence 0 <= p < 1: the chance of reading on'),
        **_GRADED_PARAMS,
    }



@declare
class ERR_NTCIR(ExtMeasure):
    """
    Expected reciprocal rank, as NTCIREVAL computes its "ERR" (and "ERR@k"):

        π(r) = g(r) / (g_max + 1),   ERR_NTCIR = Σ_r (1/r) · π(r) · Π_{i<r} (1 − π(i)),
        @k: the sum over r ≤ k

    Gains and g_max as in ``RBP_NTCIR``. Not normalised (``nERR`` is); since π < 1 even for the
    top level, it does not reduce to RR for binary relevance. A query with R = 0 scores 0.

    Differs from ir_measures' ``ERR`` (Chapelle et al. as gdeval computes it), whose stop
    probability is (2^l − 1)/2^4 (gdeval's top grade). No closed form for the mean over the orderings
    of tied docs: refused under ``ties='expected'``.

    .. cite:: Olivier Chapelle, Donald Metzler, Ya Zhang, Pierre Grinspan. Expected Reciprocal
       Rank for Graded Relevance. CIKM 2009.
    .. cite:: Tetsuya Sakai. NTCIREVAL (version 190111), http://research.nii.ac.jp/ntcir/tools/ntcireval-en.html
    """
    PRETTY_NAME = 'ERR (NTCIREVAL)'
    SHORT_DESC = 'Expected reciprocal rank with stop probability g/(g_max + 1).'
    SUPPORTED_PARAMS = {'cutoff': CUTOFF_PARAM, **_GRADED_PARAMS}


@declare
class iRBU(ExtMeasure):
    """
    Intentwise rank-biased utility at k, as NTCIREVAL computes its "iRBU@k" (``-rbup u``):

        iRBU@k = Σ_{r≤k} u^r · π(r) · Π_{i<r} (1 − π(i)),   π(r) = g(r) / (g_max + 1)

    ERR's cascade with the utility u^r (the exponent is r, not r − 1) in place of 1/r; like
    NTCIREVAL, only this utility sum (RBU without its effort term, for one intent). ``u`` and the
    cutoff are required (NTCIREVAL prints iRBU only when given ``-rbup``, and only with cutoffs).
    Gains and g_max as in ``RBP_NTCIR``. A query with R = 0 scores 0. Refused under
    ``ties='expected'`` (no closed form).

    .. cite:: Enrique Amigó, Damiano Spina, Jorge Carrillo-de-Albornoz. An Axiomatic Analysis of
       Diversity Evaluation Metrics: Introducing the Rank-Biased Utility Metric. SIGIR 2018.
    .. cite:: Tetsuya Sakai. NTCIREVAL (version 190111), http://research.nii.ac.jp/ntcir/tools/ntcireval-en.html
    """
    PRETTY_NAME = 'intentwise rank-biased utility (NTCIREVAL)'
    SHORT_DESC = 'Cascade utility Σ u^r·π(r)·Π(1 − π) with π = g/(g_max + 1).'
    SUPPORTED_PARAMS = {
        'cutoff': REQUIRED_CUTOFF_PARAM,
        'u': Param(probability(below_one=False), dtype=float, required=True,
                   desc="patience 0 <= u <= 1 (NTCIREVAL's -rbup; required)"),
        **_GRADED_PARAMS,
    }
