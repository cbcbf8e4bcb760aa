"""Plain, slow reference implementations of NTCIREVAL's intent-aware diversity measures, one topic at a time.

Written from the definitions of NTCIREVAL 190111's diversity scripts (``D-NTCIR-eval``, ``DIN-NTCIR-eval``,
``D-NTCIR-IAeval``/``IAeval2``, ``DIN-NTCIR-PQeval``, ``NEVIAPQ2sharpnev``) and the ``ntcir_eval`` subcommands
they call (``glabel``, ``dinlabel``, ``gcompute``, ``irec``), as ``tests/data/diversity/README.upstream.md``
("How NTCIREVAL computes each measure") states them, as loops over one ranked list: no numpy and nothing
imported from ``irmeasures_ext``. ``tests/ntcireval/test_diversity_references.py`` checks every function against
NTCIREVAL's own values (``tests/data/diversity/ntcireval_per_topic.tsv``), then the package's provider against
these functions on generated data.

Each measure function takes the topic's ranking (doc ids, best first; rank r is the 1-based position), its
judgments ``{doc_id: {intent: level}}`` (a doc missing from it is unjudged), the intent probabilities
``{intent: P(i|q)}``, the intent types ``{intent: 'inf' or 'nav'}`` where the measure needs them, the cutoff k
and ``rel``, and returns the value for that topic.

NTCIREVAL's conventions, as these functions follow them:

* **Relevance and gains.** Intent i's level of doc d counts where it is ≥ ``rel`` (NTCIREVAL: L1 and above);
  the gain g_i(d) is then the level itself (NTCIREVAL's default linear gains; levels may be real numbers),
  else 0. Unjudged docs, and docs judged below ``rel`` for every intent, have gain 0 and count in the ranks.
* **I**, the topic's intents, holds only the intents with at least one doc of level ≥ ``rel``. An intent
  without one is ignored everywhere: its probability is missing from every sum (no renormalisation), and an
  intent's probability is only looked up for intents of I. The probabilities are used as given (NTCIREVAL
  does not check that they sum to 1).
* **Global gain** GG(d) = Σ_i P(i|q)·g_i(d) over d's intents with level ≥ ``rel``. The D-measures' **ideal
  list** is every judged doc with GG > 0, by GG descending; R = its length, H = its largest GG.
* **Ad hoc measures on a gain list** (``gcompute``), at cutoff k, with G(r) the gain at rank r, C(r) = the
  number of ranks s ≤ r with G(s) > 0, CG(r) = Σ_{s≤r} G(s), CG*(r) = the ideal list's cumulative gain at
  rank min(r, R) (0 if R = 0), BR(r) = (C(r) + β·CG(r)) / (r + β·CG*(r)) (patience β: 1, NTCIREVAL's default,
  its ``gcompute -beta``; every function whose value holds a BR takes ``beta``):

  - MSnDCG@k = Σ_{r≤k} G(r)/log2(r + 1) over the same sum of the ideal list (0 if that is 0);
  - Q@k = Σ_{r≤k, G(r)>0} BR(r) / min(k, R) (0 if R = 0);
  - nERR@k = ERR@k / ERR@k of the ideal list, ERR@k = Σ_{r≤k} (1/r)·p(r)·Π_{s<r}(1 − p(s)), p = G/(H + 1);
  - P-plus on the list truncated to k: rp = the first rank ≤ k whose G equals the largest G of the top k (G
    compared as gcompute reads them, printed with 12 decimals: 0.1 + 0.2 is 0.3);
    Σ_{r≤rp, G(r)>0} BR(r) / C(rp); 0 if no doc of the top k has G > 0;
  - RBP@k = (1 − p)·Σ_{r≤k} G(r)·p^{r−1} / H (persistence p: 0.95, NTCIREVAL's default; D-NTCIR-eval2's 0.99);
  - EBR@k = Σ_{r≤k} BR(r)·p(r)·Π_{s<r}(1 − p(s)), p = G/(H + 1);
  - on the list truncated to k (gcompute's lines without ``@k``; k = :data:`WHOLE_LIST` for the whole list): RR =
    1/r1, r1 the first rank with G > 0; O-measure = BR(r1); P-measure = BR(rp); rank-biased NCU = Σ_{G(r)>0}
    u(r)·γ^{C(r)−1} / Σ_{j=1..R} γ^{j−1}, u = C(r)/r or BR(r); AP and Q-measure are AP@k and Q@k with k ≥ R;
  - GAP@k (gcompute ``-gap``) = Σ_{r≤k} GS(r)/r / GI(min(k, R)), GS(r) = Σ_{s≤r} m(m + 1), m = min(G(r), G(s)),
    for G(r) > 0 (else 0), GI(n) = Σ_{j≤n} G*(j)(G*(j) + 1) over the ideal list.

* **D-measures** (``D-NTCIR-eval``, ``eval2``): D-nDCG (NTCIREVAL's ``MSnDCG@k``), D-Q (``Q@k``), D-nERR
  (``nERR@k``), D-ERR (``ERR@k``), D-RBP (``RBP@k``), D-EBR (``EBR@k``), D-AP (``AP@k``), D-P (``P@k``), D-Hit
  (``Hit@k``) and D-nDCG_JK (``nDCG@k``) are these measures with gains GG
  against the ideal list.
* **I-rec@k** (``irec``) = |{i ∈ I: a doc of the top k has level ≥ ``rel`` for i}| / |I| (0 if I is empty);
  I-rec@n is I-rec@|I|.
* **DIN-measures** (``DIN-NTCIR-eval``): walking the ranking from the top, a doc's gain is Σ P(i|q)·g_i(d) over
  its informational intents, plus P(j|q)·g_j(d) for each navigational intent j for which d is the first doc of
  the ranking of level ≥ ``rel`` for j (later docs of j add nothing, even at a higher level). DIN-nDCG and
  DIN-Q use these gains against the **same ideal list as the D-measures** (DIN-Q's C(r) counts the docs whose
  DIN gain is above 0).
* **#-measures**: X#@k = γ·I-rec@k + (1 − γ)·X@k (γ = 0.5 in NTCIREVAL's scripts).
* **IA-measures** (``D-NTCIR-IAeval``, ``IAeval2``): IA-M@k = Σ_{i∈I} P(i|q)·M_i@k, M_i being the ad hoc
  measure with gains g_i against intent i's ideal list (its docs of level ≥ ``rel``, by level descending;
  R_i = their number, H_i = the top level).
* **P+Q@k** (``DIN-NTCIR-PQeval``) = Σ_{i∈I} P(i|q)·(Q_i@k for an informational intent, P-plus_i for a
  navigational one); P+Q#@k = γ·I-rec@k + (1 − γ)·P+Q@k (``NEVIAPQ2sharpnev``).
* **Order of the run** (``tie_rule_ranking``): NTCIREVAL never sorts; its input was ordered by trec_eval's
  rule, score descending, then doc id descending byte-wise.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence

from reference import expected_reciprocal_rank as err  # (ERR@k, stop probability G/(H + 1): the same loop)
from reference_diversity import read_trec_run  # noqa: F401  (a TREC run, as the ndeval references read it)

Judgments = Mapping[str, Mapping[str, float]]  # {doc_id: {intent: level}}
Probabilities = Mapping[str, float]  # {intent: P(i|q)}
Types = Mapping[str, str]  # {intent: 'inf' or 'nav'}
GAMMA = 0.5
BETA = 1.0  # (gcompute's default -beta)
PERSISTENCE = 0.95
NCU_GAMMA = 0.95  # (gcompute's default -gamma)
#: A cutoff beyond every list: the measure on the whole list.
WHOLE_LIST = 10 ** 9


def tie_rule_ranking(scores: Mapping[str, float]) -> list[str]:
    """trec_eval's order (NTCIREVAL's input here): score descending, then doc id descending byte-wise."""
    return sorted(scores, key=lambda doc: (scores[doc], doc.encode('utf-8')), reverse=True)


# ---------------------------------------------------------------- intents and gains


def intents_with_relevant_doc(judgments: Judgments, rel: int = 1) -> set[str]:
    """I: the intents for which at least one doc has level ≥ ``rel``."""
    return {intent for levels in judgments.values() for intent, level in levels.items() if level >= rel}


def intent_gain(doc: str, intent: str, judgments: Judgments, rel: int = 1) -> float:
    """g_i(d): d's level for ``intent`` where it is ≥ ``rel``, else 0 (also for an unjudged doc)."""
    level = judgments.get(doc, {}).get(intent, 0)
    return float(level) if level >= rel else 0.0


def global_gain(doc: str, judgments: Judgments, probabilities: Probabilities, rel: int = 1) -> float:
    """GG(d) = Σ_i P(i|q)·g_i(d) over d's intents with level ≥ ``rel``."""
    gain = 0.0
    for intent, level in judgments.get(doc, {}).items():
        if level >= rel:
            gain += probabilities[intent] * level
    return gain


def global_gains(ranking: Sequence[str], judgments: Judgments, probabilities: Probabilities,
                 rel: int = 1) -> list[float]:
    """G(r) = GG(doc at rank r) for each rank of ``ranking``."""
    return [global_gain(doc, judgments, probabilities, rel) for doc in ranking]


def ideal_global_gains(judgments: Judgments, probabilities: Probabilities, rel: int = 1) -> list[float]:
    """The D-measures' ideal list, as its gains: every judged doc's GG that is above 0, descending."""
    gains = [global_gain(doc, judgments, probabilities, rel) for doc in judgments]
    return sorted((gain for gain in gains if gain > 0), reverse=True)


def din_gains(ranking: Sequence[str], judgments: Judgments, probabilities: Probabilities, types: Types,
              rel: int = 1) -> list[float]:
    """The DIN gain of each rank: P(i|q)·g_i(d) summed over d's informational intents, and over the navigational
    intents for which d is the first doc of the ranking of level ≥ ``rel``."""
    seen: set[str] = set()
    gains = []
    for doc in ranking:
        gain = 0.0
        for intent, level in judgments.get(doc, {}).items():
            if level < rel:
                continue
            if types[intent] == 'nav':
                if intent in seen:
                    continue
                seen.add(intent)
            gain += probabilities[intent] * level
        gains.append(gain)
    return gains


def intent_gains(ranking: Sequence[str], judgments: Judgments, intent: str, rel: int = 1) -> list[float]:
    """g_i(doc at rank r) for each rank of ``ranking``."""
    return [intent_gain(doc, intent, judgments, rel) for doc in ranking]


def ideal_intent_gains(judgments: Judgments, intent: str, rel: int = 1) -> list[float]:
    """Intent i's ideal list, as its gains: the levels ≥ ``rel`` of its docs, descending."""
    gains = [intent_gain(doc, intent, judgments, rel) for doc in judgments]
    return sorted((gain for gain in gains if gain > 0), reverse=True)


# ---------------------------------------------------------------- ad hoc measures on a gain list (gcompute)


def ms_ndcg(gains: Sequence[float], ideal: Sequence[float], cutoff: int) -> float:
    """MSnDCG@k = Σ_{r≤k} G(r)/log2(r + 1) over the same sum of the ideal list (0 if that is 0)."""
    dcg = sum(gain / math.log2(rank + 1) for rank, gain in enumerate(gains[:cutoff], start=1))
    ideal_dcg = sum(gain / math.log2(rank + 1) for rank, gain in enumerate(ideal[:cutoff], start=1))
    return dcg / ideal_dcg if ideal_dcg > 0 else 0.0


def _ideal_cumulative_gain(ideal: Sequence[float], rank: int) -> float:
    """CG*(r): the ideal list's cumulative gain at rank min(r, R) (0 if R = 0)."""
    return sum(ideal[:rank])


def blended_ratios(gains: Sequence[float], ideal: Sequence[float], cutoff: int, beta: float = BETA) -> list[float]:
    """BR(r) = (C(r) + β·CG(r)) / (r + β·CG*(r)) for r ≤ k, whatever G(r)."""
    ratios = []
    relevant, cumulative = 0, 0.0
    for rank, gain in enumerate(gains[:cutoff], start=1):
        if gain > 0:
            relevant += 1
        cumulative += gain
        ratios.append((relevant + beta * cumulative) / (rank + beta * _ideal_cumulative_gain(ideal, rank)))
    return ratios


def q_measure(gains: Sequence[float], ideal: Sequence[float], cutoff: int, beta: float = BETA) -> float:
    """Q@k = Σ_{r≤k, G(r)>0} BR(r) / min(k, R) (0 if R = 0)."""
    if not ideal:
        return 0.0
    ratios = blended_ratios(gains, ideal, cutoff, beta)
    total = sum(ratio for ratio, gain in zip(ratios, gains, strict=False) if gain > 0)
    return total / min(cutoff, len(ideal))


def nerr(gains: Sequence[float], ideal: Sequence[float], cutoff: int) -> float:
    """nERR@k = ERR@k / ERR@k of the ideal list, H = the ideal list's largest gain (0 if there is none)."""
    if not ideal:
        return 0.0
    highest = max(ideal)
    best = err(ideal, highest, cutoff)
    return err(gains, highest, cutoff) / best if best > 0 else 0.0


def rbp(gains: Sequence[float], highest: float, cutoff: int, persistence: float = PERSISTENCE) -> float:
    """RBP@k = (1 − p)·Σ_{r≤k} G(r)·p^{r−1} / H (0 if H = 0)."""
    if highest <= 0:
        return 0.0
    return (1 - persistence) * sum(gain * persistence ** (rank - 1)
                                   for rank, gain in enumerate(gains[:cutoff], start=1)) / highest


def ebr(gains: Sequence[float], ideal: Sequence[float], cutoff: int, beta: float = BETA) -> float:
    """EBR@k = Σ_{r≤k} BR(r)·p(r)·Π_{s<r}(1 − p(s)), p = G/(H + 1), H = the ideal list's largest gain."""
    if not ideal:
        return 0.0
    highest = max(ideal)
    total, not_stopped = 0.0, 1.0
    for ratio, gain in zip(blended_ratios(gains, ideal, cutoff, beta), gains[:cutoff], strict=False):
        stop = gain / (highest + 1)
        total += not_stopped * stop * ratio
        not_stopped *= 1 - stop
    return total


def average_precision(gains: Sequence[float], ideal: Sequence[float], cutoff: int) -> float:
    """AP@k = Σ_{r≤k, G(r)>0} C(r)/r / min(k, R) (0 if R = 0)."""
    if not ideal:
        return 0.0
    found, total = 0, 0.0
    for rank, gain in enumerate(gains[:cutoff], start=1):
        if gain > 0:
            found += 1
            total += found / rank
    return total / min(cutoff, len(ideal))


def precision(gains: Sequence[float], cutoff: int) -> float:
    """P@k = C(k)/k."""
    return sum(1 for gain in gains[:cutoff] if gain > 0) / cutoff


def jk_ndcg(gains: Sequence[float], ideal: Sequence[float], cutoff: int) -> float:
    """nDCG@k of Järvelin and Kekäläinen: Σ_{r≤k} G(r)/max(1, log2 r) over the same of the ideal list."""
    def dcg(values: Sequence[float]) -> float:
        return sum(gain / max(1.0, math.log2(rank)) for rank, gain in enumerate(values[:cutoff], start=1))
    best = dcg(ideal)
    return dcg(gains) / best if best > 0 else 0.0


def _preferred(gains: Sequence[float]) -> int:
    """The index of the first of the largest gains, compared as gcompute reads them: printed with 12 decimals."""
    printed = [f'{gain:.12f}' for gain in gains]
    return printed.index(max(printed, key=float))


def p_plus(gains: Sequence[float], ideal: Sequence[float], cutoff: int, beta: float = BETA) -> float:
    """P-plus on the top k: rp = the first rank whose G is the largest G of the top k;
    Σ_{r≤rp, G(r)>0} BR(r) / C(rp); 0 if no doc of the top k has G > 0."""
    top = list(gains[:cutoff])
    if not top or max(top) <= 0:
        return 0.0
    preferred = _preferred(top) + 1
    ratios = blended_ratios(top, ideal, preferred, beta)
    relevant = [ratio for ratio, gain in zip(ratios, top, strict=False) if gain > 0]
    return sum(relevant) / len(relevant)


def reciprocal_rank(gains: Sequence[float], cutoff: int) -> float:
    """RR on the top k = 1/r1, r1 the first rank with G > 0 (0 without one)."""
    for rank, gain in enumerate(gains[:cutoff], start=1):
        if gain > 0:
            return 1 / rank
    return 0.0


def o_measure(gains: Sequence[float], ideal: Sequence[float], cutoff: int, beta: float = BETA) -> float:
    """O-measure on the top k = BR(r1) (0 without a doc of G > 0)."""
    for ratio, gain in zip(blended_ratios(gains, ideal, cutoff, beta), gains, strict=False):
        if gain > 0:
            return ratio
    return 0.0


def p_measure(gains: Sequence[float], ideal: Sequence[float], cutoff: int, beta: float = BETA) -> float:
    """P-measure on the top k = BR(rp), rp the first rank whose G is the largest G of the top k (0 without one
    above 0)."""
    top = list(gains[:cutoff])
    if not top or max(top) <= 0:
        return 0.0
    return blended_ratios(top, ideal, cutoff, beta)[_preferred(top)]


def rank_biased_ncu(gains: Sequence[float], ideal: Sequence[float], cutoff: int, utility: str = 'BR',
                    gamma: float = NCU_GAMMA, beta: float = BETA) -> float:
    """NCUrb on the top k = Σ_{r≤k, G(r)>0} u(r)·γ^{C(r)−1} / Σ_{j=1..R} γ^{j−1}, u = BR(r) or C(r)/r."""
    norm = sum(gamma ** (j - 1) for j in range(1, len(ideal) + 1))
    if norm == 0:
        return 0.0
    total, found = 0.0, 0
    for rank, (ratio, gain) in enumerate(zip(blended_ratios(gains, ideal, cutoff, beta), gains, strict=False),
                                         start=1):
        if gain > 0:
            found += 1
            total += (ratio if utility == 'BR' else found / rank) * gamma ** (found - 1)
    return total / norm


def graded_average_precision(gains: Sequence[float], ideal: Sequence[float], cutoff: int) -> float:
    """GAP@k = Σ_{r≤k} GS(r)/r / GI(min(k, R)), as gcompute ``-gap`` loops."""
    ideal_sum = sum(gain * (gain + 1) for gain in ideal[:cutoff])
    if ideal_sum == 0:
        return 0.0
    top = list(gains[:cutoff])
    total = 0.0
    for rank, gain in enumerate(top, start=1):
        if gain > 0:
            total += sum(min(gain, other) * (min(gain, other) + 1) for other in top[:rank]) / rank
    return total / ideal_sum


# ---------------------------------------------------------------- the diversity measures


def i_rec(ranking: Sequence[str], judgments: Judgments, cutoff: int, rel: int = 1) -> float:
    """I-rec@k = the intents of I with a doc of level ≥ ``rel`` in the top k, over |I| (0 if I is empty)."""
    intents = intents_with_relevant_doc(judgments, rel)
    if not intents:
        return 0.0
    covered = {intent for doc in ranking[:cutoff] for intent, level in judgments.get(doc, {}).items()
               if level >= rel}
    return len(covered) / len(intents)


def i_rec_at_n(ranking: Sequence[str], judgments: Judgments, rel: int = 1) -> float:
    """I-rec@n = I-rec at rank n = |I|."""
    return i_rec(ranking, judgments, len(intents_with_relevant_doc(judgments, rel)), rel)


def sum_p(ranking: Sequence[str], judgments: Judgments, probabilities: Probabilities, cutoff: int = WHOLE_LIST,
          rel: int = 1) -> float:
    """SUMp = Σ P(i|q) over I, the intents with a relevant doc (what NTCIREVAL's IA and P+Q scripts print as
    ``SUMp=``: the largest an IA value can be); neither the ranking nor the cutoff plays a part."""
    return math.fsum(probabilities[intent] for intent in intents_with_relevant_doc(judgments, rel))


def d_ndcg(ranking: Sequence[str], judgments: Judgments, probabilities: Probabilities, cutoff: int,
           rel: int = 1) -> float:
    """D-nDCG@k: MSnDCG@k with gains GG against the ideal list."""
    return ms_ndcg(global_gains(ranking, judgments, probabilities, rel),
                   ideal_global_gains(judgments, probabilities, rel), cutoff)


def d_q(ranking: Sequence[str], judgments: Judgments, probabilities: Probabilities, cutoff: int,
        rel: int = 1, beta: float = BETA) -> float:
    """D-Q@k: Q@k with gains GG against the ideal list."""
    return q_measure(global_gains(ranking, judgments, probabilities, rel),
                     ideal_global_gains(judgments, probabilities, rel), cutoff, beta)


def d_nerr(ranking: Sequence[str], judgments: Judgments, probabilities: Probabilities, cutoff: int,
           rel: int = 1) -> float:
    """D-nERR@k: nERR@k with gains GG against the ideal list (stop probability GG/(H + 1))."""
    return nerr(global_gains(ranking, judgments, probabilities, rel),
                ideal_global_gains(judgments, probabilities, rel), cutoff)


def d_sharp_ndcg(ranking: Sequence[str], judgments: Judgments, probabilities: Probabilities, cutoff: int,
                 rel: int = 1, gamma: float = GAMMA) -> float:
    """D#-nDCG@k = γ·I-rec@k + (1 − γ)·D-nDCG@k."""
    return (gamma * i_rec(ranking, judgments, cutoff, rel)
            + (1 - gamma) * d_ndcg(ranking, judgments, probabilities, cutoff, rel))


def d_sharp_q(ranking: Sequence[str], judgments: Judgments, probabilities: Probabilities, cutoff: int,
              rel: int = 1, gamma: float = GAMMA, beta: float = BETA) -> float:
    """D#-Q@k = γ·I-rec@k + (1 − γ)·D-Q@k."""
    return (gamma * i_rec(ranking, judgments, cutoff, rel)
            + (1 - gamma) * d_q(ranking, judgments, probabilities, cutoff, rel, beta))


def din_ndcg(ranking: Sequence[str], judgments: Judgments, probabilities: Probabilities, types: Types,
             cutoff: int, rel: int = 1) -> float:
    """DIN-nDCG@k: MSnDCG@k with the DIN gains against the D-measures' ideal list."""
    return ms_ndcg(din_gains(ranking, judgments, probabilities, types, rel),
                   ideal_global_gains(judgments, probabilities, rel), cutoff)


def din_q(ranking: Sequence[str], judgments: Judgments, probabilities: Probabilities, types: Types,
          cutoff: int, rel: int = 1, beta: float = BETA) -> float:
    """DIN-Q@k: Q@k with the DIN gains against the D-measures' ideal list."""
    return q_measure(din_gains(ranking, judgments, probabilities, types, rel),
                     ideal_global_gains(judgments, probabilities, rel), cutoff, beta)


def din_sharp_ndcg(ranking: Sequence[str], judgments: Judgments, probabilities: Probabilities, types: Types,
                   cutoff: int, rel: int = 1, gamma: float = GAMMA) -> float:
    """DIN#-nDCG@k = γ·I-rec@k + (1 − γ)·DIN-nDCG@k."""
    return (gamma * i_rec(ranking, judgments, cutoff, rel)
            + (1 - gamma) * din_ndcg(ranking, judgments, probabilities, types, cutoff, rel))


def din_sharp_q(ranking: Sequence[str], judgments: Judgments, probabilities: Probabilities, types: Types,
                cutoff: int, rel: int = 1, gamma: float = GAMMA, beta: float = BETA) -> float:
    """DIN#-Q@k = γ·I-rec@k + (1 − γ)·DIN-Q@k."""
    return (gamma * i_rec(ranking, judgments, cutoff, rel)
            + (1 - gamma) * din_q(ranking, judgments, probabilities, types, cutoff, rel, beta))


def d_ap(ranking: Sequence[str], judgments: Judgments, probabilities: Probabilities, cutoff: int,
         rel: int = 1) -> float:
    """D-AP@k: AP@k with gains GG against the ideal list."""
    return average_precision(global_gains(ranking, judgments, probabilities, rel),
                             ideal_global_gains(judgments, probabilities, rel), cutoff)


def d_p(ranking: Sequence[str], judgments: Judgments, probabilities: Probabilities, cutoff: int,
        rel: int = 1) -> float:
    """D-P@k: the docs of GG > 0 in the top k, over k."""
    return precision(global_gains(ranking, judgments, probabilities, rel), cutoff)


def d_hit(ranking: Sequence[str], judgments: Judgments, probabilities: Probabilities, cutoff: int,
          rel: int = 1) -> float:
    """D-Hit@k: 1 if a doc of GG > 0 is in the top k."""
    return 1.0 if d_p(ranking, judgments, probabilities, cutoff, rel) > 0 else 0.0


def d_ndcg_jk(ranking: Sequence[str], judgments: Judgments, probabilities: Probabilities, cutoff: int,
              rel: int = 1) -> float:
    """D-nDCG_JK@k: NTCIREVAL's nDCG@k with gains GG."""
    return jk_ndcg(global_gains(ranking, judgments, probabilities, rel),
                   ideal_global_gains(judgments, probabilities, rel), cutoff)


def d_err(ranking: Sequence[str], judgments: Judgments, probabilities: Probabilities, cutoff: int,
          rel: int = 1) -> float:
    """D-ERR@k: ERR@k with gains GG, H the ideal list's largest GG (not normalised)."""
    ideal = ideal_global_gains(judgments, probabilities, rel)
    return err(global_gains(ranking, judgments, probabilities, rel), max(ideal, default=0.0), cutoff)


def d_rbp(ranking: Sequence[str], judgments: Judgments, probabilities: Probabilities, cutoff: int,
          rel: int = 1, p: float = PERSISTENCE) -> float:
    """D-RBP@k: RBP@k with gains GG and persistence ``p``."""
    ideal = ideal_global_gains(judgments, probabilities, rel)
    return rbp(global_gains(ranking, judgments, probabilities, rel), max(ideal, default=0.0), cutoff, p)


def d_ebr(ranking: Sequence[str], judgments: Judgments, probabilities: Probabilities, cutoff: int,
          rel: int = 1, beta: float = BETA) -> float:
    """D-EBR@k: EBR@k with gains GG against the ideal list."""
    return ebr(global_gains(ranking, judgments, probabilities, rel), ideal_global_gains(judgments, probabilities, rel),
               cutoff, beta)


def _over_global_gain(measure: Callable[[Sequence[float], Sequence[float], int], float], ranking: Sequence[str],
                      judgments: Judgments, probabilities: Probabilities, cutoff: int, rel: int) -> float:
    """``measure`` with gains GG against the D-measures' ideal list."""
    return measure(global_gains(ranking, judgments, probabilities, rel),
                   ideal_global_gains(judgments, probabilities, rel), cutoff)


def d_rr(ranking: Sequence[str], judgments: Judgments, probabilities: Probabilities, cutoff: int,
         rel: int = 1) -> float:
    """D-RR: RR on the top k with gains GG."""
    return reciprocal_rank(global_gains(ranking, judgments, probabilities, rel), cutoff)


def d_o_measure(ranking: Sequence[str], judgments: Judgments, probabilities: Probabilities, cutoff: int,
                rel: int = 1, beta: float = BETA) -> float:
    """D-O-measure: the O-measure on the top k with gains GG."""
    return _over_global_gain(lambda gains, ideal, k: o_measure(gains, ideal, k, beta), ranking, judgments,
                             probabilities, cutoff, rel)


def d_p_measure(ranking: Sequence[str], judgments: Judgments, probabilities: Probabilities, cutoff: int,
                rel: int = 1, beta: float = BETA) -> float:
    """D-P-measure: the P-measure on the top k with gains GG."""
    return _over_global_gain(lambda gains, ideal, k: p_measure(gains, ideal, k, beta), ranking, judgments,
                             probabilities, cutoff, rel)


def d_p_plus(ranking: Sequence[str], judgments: Judgments, probabilities: Probabilities, cutoff: int,
             rel: int = 1, beta: float = BETA) -> float:
    """D-P-plus: P-plus on the top k with gains GG."""
    return _over_global_gain(lambda gains, ideal, k: p_plus(gains, ideal, k, beta), ranking, judgments,
                             probabilities, cutoff, rel)


def d_ncu(ranking: Sequence[str], judgments: Judgments, probabilities: Probabilities, cutoff: int, rel: int = 1,
          utility: str = 'BR', gamma: float = NCU_GAMMA, beta: float = BETA) -> float:
    """D-NCU: rank-biased NCU on the top k with gains GG (``beta`` matters only to ``utility='BR'``)."""
    return _over_global_gain(lambda gains, ideal, k: rank_biased_ncu(gains, ideal, k, utility, gamma, beta), ranking,
                             judgments, probabilities, cutoff, rel)


def d_gap(ranking: Sequence[str], judgments: Judgments, probabilities: Probabilities, cutoff: int,
          rel: int = 1) -> float:
    """D-GAP@k: GAP@k with gains GG."""
    return _over_global_gain(graded_average_precision, ranking, judgments, probabilities, cutoff, rel)


def d_sharp_err(ranking: Sequence[str], judgments: Judgments, probabilities: Probabilities, cutoff: int,
                rel: int = 1, gamma: float = GAMMA) -> float:
    """D#-ERR@k = γ·I-rec@k + (1 − γ)·D-ERR@k."""
    return (gamma * i_rec(ranking, judgments, cutoff, rel)
            + (1 - gamma) * d_err(ranking, judgments, probabilities, cutoff, rel))


def d_sharp_rbp(ranking: Sequence[str], judgments: Judgments, probabilities: Probabilities, cutoff: int,
                rel: int = 1, gamma: float = GAMMA, p: float = PERSISTENCE) -> float:
    """D#-RBP@k = γ·I-rec@k + (1 − γ)·D-RBP@k."""
    return (gamma * i_rec(ranking, judgments, cutoff, rel)
            + (1 - gamma) * d_rbp(ranking, judgments, probabilities, cutoff, rel, p))


def d_sharp_ebr(ranking: Sequence[str], judgments: Judgments, probabilities: Probabilities, cutoff: int,
                rel: int = 1, gamma: float = GAMMA, beta: float = BETA) -> float:
    """D#-EBR@k = γ·I-rec@k + (1 − γ)·D-EBR@k."""
    return (gamma * i_rec(ranking, judgments, cutoff, rel)
            + (1 - gamma) * d_ebr(ranking, judgments, probabilities, cutoff, rel, beta))


def _intent_aware(measure: Callable[[Sequence[float], Sequence[float], int], float], ranking: Sequence[str],
                  judgments: Judgments, probabilities: Probabilities, cutoff: int, rel: int) -> float:
    """Σ_{i∈I} P(i|q)·M_i@k, M_i with gains g_i against intent i's ideal list."""
    total = 0.0
    for intent in sorted(intents_with_relevant_doc(judgments, rel)):
        total += probabilities[intent] * measure(intent_gains(ranking, judgments, intent, rel),
                                                 ideal_intent_gains(judgments, intent, rel), cutoff)
    return total


def ia_msndcg(ranking: Sequence[str], judgments: Judgments, probabilities: Probabilities, cutoff: int,
              rel: int = 1) -> float:
    """IA-MSnDCG@k = Σ_{i∈I} P(i|q)·MSnDCG_i@k."""
    return _intent_aware(ms_ndcg, ranking, judgments, probabilities, cutoff, rel)


def ia_nerr(ranking: Sequence[str], judgments: Judgments, probabilities: Probabilities, cutoff: int,
            rel: int = 1) -> float:
    """IA-nERR@k = Σ_{i∈I} P(i|q)·nERR_i@k (stop probability g_i/(H_i + 1))."""
    return _intent_aware(nerr, ranking, judgments, probabilities, cutoff, rel)


def ia_q(ranking: Sequence[str], judgments: Judgments, probabilities: Probabilities, cutoff: int,
         rel: int = 1, beta: float = BETA) -> float:
    """IA-Q@k = Σ_{i∈I} P(i|q)·Q_i@k."""
    return _intent_aware(lambda gains, ideal, k: q_measure(gains, ideal, k, beta), ranking, judgments, probabilities,
                         cutoff, rel)


def ia_err(ranking: Sequence[str], judgments: Judgments, probabilities: Probabilities, cutoff: int,
           rel: int = 1) -> float:
    """IA-ERR@k = Σ_{i∈I} P(i|q)·ERR_i@k (H_i = intent i's top level; not normalised)."""
    return _intent_aware(lambda gains, ideal, k: err(gains, max(ideal), k), ranking, judgments, probabilities,
                         cutoff, rel)


def ia_rbp(ranking: Sequence[str], judgments: Judgments, probabilities: Probabilities, cutoff: int,
           rel: int = 1, p: float = PERSISTENCE) -> float:
    """IA-RBP@k = Σ_{i∈I} P(i|q)·RBP_i@k (H_i = intent i's top level)."""
    return _intent_aware(lambda gains, ideal, k: rbp(gains, max(ideal), k, p), ranking, judgments, probabilities,
                         cutoff, rel)


def ia_ebr(ranking: Sequence[str], judgments: Judgments, probabilities: Probabilities, cutoff: int,
           rel: int = 1, beta: float = BETA) -> float:
    """IA-EBR@k = Σ_{i∈I} P(i|q)·EBR_i@k."""
    return _intent_aware(lambda gains, ideal, k: ebr(gains, ideal, k, beta), ranking, judgments, probabilities,
                         cutoff, rel)


def pplus_q(ranking: Sequence[str], judgments: Judgments, probabilities: Probabilities, types: Types,
            cutoff: int, rel: int = 1, beta: float = BETA) -> float:
    """P+Q@k = Σ_{i∈I} P(i|q)·(Q_i@k if i is informational, P-plus_i on the top k if navigational)."""
    total = 0.0
    for intent in sorted(intents_with_relevant_doc(judgments, rel)):
        measure = p_plus if types[intent] == 'nav' else q_measure
        total += probabilities[intent] * measure(intent_gains(ranking, judgments, intent, rel),
                                                 ideal_intent_gains(judgments, intent, rel), cutoff, beta)
    return total


def pplus_q_sharp(ranking: Sequence[str], judgments: Judgments, probabilities: Probabilities, types: Types,
                  cutoff: int, rel: int = 1, gamma: float = GAMMA, beta: float = BETA) -> float:
    """P+Q#@k = γ·I-rec@k + (1 − γ)·P+Q@k."""
    return (gamma * i_rec(ranking, judgments, cutoff, rel)
            + (1 - gamma) * pplus_q(ranking, judgments, probabilities, types, cutoff, rel, beta))


# ---------------------------------------------------------------- NTCIREVAL's files


def read_dqrels(path) -> dict[str, dict[str, dict[str, int]]]:
    """``{topic_id: {doc_id: {intent: level}}}`` of an NTCIREVAL Dqrels file (``qid intent docid Lk``)."""
    qrels: dict = {}
    with open(path, encoding='utf-8') as lines:
        for line in lines:
            if line.strip():
                topic, intent, doc, level = line.split()
                assert level.startswith('L'), line
                qrels.setdefault(topic, {}).setdefault(doc, {})[intent] = int(level[1:])
    return qrels


def read_dinprob(path) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, str]]]:
    """``({topic_id: {intent: P(i|q)}}, {topic_id: {intent: 'inf' or 'nav'}})`` of a DINprob file
    (``qid intent prob inf|nav``)."""
    probabilities: dict = {}
    types: dict = {}
    with open(path, encoding='utf-8') as lines:
        for line in lines:
            if line.strip():
                topic, intent, probability, kind = line.split()
                assert kind in ('inf', 'nav'), line
                probabilities.setdefault(topic, {})[intent] = float(probability)
                types.setdefault(topic, {})[intent] = kind
    return probabilities, types

