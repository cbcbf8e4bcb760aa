"""Kernels of Sakai's bpref family (declared in ``irmeasures_ext.measures.ntcir_bpref``): computed from
the judged rows of the ranked run, which are the condensed list."""
from __future__ import annotations

from collections.abc import Callable

import numpy as np
from ir_measures import measures as irm

from irmeasures_ext.engine.kernels.common import graded_credit, graded_gain, kernel, threshold_sum, top_gain
from irmeasures_ext.engine.ranking import RankedRun
from irmeasures_ext.engine.segments import safe_divide, segment_count, segment_sum
from irmeasures_ext.measures.base import name_of, optional_param

#: Each binary measure's term for a relevant doc, of (n_r, condensed rank r, R, N) per row.
BINARY_TERMS: dict[str, Callable[..., np.ndarray]] = {
    'bpref_NTCIR': lambda n, r, big_r, big_n: 1 - np.minimum(big_r, n) / np.minimum(big_r, big_n),
    'bpref_R': lambda n, r, big_r, big_n: 1 - np.minimum(big_r, n) / big_r,
    'bpref_N': lambda n, r, big_r, big_n: 1 - n / big_n,
    'bpref_relative': lambda n, r, big_r, big_n: np.where(r > 1, 1 - n / np.maximum(r - 1, 1), 0.0),
}
#: Each graded measure's divisor of the penalty, of (condensed rank r, R + N − cg*(R)/g_max) per row; a
#: divisor of 0 (rpref_relative at rank 1) makes the row's term 0.
GRADED_DIVISORS: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    'rpref_N': lambda r, n_scale: n_scale,
    'rpref_relative': lambda r, n_scale: r - 1.0,
    'rpref_relative2': lambda r, n_scale: r.astype(np.float64),
}


def judged_counts(measure: irm.Measure, ranked: RankedRun) -> tuple[np.ndarray, np.ndarray]:
    """(R, N) per query: the relevant and the judged non-relevant docs of the qrels."""
    judgments = ranked.judgments
    rel = measure['rel']
    non_relevant = judgments.cached(('judged non-relevant', rel), lambda: segment_count(
        judgments.label < rel, judgments.query, judgments.n_queries))
    return judgments.n_relevant(rel), non_relevant


def condensed_rank(ranked: RankedRun) -> np.ndarray:
    """Each judged row's rank among its query's judged rows (its rank in the condensed list)."""
    return np.arange(1, len(ranked.query) + 1) - ranked.starts[ranked.query]


def binary_bpref(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """bpref_NTCIR, bpref_R, bpref_N or bpref_relative per query (0 where R = 0 or N = 0)."""
    big_r, big_n = judged_counts(measure, ranked)
    defined = (big_r > 0) & (big_n > 0)
    relevant = ranked.relevant(measure['rel']) & defined[ranked.query]
    rank = condensed_rank(ranked)
    non_relevant_above = rank - ranked.cumulative(ranked.relevant(measure['rel']).astype(np.int64))
    query = ranked.query[relevant]
    term = BINARY_TERMS[name_of(measure)](non_relevant_above[relevant], rank[relevant], big_r[query], big_n[query])
    return safe_divide(segment_sum(term, query, ranked.n_queries), np.where(defined, big_r, 0))


def graded_rpref(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """rpref_N, rpref_relative or rpref_relative2 per query (0 where R = 0 or N = 0)."""
    rel, gains = measure['rel'], optional_param(measure, 'gains')
    judgments = ranked.judgments
    big_r, big_n = judged_counts(measure, ranked)
    total_gain = segment_sum(graded_gain(judgments.label, rel, gains), judgments.query, judgments.n_queries)
    top = top_gain(measure, judgments)
    n_scale = big_r + big_n - safe_divide(total_gain, np.full(judgments.n_queries, top))
    gain = graded_gain(ranked.label, rel, gains)
    penalty = threshold_sum(ranked, gain, lambda value: value, at_least=False)  # g(r)·pen(r)
    divisor = GRADED_DIVISORS[name_of(measure)](condensed_rank(ranked), n_scale[ranked.query])
    term = np.where(divisor > 0, gain - safe_divide(penalty, divisor), 0.0)
    defined = (big_r > 0) & (big_n > 0)
    return safe_divide(ranked.per_query_sum(term), np.where(defined, total_gain, 0.0))


for _name in BINARY_TERMS:
    kernel(_name)(binary_bpref)
for _name in GRADED_DIVISORS:
    kernel(_name, prepare=top_gain, credit=graded_credit)(graded_rpref)
