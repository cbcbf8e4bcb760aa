"""trec_eval 9.0.8's measures that ir_measures has no name for, as measures of ours named after trec_eval's.

Each is defined by trec_eval 9.0.8's ``m_<name>.c`` (Chris Buckley, https://github.com/usnistgov/trec_eval,
tag v9.0.8; pytrec_eval-terrier embeds the same code) and equals it per query; the docstrings give the
definitions. Common ground, from trec_eval's ``form_res_rels.c``: the ranked list is every retrieved doc; a
qrels label below 0 marks a doc "in the pool but not judged" (trec_eval's RELVALUE_UNJUDGED), which counts as
neither relevant nor judged non-relevant and is no relevance level; R (``num_rel``) counts the labels >= rel.
``judged_only=True`` is trec_eval's ``-J`` (the retrieved docs with a label >= 0, ranks closed up), as for
ir_measures' own ``AP(judged_only=True)``. A query of the qrels absent from the run gets the measure's value
on an empty ranking (trec_eval ``-c`` gives it 0; they differ only for ``utility`` with non-zero weights for
the docs not retrieved).
"""
from __future__ import annotations

import math
from typing import Any

from ir_measures.measures.base import SumAgg

from irmeasures_ext.errors import MeasureParamError
from irmeasures_ext.measures.base import (
    REL_PARAM,
    REQUIRED_CUTOFF_PARAM,
    ExtMeasure,
    Param,
    check_boolean,
    check_non_negative,
    declare,
    gains_check,
    integer_from,
)
from irmeasures_ext.measures.rank_stats import GeometricMeanAgg


def _check_gains_from_1(measure_name: str, name: str, value: Any) -> dict[float, float]:
    """Gains of labels >= 1 (trec_eval's rel_level=gain parameters, label 0 and below left at gain 0)."""
    gains = gains_check(measure_name, name, value)
    if any(label < 1 for label in gains):
        raise MeasureParamError(f'{measure_name}: gains keys must be labels >= 1 (label 0 and a negative label, '
                                f'which marks a doc not judged, have gain 0), got {sorted(gains)}')
    return gains


#: ``judged_only`` as trec_eval's ``-J``: the docs with a label >= 0 (a negative label is "not judged").
TREC_JUDGED_ONLY_PARAM = Param(check_boolean, dtype=bool, default=False,
                               desc="computed on trec_eval's -J list: only the retrieved docs with a qrels label >= 0, "
                                    'ranked 1, 2, ... in the same order')
TREC_GAINS_PARAM = Param(_check_gains_from_1, dtype=dict, desc=(
    "gain per relevance label >= 1, e.g. {1:1,2:3,3:7} (trec_eval's rel_level=gain parameters); default gain = "
    'label; label 0 and labels below 0 have gain 0'))


class TrecEvalMeasure(ExtMeasure):
    """A measure named after trec_eval's: ``judged_only`` is trec_eval's ``-J`` (negative labels dropped too),
    ``gains`` map labels >= 1 only (trec_eval also takes a gain for label 0: not here, so that a judged
    non-relevant doc, such as a later member of an equivalence class, never gains)."""

    #: Read by ``engine.transforms.judged_only``: the condensed list keeps the labels >= 0 (trec_eval's -J).
    TREC_EVAL_JUDGED_ONLY = True

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.SUPPORTED_PARAMS = {**cls.SUPPORTED_PARAMS, 'judged_only': TREC_JUDGED_ONLY_PARAM}



def check_finite(measure_name: str, name: str, value: Any) -> float:
    """``value`` as a float if it is a finite number, else MeasureParamError."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise MeasureParamError(f'{measure_name}: {name} must be a finite number, got {value!r}')
    return float(value)


class GeometricMeanMeasure(TrecEvalMeasure):
    """A per-query value aggregated by trec_eval's geometric mean (:class:`GeometricMeanAgg`)."""

    SUPPORTED_PARAMS = {'rel': REL_PARAM}

    def aggregator(self) -> GeometricMeanAgg:
        return GeometricMeanAgg()


@declare
class gm_map(GeometricMeanMeasure):
    """
    gm_map: AP per query (trec_eval's ``map``: Σ_r I(r)·C(r)/r / R), aggregated by trec_eval's geometric
    mean, exp(mean over queries of log(max(AP, 1e-5))) (``MIN_GEO_MEAN``): a query with AP 0, or absent
    from the run, counts as 1e-5. Per query the value is the AP itself (trec_eval prints no per-query
    gm_map; it accumulates the logarithms).

    .. cite:: Stephen Robertson. On GMAP: and other transformations. CIKM 2006.
    .. cite:: trec_eval 9.0.8, m_gm_map.c and meas_avg.c (te_calc_avg_meas_s_gm).
    """
    PRETTY_NAME = 'Geometric mean of AP (trec_eval gm_map)'
    SHORT_DESC = 'AP per query; geometric mean over queries with floor 1e-5.'


@declare
class gm_bpref(GeometricMeanMeasure):
    """
    gm_bpref: bpref per query (trec_eval's, as ir_measures' ``Bpref``), aggregated by trec_eval's
    geometric mean with floor 1e-5, as ``gm_map``.

    .. cite:: Chris Buckley and Ellen M. Voorhees. Retrieval evaluation with incomplete information.
       SIGIR 2004.
    .. cite:: trec_eval 9.0.8, m_gm_bpref.c.
    """
    PRETTY_NAME = 'Geometric mean of bpref (trec_eval gm_bpref)'
    SHORT_DESC = 'bpref per query; geometric mean over queries with floor 1e-5.'


@declare
class Rndcg(TrecEvalMeasure):
    """
    Rndcg: nDCG averaged at the "R levels" of the ideal list (trec_eval's experimental ``Rndcg``).

    With g*_1 >= g*_2 >= ... >= g*_L the positive gains of the qrels (the ideal list), DCG_k = Σ_{r<=k}
    g(r)/log2(r + 1) of the run (every retrieved doc; unjudged and negative labels gain 0), IDCG_k the
    ideal list's (constant past L) and n the docs retrieved, the points are the ranks i <= L after which
    the ideal gain changes (g*_{i+1} != g*_i, i = L included) and, when n >= L + 2, n itself; then

        Rndcg = mean over the points i of DCG_min(i, n) / IDCG_i.

    Gain = label, or ``gains[label]``. R (labels >= rel) = 0 gives 0, as does a query without a point
    (all gains 0; trec_eval divides 0 by 0 there).

    .. cite:: Kalervo Järvelin and Jaana Kekäläinen. Cumulated gain-based evaluation of IR techniques.
       ACM TOIS 20(4), 2002.
    .. cite:: trec_eval 9.0.8, m_Rndcg.c.
    """
    PRETTY_NAME = 'nDCG averaged at R levels (trec_eval Rndcg)'
    SHORT_DESC = 'nDCG averaged at the ranks where the ideal gain changes.'
    SUPPORTED_PARAMS = {'gains': TREC_GAINS_PARAM, 'rel': REL_PARAM}


@declare
class eleven_pt_avg(TrecEvalMeasure):
    """
    eleven_pt_avg (trec_eval's ``11pt_avg``): the mean of the interpolated precision at the 11 recall
    levels 0, 0.1, ..., 1 (ir_measures' ``IPrec@p``, trec_eval's ``iprec_at_recall``): with r_j the rank
    of the j-th relevant doc retrieved and c = int(p·R + 0.9) (trec_eval 9's truncation), IPrec@p =
    max_{j >= max(c, 1)} j / r_j if c <= the relevant docs retrieved, else 0.

    .. cite:: trec_eval 9.0.8, m_11pt_avg.c.
    """
    PRETTY_NAME = '11-point interpolated average precision (trec_eval 11pt_avg)'
    SHORT_DESC = 'Mean interpolated precision at recall 0, 0.1, ..., 1.'
    SUPPORTED_PARAMS = {'rel': REL_PARAM}


@declare
class binG(TrecEvalMeasure):
    """
    binG: binary G (trec_eval's experimental ``binG``): Σ over the relevant docs retrieved of
    1 / log2(2 + n_r), n_r the docs ranked above it that are not relevant (unjudged ones included),
    divided by R.

    .. cite:: trec_eval 9.0.8, m_binG.c.
    """
    PRETTY_NAME = 'Binary G (trec_eval binG)'
    SHORT_DESC = 'Mean over relevant docs of 1/log2(2 + non-relevant docs above).'
    SUPPORTED_PARAMS = {'rel': REL_PARAM}


@declare
class G(TrecEvalMeasure):
    """
    G: normalised gain (trec_eval's experimental ``G``). With g(r) the gain at rank r, S(r) = Σ_{i<=r} g(i),
    g*_i the ideal list's gains (positive gains of the qrels, descending; 0 past its end) and the cost
    C(r) = Σ_{i<=r} max(g*_i, 1):

        G = Σ_r g(r) / log2(2 + C(r) − S(r)) / Σ_i g*_i.

    Gain = label, or ``gains[label]`` (labels below 0 and unjudged docs: 0). No relevance threshold. C(r) >=
    S(r), except under equivalence classes with gains that do not grow with the label (a member can gain more
    than its class's highest label): there C(r) − S(r) counts as 0.

    .. cite:: trec_eval 9.0.8, m_G.c.
    """
    PRETTY_NAME = 'Normalised gain (trec_eval G)'
    SHORT_DESC = 'Gain discounted by the gain still missing, normalised by the ideal total gain.'
    SUPPORTED_PARAMS = {'gains': TREC_GAINS_PARAM}


@declare
class utility(TrecEvalMeasure):
    """
    utility: trec_eval's set utility, a weighted sum of the contingency table of one query,

        utility = rel_ret·a + nonrel_ret·b + rel_missed·c + nonrel_missed·d

    with a the relevant docs retrieved, b the other docs retrieved (unjudged ones included), c = R − a
    and d = num_docs + a − (docs retrieved) − R (trec_eval's ``-N``: the collection's size, default 0).
    Defaults 1, −1, 0, 0 (trec_eval's ``utility.1.0,-1.0,0.0,0.0``). Mean over queries. A query absent
    from the run scores c·R + d·(num_docs − R) here (its value on an empty ranking) where trec_eval ``-c``
    counts 0: they differ only for non-zero ``rel_missed``/``nonrel_missed``.

    .. cite:: trec_eval 9.0.8, m_utility.c.
    """
    PRETTY_NAME = 'Set utility (trec_eval utility)'
    SHORT_DESC = 'Weighted sum of the contingency table of the retrieved set.'
    SUPPORTED_PARAMS = {
        'rel_ret': Param(check_finite, dtype=float, default=1.0, desc='weight of each relevant doc retrieved'),
        'nonrel_ret': Param(check_finite, dtype=float, default=-1.0, desc='weight of each other doc retrieved'),
        'rel_missed': Param(check_finite, dtype=float, default=0.0, desc='weight of each relevant doc not retrieved'),
        'nonrel_missed': Param(check_finite, dtype=float, default=0.0,
                               desc='weight of each other doc of the collection not retrieved'),
        'num_docs': Param(integer_from(0), dtype=int, default=0, desc="docs in the collection (trec_eval's -N)"),
        'rel': REL_PARAM,
    }



@declare
class Rprec_mult(TrecEvalMeasure):
    """
    Rprec_mult@m: precision at rank c = int(m·R + 0.9) (trec_eval 9's truncation),
    ``|relevant in the top c| / c``; 0 where c = 0 (R = 0). ``Rprec_mult@1`` is R-precision. trec_eval's default
    multiples are 0.2, 0.4, ..., 2.0.

    .. cite:: trec_eval 9.0.8, m_Rprec_mult.c.
    """
    PRETTY_NAME = 'Precision at a multiple of R (trec_eval Rprec_mult)'
    SHORT_DESC = 'Precision at rank int(m·R + 0.9).'
    AT_PARAM = 'mult'
    SUPPORTED_PARAMS = {
        'mult': Param(check_non_negative, dtype=float, required=True,
                      desc='multiple m >= 0 of R giving the rank (required)'),
        'rel': REL_PARAM,
    }



@declare
class ndcg_rel(TrecEvalMeasure):
    """
    ndcg_rel: nDCG averaged over the relevant docs (trec_eval's experimental ``ndcg_rel``; relevant:
    gain > 0). With L the docs of positive gain in the qrels, DCG_k and IDCG_k as for ``Rndcg``
    (IDCG_min(k, L)) and n the docs retrieved:

        ndcg_rel = (Σ over retrieved docs of positive gain at rank k of DCG_k / IDCG_min(k, L)
                    + (L − those docs) · DCG_n / IDCG_L) / L

    (0 where L = 0). Gain = label, or ``gains[label]``. No relevance threshold.

    .. cite:: trec_eval 9.0.8, m_ndcg_rel.c.
    """
    PRETTY_NAME = 'nDCG averaged over relevant docs (trec_eval ndcg_rel)'
    SHORT_DESC = 'nDCG at each relevant doc, averaged over the relevant docs.'
    SUPPORTED_PARAMS = {'gains': TREC_GAINS_PARAM}


@declare
class relative_P(TrecEvalMeasure):
    """
    relative_P@k: ``|relevant in the top k| / min(k, R)`` (trec_eval's ``relative_P``, precision relative to
    the best possible at k); 0 where R = 0.

    .. cite:: trec_eval 9.0.8, m_rel_P.c.
    """
    PRETTY_NAME = 'Relative precision (trec_eval relative_P)'
    SHORT_DESC = 'Precision at k divided by the best possible precision at k.'
    SUPPORTED_PARAMS = {'cutoff': REQUIRED_CUTOFF_PARAM, 'rel': REL_PARAM}


@declare
class num_nonrel_judged_ret(TrecEvalMeasure):
    """
    num_nonrel_judged_ret: the retrieved docs judged non-relevant (qrels label from 0 to rel − 1); summed
    over queries, as trec_eval does.

    .. cite:: trec_eval 9.0.8, m_num_nonrel_judged_ret.c.
    """
    PRETTY_NAME = 'Judged non-relevant docs retrieved (trec_eval num_nonrel_judged_ret)'
    SHORT_DESC = 'Number of retrieved docs judged non-relevant.'
    SUPPORTED_PARAMS = {'rel': REL_PARAM}

    def aggregator(self) -> SumAgg:
        return SumAgg()
