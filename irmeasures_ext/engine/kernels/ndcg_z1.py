"""Kernel of QuoteR's NDCG@K with Z = 1 (declared in ``irmeasures_ext.measures.ndcg_z1``)."""
from __future__ import annotations

import numpy as np
from ir_measures import measures as irm

from irmeasures_ext.engine.kernels.common import expected_dcg, kernel, mapped_gain
from irmeasures_ext.engine.ranking import RankedRun
from irmeasures_ext.measures.base import optional_param


def _gain(measure: irm.Measure, labels: np.ndarray) -> np.ndarray:
    """2^label - 1 (or ``gains[label]``) for labels >= rel, else 0: also the credit by which
    optimistic/pessimistic order tied docs (a DCG is largest with the gains in descending order)."""
    relevant = labels >= measure['rel']
    exponential = np.exp2(np.where(relevant, labels, 0)) - 1
    return mapped_gain(labels, relevant, optional_param(measure, 'gains'), exponential)


def expected_dcg_z1(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """E[nDCG_Z1@k] over the orderings of each tie group."""
    return expected_dcg(ranked, _gain(measure, ranked.label), lambda rank: np.log2(rank + 1), measure['cutoff'])


@kernel('nDCG_Z1', expected=expected_dcg_z1, credit=_gain)
def dcg_z1(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """nDCG_Z1@k per query (see :class:`irmeasures_ext.measures.ndcg_z1.nDCG_Z1`)."""
    top = ranked.top(measure['cutoff'])
    return top.per_query_sum(_gain(measure, top.label) / np.log2(top.rank + 1))
