"""Kernel of MeanRank and MedianRank (declared in ``irmeasures_ext.measures.rank_stats``)."""
from __future__ import annotations

import numpy as np
from ir_measures import measures as irm

from irmeasures_ext.engine.kernels.common import kernel
from irmeasures_ext.engine.ranking import RankedRun


def first_relevant_rank(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """Rank of the first relevant doc per query, by the rules of ``measures.rank_stats._MeanRank``."""
    first = ranked.first_relevant_rank(measure['rel']).astype(np.float64)
    candidates = ranked.n_retrieved.astype(np.float64)
    candidates[candidates == 0] = ranked.depth if ranked.depth else np.nan
    return np.where(first > 0, first, candidates + 1)


kernel('MeanRank', may_be_nan=True)(first_relevant_rank)
kernel('MedianRank', may_be_nan=True)(first_relevant_rank)
