"""How much score ties move each measure (the ``irmeasures-ext ties`` diagnostic)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from ir_measures.measures import Measure

from irmeasures_ext.engine.aggregates import aggregate
from irmeasures_ext.engine.evaluator import ExtEvaluator
from irmeasures_ext.engine.intents import judgments_of
from irmeasures_ext.engine.kernels import kernel_of
from irmeasures_ext.engine.ranking import rank_run
from irmeasures_ext.engine.relevance import ABOVE_ZERO, computed_as, threshold_of
from irmeasures_ext.errors import MeasureParamError
from irmeasures_ext.measures.base import Ranking, optional_param
from irmeasures_ext.readers.inputs import read_input


@dataclass(frozen=True)
class TieRow:
    """One measure's figures: its value per policy (None: a policy the measure refuses, e.g. expected without
    a closed form, with the refusal's message in ``refused``), the range between the pessimistic and
    optimistic values (None where it refuses those), and the queries with a tie group (holding a judged
    doc) at its cutoff or holding a relevant doc."""

    measure: Measure
    values: dict[str, float | None]
    range: float | None
    tied_at_cutoff: int | None
    tied_relevant: int
    refused: dict[str, str]


def tie_report(measures: list[Measure], qrels: Any, run: Any, rankings: dict[str, Ranking]) -> list[TieRow]:
    """The figures of each measure (already checked to be ours) under each of ``rankings`` (by policy
    name, e.g. 'trec_eval', 'pessimistic', 'expected', 'optimistic'), the qrels and run read once. A
    measure's own ``ties`` parameter is set aside: the report ranks it under each policy."""
    with_intents = any(kernel_of(measure).needs_intents for measure in measures)  # (as our provider reads qrels)
    qrels, run = read_input(qrels, 'qrels', with_intents=with_intents), read_input(run, 'run')
    judgments = judgments_of(qrels, with_intents, [str(measure) for measure in measures
                                                   if not kernel_of(measure).needs_intents])
    evaluated = {measure: without_ties(measure) for measure in measures}
    refusals = {measure: {policy: reason for policy in rankings if (reason := _refusal(evaluated[measure], policy))}
                for measure in measures}
    results: dict[str, dict[Measure, float]] = {}
    for policy, ranking in rankings.items():
        usable = list(dict.fromkeys(evaluated[m] for m in measures if policy not in refusals[m]))
        evaluator = ExtEvaluator(usable, judgments, qrels, ranking)
        results[policy] = {m: aggregate(m, values) for m, values in evaluator.values(run).items()}
    with run.located():
        ranked = rank_run(run.table, judgments, next(iter(rankings.values())).score_precision)
    tied = ranked.tie_size > 1
    rows = []
    for measure in measures:
        rel = threshold_of(computed_as(measure, next(iter(rankings.values())).rel, judgments))
        relevant = ranked.label >= (ABOVE_ZERO if rel is None else rel)  # (no threshold: the docs that gain)
        tied_relevant = len(np.unique(ranked.query[tied & relevant])) if tied.any() else 0
        cutoff = optional_param(measure, 'cutoff') if 'cutoff' in measure.SUPPORTED_PARAMS else None
        at_cutoff = None if cutoff is None else len(np.unique(ranked.query[
            tied & (ranked.tie_start <= cutoff) & (ranked.tie_start + ranked.tie_size - 1 > cutoff)]))
        values = {policy: results[policy].get(evaluated[measure]) for policy in rankings}
        best, worst = values.get('optimistic'), values.get('pessimistic')
        extremes = None if best is None or worst is None else abs(best - worst)
        rows.append(TieRow(measure, values, extremes, at_cutoff, tied_relevant, refusals[measure]))
    return rows


def without_ties(measure: Measure) -> Measure:
    """``measure`` without its own ``ties`` parameter (itself if it has none)."""
    if 'ties' not in measure.params:
        return measure
    return type(measure)(**{name: value for name, value in measure.params.items() if name != 'ties'})


def _refusal(measure: Measure, policy: str) -> str | None:
    """Why ``measure`` is not defined under tie ``policy`` (its kernel's message), or None if it is."""
    try:
        kernel_of(measure).function(measure, policy)
    except MeasureParamError as error:
        return str(error)
    return None
