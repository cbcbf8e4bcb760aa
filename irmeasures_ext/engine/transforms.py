"""Ranked-list transforms: the stage between ranking a run (:mod:`.ranking`) and running the kernels.

trec_eval and NTCIREVAL define some measures on a transformed list: the tied documents reordered by a
tie policy, the condensed list (unjudged documents removed), a depth cut, equivalence classes. Each
transform here is a function from one :class:`RankedRun` to another; a measure's list is its ranked run
after the transforms its tie policy and its parameters ask for (:func:`transforms_of`), and the kernels
never know which ran. The evaluator computes each distinct transformed run once (:func:`apply_all`), and
a measure without a transform gets the ranked run itself, not a copy.

Adding a transform: a function ``(RankedRun, *args) -> RankedRun`` and its entry in :data:`BY_PARAMETER`
(the parameter a measure asks for it with; the depth cut is the ranking's, not a measure's).
"""
from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import numpy as np
from ir_measures.measures import Measure

from irmeasures_ext.engine.judgments import UNJUDGED, Judgments
from irmeasures_ext.engine.kernels.common import kernel_of
from irmeasures_ext.engine.ranking import RankedRun
from irmeasures_ext.engine.segments import run_starts
from irmeasures_ext.engine.ties import group_ids
from irmeasures_ext.errors import MeasureParamError
from irmeasures_ext.measures.base import ExtMeasure, Ranking
from irmeasures_ext.readers.schemas import CLASS_COLUMN

K = TypeVar('K', bound=Hashable)

#: The tie policies that reorder each tie group by the measure's credit (:func:`reorder`).
REORDERING = ('optimistic', 'pessimistic')


@dataclass(frozen=True)
class Transform:
    """One step of the stage: ``function(ranked, *args)``. Steps with the same function and arguments
    are equal, so measures asking for the same steps share their result."""

    function: Callable[..., RankedRun]
    args: tuple[Hashable, ...] = ()

    def __call__(self, ranked: RankedRun) -> RankedRun:
        return self.function(ranked, *self.args)


Transforms = tuple[Transform, ...]


def condensed(ranked: RankedRun, lowest_judged: int | None = None) -> RankedRun:
    """The condensed list: the run without its unjudged documents (and, given ``lowest_judged``, without
    those labelled below it), the others ranked 1, 2, ... in the same order, each tie group holding its
    documents that are kept.

    None is NTCIREVAL's ``label -j`` (every document of the qrels is kept); 0 is trec_eval's ``-J``
    (ir_measures' ``judged_only=True``), which takes a negative qrels label for "in the pool, not
    judged" and drops its document too.
    """
    keep = ranked.label >= (UNJUDGED if lowest_judged is None else lowest_judged)
    query, label, tie_start = ranked.query[keep], ranked.label[keep], ranked.tie_start[keep]
    starts = np.searchsorted(query, np.arange(ranked.n_queries))
    rank = np.arange(1, len(query) + 1) - starts[query]
    group = group_ids(query, tie_start)
    first = np.flatnonzero(run_starts(group))
    return replace(ranked, query=query, rank=rank, label=label, tie_start=rank[first][group],
                   tie_size=np.bincount(group)[group], starts=starts,
                   n_retrieved=np.bincount(query, minlength=ranked.n_queries),
                   judged=ranked.judged_of(keep))


#: The tie policies under which ``classes=True`` is defined: those that give one order of the tied docs
#: without looking at their labels (which member of a class comes first depends on the order).
CLASS_POLICIES = ('trec_eval', 'rank')


def equivalence_classes(ranked: RankedRun) -> RankedRun:
    """NTCIREVAL's equivalence classes (``label -ec``, ``compute -ec``): the first retrieved member of each
    class keeps its label; every later member becomes a judged non-relevant row (label 0, a negative label
    kept), so that a condensed list keeps it; and the judgments become those of the classes
    (:meth:`Judgments.by_class`: R, the ideal list and the counts per label from each class's highest
    label). A class whose first retrieved member is labelled 0 is used up, whatever its other members."""
    judgments = ranked.judgments.by_class()  # (InputError for qrels without classes)
    classes = ranked.equivalence_class
    assert classes is not None  # (the run's rows carry them where the judgments do)
    order = np.lexsort((ranked.rank, classes, ranked.query))
    first = run_starts(ranked.query[order], classes[order])
    later = np.empty_like(first)
    later[order] = ~first
    return replace(ranked, judgments=judgments, label=np.where(later, np.minimum(ranked.label, 0), ranked.label),
                   judged={name: column for name, column in ranked.judged.items() if name != CLASS_COLUMN})


def truncated(ranked: RankedRun, depth: int) -> RankedRun:
    """The depth cut: the run's first ``depth`` ranked documents, judged or not (trec_eval's ``-M``,
    NTCIREVAL's ``label -truncate``); a tie group straddling the cut keeps its part above it."""
    kept = ranked.rows(ranked.rank <= depth)
    return replace(kept, tie_size=np.minimum(kept.tie_size, depth - kept.tie_start + 1),
                   n_retrieved=np.minimum(ranked.n_retrieved, depth))


def judged_only(value: bool, measure: Measure) -> Transform | None:
    """``judged_only=True``: the condensed list. Our measures keep every document of the qrels, as
    NTCIREVAL's ``label -j`` (a negative label is a judged non-relevant document there); ir_measures'
    own measures, and ours named after trec_eval's (``TREC_EVAL_JUDGED_ONLY``), drop the negative labels
    too, as trec_eval's ``-J`` (pytrec_eval's ``judged_docs_only_flag``) does."""
    if not value:
        return None
    ntcireval = isinstance(measure, ExtMeasure) and not getattr(measure, 'TREC_EVAL_JUDGED_ONLY', False)
    return Transform(condensed, (None if ntcireval else 0,))


def with_classes(value: bool, measure: Measure) -> Transform | None:
    """``classes=True``: :func:`equivalence_classes`; MeasureParamError for a measure not defined with them
    (its kernel's ``takes_classes``)."""
    if not value:
        return None
    if not kernel_of(measure).takes_classes:
        raise MeasureParamError(f'{measure} is not defined with equivalence classes (classes=True): its value '
                                'needs which doc of its class each retrieved doc stands for')
    return Transform(equivalence_classes)


#: The transforms a measure asks for with a parameter, applied in this order (after the tie policy's
#: reordering and the depth cut): parameter name -> the transform for the parameter's value and the
#: measure (None: no transform). Classes come first: a doc retrieved first in its class uses the class
#: up even when a condensed list would drop it (a negative label).
BY_PARAMETER: dict[str, Callable[[Any, Measure], Transform | None]] = {
    'classes': with_classes,
    'judged_only': judged_only,
}

CreditFunction = Callable[[Measure, np.ndarray], np.ndarray]


def transforms_of(measure: Measure, ranking: Ranking, credit: CreditFunction | None,
                  judgments: Judgments) -> Transforms:
    """The transforms of ``measure``'s list, in order: the reordering of tied documents that its tie
    policy asks for (by ``credit``, its kernel's), first, so that every other transform sees the list as
    the policy orders it; then the ranking's depth cut (:func:`truncated`), so that it counts every
    ranked document; then those its parameters ask for (:data:`BY_PARAMETER`; the ranking's ``classes``
    counts as ``classes=True``)."""
    steps = []
    if ranking.ties in REORDERING:
        steps.append(Transform(reorder, (ranking.ties, label_ranks(measure, credit, judgments))))
    if ranking.depth is not None:
        steps.append(Transform(truncated, (ranking.depth,)))
    params = {**measure.params, 'classes': True} if ranking.classes else measure.params
    for name, transform_for in BY_PARAMETER.items():
        if name in params and (step := transform_for(params[name], measure)) is not None:
            steps.append(step)
    return tuple(steps)


def apply_all(ranked: Mapping[K, RankedRun], lists: Iterable[tuple[K, Transforms]]) -> dict[tuple[K, Transforms],
                                                                                              RankedRun]:
    """Each (key, transforms) of ``lists``: the run ``ranked[key]`` after those transforms, each distinct
    prefix of transforms computed once per key; no transforms give the ranked run itself."""
    runs: dict[tuple[K, Transforms], RankedRun] = {(key, ()): run for key, run in ranked.items()}
    for key, steps in lists:
        for end in range(1, len(steps) + 1):
            if (key, steps[:end]) not in runs:
                runs[key, steps[:end]] = steps[end - 1](runs[key, steps[:end - 1]])
    return runs


def reorder(ranked: RankedRun, ties: str, label_ranks: tuple[int, ...] | None = None) -> RankedRun:
    """The ranking with each tie group's documents ordered by credit, highest first (``optimistic``) or
    last (``pessimistic``; unjudged documents first): by label, or by the rank ``label_ranks`` gives
    each qrels label (:func:`rank_labels_by_credit`). Documents of equal credit keep their order: the
    measure cannot tell them apart."""
    if not len(ranked.query):
        return ranked
    credit = ranked.label if label_ranks is None else (
        np.array(label_ranks)[np.searchsorted(qrels_labels(ranked.judgments), ranked.label)])
    sign = -1 if ties == 'optimistic' else 1
    order = np.lexsort((ranked.rank, sign * credit, ranked.tie_start, ranked.query))
    query, tie_start, tie_size = ranked.query[order], ranked.tie_start[order], ranked.tie_size[order]
    group = group_ids(query, tie_start)
    first = np.flatnonzero(run_starts(group))
    position = np.arange(len(order)) - first[group]
    if ties == 'pessimistic':  # the group's unjudged documents come first
        position += tie_size - np.bincount(group)[group]
    return replace(ranked, query=query, rank=tie_start + position, label=ranked.label[order], tie_start=tie_start,
                   tie_size=tie_size, judged=ranked.judged_of(order))


def label_ranks(measure: Measure, credit: CreditFunction | None, judgments: Judgments) -> tuple[int, ...] | None:
    """The rank of each qrels label by the measure's ``credit`` (its kernel's), by which ``optimistic``
    and ``pessimistic`` reorder its tied docs (:func:`reorder`), where the label order does not follow
    the credit (e.g. ``gains`` that do not grow with the label); else None (by label)."""
    if credit is None:
        return None
    with np.errstate(all='ignore'):  # (a gain that overflows is the kernel's error to report)
        return rank_labels_by_credit(credit(measure, qrels_labels(judgments)))


def qrels_labels(judgments: Judgments) -> np.ndarray:
    """The distinct labels of the qrels, ascending (computed once per judgments)."""
    return judgments.cached('qrels labels', lambda: _distinct(judgments.label))


def rank_labels_by_credit(credit: np.ndarray) -> tuple[int, ...] | None:
    """How a measure needs tied documents ordered, from its ``credit`` for each of the qrels' distinct
    labels (:func:`qrels_labels`, ascending): each label's rank by credit (0 the lowest, equal credits
    equal ranks), or None when the credit never decreases as the label grows, so that the label order
    serves."""
    if np.all(credit[1:] >= credit[:-1]):
        return None
    return tuple(np.searchsorted(_distinct(credit), credit).tolist())


def _distinct(values: np.ndarray) -> np.ndarray:
    """The distinct ``values``, ascending (``np.unique`` would import numpy.ma)."""
    ordered = np.sort(values)
    return ordered[run_starts(ordered)]
