"""Rank of the first relevant document, aggregated by mean (MeanRank), median (MedianRank) and
variance (RankVariance)."""
from __future__ import annotations

from typing import Any

from ir_measures import measures as irm

from irmeasures_ext.measures.base import REL_PARAM, ExtMeasure, declare


class _CollectingAgg(irm.base.Agg):
    """Keeps every per-query value; ``result`` is :meth:`of` them (NaN when there are none).

    ``of`` is the aggregator's one computation, vectorised over the last axis of a numpy array (the
    engine and run comparisons call it on arrays); numpy is imported when it is first called, since
    declarations import only ir_measures.
    """

    def __init__(self) -> None:
        self.values: list[float] = []

    def add(self, value: float) -> None:
        self.values.append(value)

    def result(self) -> float:
        import numpy as np
        return self.of(np.array(self.values, dtype=np.float64)).item()

    @staticmethod
    def of(values: Any) -> Any:
        raise NotImplementedError


class MedianAgg(_CollectingAgg):
    """Median of the per-query values (the mean of the two middle ones for an even count; NaN when there
    are none)."""

    @staticmethod
    def of(values: Any) -> Any:
        """The median along the last axis (NaN where a value is), by partitioning: ``np.median`` imports
        numpy.ma when first called (benchmarks/README.md, "Speed tricks")."""
        import numpy as np
        count = values.shape[-1]
        if not count:
            return np.full(values.shape[:-1], np.nan)[()]
        half = count // 2
        middle = np.partition(values, [half - 1, half] if count % 2 == 0 else half, axis=-1)
        median = middle[..., half] if count % 2 else (middle[..., half - 1] + middle[..., half]) / 2
        return np.where(np.isnan(values).any(axis=-1), np.nan, median)[()]


class VarianceAgg(_CollectingAgg):
    """Population variance of the per-query values (NaN when there are none)."""

    @staticmethod
    def of(values: Any) -> Any:
        """The population variance along the last axis."""
        import numpy as np
        return values.var(axis=-1) if values.shape[-1] else np.full(values.shape[:-1], np.nan)[()]


#: trec_eval's floor of a value before its logarithm in a geometric mean (MIN_GEO_MEAN in trec_eval.h).
MIN_GEO_MEAN = 1e-5


class GeometricMeanAgg(_CollectingAgg):
    """trec_eval's geometric mean of the per-query values (gm_map, gm_bpref): exp of the mean of
    log(max(value, 1e-5)), so that a value of 0 counts as 1e-5 (NaN when there are none)."""

    @staticmethod
    def of(values: Any) -> Any:
        """The geometric mean along the last axis, each value floored at :data:`MIN_GEO_MEAN`."""
        import numpy as np
        if not values.shape[-1]:
            return np.full(values.shape[:-1], np.nan)[()]
        return np.exp(np.log(np.maximum(values, MIN_GEO_MEAN)).mean(axis=-1))


class _FirstRelevantRank(ExtMeasure):
    LOWER_IS_BETTER = True
    SUPPORTED_PARAMS = {'rel': REL_PARAM}


@declare
class MeanRank(_FirstRelevantRank):
    """
    Mean Rank: the 1-based rank of the first relevant doc of each query, averaged over queries.
    **Lower is better.**

    A query whose relevant doc is not retrieved gets rank n + 1, with n its number of
    candidates (retrieved docs): the doc is taken to sit right after the last candidate.
    A query of the qrels that is absent from the run (or retrieves nothing) gets 1 + the
    largest candidate count of any qrels query in the run (as if it had a full candidate list
    with the relevant doc last); queries only in the run are ignored. A run that retrieves
    nothing for any qrels query has no such count: its queries get NaN, never a best value.

    .. cite:: Fanchao Qi et al. QuoteR: A Benchmark of Quote Recommendation for Writing. ACL 2022
       (reports the mean rank of the gold quote).
    """
    PRETTY_NAME = 'Mean rank of the first relevant document'
    SHORT_DESC = 'Rank of the first relevant document, averaged over queries (lower is better).'


@declare
class MedianRank(_FirstRelevantRank):
    """
    Median Rank: the 1-based rank of the first relevant doc of each query (defined as for
    :class:`MeanRank`), aggregated by the **median** over queries. **Lower is better.**

    .. cite:: Fanchao Qi et al. QuoteR: A Benchmark of Quote Recommendation for Writing. ACL 2022
       (reports the median rank of the gold quote).
    """
    PRETTY_NAME = 'Median rank of the first relevant document'
    SHORT_DESC = 'Rank of the first relevant document, median over queries (lower is better).'

    def aggregator(self) -> MedianAgg:
        return MedianAgg()


@declare
class RankVariance(_FirstRelevantRank):
    """
    Rank Variance: the 1-based rank of the first relevant doc of each query (defined as for
    :class:`MeanRank`), aggregated by the population **variance** over queries,
    Σ (rank - mean)² / n. **Lower is better** (the ranks spread less).

    QuoteR's official script prints, under the name "Variance", ``np.std`` of the 0-based
    ranks: the square root of this value (the variance does not depend on the base).

    .. cite:: Fanchao Qi et al. QuoteR: A Benchmark of Quote Recommendation for Writing. ACL 2022
       (reports the rank variance of the gold quote).
    """
    PRETTY_NAME = 'Variance of the rank of the first relevant document'
    SHORT_DESC = 'Rank of the first relevant document, variance over queries (lower is better).'

    def aggregator(self) -> VarianceAgg:
        return VarianceAgg()
