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


def jk_discount(measure: irm.Measure) -> Callable[[np.ndarray], np.ndarray]:
    """nDCG_JK's discount for its log base b: 1 up to rank max(1, b), then log_b r (ln r for b = 0)."""
    base = measure['logb']
    log_base = np.log(base) if base else 1.0

    def discount(rank: np.ndarray) -> np.ndarray:
        return np.where(rank <= max(1.0, base), 1.0, np.log(np.maximum(rank, 1.0)) / log_base)
    return discount


def ms_discount(measure: irm.Measure) -> Callable[[np.ndarray], np.ndarray]:
    """MSnDCG's discount: log2(r + 1)."""
    return lambda rank: np.log2(rank + 1.0)


#: Each measure's rank discount, made for the measure (its parameters), looked up by its name.
DISCOUNTS: dict[str, Callable[[irm.Measure], Callable[[np.ndarray], np.ndarray]]] = {'nDCG_JK': jk_discount,
                                                                                   'MSnDCG': ms_discount}


def discount_of(measure: irm.Measure) -> Callable[[np.ndarray], np.ndarray]:
    """The rank discount of ``measure``."""
    return DISCOUNTS[name_of(measure)](measure)


def best_dcg(measure: irm.Measure, judgments: Judgments) -> np.ndarray:
    """The ideal DCG@k of every query, with the measure's discount."""
    return ideal_dcg(measure, judgments, lambda: graded_ideal(measure, judgments), measure['cutoff'],
                     discount_of(measure))


def expected_normalised_dcg(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """E[nDCG@k] over the orderings of each tie group (DCG is linear in the positions)."""
    gain = graded_gain(ranked.label, measure['rel'], optional_param(measure, 'gains'))
    expected = expected_dcg(ranked, gain, discount_of(measure), measure['cutoff'])
    return safe_divide(expected, best_dcg(measure, ranked.judgments))


def normalised_dcg(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """nDCG@k with NTCIREVAL's gains and the measure's discount."""
    top = ranked.top(measure['cutoff'])
    gain = graded_gain(top.label, measure['rel'], optional_param(measure, 'gains'))
    dcg = discounted_gain(top.query, top.rank, gain, None, discount_of(measure), ranked.n_queries)
    return safe_divide(dcg, best_dcg(measure, ranked.judgments))


for _name in DISCOUNTS:
    kernel(_name, prepare=best_dcg, expected=expected_normalised_dcg, credit=graded_credit)(normalised_dcg)
