"""The evaluator behind the ``irmeasures_ext`` provider: converts the qrels once, then ranks each
run once and runs every requested kernel on that ranking."""
from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from itertools import repeat
from typing import Any, NamedTuple

import numpy as np
from ir_measures import CalcResults, Metric, providers
from ir_measures.measures import Measure

from irmeasures_ext.engine import stream
from irmeasures_ext.engine.aggregates import aggregate
from irmeasures_ext.engine.intents import judgments_of_intents
from irmeasures_ext.engine.judgments import Judgments
from irmeasures_ext.engine.kernels import kernel_of
from irmeasures_ext.engine.kernels.common import KernelFunction
from irmeasures_ext.engine.query_ids import run_only_ids, warn_if_written_otherwise
from irmeasures_ext.engine.ranking import RankedRun, rank_input, rank_run
from irmeasures_ext.engine.relevance import computed_as, warn_if_unreached
from irmeasures_ext.engine.ties import scores_from_ranks
from irmeasures_ext.engine.transforms import CLASS_POLICIES, Transforms, apply_all, transforms_of
from irmeasures_ext.errors import (
    MeasureParamError,
    NoOverlapWarning,
    PartialsError,
    RepeatedJudgmentWarning,
    SingleIntentWarning,
    UnjudgedIntentWarning,
    ValueOverflowError,
    warn_at_caller,
)
from irmeasures_ext.measures.base import DEFAULT_RANKING, Ranking
from irmeasures_ext.readers.inputs import Input, read_input
from irmeasures_ext.readers.pieces import RunStream, streamed_or_whole
from irmeasures_ext.readers.schemas import layout_of


class Partial(NamedTuple):
    """The evaluation of pieces of a run that each hold whole queries (:meth:`ExtEvaluator.partial`, joined by
    :meth:`ExtEvaluator.merge`), in the evaluator's orders; only the queries answered are kept (plain arrays, to
    travel between processes: Dask's workers). It says which evaluator made it (``evaluator``) and which pieces
    it holds (``pieces``), so that ``merge`` and ``finished`` refuse what would give wrong values: a qrels query
    in two pieces (``held``), a partial of another evaluator, a piece merged twice."""

    queries: list[np.ndarray]    # per distinct list (``ExtEvaluator.list_keys``): the qrels queries it has docs for
    retrieved: list[np.ndarray]  # per distinct list: how many docs each of those queries retrieves
    values: list[np.ndarray]     # per measure: its value of each of its list's ``queries``
    retrieved_docs: int          # docs retrieved for qrels queries
    run_queries: int             # queries of the pieces (run-only ones too)
    held: np.ndarray             # the qrels queries the pieces have rows of, judged or not, each once per piece
    evaluator: str               # the fingerprint of the evaluator that made it (``ExtEvaluator.fingerprint``)
    pieces: tuple[str, ...]      # the identity of each piece in it (a random one per ``ExtEvaluator.partial``)
    run_only: tuple[str, ...]    # the pieces' query ids that the qrels do not have (for QueryIdFormWarning)


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
        #: Each measure as its kernel computes it: with its relevance threshold (:func:`.relevance.computed_as`).
        self.computed_as = {measure: computed_as(measure, ranking.rel, judgments) for measure in measures}
        #: Each measure's ranking and the transforms of its ranked list (:func:`.transforms.transforms_of`):
        #: measures that agree on both share one ranked, transformed run.
        self.lists: dict[Measure, tuple[Ranking, Transforms]] = {
            measure: (ranking, transforms_of(self.computed_as[measure], ranking, kernel_of(measure).credit,
                                             judgments))
            for measure, ranking in self.rankings.items()}
        #: Per measure, in order: its kernel function, its list's key and its judgments (its classes' with
        #: classes). Lists, not dicts: a measure of ir_measures hashes its whole repr each time.
        self._plan: list[tuple[Measure, KernelFunction, tuple[Ranking, Transforms], Judgments]] = []
        for measure, measure_ranking in self.rankings.items():
            # (classes: the class judgments now, and an InputError now for qrels without classes)
            measure_judgments = judgments.by_class() if measure_ranking.uses_classes(measure) else judgments
            thresholded = self.computed_as[measure]
            if (prepare := kernel_of(measure).prepare) is not None:
                prepare(thresholded, measure_judgments)
            function = kernel_of(measure).function(thresholded, measure_ranking.ties)
            if thresholded is not measure:
                function = functools.partial(_computing_as, thresholded, function)
            self._plan.append((measure, function, self.lists[measure], measure_judgments))

    def warn_about_the_qrels(self) -> None:
        """RepeatedJudgmentWarning for qrels lines repeated alike (counted once), naming the file and lines;
        UnreachedThresholdWarning where real-valued labels reach no measure's threshold; UnjudgedIntentWarning for
        intent probabilities of intents no qrels line judges."""
        if self.judgments.repeated is not None:
            warn_at_caller(self._qrels.describe(self.judgments.repeated), RepeatedJudgmentWarning)
        warn_if_unreached(self.computed_as, self.judgments)
        intents = self.judgments.intents
        if intents is not None and len(intents.query) and np.bincount(intents.query).max() == 1:
            names = ', '.join(str(measure) for measure in self.measures
                              if kernel_of(measure).needs_intents) or "the diversity measures (another provider's)"
            warn_at_caller(f'every query of the qrels has one intent (subtopic) only, so {names} measure no '
                           'diversity: are these diversity qrels (query_id, intent, doc_id, relevance: the TREC '
                           "file's second field the intent)?", SingleIntentWarning)
        unjudged = () if intents is None else intents.unjudged
        if unjudged:
            warn_at_caller(f'{unjudged[0]}: this intent has no qrels line ({len(unjudged)} such intent(s) listed '
                           "in the intent probabilities): NTCIREVAL's diversity measures skip an intent without a "
                           'relevant doc, and so do ours', UnjudgedIntentWarning)

    @functools.cached_property
    def qrel_qids(self) -> list[str]:  # type: ignore[override]  # (the base class's attribute, made when first read)
        """The qrels query ids, sorted (the order of every array of :meth:`values`)."""
        return self.judgments.query_ids.to_pylist()

    @functools.cached_property
    def reads_rank(self) -> bool:
        """Whether a measure ranks by the run's rank column (so the run must be read with it)."""
        return any(ranking.reads_rank for ranking in self.rankings.values())

    def values(self, run: Any) -> dict[Measure, np.ndarray]:
        """Per-query values of every measure, aligned with ``self.qrel_qids`` (sorted query ids); the
        run is ranked once per distinct ranking of the measures, and each ranked run transformed once per
        distinct list they need (:mod:`.transforms`). A large run is evaluated as it is read, in pieces of
        whole queries (:mod:`.stream`), through :meth:`partial`, :meth:`merge` and :meth:`finished`."""
        run = streamed_or_whole(run, self.reads_rank)
        if isinstance(run, RunStream):
            return self.finished(stream.in_whole_queries(
                run, lambda tables: self.merge(self.partial(Input(table, run.source)) for table in tables)),
                run.source.name)
        read = read_input(run, 'run', with_rank=self.reads_rank, dict_run=True)
        rankings = self.ranked(read)
        ranked = next(iter(rankings.values()), None)
        if ranked is not None:
            warn_if_written_otherwise(self.judgments, run_only_ids(self.judgments, read, ranked.n_retrieved,
                                                                   ranked.run_queries),
                                      np.flatnonzero(ranked.n_retrieved))
        return self._checked(self.computed(rankings), 0 if ranked is None else int(ranked.n_retrieved.sum()),
                             0 if ranked is None else ranked.run_queries, None if read.source is None else
                             read.source.name)

    def _checked(self, values: dict[Measure, np.ndarray], retrieved_docs: int,
                 run_queries: int, run_name: str | None = None) -> dict[Measure, np.ndarray]:
        """``values`` of a whole run (``run_name``: its file's, else None) that retrieves ``retrieved_docs`` for
        qrels queries among ``run_queries``, after the no-overlap warning and the overflow check."""
        if self.rankings:
            warn_if_no_overlap(self.judgments.n_queries, retrieved_docs, run_queries, run_name)
        self.check_overflow(values)
        return values

    @functools.cached_property
    def list_keys(self) -> list[tuple[Ranking, Transforms]]:
        """The distinct lists of the measures, in order (the order of :attr:`Partial.retrieved`)."""
        return list(dict.fromkeys(self.lists.values()))

    @functools.cached_property
    def fingerprint(self) -> str:
        """The fingerprint of what this evaluator computes (its qrels, measures and rankings: the same in every
        process, :mod:`.fingerprint`), which its partials carry: :meth:`merge` and :meth:`finished` refuse those of
        another evaluator."""
        from irmeasures_ext.engine.fingerprint import evaluator_fingerprint  # (hashlib: ~5 ms to import, for pieces)
        return evaluator_fingerprint(((measure, key, judgments) for measure, _, key, judgments in self._plan),
                                     self.judgments)

    def partial(self, run: Any) -> Partial:
        """The evaluation of ``run`` (any accepted form), one of the pieces of a run that each hold whole queries
        (every row of a query in one piece); :meth:`merge` joins the pieces' partials. Each call makes a new
        piece (its own identity), even of the same rows."""
        read = read_input(run, 'run', with_rank=self.reads_rank, dict_run=True)
        rankings = self.ranked(read)
        ranked = next(iter(rankings.values()), None)
        identity = (os.urandom(16).hex(),)
        if ranked is None:  # (no measure of ours: the run is still checked)
            return Partial([], [], [], 0, 0, np.empty(0, dtype=np.int64), self.fingerprint, identity, ())
        lists = self.lists_of(rankings)
        answered = {key: np.flatnonzero(lists[key].n_retrieved) for key in self.list_keys}
        values = self.kernel_values(lists)
        return Partial(list(answered.values()), [lists[key].n_retrieved[queries] for key, queries in answered.items()],
                       [values[measure][answered[key]] for measure, _, key, _ in self._plan],
                       int(ranked.n_retrieved.sum()), ranked.run_queries, np.flatnonzero(ranked.n_retrieved),
                       self.fingerprint, identity,
                       run_only_ids(self.judgments, read, ranked.n_retrieved, ranked.run_queries))

    def merge(self, partials: Iterable[Partial]) -> Partial:
        """The partials of pieces of one run (each query in one of them) as one. PartialsError for anything but
        partials of this evaluator, for a piece given twice (also within merged partials), and for a qrels
        query that two pieces have rows of (its value would be that of part of its rows)."""
        pieces = list(partials)
        for index, partial in enumerate(pieces):
            self._check_own(partial, f'merge: item {index}')
        identities = [identity for partial in pieces for identity in partial.pieces]
        if len(set(identities)) < len(identities):
            _refuse_repeated_piece(pieces)
        self._check_held([partial.held for partial in pieces], 'merge')
        with_lists = [partial for partial in pieces if partial.queries]

        def joined(field: str) -> list[np.ndarray]:
            columns = zip(*(getattr(partial, field) for partial in with_lists), strict=True)
            return [np.concatenate(column) for column in columns]

        return Partial(joined('queries'), joined('retrieved'), joined('values'),
                       sum(partial.retrieved_docs for partial in pieces),
                       sum(partial.run_queries for partial in pieces),
                       np.concatenate([np.empty(0, dtype=np.int64), *(partial.held for partial in pieces)]),
                       self.fingerprint, tuple(identities),
                       tuple(query_id for partial in pieces for query_id in partial.run_only))

    def answered(self, partial: Partial) -> dict[Measure, tuple[np.ndarray, np.ndarray]]:
        """Per measure, the qrels queries (positions in the sorted query ids) that ``partial`` answers (its list
        has docs for them), and its values of them. PartialsError for anything but a partial of this evaluator."""
        self._check_own(partial, 'answered: its partial')
        if not partial.queries:
            return {measure: (np.empty(0, dtype=np.int64), np.empty(0)) for measure in self.measures}
        queries = dict(zip(self.list_keys, partial.queries, strict=True))
        return {measure: (queries[key], values) for (measure, _, key, _), values in zip(self._plan, partial.values,
                                                                                          strict=True)}

    def finished(self, partial: Partial, run_name: str | None = None) -> dict[Measure, np.ndarray]:
        """Every measure's value of every qrels query from the merged partial of a whole run: where no piece has
        docs in the query's list, the value of a list without rows retrieving what the whole run retrieves for
        it (MeanRank's value of an unanswered query depends on the deepest query); checked as :meth:`values`.
        PartialsError for anything but a partial of this evaluator, and for one holding a qrels query twice."""
        self._check_own(partial, 'finished: its partial')
        self._check_held([partial.held], 'finished')
        lists = self.lists_of(self.ranked(Input(layout_of('run', self.reads_rank).schema.empty_table(), None)))
        if partial.queries:  # (else an empty run: no piece)
            for key, queries, retrieved in zip(self.list_keys, partial.queries, partial.retrieved, strict=True):
                n_retrieved = np.zeros(self.judgments.n_queries, dtype=np.int64)
                n_retrieved[queries] = retrieved
                lists[key] = lists[key].without_rows(n_retrieved, partial.run_queries)
        values = self.kernel_values(lists)
        for measure, (queries, their_values) in self.answered(partial).items():
            values[measure][queries] = their_values
        if self.rankings:
            warn_if_written_otherwise(self.judgments, partial.run_only, partial.held)
        return self._checked(values, partial.retrieved_docs, partial.run_queries, run_name)

    def _check_own(self, partial: Any, where: str) -> None:
        """PartialsError unless ``partial`` is a Partial made by this evaluator (or one of the same fingerprint)."""
        if not isinstance(partial, Partial):
            raise PartialsError(f'{where} is a {type(partial).__name__}, not a Partial (what ExtEvaluator.partial '
                                'returns and merge joins)')
        if partial.evaluator != self.fingerprint:
            raise PartialsError(f'{where} is a partial made by another evaluator (other qrels, measures, or ranking: '
                                'tie policy, score precision, depth): its values are of other queries or measures; '
                                'merge and finish the partials of a run with the evaluator that made them')

    def _check_held(self, held: list[np.ndarray], where: str) -> None:
        """PartialsError naming a qrels query that is in two of the pieces (``held``: each piece's qrels queries,
        positions in the sorted query ids): O(queries log queries), whatever the pieces' rows."""
        every = np.concatenate([np.empty(0, dtype=np.int64), *held])
        ordered = np.sort(every)
        repeated = ordered[1:][ordered[1:] == ordered[:-1]]
        if not len(repeated):
            return
        query = int(repeated[0])
        query_id = self.judgments.query_ids[query].as_py()
        owners = np.repeat(np.arange(len(held)), [len(queries) for queries in held])[every == query]
        others = int(np.count_nonzero(np.diff(repeated)))  # (the other queries repeated: ``repeated`` is sorted)
        where_found = (f'items {int(owners[0])} and {int(owners[1])}' if owners[0] != owners[1] else
                       f'item {int(owners[0])}, which holds it twice')
        raise PartialsError(f'{where}: query {query_id!r} is in two pieces ({where_found}'
                            f'{f"; {others} more such queries" if others else ""}): each piece must hold all the rows '
                            'of its queries, else a value is that of part of its ranking; cut the run between queries',
                            query_id)

    def ranked(self, run: Input) -> dict[Ranking, RankedRun]:
        """``run`` ranked by each distinct ranking of the measures (without measures of ours, it is
        still checked); a problem names its line."""
        with run.located():
            if not self.rankings:
                rank_input(run, self.judgments)
            return {ranking: self._ranked(run, ranking) for ranking in dict.fromkeys(self.rankings.values())}

    def _ranked(self, run: Input, ranking: Ranking) -> RankedRun:
        if ranking.reads_rank:
            return rank_run(scores_from_ranks(run.table), self.judgments, 'float64')
        return rank_input(run, self.judgments, ranking.score_precision)

    def computed(self, rankings: dict[Ranking, RankedRun]) -> dict[Measure, np.ndarray]:
        """Each measure's kernel values on its list of the ranked runs (unchecked: :meth:`check_overflow`)."""
        return self.kernel_values(self.lists_of(rankings))

    def lists_of(self, rankings: dict[Ranking, RankedRun]) -> dict[tuple[Ranking, Transforms], RankedRun]:
        """The distinct lists of the measures (``self.lists``' values): the ranked runs after their transforms."""
        return apply_all(rankings, dict.fromkeys(self.lists.values()))

    def kernel_values(self, lists: dict[tuple[Ranking, Transforms], RankedRun]) -> dict[Measure, np.ndarray]:
        """Each measure's kernel values on its list (numpy's own warnings are not printed)."""
        with self._qrels.located(), np.errstate(all='ignore'):
            return {measure: function(measure, lists[key]) for measure, function, key, _ in self._plan}

    def check_overflow(self, values: dict[Measure, np.ndarray]) -> None:
        """ValueOverflowError for values that overflow (huge labels, gains or beta), naming the first query
        it happens in and the doc of its highest label, never a silent inf or NaN."""
        if all(column.dtype.kind != 'f' or np.isfinite(column).all() for column in values.values()):
            return  # (the usual case, checked without hashing a measure: ir_measures hashes its repr)
        with self._qrels.located():
            for measure, _, _, judgments in self._plan:
                _check_overflow(measure, values[measure], judgments)

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


def _computing_as(thresholded: Measure, function: KernelFunction, measure: Measure, ranked: RankedRun) -> np.ndarray:
    """``function`` (a kernel's) computing ``measure`` as ``thresholded`` (:func:`.relevance.computed_as`)."""
    return function(thresholded, ranked)


def _refuse_repeated_piece(partials: list[Partial]) -> None:
    """PartialsError naming the items of ``partials`` that hold the same piece."""
    first: dict[str, int] = {}
    for index, partial in enumerate(partials):
        for identity in partial.pieces:
            if identity in first:
                which = (f'items {first[identity]} and {index} hold' if first[identity] != index else
                         f'item {index} holds')
                raise PartialsError(f'merge: a piece is merged twice ({which} the same piece): its queries would be '
                                    'counted twice; merge each partial of a run once')
            first[identity] = index


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


def _check_overflow(measure: Measure, values: np.ndarray, judgments: Judgments) -> None:
    kernel = kernel_of(measure)
    if values.dtype.kind == 'f' and not np.isfinite(values).all():
        overflow = np.isinf(values) if kernel.may_be_nan else ~np.isfinite(values)
        if overflow.any():
            query = int(np.argmax(overflow))
            query_id = judgments.query_ids[query].as_py()
            doc_id, label = judgments.highest_label(query)
            raise ValueOverflowError(f'{measure}: values overflow 64-bit floats in query {query_id!r} (labels, gains '
                                     f'or beta too large; its highest label: {label} for doc {doc_id!r})', 'qrels',
                                     query_id, doc_id)


def warn_if_no_overlap(n_queries: int, retrieved: int, run_queries: int, name: str | None = None) -> None:
    """NoOverlapWarning if the run (``run_queries`` queries; ``name``: its file's, which the message names, else
    None) retrieves nothing (``retrieved`` docs) for any of the ``n_queries`` qrels queries."""
    if not n_queries or retrieved:
        return
    detail = 'the run is empty' if not run_queries else (
        f'none of its {run_queries} queries is in the qrels: check the query ids')
    warn_at_caller(f'{"" if name is None else f"{name}: "}the run retrieves nothing for any of the {n_queries} '
                   f'qrels queries ({detail}); every measure takes its value for an unanswered query',
                   NoOverlapWarning)


def evaluator(measures: list[Measure], qrels: Any, ranking: Ranking = DEFAULT_RANKING,
              with_intents: bool = False) -> ExtEvaluator:
    """An evaluator of ``measures`` (already checked to be ours) for ``qrels`` in any accepted form,
    ranking runs by ``ranking`` (measures may choose their own); the qrels read with their intents where a
    measure needs them, or ``with_intents`` (for another provider's diversity measures beside)."""
    built = _unwarned_evaluator(measures, qrels, ranking, with_intents)
    built.warn_about_the_qrels()
    return built


def _unwarned_evaluator(measures: list[Measure], qrels: Any, ranking: Ranking,
                        with_intents: bool = False) -> ExtEvaluator:
    """:func:`evaluator` without its warnings, which must be given on the caller's thread."""
    rankings = {measure: ranking_of(measure, ranking) for measure in measures}  # (checked before reading)
    with_intents = with_intents or any(kernel_of(measure).needs_intents for measure in measures)
    qrels = read_input(qrels, 'qrels', with_intents=with_intents)
    with qrels.located():
        without_intents = [str(measure) for measure in measures if not kernel_of(measure).needs_intents]
        probabilities = getattr(qrels.source, 'probabilities', None)  # (an IntentQrels')
        judgments = (judgments_of_intents(qrels.table, without_intents, probabilities) if with_intents
                     else Judgments(qrels.table))
        return ExtEvaluator(list(rankings), judgments, qrels, ranking)


def evaluator_and_run(measures: list[Measure], qrels: Any, run: Any, ranking: Ranking = DEFAULT_RANKING,
                      with_intents: bool = False) -> tuple[ExtEvaluator, Input | RunStream]:
    """The evaluator and the run, read while the qrels are converted on another thread (for files, Arrow's
    reader releases the GIL, so the two overlap); a run to evaluate as it is read is not read here. The run
    is read on the calling thread, so that its warnings point at the caller; a problem of the qrels is
    reported before one of the run."""
    with_rank = any(ranking_of(measure, ranking).reads_rank for measure in measures)
    run = streamed_or_whole(run, with_rank)
    if isinstance(run, RunStream):  # (read as it is evaluated)
        return evaluator(measures, qrels, ranking, with_intents), run
    with ThreadPoolExecutor(1) as pool:
        building = pool.submit(_unwarned_evaluator, measures, qrels, ranking, with_intents)
        try:
            read = read_input(run, 'run', with_rank)
        except BaseException:
            building.result()
            raise
        built = building.result()
    built.warn_about_the_qrels()
    return built, read


