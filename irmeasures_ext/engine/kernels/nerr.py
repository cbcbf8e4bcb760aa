"""Kernel of NTCIREVAL's normalised ERR (declared in ``irmeasures_ext.measures.nerr``)."""
from __future__ import annotations

import numpy as np
from ir_measures import measures as irm

from irmeasures_ext.engine.kernels.common import cascade, graded_credit, graded_gain, graded_ideal, kernel, top_gain
from irmeasures_ext.engine.ranking import RankedRun
from irmeasures_ext.engine.segments import safe_divide
from irmeasures_ext.measures.base import optional_param


@kernel('nERR', prepare=graded_ideal, credit=graded_credit)
def normalised_err(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """nERR@k per query (see :class:`irmeasures_ext.measures.nerr.nERR`)."""
    rel, gains, cutoff = measure['rel'], optional_param(measure, 'gains'), measure['cutoff']
    judgments = ranked.judgments
    top = top_gain(measure, judgments)

    def err_at_cutoff(query: np.ndarray, rank: np.ndarray, gain: np.ndarray) -> np.ndarray:
        keep = rank <= cutoff
        return cascade(query[keep], gain[keep] / (top + 1), 1 / rank[keep], judgments.n_queries)

    ideal = graded_ideal(measure, judgments)
    run_err = err_at_cutoff(ranked.query, ranked.rank, graded_gain(ranked.label, rel, gains))
    return safe_divide(run_err, err_at_cutoff(ideal.query, ideal.rank, ideal.gain))
