"""Per-query values of any measures: ours from our engine, the others from ir_measures' providers.

Used by the command line and :mod:`irmeasures_ext.frames`. Either way the inputs are read and
checked by our readers and engine (duplicate docs, conflicting qrels labels, non-finite scores).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import ir_measures
import numpy as np
import pyarrow as pa
from ir_measures.measures import Measure

from irmeasures_ext._arrow.arrays import to_numpy
from irmeasures_ext.engine.aggregates import aggregate
from irmeasures_ext.engine.evaluator import ExtEvaluator, evaluator, evaluator_and_run, run_to_evaluate
from irmeasures_ext.engine.kernels import kernel_of
from irmeasures_ext.errors import InputError, IrMeasuresExtError, MeasureParamError
from irmeasures_ext.measures.base import check_measure
from irmeasures_ext.readers.inputs import Input, as_dict_of_dict, as_intent_qrels
from irmeasures_ext.readers.pieces import RunStream
from irmeasures_ext.readers.schemas import REAL_LABEL

if TYPE_CHECKING:
    from irmeasures_ext.plugin import IrMeasuresExtProvider

#: trec_eval (behind ir_measures' pytrec_eval provider) zeroes (largest label + 1) label counters per query:
#: for a query judged only with labels at most this, a negative size, which crashes the process (SIGSEGV)
#: once another query was evaluated, and gives wrong values when it comes first.
TREC_EVAL_CRASHING_LABEL = -2
#: Query ids named in a message, at most.
MAX_NAMED = 10


@dataclass(frozen=True)
class Results:
    """Per-query values of each measure, aligned with ``query_ids`` (the qrels queries, sorted)."""

    query_ids: pa.Array
    values: dict[Measure, np.ndarray]

    def aggregates(self) -> dict[Measure, float]:
        """Each measure's aggregate (mean, median, sum: its own aggregator)."""
        return {measure: aggregate(measure, values) for measure, values in self.values.items()}


class Evaluation:
    """Evaluates ``measures`` for any number of runs against one qrels, read and converted once
    (:meth:`read_qrels`).

    With ``provider=None``, ``ext_provider`` (our provider, as configured: its tie policy and score precision
    rank the runs, its depth cuts them) computes the measures it supports (``ext_measures``) and ir_measures'
    ``DefaultPipeline`` the rest (``other_measures``);
    otherwise the named ir_measures provider computes all of them. Raises
    :class:`~irmeasures_ext.errors.InputError` for bad input and
    :class:`~irmeasures_ext.errors.MeasureParamError` for invalid measures.
    """

    def __init__(self, measures: list[Measure], ext_provider: IrMeasuresExtProvider,
                 provider: str | None = None) -> None:
        self.measures = list(dict.fromkeys(measures))
        for measure in self.measures:
            check_measure(measure)
        self.other: ir_measures.providers.Provider
        if provider is None:
            self.ext_measures = [m for m in self.measures if ext_provider.supports(m)]
            self.other = ir_measures.DefaultPipeline
        else:
            self.other = named_provider(provider, self.measures)
            self.ext_measures = self.measures if self.other.NAME == ext_provider.NAME else []
        self.other_measures = [m for m in self.measures if m not in self.ext_measures]
        for measure in self.other_measures:
            if not self.other.supports(measure):
                providers = [ext_provider, *self._other_providers]
                raise MeasureParamError(f'{measure}: {why_unsupported(measure, providers)}')
        self.ext_name = ext_provider.NAME
        self._ext_supports = ext_provider.supports
        self.ranking = ext_provider.ranking()
        if self.ranking.depth is not None and self.other_measures:
            raise MeasureParamError(f'the depth cut (depth={self.ranking.depth}) applies to the measures the '
                                    f'{ext_provider.NAME} provider computes; not to '
                                    f'{" ".join(map(str, self.other_measures))}')
        if self.ranking.classes and self.other_measures:
            raise MeasureParamError(f'equivalence classes (classes=True) apply to the measures the {ext_provider.NAME} '
                                    f'provider computes; not to {" ".join(map(str, self.other_measures))}')
        self.built: ExtEvaluator | None = None

    def read_qrels(self, qrels: Any, run: Any = None) -> Input | RunStream | None:
        """Reads and converts the qrels (in any accepted form); with ``run``, also reads it meanwhile
        and returns it (or the stream to evaluate it as it is read: :func:`~.engine.evaluator.run_to_evaluate`). Our
        evaluator is built even without measures of ours: it checks both inputs."""
        if run is None:
            self.built = evaluator(self.ext_measures, qrels, self.ranking, self._others_need_intents)
        else:
            self.built, run = evaluator_and_run(self.ext_measures, qrels, run, self.ranking,
                                                self._others_need_intents, whole=bool(self.other_measures))
        self._check_others_take_the_labels(self.built.qrels)
        return run

    def _check_others_take_the_labels(self, qrels: pa.Table) -> None:
        """InputError naming the measures of other providers when the qrels have real-valued labels, which
        ir_measures' providers read as integers (pytrec_eval refuses them, trec_eval truncates them)."""
        if self.other_measures and qrels.schema.field('relevance').type == REAL_LABEL:
            labels = to_numpy(qrels['relevance'])
            row = int(np.argmax(labels != np.floor(labels)))
            doc_id, query_id = (qrels[column][row].as_py() for column in ('doc_id', 'query_id'))
            raise InputError(
                f'the qrels have real-valued labels (e.g. {float(labels[row])!r} for doc {doc_id!r} in query '
                f'{query_id!r}), which only the {self.ext_name} provider computes with; '
                + '; '.join(f'{measure} would go to {self._provider_of(measure).NAME}'
                            for measure in self.other_measures)
                + ', which reads integer labels')

    @property
    def _others_need_intents(self) -> bool:
        """Whether a measure of another provider is one our provider computes from the qrels' intents (a
        diversity measure, e.g. pyndeval's): the qrels are then read, checked and given to it with intents."""
        return any(self._ext_supports(measure) and kernel_of(measure).needs_intents for measure in self.other_measures)

    @property
    def _other_providers(self) -> list[ir_measures.providers.Provider]:
        """The providers ``self.other`` tries in order: the default pipeline's, or the named one."""
        return getattr(self.other, 'providers', [self.other])

    def _provider_of(self, measure: Measure) -> ir_measures.providers.Provider:
        """The provider that computes one of ``self.other_measures`` (there is one: checked in ``__init__``)."""
        return next(p for p in self._other_providers if p.is_available() and p.supports(measure))

    def results(self, run: Any) -> Results:
        """Per-query values of every measure for ``run`` (any accepted form)."""
        built = self.built
        if built is None:
            raise RuntimeError('Evaluation.results() before read_qrels()')
        run = run_to_evaluate(run, built.reads_rank, whole=bool(self.other_measures))  # (others need it whole)
        values = built.values(run)
        if self.other_measures:
            assert isinstance(run, Input)  # (read whole: run_to_evaluate)
            self._check_trec_eval_can_evaluate(built.qrels, run.table)
            position = {query_id: i for i, query_id in enumerate(built.qrel_qids)}
            theirs = {measure: np.full(len(position), float(measure.DEFAULT)) for measure in self.other_measures}
            qrels = (as_intent_qrels(built.qrels) if self._others_need_intents
                     else as_dict_of_dict(built.qrels, 'relevance'))
            run_docs = as_dict_of_dict(run.table, 'score')
            for metric in self.other.evaluator(self.other_measures, qrels).iter_calc(run_docs):
                theirs[metric.measure][position[metric.query_id]] = metric.value
            values.update(theirs)
        return Results(built.judgments.query_ids, {measure: values[measure] for measure in self.measures})

    def _check_trec_eval_can_evaluate(self, qrels: pa.Table, run: pa.Table) -> None:
        """InputError where pytrec_eval would compute measures on queries it cannot evaluate (it would crash)."""
        via_trec_eval = [str(m) for m in self.other_measures if self._provider_of(m).NAME == 'pytrec_eval']
        crashing = queries_trec_eval_cannot_evaluate(qrels, run) if via_trec_eval else []
        if crashing:
            raise InputError(
                f'{len(crashing)} of the queries ({listed(crashing)}) are judged only with labels <= '
                f'{TREC_EVAL_CRASHING_LABEL}, which pytrec_eval (computing {" ".join(via_trec_eval)} here) cannot '
                'evaluate: trec_eval sizes its label counts by the largest label + 1 and crashes; leave those '
                f'queries out, or ask only for measures the {self.ext_name} provider computes')


def queries_trec_eval_cannot_evaluate(qrels: pa.Table, run: pa.Table) -> list[str]:
    """The run's queries that the qrels judge only with labels <= TREC_EVAL_CRASHING_LABEL, sorted."""
    import pyarrow.compute as pc  # (off the default path: only where ir_measures' providers compute)
    highest = qrels.group_by('query_id').aggregate([('relevance', 'max')])
    crashing = highest.filter(pc.less_equal(highest['relevance_max'], TREC_EVAL_CRASHING_LABEL))['query_id']
    return sorted(set(crashing.to_pylist()) & set(pc.unique(run['query_id']).to_pylist()))


def why_unsupported(measure: Measure, providers: list[ir_measures.providers.Provider]) -> str:
    """Why none of ``providers`` computes ``measure``: the parameters every provider of its name requires, the
    providers that would compute it once installed, or that none computes it with these parameters."""
    specs = [(provider, spec) for provider in providers for spec in provider.SUPPORTED_MEASURES
             if spec.NAME == measure.NAME]
    required = [{name for name, value in spec.params.items() if getattr(value, 'required', False)}
                for _, spec in specs]
    missing = sorted(set.intersection(*required) - set(measure.params)) if required else []
    if missing:
        return f'parameter(s) {", ".join(missing)} required, e.g. {measure.NAME}({missing[0]}=...)'
    to_install = [provider for provider, _ in specs if not provider.is_available() and provider.supports(measure)]
    if to_install:
        return 'computed by ' + ' or '.join(dict.fromkeys(f'{provider.NAME}, which is not installed '
                                                          f'({provider.install_instructions() or "?"})'
                                                          for provider in to_install))
    return 'no installed provider computes it with these parameters'


def listed(query_ids: list[str]) -> str:
    """'q1 q2 ...', at most MAX_NAMED of them, then 'and N more'."""
    more = f' and {len(query_ids) - MAX_NAMED} more' if len(query_ids) > MAX_NAMED else ''
    return ' '.join(query_ids[:MAX_NAMED]) + more


def evaluate(measures: list[Measure], qrels: Any, run: Any, ext_provider: IrMeasuresExtProvider,
             provider: str | None = None) -> Results:
    """Per-query values of ``measures`` for every qrels query (see :class:`Evaluation`)."""
    evaluation = Evaluation(measures, ext_provider, provider)
    return evaluation.results(evaluation.read_qrels(qrels, run))


def named_provider(name: str, measures: list[Measure]) -> ir_measures.providers.Provider:
    """The ir_measures provider called ``name``, checked to be available and to support ``measures``."""
    known = ir_measures.providers.registry
    if name not in known:
        raise IrMeasuresExtError(f'unknown provider {name!r}; known: {", ".join(sorted(known))}')
    provider = known[name]
    if not provider.is_available():
        raise IrMeasuresExtError(f'provider {name} is not available: {provider.install_instructions() or "?"}')
    unsupported = [str(m) for m in measures if not provider.supports(m)]
    if unsupported:
        raise MeasureParamError(f'provider {name} does not support measure(s) {" ".join(unsupported)}')
    return provider
