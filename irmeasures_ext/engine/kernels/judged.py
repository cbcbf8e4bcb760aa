"""Kernel of ir_measures' ``Judged`` (declared in ``irmeasures_ext.measures.judged``)."""
from __future__ import annotations

import numpy as np
from ir_measures import measures as irm

from irmeasures_ext.engine.kernels.common import kernel
from irmeasures_ext.engine.ranking import RankedRun
from irmeasures_ext.engine.segments import safe_divide
from irmeasures_ext.engine.ties import expected_position_weight, positions
from irmeasures_ext.measures.base import optional_param


def _ranked_docs(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """min(k, n) per query (n without a cutoff): the docs the rate is a fraction of, as ir_measures' judged
    provider counts them (a cutoff beyond the ranking counts the docs retrieved)."""
    cutoff = optional_param(measure, 'cutoff')
    return ranked.n_retrieved if cutoff is None else np.minimum(ranked.n_retrieved, cutoff)


def _expected_judged(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """E[Judged@k] over the orderings of each tie group: each judged doc counts with the probability that
    its group puts it in the top k; the denominator does not depend on the order."""
    cutoff = optional_param(measure, 'cutoff')
    if cutoff is None:
        return judged_rate(measure, ranked)
    inside = expected_position_weight(ranked, np.ones(len(positions(ranked))), cutoff)
    return safe_divide(ranked.per_query_sum(inside), _ranked_docs(measure, ranked))


@kernel('Judged', expected=_expected_judged)
def judged_rate(measure: irm.Measure, ranked: RankedRun) -> np.ndarray:
    """Judged@k = |docs with a qrels entry in the top k| / min(k, n); 0 for a query retrieving nothing. Every
    row of the ranked run is a judged doc; under optimistic/pessimistic, judged docs come first/last in their
    tie groups (unjudged docs count below every label), which is the largest/smallest rate."""
    top = ranked.top(optional_param(measure, 'cutoff'))
    return safe_divide(np.bincount(top.query, minlength=ranked.n_queries).astype(np.float64),
                       _ranked_docs(measure, ranked))
