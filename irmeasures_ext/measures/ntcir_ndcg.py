"""NTCIREVAL's two nDCG variants: the original Järvelin-Kekäläinen nDCG and Microsoft's nDCG."""
from __future__ import annotations

from typing import Any

from ir_measures import measures as irm

from irmeasures_ext.errors import MeasureParamError
from irmeasures_ext.measures.base import GAINS_PARAM, REL_PARAM, REQUIRED_CUTOFF_PARAM, ExtMeasure, Param, declare

_PARAMS: dict[str, irm.ParamInfo] = {
    'cutoff': REQUIRED_CUTOFF_PARAM,
    'gains': GAINS_PARAM,
    'rel': REL_PARAM,
}


def _check_logb(measure_name: str, name: str, value: Any) -> float:
    """``value`` as a float if it is 0 (natural log) or a finite number > 1, else MeasureParamError."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not (value == 0 or 1 < value < float('inf')):
        raise MeasureParamError(f'{measure_name}: {name} must be 0 (natural log) or a finite number > 1, got {value!r}')
    return float(value)


@declare
class nDCG_JK(ExtMeasure):
    """
    The original nDCG@k of Järvelin and Kekäläinen, as NTCIREVAL computes its "nDCG":

        DCG@k = Σ_{r≤k} g(r) / d(r),    nDCG_JK@k = DCG@k / ideal DCG@k

    with d(r) = 1 for r <= max(1, b), else log_b r, for the log base b = ``logb`` (NTCIREVAL's
    ``-logb``, default 2: ranks 1 and 2 are not discounted); ``logb=0`` is NTCIREVAL's natural log,
    d(r) = ln r from rank 2 (which weighs 1/ln 2 > 1). Gains as in ``Q``: the label of a relevant doc,
    or ``gains[label]``; the ideal list holds the qrels' relevant docs sorted by gain.

    Differs from ir_measures' ``nDCG`` (trec_eval's ndcg), which discounts every rank by
    1/log2(r + 1); see ``MSnDCG`` for that form with NTCIREVAL's gains.

    .. cite:: Kalervo Järvelin and Jaana Kekäläinen. Cumulated gain-based evaluation of IR
       techniques. ACM TOIS 20(4), 2002.
    .. cite:: Tetsuya Sakai. NTCIREVAL (version 190111), http://research.nii.ac.jp/ntcir/tools/ntcireval-en.html
    """
    PRETTY_NAME = 'nDCG (Järvelin-Kekäläinen, NTCIREVAL)'
    SHORT_DESC = 'Original nDCG with discount max(1, log2 r), as NTCIREVAL computes it.'
    SUPPORTED_PARAMS = {
        **_PARAMS,
        'logb': Param(_check_logb, dtype=float, default=2.0,
                      desc='log base b > 1 of the discount (ranks up to b are not discounted), or 0 for ln'),
    }


@declare
class MSnDCG(ExtMeasure):
    """
    "Microsoft" nDCG@k (Burges et al.), as NTCIREVAL computes its "MSnDCG":

        DCG@k = Σ_{r≤k} g(r) / log2(r + 1),    MSnDCG@k = DCG@k / ideal DCG@k

    with NTCIREVAL's gains (the label of a relevant doc, or ``gains[label]``, e.g.
    ``gains={1:1,2:3,3:7}`` for 2^l - 1). With linear gains it equals ir_measures' ``nDCG@k``
    (trec_eval ndcg_cut) except that trec_eval's ideal list also admits labels below ``rel``.

    .. cite:: Chris Burges et al. Learning to Rank using Gradient Descent. ICML 2005.
    .. cite:: Tetsuya Sakai. NTCIREVAL (version 190111), http://research.nii.ac.jp/ntcir/tools/ntcireval-en.html
    """
    PRETTY_NAME = 'Microsoft nDCG (NTCIREVAL)'
    SHORT_DESC = 'nDCG with discount 1/log2(r+1) and NTCIREVAL gains.'
    SUPPORTED_PARAMS = _PARAMS
