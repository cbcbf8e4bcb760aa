"""What an evaluator computes for its qrels, worked out once: each measure's ranking, the list it is computed on
and its kernel; then, for a run read whole or a piece of one, the run ranked once per distinct ranking and every
kernel run on its list."""
from __future__ import annotations

import functools

import numpy as np
from ir_measures.measures import Measure

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
    RepeatedJudgmentWarning,
    SingleIntentWarning,
    UnjudgedIntentWarning,
    ValueOverflowError,
    warn_at_caller,
)
from irmeasures_ext.measures.base import DEFAULT_RANKING, Ranking
from irmeasures_ext.readers.inputs import Input

#: A measure's list: the ranking of the run and the transforms of the ranked list (:mod:`.transforms`).
ListKey = tuple[Ranking, Transforms]


class Plan:
    """The measures' plan for one qrels (converted: ``judgments``; as read: ``qrels``, naming the line of a
    problem): measures that agree on their ranking share one ranked run, and those that agree on its transforms
    too share one list."""

    def __init__(self, measures: list[Measure], judgments: Judgments, qrels: Input,
                 ranking: Ranking = DEFAULT_RANKING) -> None:
        self.measures = measures
        self.judgments = judgments
        self.qrels = qrels
        #: Each measure's ranking: the provider's, or the measure's own ``ties``/``score_precision``.
        self.measure_rankings = {measure: ranking_of(measure, ranking) for measure in measures}
        #: Each measure as its kernel computes it: with its relevance threshold (:func:`.relevance.computed_as`).
        self.computed_as = {measure: computed_as(measure, ranking.rel, judgments) for measure in measures}
        #: Each measure's ranking and the transforms of its ranked list (:func:`.transforms.transforms_of`):
        #: measures that agree on both share one ranked, transformed run.
        self.lists: dict[Measure, ListKey] = {
            measure: (ranking, transforms_of(self.computed_as[measure], ranking, kernel_of(measure).credit,
                                             judgments))
            for measure, ranking in self.measure_rankings.items()}
        #: Per measure, in order: its kernel function, its list's key and its judgments (its classes' with
        #: classes). Lists, not dicts: a measure of ir_measures hashes its whole repr each time.
        self.steps: list[tuple[Measure, KernelFunction, ListKey, Judgments]] = []
        for measure, measure_ranking in self.measure_rankings.items():
            # (classes: the class judgments now, and an InputError now for qrels without classes)
            measure_judgments = judgments.by_class() if measure_ranking.uses_classes(measure) else judgments
            thresholded = self.computed_as[measure]
            if (prepare := kernel_of(measure).prepare) is not None:
                prepare(thresholded, measure_judgments)
            function = kernel_of(measure).function(thresholded, measure_ranking.ties)
            if thresholded is not measure:
                function = functools.partial(_computing_as, thresholded, function)
            self.steps.append((measure, function, self.lists[measure], measure_judgments))

    def warn_about_the_qrels(self) -> None:
        """RepeatedJudgmentWarning for qrels lines repeated alike (counted once), naming the file and lines;
        UnreachedThresholdWarning where real-valued labels reach no measure's threshold; UnjudgedIntentWarning for
        intent probabilities of intents no qrels line judges."""
        if self.judgments.repeated is not None:
            warn_at_caller(self.qrels.describe(self.judgments.repeated), RepeatedJudgmentWarning)
        warn_if_unreached(self.computed_as, self.judgments)
        intents = self.judgments.intents
        if intents is not None and len(intents.query) and np.bincount(intents.query).max() == 1:
            name = None if self.qrels.source is None else self.qrels.source.name
            qrels = '' if name is None else f'{name}: '  # (the qrels' file, where they are one)
            names = ', '.join(str(measure) for measure in self.measures
                              if kernel_of(measure).needs_intents) or "the diversity measures (another provider's)"
            warn_at_caller(f'{qrels}every query of the qrels has one intent (subtopic) only, so {names} measure no '
                           'diversity: are these diversity qrels (query_id, intent, doc_id, relevance: the TREC '
                           "file's second field the intent)?", SingleIntentWarning)
        unjudged = () if intents is None else intents.unjudged
        if unjudged:
            warn_at_caller(f'{unjudged[0]}: this intent has no qrels line ({len(unjudged)} such intent(s) listed '
                           "in the intent probabilities): NTCIREVAL's diversity measures skip an intent without a "
                           'relevant doc, and so do ours', UnjudgedIntentWarning)

    @functools.cached_property
    def reads_rank(self) -> bool:
        """Whether a measure ranks by the run's rank column (so the run must be read with it)."""
        return any(ranking.reads_rank for ranking in self.measure_rankings.values())

    @functools.cached_property
    def list_keys(self) -> list[ListKey]:
        """The distinct lists of the measures, in order (the order of :attr:`.pieces.Partial.retrieved`)."""
        return list(dict.fromkeys(self.lists.values()))

    @functools.cached_property
    def fingerprint(self) -> str:
        """The fingerprint of what this plan computes (its qrels, measures and rankings: the same in every
        process, :mod:`.fingerprint`), which the partials of its pieces carry (:mod:`.pieces`)."""
        from irmeasures_ext.engine.fingerprint import evaluator_fingerprint  # (hashlib: ~5 ms to import, for pieces)
        return evaluator_fingerprint(((measure, key, judgments) for measure, _, key, judgments in self.steps),
                                     self.judgments)

    def whole_run_values(self, read: Input) -> dict[Measure, np.ndarray]:
        """Per-query values of every measure for a whole run ``read``, aligned with the sorted qrels query ids,
        checked (:meth:`checked`), after the warning for query ids written otherwise than the qrels'."""
        rankings = self.ranked(read)
        ranked = next(iter(rankings.values()), None)
        if ranked is not None:
            warn_if_written_otherwise(self.judgments, run_only_ids(self.judgments, read, ranked.n_retrieved,
                                                                   ranked.run_queries),
                                      np.flatnonzero(ranked.n_retrieved))
        return self.checked(self.computed(rankings), 0 if ranked is None else int(ranked.n_retrieved.sum()),
                            0 if ranked is None else ranked.run_queries, None if read.source is None else
                            read.source.name)

    def checked(self, values: dict[Measure, np.ndarray], retrieved_docs: int,
                run_queries: int, run_name: str | None = None) -> dict[Measure, np.ndarray]:
        """``values`` of a whole run (``run_name``: its file's, else None) that retrieves ``retrieved_docs`` for
        qrels queries among ``run_queries``, after the no-overlap warning and the overflow check."""
        if self.measure_rankings:
            warn_if_no_overlap(self.judgments.n_queries, retrieved_docs, run_queries, run_name)
        self.check_overflow(values)
        return values

    def ranked(self, run: Input) -> dict[Ranking, RankedRun]:
        """``run`` ranked by each distinct ranking of the measures (without measures of ours, it is
        still checked); a problem names its line."""
        with run.located():
            if not self.measure_rankings:
                rank_input(run, self.judgments)
            return {ranking: self._ranked(run, ranking) for ranking in dict.fromkeys(self.measure_rankings.values())}

    def _ranked(self, run: Input, ranking: Ranking) -> RankedRun:
        if ranking.reads_rank:
            return rank_run(scores_from_ranks(run.table), self.judgments, 'float64')
        return rank_input(run, self.judgments, ranking.score_precision)

    def computed(self, rankings: dict[Ranking, RankedRun]) -> dict[Measure, np.ndarray]:
        """Each measure's kernel values on its list of the ranked runs (unchecked: :meth:`check_overflow`)."""
        return self.kernel_values(self.lists_of(rankings))

    def lists_of(self, rankings: dict[Ranking, RankedRun]) -> dict[ListKey, RankedRun]:
        """The distinct lists of the measures (``self.lists``' values): the ranked runs after their transforms."""
        return apply_all(rankings, dict.fromkeys(self.lists.values()))

    def kernel_values(self, lists: dict[ListKey, RankedRun]) -> dict[Measure, np.ndarray]:
        """Each measure's kernel values on its list (numpy's own warnings are not printed)."""
        with self.qrels.located(), np.errstate(all='ignore'):
            return {measure: function(measure, lists[key]) for measure, function, key, _ in self.steps}

    def check_overflow(self, values: dict[Measure, np.ndarray]) -> None:
        """ValueOverflowError for values that overflow (huge labels, gains or beta), naming the first query
        it happens in and the doc of its highest label, never a silent inf or NaN."""
        if all(column.dtype.kind != 'f' or np.isfinite(column).all() for column in values.values()):
            return  # (the usual case, checked without hashing a measure: ir_measures hashes its repr)
        with self.qrels.located():
            for measure, _, _, judgments in self.steps:
                _check_overflow(measure, values[measure], judgments)


def _computing_as(thresholded: Measure, function: KernelFunction, measure: Measure, ranked: RankedRun) -> np.ndarray:
    """``function`` (a kernel's) computing ``measure`` as ``thresholded`` (:func:`.relevance.computed_as`)."""
    return function(thresholded, ranked)


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
