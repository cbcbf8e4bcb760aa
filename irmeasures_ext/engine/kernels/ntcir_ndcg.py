"""Kernels of NTCIREVAL's nDCG variants (declared in ``irmeasures_ext.measures.ntcir_ndcg``)."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
from ir_measures import measures as irm

from irmeasures_ext.engine.judgments import Judgments
from irmeasures_ext.engine.kernels.common import (
    discounted_gain,
    expected_dcg,
    graded_credit,
    graded_gain,
    graded_ideal,
    ideal_dcg,
    kernel,
)
from irmeasures_ext.engine.ranking import RankedRun
from irmeasures_ext.engine.segments import safe_divide
from irmeasures_ext.measures.base import name_of, optional_param


def jk_discount(rank: np.ndarray) -> np.ndarray:
    """nDCG_JK's discount: max(1, log2 r) (ranks 1 and 2 are not discounted)."""
    return np.maximum(1.0, np.log2(rank))


def ms_discount(rank: np.ndarray) -> np.ndarray:
    """MSnDCG's discount: log2(r + 1)."""
    return np.log2(rank + 1.0)


#: Each measure's rank discount, looked up by the measure's name.
DISCOUNTS: dict[str, Callable[[np.ndarray], np.ndarray]] = {'nDCG_JK': jk_discount, 'MSnDCG': ms_discount}


def best_dcg(measure: irm.Measure, judgments: Judgments) -> np.ndarray:
    """The ideal DCG@k of every query, with the measure's discount."""
    return ideal_dcg(measure, judgments, lambda: graded_ideal(measure, judgments), measure['cutoff'],
                     DISCOUNTS[name_of(measure)])


def expected_normalised_dcg(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """E[nDCG@k] over the orderings of each tie group (DCG is linear in the positions)."""
    gain = graded_gain(ranked.label, measure['rel'], optional_param(measure, 'gains'))
    expected = expected_dcg(ranked, gain, DISCOUNTS[name_of(measure)], measure['cutoff'])
    return safe_divide(expected, best_dcg(measure, ranked.judgments))


def normalised_dcg(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """nDCG@k with NTCIREVAL's gains and the measure's discount."""
    top = ranked.top(measure['cutoff'])
    gain = graded_gain(top.label, measure['rel'], optional_param(measure, 'gains'))
    dcg = discounted_gain(top.query, top.rank, gain, None, DISCOUNTS[name_of(measure)], ranked.n_queries)
    return safe_divide(dcg, best_dcg(measure, ranked.judgments))


for _name in DISCOUNTS:
    kernel(_name, prepare=best_dcg, expected=expected_normalised_dcg, credit=graded_credit)(normalised_dcg)
