"""The ``irmeasures_ext`` provider: every supported measure from one ranking of the run."""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pyarrow as pa
from ir_measures import Metric, providers
from ir_measures.measures import Measure

from irmeasures_ext.errors import MeasureParamError
from irmeasures_ext.measures import KERNELS
from irmeasures_ext.ranking import Judgments, RankedRun, rank_run
from irmeasures_ext.tables import as_qrels_table, as_run_table


class IrMeasuresExtProvider(providers.Provider):
    """
    irmeasures_ext: Q-measure, nDCG_Z1, MeanRank/MedianRank and the trec_eval measures the seed
    papers report (AP, AP@k, P@k, R@k, Success@k, RR, RR@k, Rprec, nDCG, nDCG@k, NumRel, NumRet),
    computed in vectorised passes over one ranking of the run. Ties are broken as trec_eval
    does (score descending, then doc_id descending), for every measure, including ``RR@k``.
    """
    NAME = 'irmeasures_ext'
    SUPPORTED_MEASURES = [k.spec for k in KERNELS.values()]

    def _evaluator(self, measures: Iterable[Measure], qrels) -> IrMeasuresExtEvaluator:
        measures = list(measures)
        for measure in measures:
            measure.validate_params()
            if not self.supports(measure):
                raise MeasureParamError(f'provider {self.NAME} does not support measure {measure}')
        return IrMeasuresExtEvaluator(measures, Judgments(as_qrels_table(qrels)))

    def _iter_calc(self, measures: Iterable[Measure], qrels, run) -> Iterator[Metric]:
        evaluator, run = self._evaluator_and_run(measures, qrels, run)
        return evaluator.iter_calc(run)

    def calc_aggregate(self, measures: Iterable[Measure], qrels, run) -> dict[Measure, float]:
        evaluator, run = self._evaluator_and_run(measures, qrels, run)
        return evaluator.calc_aggregate(run)

    def _evaluator_and_run(self, measures: Iterable[Measure], qrels, run) -> tuple[IrMeasuresExtEvaluator, pa.Table]:
        """The evaluator and the run as a table, the run read while the qrels are converted
        (for files, Arrow's reader releases the GIL, so the two overlap)."""
        with ThreadPoolExecutor(1) as pool:
            run_table = pool.submit(as_run_table, run)
            evaluator = self.evaluator(measures, qrels)
            return evaluator, run_table.result()


class IrMeasuresExtEvaluator(providers.Evaluator):
    """Holds the converted qrels; ranks each run once and runs every kernel on it."""

    def __init__(self, measures: list[Measure], judgments: Judgments) -> None:
        super().__init__(measures, judgments.query_ids.to_pylist())
        self.judgments = judgments
        for measure in measures:
            if (prepare := KERNELS[measure.NAME].prepare) is not None:
                prepare(measure, judgments)

    def values(self, run) -> dict[Measure, np.ndarray]:
        """Per-query values of every measure, aligned with ``self.qrel_qids``."""
        ranked: RankedRun = rank_run(as_run_table(run), self.judgments)
        return {measure: KERNELS[measure.NAME].compute(measure, ranked) for measure in self.measures}

    def _iter_calc(self, run) -> Iterator[Metric]:
        for measure, values in self.values(run).items():
            for query_id, value in zip(self.qrel_qids, values.tolist(), strict=True):
                yield Metric(query_id=query_id, measure=measure, value=value)

    def calc_aggregate(self, run) -> dict[Measure, float]:
        return {measure: aggregate(measure, values.tolist()) for measure, values in self.values(run).items()}


def aggregate(measure: Measure, values: Iterable[float]) -> float:
    """Aggregates per-query values with the measure's own aggregator (mean, median, sum, ...)."""
    aggregator = measure.aggregator()
    for value in values:
        aggregator.add(value)
    return aggregator.result()


provider = IrMeasuresExtProvider()
