"""Kernel of NTCIREVAL's normalised ERR (declared in ``irmeasures_ext.measures.nerr``)."""
from __future__ import annotations

import numpy as np
from ir_measures import measures as irm

from irmeasures_ext.engine.judgments import Judgments
from irmeasures_ext.engine.kernels.common import graded_credit, graded_gain, graded_ideal, kernel
from irmeasures_ext.engine.ranking import RankedRun
from irmeasures_ext.engine.segments import safe_divide, segment_sum
from irmeasures_ext.errors import InputError
from irmeasures_ext.measures.base import optional_param


def cascade_weights(query: np.ndarray, stop: np.ndarray, n_queries: int) -> np.ndarray:
    """stop(r) · Π_{i<r}(1 − stop(i)) per row (rows grouped by query in rank order): the probability that
    NTCIREVAL's cascade user stops at the row."""
    starts = np.searchsorted(query, np.arange(n_queries))
    log_continue = np.log1p(-stop)
    running = np.cumsum(log_continue)
    before_query = np.concatenate(([0.0], running))[starts]
    return stop * np.exp(running - log_continue - before_query[query])


def top_gain(measure: irm.Measure, judgments: Judgments) -> float:
    """g_max, the gain of ``max_level`` (default: the largest label of ``gains``, else of the qrels);
    InputError for a qrels label above it or a gain exceeding it (a stop probability above 1)."""
    rel, gains = measure['rel'], optional_param(measure, 'gains')
    max_level = optional_param(measure, 'max_level') or max(gains or [int(judgments.label.max(initial=1))])
    if judgments.label.max(initial=0) > max_level:
        raise InputError(f'{measure}: qrels label {judgments.label.max()} exceeds max_level {max_level}')
    highest = graded_gain(np.array([max_level]), rel, gains)[0]
    label_gain = graded_gain(judgments.label, rel, gains)
    if np.any(label_gain > highest):
        worst = int(np.argmax(label_gain))
        raise InputError(f'{measure}: the gain of label {judgments.label[worst]} ({label_gain[worst]:g}) exceeds '
                         f'that of max_level {max_level} ({highest:g}), so its stop probability would exceed 1')
    return float(highest)


@kernel('nERR', prepare=graded_ideal, credit=graded_credit)
def normalised_err(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """nERR@k per query (see :class:`irmeasures_ext.measures.nerr._nERR`)."""
    rel, gains, cutoff = measure['rel'], optional_param(measure, 'gains'), measure['cutoff']
    judgments = ranked.judgments
    stop_scale = top_gain(measure, judgments) + 1

    def err_at_cutoff(query: np.ndarray, rank: np.ndarray, gain: np.ndarray) -> np.ndarray:
        keep = rank <= cutoff
        weights = cascade_weights(query[keep], gain[keep] / stop_scale, judgments.n_queries)
        return segment_sum(weights / rank[keep], query[keep], judgments.n_queries)

    ideal = graded_ideal(measure, judgments)
    run_err = err_at_cutoff(ranked.query, ranked.rank, graded_gain(ranked.label, rel, gains))
    return safe_divide(run_err, err_at_cutoff(ideal.query, ideal.rank, ideal.gain))
