"""Kernel of Sakai's Q-measure (declared in ``irmeasures_ext.measures.q``)."""
from __future__ import annotations

import numpy as np
from ir_measures import measures as irm

from irmeasures_ext.engine.kernels.common import graded_credit, graded_gain, graded_ideal, kernel
from irmeasures_ext.engine.ranking import RankedRun
from irmeasures_ext.engine.segments import safe_divide, segment_sum
from irmeasures_ext.engine.ties import RelevantGroups, expand
from irmeasures_ext.measures.base import optional_param


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
    ideal_cumulative = ideal.cumulative_at(groups.query[owner], position)
    if beta > 1:  # divided through by beta, as in q_measure
        blended = (hits / beta + gained) / (position / beta + ideal_cumulative)
    else:
        blended = (hits + beta * gained) / (position + beta * ideal_cumulative)
    n_relevant = ideal.counts if cutoff is None else np.minimum(ideal.counts, cutoff)
    return safe_divide(segment_sum(blended / g, groups.query[owner], ranked.n_queries), n_relevant)


@kernel('Q', prepare=graded_ideal, expected=expected_q, credit=graded_credit)
def q_measure(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """Q-measure per query (see :class:`irmeasures_ext.measures.q._Q`)."""
    rel, beta = measure['rel'], measure['beta']
    gains, cutoff = optional_param(measure, 'gains'), optional_param(measure, 'cutoff')
    ideal = graded_ideal(measure, ranked.judgments)
    relevant = ranked.relevant(rel)
    hits = ranked.cumulative(relevant.astype(np.int64))
    gain = ranked.cumulative(graded_gain(ranked.label, rel, gains))
    counted = relevant if cutoff is None else relevant & (ranked.rank <= cutoff)
    query, rank = ranked.query[counted], ranked.rank[counted]
    hit, cumulative, ideal_cumulative = hits[counted], gain[counted], ideal.cumulative_at(query, rank)
    if beta > 1:  # the same ratio divided through by beta: finite for any finite beta
        blended = (hit / beta + cumulative) / (rank / beta + ideal_cumulative)
    else:
        blended = (hit + beta * cumulative) / (rank + beta * ideal_cumulative)
    n_relevant = ideal.counts if cutoff is None else np.minimum(ideal.counts, cutoff)
    return safe_divide(segment_sum(blended, query, ranked.n_queries), n_relevant)
