"""Rank of the first relevant document, aggregated by mean (MeanRank) and median (MedianRank)."""
from __future__ import annotations

from ir_measures import measures as irm

from irmeasures_ext.measures.base import REL_PARAM, ExtMeasure, declare


class MedianAgg(irm.base.Agg):
    """Median of the per-query values (NaN when there are none)."""

    def __init__(self) -> None:
        self.values: list[float] = []

    def add(self, value: float) -> None:
        self.values.append(value)

    def result(self) -> float:
        # Plain Python: declarations import only ir_measures (the engine takes medians of arrays itself).
        if not self.values:
            return float('nan')
        ordered, middle = sorted(self.values), len(self.values) // 2
        return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


class _FirstRelevantRank(ExtMeasure):
    SUPPORTED_PARAMS = {
        'rel': REL_PARAM,
    }


class _MeanRank(_FirstRelevantRank):
    """
    Mean Rank: the 1-based rank of the first relevant doc of each query, averaged over queries.
    **Lower is better.**

    A query whose relevant doc is not retrieved gets rank n + 1, with n its number of
    candidates (retrieved docs): the doc is taken to sit right after the last candidate.
    A query of the qrels that is absent from the run (or retrieves nothing) gets 1 + the
    largest candidate count of any query in the run, run-only queries included (as if it had
    a full candidate list with the relevant doc last). A run that retrieves nothing at all has
    no such count: its queries get NaN, never a best value.

    .. cite:: Fanchao Qi et al. QuoteR: A Benchmark of Quote Recommendation for Writing. ACL 2022
       (reports the mean rank of the gold quote).
    """
    __name__ = 'MeanRank'
    NAME = __name__
    PRETTY_NAME = 'Mean rank of the first relevant document'
    SHORT_DESC = 'Rank of the first relevant document, averaged over queries (lower is better).'


class _MedianRank(_FirstRelevantRank):
    """
    Median Rank: the 1-based rank of the first relevant doc of each query (defined as for
    :class:`MeanRank`), aggregated by the **median** over queries. **Lower is better.**

    .. cite:: Fanchao Qi et al. QuoteR: A Benchmark of Quote Recommendation for Writing. ACL 2022
       (reports the median rank of the gold quote).
    """
    __name__ = 'MedianRank'
    NAME = __name__
    PRETTY_NAME = 'Median rank of the first relevant document'
    SHORT_DESC = 'Rank of the first relevant document, median over queries (lower is better).'

    def aggregator(self) -> MedianAgg:
        return MedianAgg()



MeanRank = declare(_MeanRank())
MedianRank = declare(_MedianRank())
