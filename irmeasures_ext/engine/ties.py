"""Tie policies: how the documents of a query that share a score are ordered, and the exact expected
value of a measure over every ordering of each group of tied documents.

- ``trec_eval`` (default): doc_id descending (trec_eval's rule; :mod:`.ranking`).
- ``optimistic`` / ``pessimistic``: within each tie group, the documents the measure credits most
  first / last (unjudged documents count below every label): the best / worst the run could be
  credited with. The credit is the measure's (its kernel's ``credit``: e.g. relevant documents by
  gain, then the others), or the label for measures whose credit grows with it (binary relevance).
  The reordering is a transform of the ranked list (:func:`.transforms.reorder`).
- ``expected``: the mean of the measure over all orderings of each tie group (McSherry & Najork,
  ECIR 2008), computed exactly by the kernels' ``expected`` functions from the helpers below.
- ``rank``: the run's rank column, ascending, instead of the scores.

Scores tie when equal as float32 (trec_eval 9 and pytrec_eval) or as float64 (trec_eval 10).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from irmeasures_ext._arrow import compute as ac
from irmeasures_ext.engine.ranking import RankedRun
from irmeasures_ext.engine.segments import expand, offset_cumsum, run_starts, segment_sum
from irmeasures_ext.errors import EqualRankError


def scores_from_ranks(run: pa.Table) -> pa.Table:
    """The run with ``-rank`` as its score (policy ``rank``); EqualRankError for two docs of a query with
    the same rank."""
    ranks = run['rank']
    pairs = pa.table({'query_id': run['query_id'], 'rank': ranks}).group_by(['query_id', 'rank']).aggregate(
        [([], 'count_all')])
    if pairs.num_rows != run.num_rows:
        repeated = pairs.filter(ac.greater(pairs['count_all'], 1)).slice(0, 1).to_pylist()[0]
        mask = ac.and_(ac.equal(run['query_id'], repeated['query_id']), ac.equal(ranks, repeated['rank']))
        doc_ids = run.filter(mask)['doc_id'].to_pylist()
        raise EqualRankError(f'docs {doc_ids[0]!r} and {doc_ids[1]!r} of query {repeated["query_id"]!r} have the '
                             f'same rank {repeated["rank"]}: tie policy "rank" needs distinct ranks', 'run',
                             repeated['query_id'], doc_ids[1])
    return run.set_column(run.schema.get_field_index('score'), 'score', ac.negate(ac.cast(ranks, pa.float64())))


def group_ids(query: np.ndarray, tie_start: np.ndarray) -> np.ndarray:
    """A tie group number per row (rows grouped by query, then by tie group), from 0."""
    new = run_starts(query, tie_start)
    return np.cumsum(new) - 1


def expected_position_weight(ranked: RankedRun, weight: np.ndarray, cutoff: np.ndarray | int | None) -> np.ndarray:
    """Per judged row, the mean over the positions of its tie group of ``weight[position]`` (positions
    beyond ``cutoff`` weigh 0): the expected weight of its position when the group is ordered at
    random. ``weight`` is indexed by 1-based position (``weight[0]`` unused)."""
    cumulative = np.cumsum(weight) - weight[0]  # cumulative[p]: Σ weight[1 .. p]
    last = ranked.tie_start + ranked.tie_size - 1
    if cutoff is not None:
        last = np.minimum(last, cutoff)
    inside = np.where(last >= ranked.tie_start, cumulative[np.maximum(last, 0)] - cumulative[ranked.tie_start - 1],
                      0.0)
    return inside / ranked.tie_size


def positions(ranked: RankedRun) -> np.ndarray:
    """0, 1, 2, ... up to the deepest position of any tie group: an index for ``weight`` tables."""
    deepest = int((ranked.tie_start + ranked.tie_size).max(initial=1))
    return np.arange(deepest, dtype=np.float64)


@dataclass(frozen=True)
class RelevantGroups:
    """The tie groups holding relevant documents, in ranking order: per group its query, first
    position, size, number of relevant documents, their total gain, and the relevant documents and
    gain of the query ranked before the group."""

    query: np.ndarray
    start: np.ndarray
    size: np.ndarray
    relevant: np.ndarray
    gain: np.ndarray
    relevant_before: np.ndarray
    gain_before: np.ndarray

    @classmethod
    def of(cls, ranked: RankedRun, relevant: np.ndarray, gain: np.ndarray | None = None) -> RelevantGroups:
        query, tie_start, tie_size = ranked.query[relevant], ranked.tie_start[relevant], ranked.tie_size[relevant]
        group = group_ids(query, tie_start)
        first = np.flatnonzero(run_starts(group))
        n = len(first)
        count = np.bincount(group, minlength=n).astype(np.float64)
        total = segment_sum(np.zeros(len(group)) if gain is None else gain[relevant], group, n)
        group_query = query[first]
        return cls(group_query, tie_start[first], tie_size[first], count, total,
                   _before(count, group_query), _before(total, group_query))

    def first_of_each_query(self) -> tuple[np.ndarray, np.ndarray]:
        """(queries that have a relevant group, index of their first relevant group)."""
        leads = np.flatnonzero(run_starts(self.query))
        return self.query[leads], leads


def _before(values: np.ndarray, query: np.ndarray) -> np.ndarray:
    """Per group, the sum of ``values`` over the earlier groups of its query."""
    starts = np.flatnonzero(run_starts(query))
    offset = np.arange(len(query)) - np.repeat(starts, np.diff(np.append(starts, len(query))))
    return offset_cumsum(values, offset) - values


def first_relevant_offset_distribution(size: np.ndarray, relevant: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                                                          np.ndarray]:
    """For groups of ``size`` documents of which ``relevant`` are relevant, ordered at random: per
    possible offset j of the first relevant document (0 .. size - relevant), its owner group, j and
    P(offset = j) = C(size - 1 - j, relevant - 1) / C(size, relevant)."""
    owner, offset = expand(size - relevant + 1)
    g, r = size[owner].astype(np.float64), relevant[owner].astype(np.float64)
    # P(0) = r / g; P(j + 1) / P(j) = (g - r - j) / (g - 1 - j): cumulated as logs within each owner.
    step = np.where(offset > 0, np.log(np.maximum(g - r - offset + 1, 1e-300)) - np.log(np.maximum(g - offset, 1e-300)),
                    np.log(r / g))
    return owner, offset, np.exp(offset_cumsum(step, offset))
