"""Kernels of NTCIREVAL's graded RBP, ERR and iRBU (declared in ``irmeasures_ext.measures.ntcir_cascade``)."""
from __future__ import annotations

import numpy as np
from ir_measures import measures as irm

from irmeasures_ext.engine.kernels.common import cascade, graded_credit, graded_gain, kernel, top_gain
from irmeasures_ext.engine.ranking import RankedRun
from irmeasures_ext.engine.ties import expected_position_weight, positions
from irmeasures_ext.measures.base import optional_param


def _rbp_scale(measure: irm.Measure, ranked: RankedRun) -> float:
    """(1 − p) / g_max (0 when g_max is 0: then every gain is 0)."""
    top = top_gain(measure, ranked.judgments)
    return (1 - measure['p']) / top if top else 0.0


def expected_rbp(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """E[RBP_NTCIR] over the orderings of each tie group: each doc's gain times the mean of p^{r−1}
    over its group's ranks."""
    gain = graded_gain(ranked.label, measure['rel'], optional_param(measure, 'gains'))
    position = positions(ranked)
    weight = np.zeros(len(position))
    weight[1:] = measure['p'] ** (position[1:] - 1)
    expected = expected_position_weight(ranked, weight, optional_param(measure, 'cutoff'))
    return ranked.per_query_sum(gain * expected) * _rbp_scale(measure, ranked)


@kernel('RBP_NTCIR', prepare=top_gain, expected=expected_rbp, credit=graded_credit)
def graded_rbp(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """RBP_NTCIR per query (see :class:`irmeasures_ext.measures.ntcir_cascade.RBP_NTCIR`)."""
    top = ranked.top(optional_param(measure, 'cutoff'))
    gain = graded_gain(top.label, measure['rel'], optional_param(measure, 'gains'))
    return top.per_query_sum(gain * measure['p'] ** (top.rank - 1.0)) * _rbp_scale(measure, ranked)


def _cascade_of(measure: irm.Measure, ranked: RankedRun, utility_of_rank) -> np.ndarray:
    """NTCIREVAL's cascade sum over the rows ranked at most the cutoff, stop probability g/(g_max + 1)."""
    top = ranked.top(optional_param(measure, 'cutoff'))
    stop = graded_gain(top.label, measure['rel'], optional_param(measure, 'gains')) / (top_gain(
        measure, ranked.judgments) + 1)
    return cascade(top.query, stop, utility_of_rank(top.rank.astype(np.float64)), ranked.n_queries)


@kernel('ERR_NTCIR', prepare=top_gain, credit=graded_credit)
def err_ntcir(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """ERR_NTCIR per query (see :class:`irmeasures_ext.measures.ntcir_cascade.ERR_NTCIR`)."""
    return _cascade_of(measure, ranked, np.reciprocal)


@kernel('iRBU', prepare=top_gain, credit=graded_credit)
def irbu(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """iRBU@k per query (see :class:`irmeasures_ext.measures.ntcir_cascade.iRBU`)."""
    return _cascade_of(measure, ranked, lambda rank: measure['u'] ** rank)
