"""Kernels of NTCIREVAL's nDCG variants (declared in ``irmeasures_ext.measures.ntcir_ndcg``)."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
from ir_measures import measures as irm

from irmeasures_ext.engine.judgments import Judgments
from irmeasures_ext.engine.kernels.common import (
    discounted_gain,
    expected_dcg,
    graded_gain,
    graded_ideal,
    ideal_dcg,
    kernel,
)
from irmeasures_ext.engine.ranking import RankedRun
from irmeasures_ext.engine.segments import safe_divide
from irmeasures_ext.measures.base import optional_param


def _register_normalised_dcg(name: str, discount: Callable[[np.ndarray], np.ndarray]) -> None:
    """Registers the kernel of an NTCIREVAL nDCG@k with the given rank discount."""
    def best_dcg(measure: irm.Measure, judgments: Judgments) -> np.ndarray:
        return ideal_dcg(measure, judgments, lambda: graded_ideal(measure, judgments), measure['cutoff'], discount)

    def expected(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
        gain = graded_gain(ranked.label, measure['rel'], optional_param(measure, 'gains'))
        return safe_divide(expected_dcg(ranked, gain, discount, measure['cutoff']), best_dcg(measure, ranked.judgments))

    @kernel(name, prepare=best_dcg, expected=expected)
    def normalised_dcg(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
        top = ranked.top(measure['cutoff'])
        gain = graded_gain(top.label, measure['rel'], optional_param(measure, 'gains'))
        dcg = discounted_gain(top.query, top.rank, gain, None, discount, ranked.n_queries)
        return safe_divide(dcg, best_dcg(measure, ranked.judgments))


_register_normalised_dcg('nDCG_JK', lambda rank: np.maximum(1.0, np.log2(rank)))
_register_normalised_dcg('MSnDCG', lambda rank: np.log2(rank + 1.0))
