"""Kernel of QuoteR's NDCG@K with Z = 1 (declared in ``irmeasures_ext.measures.ndcg_z1``)."""
from __future__ import annotations

import numpy as np
from ir_measures import measures as irm

from irmeasures_ext.engine.kernels.common import kernel, mapped_gain
from irmeasures_ext.engine.ranking import RankedRun
from irmeasures_ext.measures.base import optional_param


@kernel('nDCG_Z1')
def dcg_z1(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """nDCG_Z1@k per query (see :class:`irmeasures_ext.measures.ndcg_z1._nDCG_Z1`)."""
    top = ranked.top(measure['cutoff'])
    relevant = top.relevant(max(measure['rel'], 1))
    exponential = np.exp2(np.where(relevant, top.label, 0)) - 1
    gain = mapped_gain(top.label, relevant, optional_param(measure, 'gains'), exponential)
    return top.per_query_sum(gain / np.log2(top.rank + 1))
