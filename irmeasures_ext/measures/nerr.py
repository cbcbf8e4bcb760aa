"""NTCIREVAL's normalised Expected Reciprocal Rank."""
from __future__ import annotations

from typing import Any

import numpy as np
from ir_measures import measures as irm

from irmeasures_ext.errors import InputError, MeasureParamError
from irmeasures_ext.measures.base import (
    GAINS_PARAM,
    REL_PARAM,
    REQUIRED_CUTOFF_PARAM,
    ExtMeasure,
    graded_gain,
    graded_ideal,
    kernel,
    optional_param,
    register_measure,
)
from irmeasures_ext.ranking import RankedRun, safe_divide, segment_sum


class _nERR(ExtMeasure):
    """
    Normalised Expected Reciprocal Rank at k, as NTCIREVAL computes its "nERR":

        p(r) = g(r) / (g_max + 1),   ERR@k = Σ_{r≤k} (1/r) · p(r) · Π_{i<r} (1 − p(i)),
        nERR@k = ERR@k / ERR@k of the ideal list

    Gains as in ``Q`` (label, or ``gains[label]``). g_max is the gain of ``max_level``, the top
    relevance level (NTCIREVAL takes it from its ``-g`` list); by default the largest label in
    ``gains`` if given, else the largest label of the qrels. Labels above ``max_level`` are an
    error.

    Differs from ir_measures' ``ERR`` (gdeval: p = (2^l − 1)/2^{l_max}, not normalised) and
    its ``NERR8``–``NERR11`` (different stop probabilities and normalisations).

    .. cite:: Olivier Chapelle, Donald Metzler, Ya Zhang, Pierre Grinspan. Expected Reciprocal
       Rank for Graded Relevance. CIKM 2009.
    .. cite:: Tetsuya Sakai. NTCIREVAL (version 190111), http://research.nii.ac.jp/ntcir/tools/ntcireval-en.html
    """
    __name__ = 'nERR'
    NAME = __name__
    PRETTY_NAME = 'normalised ERR (NTCIREVAL)'
    SHORT_DESC = 'Expected reciprocal rank normalised by that of the ideal list.'
    SUPPORTED_PARAMS = {
        'cutoff': REQUIRED_CUTOFF_PARAM,
        'gains': GAINS_PARAM,
        'max_level': irm.ParamInfo(dtype=int, desc='top relevance level, whose gain is g_max (default: see above)'),
        'rel': REL_PARAM,
    }

    def _check_param(self, name: str, value: Any) -> Any:
        if name == 'max_level' and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
            raise MeasureParamError(f'{self.NAME}: max_level must be a positive integer, got {value!r}')
        return super()._check_param(name, value)


nERR = _nERR()
register_measure(nERR)


def _expected_reciprocal_rank(query: np.ndarray, rank: np.ndarray, stop: np.ndarray, n_queries: int) -> np.ndarray:
    """ERR per query of rows grouped by query in rank order, with stop probabilities ``stop``."""
    starts = np.searchsorted(query, np.arange(n_queries))
    log_continue = np.log1p(-stop)
    running = np.cumsum(log_continue)
    before_query = np.concatenate(([0.0], running))[starts]
    continue_before = np.exp(running - log_continue - before_query[query])  # Π_{i<r}(1 - p(i))
    return segment_sum(stop * continue_before / rank, query, n_queries)


@kernel(_nERR.spec(), prepare=graded_ideal)
def normalised_err(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """nERR@k per query (see :class:`_nERR`)."""
    rel, gains, cutoff = measure['rel'], optional_param(measure, 'gains'), measure['cutoff']
    judgments = ranked.judgments
    max_level = optional_param(measure, 'max_level') or max(gains or [int(judgments.label.max(initial=1))])
    if judgments.label.max(initial=0) > max_level:
        raise InputError(f'{measure}: qrels label {judgments.label.max()} exceeds max_level {max_level}')
    top_gain = graded_gain(np.array([max_level]), rel, gains)[0]
    label_gain = graded_gain(judgments.label, rel, gains)
    if np.any(label_gain > top_gain):
        worst = int(np.argmax(label_gain))
        raise InputError(f'{measure}: the gain of label {judgments.label[worst]} ({label_gain[worst]:g}) exceeds '
                         f'that of max_level {max_level} ({top_gain:g}), so its stop probability would exceed 1')

    def err_at_cutoff(query: np.ndarray, rank: np.ndarray, gain: np.ndarray) -> np.ndarray:
        keep = rank <= cutoff
        return _expected_reciprocal_rank(query[keep], rank[keep], gain[keep] / (top_gain + 1), judgments.n_queries)

    ideal = graded_ideal(measure, judgments)
    run_err = err_at_cutoff(ranked.query, ranked.rank, graded_gain(ranked.label, rel, gains))
    return safe_divide(run_err, err_at_cutoff(ideal.query, ideal.rank, ideal.gain))
