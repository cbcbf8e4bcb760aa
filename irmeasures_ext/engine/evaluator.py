"""The evaluator behind the ``irmeasures_ext`` provider: converts the qrels once (:class:`~.plan.Plan`), then ranks
each run once and runs every requested kernel on that ranking, a run read whole or, when large, as it is read
(:class:`~.pieces.Pieces`)."""
from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from itertools import repeat
from typing import Any

import numpy as np
from ir_measures import CalcResults, Metric, providers
from ir_measures.measures import Measure

from irmeasures_ext.engine.aggregates import aggregate
from irmeasures_ext.engine.intents import judgments_of
from irmeasures_ext.engine.judgments import Judgments
from irmeasures_ext.engine.kernels import kernel_of
from irmeasures_ext.engine.pieces import Partial, Pieces
from irmeasures_ext.engine.plan import Plan, ranking_of
from irmeasures_ext.measures.base import DEFAULT_RANKING, Ranking
from irmeasures_ext.readers.inputs import Input, read_input
from irmeasures_ext.readers.pieces import RunStream, streamed_or_whole

__all__ = ['ExtEvaluator', 'Partial', 'evaluator', 'evaluator_and_run', 'run_to_evaluate']


class ExtEvaluator(providers.Evaluator):
    """ir_measures' evaluator for the ``irmeasures_ext`` provider: the plan of its measures for the converted qrels
    (:attr:`plan`) and the pieces protocol of that plan (:attr:`pieces`: :meth:`partial`, :meth:`merge`,
    :meth:`finished`, as :mod:`irmeasures_ext.dask` uses them), behind ir_measures' interface.

    Every (measure, qrels query) pair gets a value, so the base class's bookkeeping of missing
    pairs (a Python set of all pairs) is skipped, and the query ids become Python strings only
    when asked for (``qrel_qids``).
    """

    def __init__(self, measures: list[Measure], judgments: Judgments, qrels: Input,
                 ranking: Ranking = DEFAULT_RANKING) -> None:
        # (no base __init__: see qrel_qids)
        self.plan = Plan(measures, judgments, qrels, ranking)
        self.pieces = Pieces(self.plan)
        self.measures = measures
        self.judgments = judgments
        self.qrels = qrels.table  # the qrels as read, for other providers evaluating beside this one

    @functools.cached_property
    def qrel_qids(self) -> list[str]:  # type: ignore[override]  # (the base class's attribute, made when first read)
        """The qrels query ids, sorted (the order of every array of :meth:`values`)."""
        return self.judgments.query_ids.to_pylist()

    @property
    def reads_rank(self) -> bool:
        """Whether a measure ranks by the run's rank column (so the run must be read with it)."""
        return self.plan.reads_rank

    @property
    def fingerprint(self) -> str:
        """The fingerprint of what this evaluator computes (:attr:`.Plan.fingerprint`)."""
        return self.plan.fingerprint

    def values(self, run: Any) -> dict[Measure, np.ndarray]:
        """Per-query values of every measure, aligned with ``self.qrel_qids`` (sorted query ids); the
        run is ranked once per distinct ranking of the measures, and each ranked run transformed once per
        distinct list they need (:mod:`.transforms`). A large run is evaluated as it is read, in pieces of
        whole queries (:func:`run_to_evaluate`)."""
        run = run_to_evaluate(run, self.reads_rank)
        if isinstance(run, RunStream):
            return self.pieces.streamed(run)
        return self.plan.whole_run_values(run)

    def partial(self, run: Any) -> Partial:
        """The evaluation of ``run``, one of the pieces of a run that each hold whole queries
        (:meth:`.Pieces.partial`)."""
        return self.pieces.partial(run)

    def merge(self, partials: Iterable[Partial]) -> Partial:
        """The partials of pieces of one run as one (:meth:`.Pieces.merge`)."""
        return self.pieces.merge(partials)

    def answered(self, partial: Partial) -> dict[Measure, tuple[np.ndarray, np.ndarray]]:
        """Per measure, the qrels queries ``partial`` answers and its values of them (:meth:`.Pieces.answered`)."""
        return self.pieces.answered(partial)

    def finished(self, partial: Partial, run_name: str | None = None) -> dict[Measure, np.ndarray]:
        """Every measure's value of every qrels query from the merged partial of a whole run
        (:meth:`.Pieces.finished`)."""
        return self.pieces.finished(partial, run_name)

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


def run_to_evaluate(run: Any, with_rank: bool, whole: bool = False) -> Input | RunStream:
    """How ``run`` (any accepted form) is evaluated, decided in this one place: a :class:`RunStream` of a large
    run, to evaluate as it is read (:func:`~irmeasures_ext.readers.pieces.streamed_or_whole`), unless ``whole``
    (another provider needs the whole run); else read whole (a small dict-of-dict kept as it is: ``DictRun``)."""
    if whole:
        run = run.source if isinstance(run, RunStream) else run
    else:
        run = streamed_or_whole(run, with_rank)
        if isinstance(run, RunStream):
            return run
    return read_input(run, 'run', with_rank=with_rank, dict_run=True)


def evaluator(measures: list[Measure], qrels: Any, ranking: Ranking = DEFAULT_RANKING,
              with_intents: bool = False) -> ExtEvaluator:
    """An evaluator of ``measures`` (already checked to be ours) for ``qrels`` in any accepted form,
    ranking runs by ``ranking`` (measures may choose their own); the qrels read with their intents where a
    measure needs them, or ``with_intents`` (for another provider's diversity measures beside)."""
    built = _unwarned_evaluator(measures, qrels, ranking, with_intents)
    built.plan.warn_about_the_qrels()
    return built


def _unwarned_evaluator(measures: list[Measure], qrels: Any, ranking: Ranking,
                        with_intents: bool = False) -> ExtEvaluator:
    """:func:`evaluator` without its warnings, which must be given on the caller's thread."""
    rankings = {measure: ranking_of(measure, ranking) for measure in measures}  # (checked before reading)
    with_intents = with_intents or any(kernel_of(measure).needs_intents for measure in measures)
    qrels = read_input(qrels, 'qrels', with_intents=with_intents)
    without_intents = [str(measure) for measure in measures if not kernel_of(measure).needs_intents]
    with qrels.located():
        return ExtEvaluator(list(rankings), judgments_of(qrels, with_intents, without_intents), qrels, ranking)


def evaluator_and_run(measures: list[Measure], qrels: Any, run: Any, ranking: Ranking = DEFAULT_RANKING,
                      with_intents: bool = False, whole: bool = False) -> tuple[ExtEvaluator, Input | RunStream]:
    """The evaluator and the run to evaluate (:func:`run_to_evaluate`), read while the qrels are converted on
    another thread (for files, Arrow's reader releases the GIL, so the two overlap); a run to evaluate as it is
    read is not read here. The run is read on the calling thread, so that its warnings point at the caller; a
    problem of the qrels is reported before one of the run."""
    with_rank = any(ranking_of(measure, ranking).reads_rank for measure in measures)
    if not whole and isinstance(run := streamed_or_whole(run, with_rank), RunStream):  # (read as it is evaluated)
        return evaluator(measures, qrels, ranking, with_intents), run
    with ThreadPoolExecutor(1) as pool:
        building = pool.submit(_unwarned_evaluator, measures, qrels, ranking, with_intents)
        try:
            read = run_to_evaluate(run, with_rank, whole=True)
        except BaseException:
            building.result()
            raise
        built = building.result()
    built.plan.warn_about_the_qrels()
    return built, read
