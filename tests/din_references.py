"""The DIN-measures' plain references: each DIN-measure is its D-measure's formula (reference_ntcir_diversity.py's
loops) on DIN's gains (``din_gains``: a navigational intent counts at its first relevant doc only) against the
D-measures' ideal list (``ideal_global_gains``: R and H are the global gain's). Nothing here imports irmeasures_ext."""
from __future__ import annotations

from collections.abc import Callable, Sequence

import reference_ntcir_diversity as ref

OfGains = Callable[..., float]  # (G per rank, the ideal list's gains, the cutoff, parameters) -> the value


def _top(ideal: Sequence[float]) -> float:
    """H: the ideal list's largest gain (0 without one)."""
    return max(ideal, default=0.0)


#: Each DIN-measure (our name) -> (its value on a list of gains against an ideal list, the parameters it takes
#: besides ``rel``: ``beta`` for the blended ratio, ``p`` RBP's persistence, ``ncu`` NCU's utility and γ).
DIN_MEASURES: dict[str, tuple[OfGains, frozenset[str]]] = {
    'DIN_nDCG': (ref.ms_ndcg, frozenset()),
    'DIN_Q': (ref.q_measure, frozenset({'beta'})),
    'DIN_nERR': (ref.nerr, frozenset()),
    'DIN_ERR': (lambda gains, ideal, k: ref.err(gains, _top(ideal), k), frozenset()),
    'DIN_RBP': (lambda gains, ideal, k, p=ref.PERSISTENCE: ref.rbp(gains, _top(ideal), k, p), frozenset({'p'})),
    'DIN_EBR': (ref.ebr, frozenset({'beta'})),
    'DIN_AP': (ref.average_precision, frozenset()),
    'DIN_P': (lambda gains, ideal, k: ref.precision(gains, k), frozenset()),
    'DIN_Hit': (lambda gains, ideal, k: float(ref.precision(gains, k) > 0), frozenset()),
    'DIN_nDCG_JK': (ref.jk_ndcg, frozenset()),
    'DIN_RR': (lambda gains, ideal, k: ref.reciprocal_rank(gains, k), frozenset()),
    'DIN_O_measure': (ref.o_measure, frozenset({'beta'})),
    'DIN_P_measure': (ref.p_measure, frozenset({'beta'})),
    'DIN_P_plus': (ref.p_plus, frozenset({'beta'})),
    'DIN_NCU': (ref.rank_biased_ncu, frozenset({'beta', 'ncu'})),
}


def din_value(name: str, ranking: Sequence[str], judgments: ref.Judgments, probabilities: ref.Probabilities,
              types: ref.Types, cutoff: int, rel: float = 1, **params: float | str) -> float:
    """The reference's value of DIN-measure ``name`` for one topic at cutoff k (:data:`ref.WHOLE_LIST`: none);
    ``params``: ``beta``, ``p``, NCU's ``utility`` and ``gamma``."""
    of, _ = DIN_MEASURES[name]
    return of(ref.din_gains(ranking, judgments, probabilities, types, rel),
              ref.ideal_global_gains(judgments, probabilities, rel), cutoff, **params)

