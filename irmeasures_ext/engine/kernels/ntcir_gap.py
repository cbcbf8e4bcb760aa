"""Kernel of NTCIREVAL's graded average precision (declared in ``irmeasures_ext.measures.ntcir_gap``)."""
from __future__ import annotations

import numpy as np
from ir_measures import measures as irm

from irmeasures_ext.engine.judgments import IdealList, Judgments
from irmeasures_ext.engine.kernels.common import kernel, threshold_sum
from irmeasures_ext.engine.ranking import RankedRun
from irmeasures_ext.engine.segments import safe_divide
from irmeasures_ext.measures.base import optional_param


def grade_weight(level: np.ndarray) -> np.ndarray:
    """l·(l + 1): a doc's weight at level l, twice the sum of the grade thresholds 1..l it passes."""
    return level * (level + 1.0)


def relevant_levels(labels: np.ndarray, rel: int) -> np.ndarray:
    """The label of a relevant doc (label >= rel), else 0."""
    return np.where(labels >= rel, labels, 0).astype(np.float64)


def ideal_grades(measure: irm.Measure, judgments: Judgments) -> IdealList:
    """The ideal list with each relevant doc's grade weight as its gain."""
    rel = measure['rel']
    return judgments.cached(('GAP ideal', rel), lambda: judgments.ideal(
        lambda labels: grade_weight(relevant_levels(labels, rel)), judgments.label >= rel))


@kernel('GAP', prepare=ideal_grades)
def graded_average_precision(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """GAP (or GAP@k) per query (see :class:`irmeasures_ext.measures.ntcir_gap.GAP`)."""
    rel, cutoff = measure['rel'], optional_param(measure, 'cutoff')
    top = ranked.top(cutoff)
    level = relevant_levels(top.label, rel)
    grade_sum = threshold_sum(top, level, grade_weight, at_least=True)  # GS(r); 0 where level is 0
    ideal = ideal_grades(measure, ranked.judgments)
    judged = np.flatnonzero(ideal.counts > 0)
    depth = ideal.counts[judged] if cutoff is None else np.minimum(ideal.counts[judged], cutoff)
    ideal_sum = np.zeros(ranked.n_queries)
    ideal_sum[judged] = ideal.cumulative_at(judged, depth)
    return safe_divide(top.per_query_sum(np.where(level > 0, grade_sum, 0.0) / top.rank), ideal_sum)
