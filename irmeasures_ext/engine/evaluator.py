"""The evaluator behind the ``irmeasures_ext`` provider: converts the qrels once, then ranks each
run once and runs every requested kernel on that ranking."""
from __future__ import annotations

import functools
import warnings
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from itertools import repeat
from typing import Any

import numpy as np
from ir_measures import CalcResults, Metric, providers
from ir_measures.measures import Measure

from irmeasures_ext.engine.aggregates import aggregate
from irmeasures_ext.engine.judgments import Judgments
from irmeasures_ext.engine.kernels import kernel_of
from irmeasures_ext.engine.ranking import RankedRun, rank_run
from irmeasures_ext.engine.ties import scores_from_ranks
from irmeasures_ext.engine.transforms import CLASS_POLICIES, Transforms, apply_all, transforms_of
from irmeasures_ext.errors import MeasureParamError, NoOverlapWarning, ValueOverflowError
from irmeasures_ext.measures.base import DEFAULT_RANKING, Ranking
from irmeasures_ext.readers.inputs import Input, read_input


class ExtEvaluator(providers.Evaluator):
    """Holds the converted qrels; ranks each run once and runs every kernel on it.

    Every (measure, qrels query) pair gets a value, so the base class's bookkeeping of missing
    pairs (a Python set of all pairs) is skipped, and the query ids become Python strings only
    when asked for (``qrel_qids``).
    """

    def __init__(self, measures: list[Measure], judgments: Judgments, qrels: Input,
                 ranking: Ranking = DEFAULT_RANKING) -> None:
        # (no base __init__: see qrel_qids)
        self.measures = measures
        self.judgments = judgments
        self.qrels = qrels.table  # the qrels as read, for other providers evaluating beside this one
        self._qrels = qrels  # (and the file they were read from, naming the line of a problem)
        #: Each measure's ranking: the provider's, or the measure's own ``ties``/``score_precision``.
        self.rankings = {measure: ranking_of(measure, ranking) for measure in measures}
        #: Each measure's ranking and the transforms of its ranked list (:func:`.transforms.transforms_of`):
        #: measures that agree on both share one ranked, transformed run.
        self.lists: dict[Measure, tuple[Ranking, Transforms]] = {
            measure: (ranking, transforms_of(measure, ranking, kernel_of(measure).credit, judgments))
            for measure, ranking in self.rankings.items()}
        for measure, measure_ranking in self.rankings.items():
            # (classes: the class judgments now, and an InputError now for qrels without classes)
            measure_judgments = judgments.by_class() if measure_ranking.uses_classes(measure) else judgments
            if (prepare := kernel_of(measure).prepare) is not None:
                prepare(measure, measure_judgments)

    @functools.cached_property
    def qrel_qids(self) -> list[str]:  # type: ignore[override]  # (the base class's attribute, made when first read)
        """The qrels query ids, sorted (the order of every array of :meth:`values`)."""
        return self.judgments.query_ids.to_pylist()

    @property
    def reads_rank(self) -> bool:
        """Whether a measure ranks by the run's rank column (so the run must be read with it)."""
        return any(ranking.reads_rank for ranking in self.rankings.values())

    def values(self, run: Any) -> dict[Measure, np.ndarray]:
        """Per-query values of every measure, aligned with ``self.qrel_qids`` (sorted query ids)."""
        return self.values_of(self.ranked_lists(run))

    def ranked_lists(self, run: Any) -> dict[tuple[Ranking, Transforms], RankedRun]:
        """The run ranked once per distinct ranking of the measures, and each ranked run transformed once
        per distinct list they need (:mod:`.transforms`): ``measure``'s list is the one under
        ``self.lists[measure]``."""
        run = read_input(run, 'run', with_rank=self.reads_rank)
        rankings = {ranking: self._ranked(run, ranking) for ranking in dict.fromkeys(self.rankings.values())}
        if rankings and self.judgments.n_queries and not next(iter(rankings.values())).n_retrieved.any():
            ranked = next(iter(rankings.values()))
            warn_no_overlap(ranked.n_queries, ranked.run_queries, stacklevel=5)
        elif not rankings:  # no measure of ours: the run is still checked
            with run.located():
                rank_run(run.table, self.judgments)
        return apply_all(rankings, dict.fromkeys(self.lists.values()))

    def values_of(self, lists: dict[tuple[Ranking, Transforms], RankedRun]) -> dict[Measure, np.ndarray]:
        """Per-query values of every measure from the :meth:`ranked_lists` of a run."""
        with self._qrels.located():
            return {measure: _computed(measure, lists[self.lists[measure]], self.rankings[measure])
                    for measure in self.measures}

    def _ranked(self, run: Input, ranking: Ranking) -> RankedRun:
        with run.located():
            if ranking.reads_rank:
                return rank_run(scores_from_ranks(run.table), self.judgments, 'float64')
            return rank_run(run.table, self.judgments, ranking.precision)

    def iter_calc(self, run: Any) -> Iterator[Metric]:
        return self._iter_calc(run)

    def _iter_calc(self, run: Any) -> Iterator[Metric]:
        for measure, values in self.values(run).items():
            yield from map(Metric, self.qrel_qids, repeat(measure), values.tolist())

    def calc_aggregate(self, run: Any) -> dict[Measure, float]:
        return {measure: aggregate(measure, values) for measure, values in self.values(run).items()}

    def calc(self, run: Any) -> CalcResults:
        values = self.values(run)
        metrics = [Metric(query_id, measure, value) for measure, column in values.items()
                   for query_id, value in zip(self.qrel_qids, column.tolist(), strict=True)]
        return CalcResults({measure: aggregate(measure, column) for measure, column in values.items()}, metrics)


def ranking_of(measure: Measure, default: Ranking) -> Ranking:
    """The measure's ranking (its ``ties``/``score_precision`` parameters, else ``default``), checked to
    have a kernel: MeasureParamError for a measure with no exact expected value, for ties='expected' with a
    depth cut (the docs of a tie group that straddles the cut would depend on the ordering), and for classes
    under a tie policy that orders tied docs by their labels."""
    ranking = default.of(measure)
    kernel_of(measure).function(measure, ranking.ties)
    if ranking.ties == 'expected' and ranking.depth is not None:
        raise MeasureParamError(f"{measure}: ties='expected' cannot be combined with a depth cut (depth="
                                f'{ranking.depth}): choose another tie policy or no depth')
    if ranking.uses_classes(measure) and ranking.ties not in CLASS_POLICIES:
        raise MeasureParamError(f'{measure}: classes=True needs ties={" or ties=".join(CLASS_POLICIES)}, not '
                                f'ties={ranking.ties}: which member of a class is retrieved first depends on how '
                                'tied docs are ordered')
    return ranking


def _computed(measure: Measure, ranked: RankedRun, ranking: Ranking) -> np.ndarray:
    """The kernel's values, checked: an overflow (huge labels, gains or beta) is a ValueOverflowError
    naming the first query it happens in and the doc of its highest label, never a silent inf or NaN
    (and numpy's own warnings are not printed)."""
    kernel = kernel_of(measure)
    compute = kernel.function(measure, ranking.ties)
    with np.errstate(all='ignore'):
        values = compute(measure, ranked)
    if values.dtype.kind == 'f' and not np.isfinite(values).all():
        overflow = np.isinf(values) if kernel.may_be_nan else ~np.isfinite(values)
        if overflow.any():
            query = int(np.argmax(overflow))
            query_id = ranked.judgments.query_ids[query].as_py()
            doc_id, label = ranked.judgments.highest_label(query)
            raise ValueOverflowError(f'{measure}: values overflow 64-bit floats in query {query_id!r} (labels, gains '
                                     f'or beta too large; its highest label: {label} for doc {doc_id!r})', 'qrels',
                                     query_id, doc_id)
    return values


def warn_no_overlap(n_queries: int, run_queries: int, stacklevel: int) -> None:
    """NoOverlapWarning: a run of ``run_queries`` queries retrieves nothing for any of the ``n_queries``
    qrels queries."""
    detail = 'the run is empty' if not run_queries else (
        f'none of its {run_queries} queries is in the qrels: check the query ids')
    warnings.warn(f'the run retrieves nothing for any of the {n_queries} qrels queries ({detail}); every measure '
                  'takes its value for an unanswered query', NoOverlapWarning, stacklevel=stacklevel)


def evaluator(measures: list[Measure], qrels: Any, ranking: Ranking = DEFAULT_RANKING) -> ExtEvaluator:
    """An evaluator of ``measures`` (already checked to be ours) for ``qrels`` in any accepted form,
    ranking runs by ``ranking`` (measures may choose their own)."""
    rankings = {measure: ranking_of(measure, ranking) for measure in measures}  # (checked before reading)
    qrels = read_input(qrels, 'qrels')
    with qrels.located():
        return ExtEvaluator(list(rankings), Judgments(qrels.table), qrels, ranking)


def evaluator_and_run(measures: list[Measure], qrels: Any, run: Any,
                      ranking: Ranking = DEFAULT_RANKING) -> tuple[ExtEvaluator, Input]:
    """The evaluator and the run, read while the qrels are converted (for files, Arrow's reader
    releases the GIL, so the two overlap)."""
    with_rank = any(ranking_of(measure, ranking).reads_rank for measure in measures)
    with ThreadPoolExecutor(1) as pool:
        read = pool.submit(read_input, run, 'run', with_rank)
        return evaluator(measures, qrels, ranking), read.result()


