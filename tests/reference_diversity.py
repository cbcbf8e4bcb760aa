"""Plain, slow reference implementations of TREC ndeval's novelty and diversity measures, one topic at a time.

Written from the definitions of ndeval 4.5 (Clarke et al., SIGIR 2008 for α-nDCG; Chapelle et al., CIKM 2009
with Agrawal et al., WSDM 2009 for ERR-IA; Clarke et al., ICTIR 2009 for NRBP; ``ndeval -help``; the
measures as ``tests/data/diversity/README.md`` states them) as loops over one ranked list: no numpy and
nothing imported from ``irmeasures_ext``. ``tests/measures/test_ndeval_references.py`` checks every function against
pyndeval 0.0.8 (ndeval 4.5's C code in a Python wrapper) through ir_measures 0.4.3.

Each function takes the topic's ranking (doc ids, best first), its judgments as ``{doc_id: subtopics}`` (the
set of subtopics the doc is relevant to; a doc missing from it is unjudged, and a judged doc may have an empty
set) and the measure's parameters, and returns the value for that topic.

ndeval's conventions, as these functions follow them:

* **Binary judgments.** A doc is relevant to subtopic j iff its level for j is ≥ ``rel`` (pyndeval's
  ``relevance_level``, ir_measures' ``rel``, default 1); higher levels count the same. Intent probabilities
  and types are not used.
* **S**, the number of subtopics, counts only subtopics with at least one relevant doc; subtopics judged only
  non-relevant (and TREC's ``0``-subtopic lines) change nothing. S = 0 gives 0 for every measure except nNRBP,
  which is NaN (0/0).
* **Novelty gain** of rank r: gain(r) = Σ_{j ∋ d_r} (1 − α)^{c_j(r)}, with c_j(r) the number of docs ranked
  above r that are relevant to j. α = 0.5 by default.
* **Greedy ideal ranking** (for the n-measures): from all the topic's judged docs, repeatedly take the doc with
  the largest novelty gain given the docs already taken; equal gains go to the larger doc id (byte-wise). The
  same ideal ranking serves α-nDCG, nERR-IA and nNRBP.
* **Cutoffs.** ``@k`` measures look at ranks 1..k (ndeval stops at 20: pyndeval refuses k > 20). NRBP, nNRBP
  and AP-IA use the whole run.
* **Order of the run** (``ndeval_ranking``): pyndeval ignores the rank column and the line order and sorts
  each topic by score descending, then doc id *ascending*; the ndeval binary sorts by the rank column unless
  given ``-traditional`` (score descending, then doc id *descending*, ``tie_rule_ranking``).
"""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

Subtopics = Mapping[str, frozenset]  # {doc_id: the subtopics it is relevant to}
ALPHA = 0.5
BETA = 0.5


def ndeval_ranking(scores: Mapping[str, float]) -> list[str]:
    """pyndeval's order: score descending, then doc id ascending (Python string order)."""
    return sorted(scores, key=lambda doc: (-scores[doc], doc))


def tie_rule_ranking(scores: Mapping[str, float]) -> list[str]:
    """``ndeval -traditional``'s (and trec_eval's) order: score descending, then doc id descending byte-wise."""
    return sorted(scores, key=lambda doc: (scores[doc], doc.encode('utf-8')), reverse=True)


def relevant_subtopics(levels: Mapping[str, Mapping[str, int]], rel: int = 1) -> dict[str, frozenset]:
    """``{doc_id: subtopics}`` from ``{doc_id: {subtopic: level}}``: the subtopics whose level is ≥ ``rel``.
    Every judged doc is a key, also one relevant to nothing (it can enter the ideal ranking, with gain 0)."""
    return {doc: frozenset(sub for sub, level in by_subtopic.items() if level >= rel)
            for doc, by_subtopic in levels.items()}


def subtopic_count(judged: Subtopics) -> int:
    """S: the number of subtopics with at least one relevant doc."""
    covered: set = set()
    for subtopics in judged.values():
        covered |= subtopics
    return len(covered)


def novelty_gains(ranking: Sequence[str], judged: Subtopics, alpha: float = ALPHA) -> list[float]:
    """gain(r) = Σ_{j ∋ d_r} (1 − α)^{c_j(r)}, c_j(r) = docs above rank r relevant to subtopic j."""
    seen: dict = {}
    gains = []
    for doc in ranking:
        gain = 0.0
        for subtopic in judged.get(doc, frozenset()):
            gain += (1 - alpha) ** seen.get(subtopic, 0)
            seen[subtopic] = seen.get(subtopic, 0) + 1
        gains.append(gain)
    return gains


def ideal_ranking(judged: Subtopics, alpha: float = ALPHA) -> list[str]:
    """ndeval's greedy ideal ranking of all judged docs: at each rank the doc with the largest novelty gain
    given the docs above it; among equal gains the largest doc id (byte-wise)."""
    remaining = set(judged)
    seen: dict = {}
    ranking = []
    while remaining:
        def gain(doc: str) -> float:
            return sum((1 - alpha) ** seen.get(subtopic, 0) for subtopic in judged[doc])

        best = max(remaining, key=lambda doc: (gain(doc), doc.encode('utf-8')))
        ranking.append(best)
        remaining.remove(best)
        for subtopic in judged[best]:
            seen[subtopic] = seen.get(subtopic, 0) + 1
    return ranking


def _discounted_sum(gains: Sequence[float], cutoff: int, discount) -> float:
    return sum(gain / discount(rank) for rank, gain in enumerate(gains[:cutoff], start=1))


def _dcg_discount(rank: int) -> float:
    return math.log2(rank + 1)


def _err_discount(rank: int) -> float:
    return float(rank)


def _ideal_ideal(n_subtopics: int, cutoff: int, alpha: float, discount) -> float:
    """Σ_{r≤k} S·(1 − α)^{r−1} / discount(r): every rank covering every subtopic once more."""
    return sum(n_subtopics * (1 - alpha) ** (rank - 1) / discount(rank) for rank in range(1, cutoff + 1))


def _ideal_ideal_normalised(ranking: Sequence[str], judged: Subtopics, cutoff: int, alpha: float,
                            discount) -> float:
    n_subtopics = subtopic_count(judged)
    if n_subtopics == 0:
        return 0.0
    total = _discounted_sum(novelty_gains(ranking, judged, alpha), cutoff, discount)
    if cutoff == 1:  # ndeval normalises from rank 2 on: its @1 value is the raw sum (no golden value checks this)
        return total
    return total / _ideal_ideal(n_subtopics, cutoff, alpha, discount)


def _ideal_normalised(ranking: Sequence[str], judged: Subtopics, cutoff: int, alpha: float, discount) -> float:
    if subtopic_count(judged) == 0:
        return 0.0
    total = _discounted_sum(novelty_gains(ranking, judged, alpha), cutoff, discount)
    if total == 0:
        return 0.0
    return total / _discounted_sum(novelty_gains(ideal_ranking(judged, alpha), judged, alpha), cutoff, discount)


def alpha_dcg(ranking: Sequence[str], judged: Subtopics, cutoff: int, alpha: float = ALPHA) -> float:
    """α-DCG@k (ir_measures' alpha_DCG, ndeval's alpha-DCG), normalised by the "ideal ideal":
    Σ_{r≤k} gain(r)/log2(r + 1)  /  Σ_{r≤k} S·(1 − α)^{r−1}/log2(r + 1).  (k = 1: not divided.)"""
    return _ideal_ideal_normalised(ranking, judged, cutoff, alpha, _dcg_discount)


def alpha_ndcg(ranking: Sequence[str], judged: Subtopics, cutoff: int, alpha: float = ALPHA) -> float:
    """α-nDCG@k = Σ_{r≤k} gain(r)/log2(r + 1) divided by the same sum over the greedy ideal ranking."""
    return _ideal_normalised(ranking, judged, cutoff, alpha, _dcg_discount)


def err_ia(ranking: Sequence[str], judged: Subtopics, cutoff: int, alpha: float = ALPHA) -> float:
    """ERR-IA@k as ndeval computes it (ir_measures' ERR_IA): Σ_{r≤k} gain(r)/r  /  Σ_{r≤k} S·(1 − α)^{r−1}/r.
    (With binary judgments and stop probability α this is the mean over the S subtopics of ERR_j@k, over the
    same for a list relevant to every subtopic at every rank.) k = 1: not divided."""
    return _ideal_ideal_normalised(ranking, judged, cutoff, alpha, _err_discount)


def nerr_ia(ranking: Sequence[str], judged: Subtopics, cutoff: int, alpha: float = ALPHA) -> float:
    """nERR-IA@k = Σ_{r≤k} gain(r)/r divided by the same sum over the greedy ideal ranking."""
    return _ideal_normalised(ranking, judged, cutoff, alpha, _err_discount)


def nrbp(ranking: Sequence[str], judged: Subtopics, alpha: float = ALPHA, beta: float = BETA) -> float:
    """NRBP = (1 − (1 − α)·β) / S · Σ_r β^{r−1}·gain(r), over the whole ranking (0 when S = 0)."""
    n_subtopics = subtopic_count(judged)
    if n_subtopics == 0:
        return 0.0
    total = sum(beta ** (rank - 1) * gain
                for rank, gain in enumerate(novelty_gains(ranking, judged, alpha), start=1))
    return (1 - (1 - alpha) * beta) / n_subtopics * total


def nnrbp(ranking: Sequence[str], judged: Subtopics, alpha: float = ALPHA, beta: float = BETA) -> float:
    """nNRBP = NRBP / NRBP of the greedy ideal ranking; NaN (0/0) when S = 0."""
    best = nrbp(ideal_ranking(judged, alpha), judged, alpha, beta)
    if best == 0:
        return math.nan
    return nrbp(ranking, judged, alpha, beta) / best


def ap_ia(ranking: Sequence[str], judged: Subtopics) -> float:
    """AP-IA (ndeval's MAP-IA for one topic): (1/S)·Σ_j AP_j over the whole ranking, AP_j = Σ over ranks r of
    docs relevant to j of (docs relevant to j in the top r)/r, divided by R_j = the judged docs relevant to j."""
    n_relevant: dict = {}
    for subtopics in judged.values():
        for subtopic in subtopics:
            n_relevant[subtopic] = n_relevant.get(subtopic, 0) + 1
    if not n_relevant:
        return 0.0
    found: dict = {}
    precision_sums: dict = {}
    for rank, doc in enumerate(ranking, start=1):
        for subtopic in judged.get(doc, frozenset()):
            found[subtopic] = found.get(subtopic, 0) + 1
            precision_sums[subtopic] = precision_sums.get(subtopic, 0.0) + found[subtopic] / rank
    return sum(precision_sums.get(subtopic, 0.0) / n for subtopic, n in n_relevant.items()) / len(n_relevant)


def p_ia(ranking: Sequence[str], judged: Subtopics, cutoff: int) -> float:
    """P-IA@k = Σ_{r≤k} |subtopics of d_r| / (k·S): the mean over subtopics of P_j@k (divides by k even when
    the ranking is shorter)."""
    n_subtopics = subtopic_count(judged)
    if n_subtopics == 0:
        return 0.0
    pairs = sum(len(judged.get(doc, frozenset())) for doc in ranking[:cutoff])
    return pairs / (cutoff * n_subtopics)


def subtopic_recall(ranking: Sequence[str], judged: Subtopics, cutoff: int) -> float:
    """S-recall@k (ir_measures' StRecall, ndeval's strec): the subtopics covered by the top k docs / S."""
    n_subtopics = subtopic_count(judged)
    if n_subtopics == 0:
        return 0.0
    covered: set = set()
    for doc in ranking[:cutoff]:
        covered |= judged.get(doc, frozenset())
    return len(covered) / n_subtopics


def read_diversity_qrels(path) -> dict[str, dict[str, dict[str, int]]]:
    """``{topic_id: {doc_id: {subtopic: level}}}`` of a TREC diversity qrels file (``qid subtopic docid level``)."""
    qrels: dict = {}
    with open(path, encoding='utf-8') as lines:
        for line in lines:
            if line.strip():
                topic, subtopic, doc, level = line.split()
                qrels.setdefault(topic, {}).setdefault(doc, {})[subtopic] = int(level)
    return qrels


def read_trec_run(path) -> dict[str, dict[str, float]]:
    """``{topic_id: {doc_id: score}}`` of a plain TREC run file (``qid Q0 docid rank score tag``)."""
    run: dict = {}
    with open(path, encoding='utf-8') as lines:
        for line in lines:
            if line.strip():
                topic, _, doc, _, score, _ = line.split()
                run.setdefault(topic, {})[doc] = float(score)
    return run
