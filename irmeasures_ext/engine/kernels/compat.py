"""Kernel of ir_measures' ``Compat(p, normalize)`` (declared in ``irmeasures_ext.measures.compat``): the
compatibility of Clarke, Vtyurina & Smucker (TOIS 2021), as ir_measures' compat provider computes it, on our
ranking.

The ideal ranking holds a query's docs labelled above 0, highest label first; docs of one label in the order
the run ranks them, the unretrieved ones after the retrieved ones. Compatibility is the rank-biased overlap
of the run (n docs) with it (m docs) to depth D = max(n, m):

    RBO = Σ_{d≤D} p^(d−1)·|run_d ∩ ideal_d|/d  /  Σ_{d≤D} p^(d−1),

divided, with ``normalize``, by the ideal's RBO with itself (whose overlap at depth d is min(d, m)). A
relevant doc at rank r and ideal place i is in both prefixes from depth max(r, i) on, so the overlap sum is
Σ over the relevant retrieved docs of Σ_{max(r, i)≤d≤D} p^(d−1)/d: a table of those tails serves every query.
"""
from __future__ import annotations

import math

import numpy as np
from ir_measures import measures as irm

from irmeasures_ext.engine.judgments import Judgments
from irmeasures_ext.engine.kernels.common import kernel
from irmeasures_ext.engine.ranking import RankedRun
from irmeasures_ext.engine.segments import run_starts, safe_divide, segment_count, segment_sum
from irmeasures_ext.errors import MeasureParamError


def persistence(measure: irm.Measure, _judgments: Judgments | None = None) -> float:
    """``p``: MeasureParamError naming the measure unless 0 <= p <= 1 (every finite sum is then defined)."""
    p = measure['p']
    if not (isinstance(p, float) and math.isfinite(p) and 0 <= p <= 1):
        raise MeasureParamError(f'{measure}: p must be a number with 0 <= p <= 1, got {p!r}')
    return p


def _ideal_keys(judgments: Judgments) -> tuple[np.ndarray, np.ndarray, int]:
    """(the distinct qrels labels ascending, the ideal list's entries as keys query·L + (L − 1 − label code),
    ascending, L): a key orders by query, then by label descending (computed once per judgments)."""
    def compute() -> tuple[np.ndarray, np.ndarray, int]:
        ordered = np.sort(judgments.label)
        distinct = ordered[run_starts(ordered)]
        relevant = judgments.label > 0
        keys = _label_keys(judgments.query[relevant], judgments.label[relevant], distinct)
        return distinct, np.sort(keys), len(distinct)
    return judgments.cached('compat ideal keys', compute)


def _label_keys(query: np.ndarray, label: np.ndarray, distinct: np.ndarray) -> np.ndarray:
    size = len(distinct)
    return query * size + (size - 1 - np.searchsorted(distinct, label))


def ideal_places(ranked: RankedRun, relevant: np.ndarray) -> np.ndarray:
    """The place in the ideal ranking (1-based) of each ``relevant`` row (label above 0): the query's qrels docs
    of a higher label, plus the rows of its label ranked before it, plus 1."""
    judgments = ranked.judgments
    distinct, ideal, _ = _ideal_keys(judgments)
    keys = _label_keys(ranked.query[relevant], ranked.label[relevant], distinct)
    above = np.searchsorted(ideal, keys) - np.searchsorted(ideal, ranked.query[relevant] * len(distinct))
    order = np.argsort(keys, kind='stable')  # rows are by (query, rank): ranks stay in order within a label
    sorted_keys = keys[order]
    first = np.flatnonzero(run_starts(sorted_keys))
    before = np.empty(len(keys), dtype=np.int64)
    before[order] = np.arange(len(keys)) - np.repeat(first, np.diff(np.append(first, len(keys))))
    return above + before + 1


@kernel('Compat', prepare=persistence, takes_classes=False)
def compatibility(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """Compat(p, normalize) per query (see the module docstring); 0 for a query without a label above 0.
    Ordering tied docs by label gives its largest/smallest value: moving a relevant doc up past one of a lower
    label (or a non-relevant one) never delays the depth from which it is in both prefixes, and changes no
    doc's ideal place; its mean over the orderings has no closed form (``ties='expected'`` is refused). It is
    not defined with equivalence classes (which doc of a class a retrieved doc stands for decides its place)."""
    p = persistence(measure)
    judgments = ranked.judgments
    ideal_size = judgments.cached('compat ideal size', lambda: segment_count(
        judgments.label > 0, judgments.query, judgments.n_queries))
    depth = np.maximum(ranked.n_retrieved, ideal_size)
    deepest = int(depth.max(initial=0))
    discount = p ** np.arange(deepest, dtype=np.float64)  # p^(d−1), d = 1 .. deepest
    tails = np.concatenate(([0.0], np.cumsum(discount / np.arange(1, deepest + 1))))  # Σ_{d'≤d} p^(d'−1)/d'
    relevant = ranked.label > 0
    query = ranked.query[relevant]
    start = np.maximum(ranked.rank[relevant], ideal_places(ranked, relevant))
    overlap = segment_sum(tails[depth[query]] - tails[start - 1], query, ranked.n_queries)
    weights = np.concatenate(([0.0], np.cumsum(discount)))  # Σ_{d'≤d} p^(d'−1)
    if not measure['normalize']:
        return safe_divide(overlap, weights[depth])
    full = np.minimum(ideal_size, depth)
    best = weights[full] + ideal_size * (tails[depth] - tails[full])  # Σ_d p^(d−1)·min(d, m)/d
    return safe_divide(overlap, best)
