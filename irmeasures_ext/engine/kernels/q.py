"""Kernel of Sakai's Q-measure (declared in ``irmeasures_ext.measures.q``)."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from ir_measures import measures as irm

from irmeasures_ext.engine.kernels.common import graded_credit, graded_gain, graded_ideal, kernel
from irmeasures_ext.engine.ranking import RankedRun
from irmeasures_ext.engine.segments import expand, safe_divide, segment_sum
from irmeasures_ext.engine.ties import RelevantGroups
from irmeasures_ext.measures.base import optional_param


def blended_ratio(hits: np.ndarray | float, gained: np.ndarray, position: np.ndarray, ideal_cumulative: np.ndarray,
                  beta: float) -> np.ndarray:
    """BR = (C + β·cg) / (r + β·cg*) from its parts (or their expectations): divided through by β when
    β > 1, so finite for any finite β."""
    if beta > 1:
        return (hits / beta + gained) / (position / beta + ideal_cumulative)
    return (hits + beta * gained) / (position + beta * ideal_cumulative)


@dataclass(frozen=True)
class BlendedRatios:
    """The relevant rows of a ranked run (label >= rel) ranked ``cutoff`` or better, in ranking order, with
    the blended ratio at each: the rows where NTCIREVAL's BR-based measures take their values."""

    query: np.ndarray
    rank: np.ndarray
    label: np.ndarray
    gain: np.ndarray     # the row's own gain
    hits: np.ndarray     # C(r): relevant docs down to the row
    blended: np.ndarray  # BR(r)


def blended_ratios(measure: irm.Measure, ranked: RankedRun, beta: float, cutoff: int | None = None) -> BlendedRatios:
    """The relevant rows of ``ranked`` with BR(r) for patience ``beta`` (``beta=0`` gives precision C(r)/r),
    gains and ``rel`` from ``measure``."""
    rel, gains = measure['rel'], optional_param(measure, 'gains')
    ideal = graded_ideal(measure, ranked.judgments)
    relevant = ranked.relevant(rel)
    gain = graded_gain(ranked.label, rel, gains)
    hits, cumulative = ranked.cumulative(relevant.astype(np.int64)), ranked.cumulative(gain)
    counted = relevant if cutoff is None else relevant & (ranked.rank <= cutoff)
    query, rank = ranked.query[counted], ranked.rank[counted]
    blended = blended_ratio(hits[counted], cumulative[counted], rank, ideal.cumulative_at(query, rank), beta)
    return BlendedRatios(query, rank, ranked.label[counted], gain[counted], hits[counted], blended)


def expected_q(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """E[Q] (or E[Q@k]) over the orderings of each tie group.

    For a group of g documents at positions s .. s+g-1 holding r relevant ones of total gain G,
    after c relevant documents of cumulative gain cg ranked before it: a relevant document d at
    offset j has, on average, j(r-1)/(g-1) relevant documents and j(G - g_d)/(g-1) gain before it
    in the group, and the denominator of BR is fixed by j. Summed over the group's relevant
    documents and averaged over j (each offset has probability 1/g):
    (1/g) · Σ_j [r(c+1) + j·r(r-1)/(g-1) + β(r·cg + G + j(r-1)G/(g-1))] / (s + j + β·cg*(s+j)).
    """
    rel, beta = measure['rel'], measure['beta']
    gains, cutoff = optional_param(measure, 'gains'), optional_param(measure, 'cutoff')
    ideal = graded_ideal(measure, ranked.judgments)
    groups = RelevantGroups.of(ranked, ranked.relevant(rel), graded_gain(ranked.label, rel, gains))
    counted = groups.size if cutoff is None else np.clip(cutoff - groups.start + 1, 0, groups.size)
    owner, offset = expand(counted)
    g, r, total = groups.size[owner], groups.relevant[owner], groups.gain[owner]
    others = np.where(g > 1, 1 / np.maximum(g - 1, 1), 0.0)  # 1/(g-1); r = 1 when g = 1
    position = groups.start[owner] + offset
    hits = r * (groups.relevant_before[owner] + 1) + offset * r * (r - 1) * others
    gained = r * groups.gain_before[owner] + total + offset * (r - 1) * total * others
    blended = blended_ratio(hits, gained, position, ideal.cumulative_at(groups.query[owner], position), beta)
    n_relevant = ideal.counts if cutoff is None else np.minimum(ideal.counts, cutoff)
    return safe_divide(segment_sum(blended / g, groups.query[owner], ranked.n_queries), n_relevant)


@kernel('Q', prepare=graded_ideal, expected=expected_q, credit=graded_credit)
def q_measure(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """Q-measure per query (see :class:`irmeasures_ext.measures.q.Q`)."""
    cutoff = optional_param(measure, 'cutoff')
    rows = blended_ratios(measure, ranked, measure['beta'], cutoff)
    n_relevant = graded_ideal(measure, ranked.judgments).counts
    if cutoff is not None:
        n_relevant = np.minimum(n_relevant, cutoff)
    return safe_divide(segment_sum(rows.blended, rows.query, ranked.n_queries), n_relevant)
