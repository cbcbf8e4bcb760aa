"""QuoteR's NDCG@K with the normalisation constant fixed at Z = 1."""
from __future__ import annotations

from irmeasures_ext.measures.base import REL_PARAM, REQUIRED_CUTOFF_PARAM, ExtMeasure, Param, declare, gains_check


@declare
class nDCG_Z1(ExtMeasure):
    """
    NDCG@k with normaliser Z_k = 1, as reported by the QuoteR paper:

        nDCG_Z1@k = Σ_{i=1..k} (2^{r(i)} − 1) / log2(i + 1)

    where r(i) is the relevance label of the doc at rank i (0 for unjudged docs and for labels
    below ``rel``); ``gains`` replaces 2^r − 1 for the labels it lists. With exactly one
    relevant doc of label 1 per query (QuoteR), it is 1/log2(rank + 1) if the gold doc is
    within the top k, else 0, i.e. the standard nDCG@k. With graded or several relevant docs
    it is **not** normalised and can exceed 1; use ``nDCG@k`` for normalised DCG.
    The cutoff is required.

    .. cite:: Fanchao Qi, Yanhui Yang, Jing Yi, Zhili Cheng, Zhiyuan Liu, Maosong Sun. QuoteR: A
       Benchmark of Quote Recommendation for Writing. ACL 2022.
    .. cite:: Kalervo Järvelin and Jaana Kekäläinen. Cumulated gain-based evaluation of IR
       techniques. ACM TOIS 20(4), 2002.
    """
    PRETTY_NAME = 'DCG with Z=1 (QuoteR NDCG)'
    SHORT_DESC = 'Discounted cumulative gain with exponential gain 2^rel-1 and a normaliser fixed at 1.'
    SUPPORTED_PARAMS = {
        'cutoff': REQUIRED_CUTOFF_PARAM,
        'gains': Param(gains_check, dtype=dict,
                       desc='gain per relevance label, replacing 2^label-1 for the labels given'),
        'rel': REL_PARAM,
    }
