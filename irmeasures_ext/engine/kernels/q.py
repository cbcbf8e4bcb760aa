"""Kernel of Sakai's Q-measure (declared in ``irmeasures_ext.measures.q``)."""
from __future__ import annotations

import numpy as np
from ir_measures import measures as irm

from irmeasures_ext.engine.kernels.common import graded_gain, graded_ideal, kernel
from irmeasures_ext.engine.ranking import RankedRun
from irmeasures_ext.engine.segments import safe_divide, segment_sum
from irmeasures_ext.measures.base import optional_param


@kernel('Q', prepare=graded_ideal)
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
