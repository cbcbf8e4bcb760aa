"""NTCIREVAL's other measures built on the blended ratio: O-measure, P-measure, P-plus, NCU and EBR.

Notation (as in ``Q``): for the ranked list of a query, I(r) = 1 if the doc at rank r is relevant
(label >= rel), C(r) = Σ_{i≤r} I(i), cg(r) = Σ_{i≤r} g(i), cg*(r) the cumulative gain of the ideal list
(the R relevant docs of the qrels by gain, descending; it stays at the total past rank R), and the
blended ratio BR(r) = (C(r) + β·cg(r)) / (r + β·cg*(r)). Gains: a relevant doc's gain is its label
(NTCIREVAL's ``-g 1:2:3``), or ``gains[label]`` where given; other docs have gain 0. Unjudged docs take
up ranks. A query with R = 0, which NTCIREVAL leaves undefined (it prints nothing), scores 0.
"""
from __future__ import annotations

from typing import Any

from ir_measures import measures as irm

from irmeasures_ext.errors import MeasureParamError
from irmeasures_ext.measures.base import (
    CUTOFF_PARAM,
    GAINS_PARAM,
    MAX_LEVEL_PARAM,
    REL_PARAM,
    Param,
    check_gains,
    choice_of,
    declare,
)
from irmeasures_ext.measures.q import BETA_PARAM, BlendedRatioMeasure

#: The parameters of every measure of this module.
_BR_PARAMS: dict[str, irm.ParamInfo] = {'beta': BETA_PARAM, 'gains': GAINS_PARAM, 'rel': REL_PARAM}


@declare
class O_measure(BlendedRatioMeasure):
    """
    O-measure: the blended ratio at the first relevant doc, for tasks where one relevant doc suffices.

        O = BR(r1),   r1 the rank of the first relevant doc; 0 if none is retrieved.

    ``beta=0`` gives the reciprocal rank. Matches NTCIREVAL's ``O-measure`` (version 190111) per topic.

    ``ties='expected'``: closed form. The first relevant doc is in the first tie group holding one; its
    offset j in that group has the distribution of the first of r relevant docs among g, and given j it
    is any of the r with equal probability, so E[O] = Σ_j P(j) · (1 + β·G/r) / (s + j + β·cg*(s + j)),
    with s the group's first rank and G its relevant docs' total gain. ``optimistic``/``pessimistic``
    (tied docs by gain) give its best/worst value.

    .. cite:: Tetsuya Sakai. On the Task of Finding One Highly Relevant Document with High Precision.
       IPSJ Transactions on Databases 47 (SIG 4), 2006.
    .. cite:: Tetsuya Sakai. Graded Relevance Assessments and Graded Relevance Measures of NTCIR:
       A Survey of the First Twenty Years. arXiv:1903.11272 (2019).
    """
    PRETTY_NAME = 'O-measure'
    SHORT_DESC = 'Blended ratio at the first relevant doc.'
    SUPPORTED_PARAMS = dict(_BR_PARAMS)


@declare
class P_measure(BlendedRatioMeasure):
    """
    P-measure: the blended ratio at the preferred rank, the first doc of the best level retrieved.

        P = BR(rp),   rp the first rank holding the highest label among the retrieved relevant docs
                      (not necessarily the topic's highest label); 0 if no relevant doc is retrieved.

    Matches NTCIREVAL's ``P-measure`` (version 190111) per topic. Refused under ``ties='expected'`` (no
    closed form) and ``'optimistic'``/``'pessimistic'``: no order of tied docs by gain gives its best or worst
    value (a lower doc tied before the best one can raise BR(rp)).

    .. cite:: Tetsuya Sakai. On the Task of Finding One Highly Relevant Document with High Precision.
       IPSJ Transactions on Databases 47 (SIG 4), 2006.
    .. cite:: Tetsuya Sakai. Graded Relevance Assessments and Graded Relevance Measures of NTCIR:
       A Survey of the First Twenty Years. arXiv:1903.11272 (2019).
    """
    PRETTY_NAME = 'P-measure'
    SHORT_DESC = 'Blended ratio at the first doc of the highest level retrieved.'
    SUPPORTED_PARAMS = dict(_BR_PARAMS)


@declare
class P_plus(BlendedRatioMeasure):
    """
    P-plus (P+-measure): the mean blended ratio over the relevant docs down to the preferred rank rp
    (as in ``P_measure``).

        P+ = (1/C(rp)) · Σ_{r≤rp} I(r)·BR(r);   0 if no relevant doc is retrieved.

    Matches NTCIREVAL's ``P-plus`` (version 190111) per topic. Refused under ``ties='expected'``,
    ``'optimistic'`` and ``'pessimistic'``, as ``P_measure``.

    .. cite:: Tetsuya Sakai. On Penalising Late Arrival of Relevant Documents in Information Retrieval
       Evaluation with Graded Relevance. EVIA 2007.
    .. cite:: Tetsuya Sakai. Graded Relevance Assessments and Graded Relevance Measures of NTCIR:
       A Survey of the First Twenty Years. arXiv:1903.11272 (2019).
    """
    PRETTY_NAME = 'P-plus'
    SHORT_DESC = 'Mean blended ratio over the relevant docs down to the first doc of the highest level retrieved.'
    SUPPORTED_PARAMS = dict(_BR_PARAMS)


def _check_gamma(measure_name: str, name: str, value: Any) -> float:
    """``value`` as a float if it is a number from 0 to 1, else MeasureParamError."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise MeasureParamError(f'{measure_name}: {name} must be a number from 0 to 1, got {value!r}')
    return float(value)


@declare
class NCU(BlendedRatioMeasure):
    """
    Normalised Cumulative Utility: the expected utility at the rank where a user of a population stops,
    who stops only at relevant docs.

    ``stopping='gu'`` (graded-uniform): the user stops at a relevant doc with probability proportional
    to the stop value s of its label: ``stops[label]`` where given, else the doc's gain (NTCIREVAL's
    ``-s``, which defaults to the gains). With X_l the qrels' relevant docs of label l:

        NCU = Σ_r I(r)·U(r)·s(label(r)) / Σ_l X_l·s(l)

    ``stopping='rb'`` (rank-biased): stopping at the k-th relevant doc retrieved has weight γ^(k-1)
    (``gamma``, default 0.95, NTCIREVAL's ``-gamma``):

        NCU = Σ_r I(r)·U(r)·γ^(C(r)-1) / Σ_{k=1..R} γ^(k-1)

    The utility U is ``utility='BR'``: BR(r), or ``utility='P'``: precision C(r)/r (then ``beta`` does
    not apply). NTCIREVAL prints them as ``NCUgu,P``, ``NCUgu,BR``, ``NCUrb,P`` and ``NCUrb,BR``; each
    matches per topic (version 190111). Parameters that do not apply (``stops`` with ``rb``, ``gamma``
    with ``gu``, ``beta`` with ``P``) are refused. Refused under ``ties='expected'``; with ``rb``,
    ``optimistic``/``pessimistic`` (tied docs by gain) give its best/worst value, with ``gu`` they are refused
    (a doc of larger stop value tied after a smaller one can raise it).

    .. cite:: Tetsuya Sakai and Stephen Robertson. Modelling A User Population for Designing Information
       Retrieval Metrics. EVIA 2008.
    .. cite:: Tetsuya Sakai. Graded Relevance Assessments and Graded Relevance Measures of NTCIR:
       A Survey of the First Twenty Years. arXiv:1903.11272 (2019).
    """
    PRETTY_NAME = 'Normalised Cumulative Utility'
    SHORT_DESC = 'Expected utility (precision or blended ratio) at the relevant doc where a user stops.'
    SUPPORTED_PARAMS = {
        'stopping': Param(choice_of(('gu', 'rb')), dtype=str, default='gu',
                          desc="stopping distribution: 'gu' (graded-uniform, by stop values) or 'rb' (rank-biased, "
                               'by gamma)'),
        'utility': Param(choice_of(('BR', 'P')), dtype=str, default='BR',
                         desc="utility at the stopping rank: 'BR' (blended ratio) or 'P' (precision)"),
        **_BR_PARAMS,
        'stops': Param(lambda measure_name, name, value: check_gains(measure_name, value, name, 'stop value'),
                       dtype=dict, desc="stop value per relevance label for stopping='gu', e.g. {1:1,2:1,3:4}; "
                                        'default: the gain'),
        'gamma': Param(_check_gamma, dtype=float, default=0.95,
                       desc="0 <= γ <= 1 for stopping='rb': the weight of each further relevant doc"),
    }
    #: The parameters that apply to one stopping or utility only, by the value they need.
    _APPLIES_TO = {'stops': ('stopping', 'gu'), 'gamma': ('stopping', 'rb'), 'beta': ('utility', 'BR')}

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        for name, (chooser, needed) in self._APPLIES_TO.items():
            if name in self.params and self[chooser] != needed:
                raise MeasureParamError(f'{self.NAME}: {name} applies only with {chooser}={needed!r}, '
                                        f'not {chooser}={self[chooser]!r}')



@declare
class EBR(BlendedRatioMeasure):
    """
    Expected Blended Ratio: ERR's cascade user (as in ``nERR``) with the blended ratio as the utility at
    the stopping rank.

        π(r) = g(r) / (g_max + 1),   EBR = Σ_r BR(r) · π(r) · Π_{i<r} (1 − π(i)),   EBR@k: r ≤ k

    g_max is the gain of ``max_level`` (as in ``nERR``; labels above it are an error). ``beta=0`` makes
    the utility precision. Matches NTCIREVAL's ``EBR`` and ``EBR@k`` (version 190111, which added it in
    2018 and leaves it undocumented) per topic. Refused under ``ties='expected'``, ``'optimistic'`` and
    ``'pessimistic'`` (ordering tied docs by gain need not give its best or worst value).

    .. cite:: Tetsuya Sakai. NTCIREVAL (version 190111), http://research.nii.ac.jp/ntcir/tools/ntcireval-en.html
    .. cite:: Olivier Chapelle, Donald Metzler, Ya Zhang, Pierre Grinspan. Expected Reciprocal Rank for
       Graded Relevance. CIKM 2009.
    """
    PRETTY_NAME = 'Expected Blended Ratio (NTCIREVAL)'
    SHORT_DESC = 'Expected blended ratio at the rank where a cascade user stops.'
    SUPPORTED_PARAMS = {'cutoff': CUTOFF_PARAM, **_BR_PARAMS, 'max_level': MAX_LEVEL_PARAM}
