"""Kernel of MeanRank, MedianRank and RankVariance (declared in ``irmeasures_ext.measures.rank_stats``): each
query's rank of its first relevant doc; the measures differ in their aggregate."""
from __future__ import annotations

import numpy as np
from ir_measures import measures as irm

from irmeasures_ext.engine.kernels.common import kernel
from irmeasures_ext.engine.ranking import RankedRun
from irmeasures_ext.engine.ties import RelevantGroups


def expected_first_relevant_rank(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """E[rank of the first relevant doc] over the orderings of each tie group: the first group holding
    relevant docs, at positions s .. s+g-1 with r relevant, gives s + (g - r) / (r + 1) (the mean
    smallest of r random offsets among g); unretrieved: as :func:`first_relevant_rank`."""
    groups = RelevantGroups.of(ranked, ranked.relevant(measure['rel']))
    queries, first = groups.first_of_each_query()
    rank = first_relevant_rank(measure, ranked)
    g, r = groups.size[first], groups.relevant[first]
    rank[queries] = groups.start[first] + (g - r) / (r + 1)
    return rank


def first_relevant_rank(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """Rank of the first relevant doc per query, by the rules of ``measures.rank_stats._MeanRank``."""
    first = ranked.first_relevant_rank(measure['rel']).astype(np.float64)
    candidates = ranked.n_retrieved.astype(np.float64)
    depth = candidates.max(initial=0)  # the most docs a query of the qrels retrieved (run-only queries ignored)
    candidates[candidates == 0] = depth if depth else np.nan
    return np.where(first > 0, first, candidates + 1)


for _name in ('MeanRank', 'MedianRank', 'RankVariance'):
    kernel(_name, may_be_nan=True, expected=expected_first_relevant_rank)(first_relevant_rank)
