"""Kernels of gdeval's ERR@k and nDCG(dcg='exp-log2')@k (declared in ``irmeasures_ext.measures.gdeval``),
exact to ``gdeval.pl`` (ir_measures' ``bin/gdeval.pl``, version 1.2a, which its gdeval provider runs).

gdeval reads integer grades up to its maximum 4 (a larger label stops it, and so does one that is not an
integer: a real-valued label such as 2.5 gains 2^2.5 − 1 here, as the formulas extend); it keeps only the
qrels labels above 0, so a negative label, like an unjudged doc, gains nothing; it ranks
by score descending, then doc_id descending, as trec_eval does (scores as doubles: ``score_precision='float64'``
ranks as it does). A query without a label above 0 has no nDCG line (ir_measures then gives it 0, as we do).
"""
from __future__ import annotations

import numpy as np
from ir_measures import measures as irm

from irmeasures_ext.engine.judgments import Judgments
from irmeasures_ext.engine.kernels.common import cascade, expected_dcg, ideal_dcg, kernel
from irmeasures_ext.engine.ranking import RankedRun
from irmeasures_ext.engine.segments import safe_divide

#: gdeval's ``$MAX_JUDGMENT``: the largest grade it reads, whose ERR stop probability is (2^4 - 1)/2^4.
MAX_GRADE = 4


def check_grades(measure: irm.Measure, judgments: Judgments) -> None:
    """InputError naming ``measure`` for a qrels label above :data:`MAX_GRADE`, on which gdeval stops (ERR's stop
    probability would exceed 1)."""
    if judgments.label.max(initial=0) > MAX_GRADE:
        highest = int(np.argmax(judgments.label))
        raise judgments.judgment_error(highest, f'{measure}: qrels label {judgments.label[highest]} exceeds '
                                                f"gdeval's maximum grade {MAX_GRADE}")


def exponential_gain(labels: np.ndarray) -> np.ndarray:
    """gdeval's gain 2^label − 1 for a label above 0, else 0 (labels checked by :func:`check_grades`)."""
    positive = labels > 0
    return np.where(positive, np.exp2(np.where(positive, labels, 0)) - 1, 0.0)


def _log2_discount(rank: np.ndarray) -> np.ndarray:
    return np.log2(rank + 1)


def _ideal_dcg(measure: irm.Measure, judgments: Judgments) -> np.ndarray:
    """gdeval's ideal DCG@k per query: the labels above 0, highest first (checked first)."""
    check_grades(measure, judgments)
    return ideal_dcg(measure, judgments, lambda: judgments.ideal(exponential_gain, judgments.label > 0),
                     measure['cutoff'], _log2_discount)


def _expected_ndcg(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    dcg = expected_dcg(ranked, exponential_gain(ranked.label), _log2_discount, measure['cutoff'])
    return safe_divide(dcg, _ideal_dcg(measure, ranked.judgments))


@kernel('nDCG', prepare=_ideal_dcg, expected=_expected_ndcg, variant=('dcg', 'exp-log2'))
def exp_ndcg(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """nDCG(dcg='exp-log2')@k = Σ_{r≤k} (2^label − 1)/log2(r + 1), over the same of the ideal list; 0 for a query
    without a label above 0. (gdeval divides by ln(r + 1): the same ratio.) Its gain grows with the label, so
    optimistic/pessimistic order tied docs by label."""
    top = ranked.top(measure['cutoff'])
    dcg = top.per_query_sum(exponential_gain(top.label) / _log2_discount(top.rank))
    return safe_divide(dcg, _ideal_dcg(measure, ranked.judgments))


@kernel('ERR', prepare=check_grades)
def expected_reciprocal_rank(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """ERR@k = Σ_{r≤k} (1/r)·R(r)·Π_{i<r}(1 − R(i)), R = (2^label − 1)/2^4 (not normalised). Ordering tied
    docs by R, which grows with the label, gives its largest/smallest value (swapping adjacent docs a, b at
    ranks r, r + 1 moves it by (R_a − R_b)(1/r − 1/(r + 1)) times the probability of reaching r); its mean over
    the orderings has no closed form (``ties='expected'`` is refused)."""
    top = ranked.top(measure['cutoff'])
    stop = exponential_gain(top.label) / 2.0 ** MAX_GRADE
    return cascade(top.query, stop, 1 / top.rank, ranked.n_queries)
