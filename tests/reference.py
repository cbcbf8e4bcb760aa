"""Plain, slow reference implementations of the measures this package defines, one query at a time.

Written from the definitions (the papers README's "Measures" table cites: Sakai 2019 and Sakai & Song
2011 for Q, Qi et al. 2022 for nDCG_Z1 and the rank statistics, Chapelle et al. 2009 for nERR, Burges et
al. 2005 for MSnDCG, Järvelin & Kekäläinen 2002 for nDCG_JK; ``tests/data/ntcireval/README.md``; the
measures' docstrings) as loops over one ranked list: no numpy and nothing imported from
``irmeasures_ext``, so that a mistake in the fast code cannot hide in a helper both share. Each function
takes the query's ranking (doc ids, best first), its judgments (``{doc_id: label}``; a doc missing from
it is unjudged) and the measure's parameters, and returns the value for that query.
"""
from __future__ import annotations

import math
import statistics
import struct
from collections.abc import Iterable, Mapping, Sequence

Judged = Mapping[str, int]
Gains = Mapping[int, float] | None


def float32(score: float) -> float:
    """``score`` rounded to the nearest 32-bit float (how trec_eval stores scores)."""
    return struct.unpack('<f', struct.pack('<f', score))[0]


def trec_ranking(scores: Mapping[str, float]) -> list[str]:
    """trec_eval's ranking: score (as float32) descending, then doc_id descending byte-wise."""
    return sorted(scores, key=lambda doc: (float32(scores[doc]), doc.encode('utf-8')), reverse=True)


def threshold(rel: float, qrels: Mapping[str, Judged]) -> float:
    """The threshold a measure declared with ``rel`` is computed with: ``rel``, but the default (1) on qrels with
    real-valued labels (a label not a whole number) is every label above 0, i.e. the least positive float."""
    real = any(not float(label).is_integer() for judged in qrels.values() for label in judged.values())
    return math.ulp(0.0) if rel == 1 and real else rel


def is_relevant(doc: str, judged: Judged, rel: int) -> bool:
    return doc in judged and judged[doc] >= rel


def graded_gain(label: int | None, gains: Gains, rel: int) -> float:
    """NTCIREVAL's gain: ``gains[label]`` (or the label itself) for a relevant doc, else 0."""
    if label is None or label < rel:
        return 0.0
    if gains is not None and label in gains:
        return float(gains[label])
    return float(label)


def ideal_gains(judged: Judged, gains: Gains, rel: int) -> list[float]:
    """The gains of the query's relevant docs, best first (the ideal ranked list)."""
    return sorted((graded_gain(label, gains, rel) for label in judged.values() if label >= rel), reverse=True)


def q_measure(ranking: Sequence[str], judged: Judged, beta: float = 1.0, gains: Gains = None, rel: int = 1,
              cutoff: int | None = None) -> float:
    """Q = (1/R)·Σ I(r)·BR(r), BR(r) = (C(r) + β·cg(r)) / (r + β·cg*(r)); @k sums r ≤ k, divides by min(k, R)."""
    n_relevant = len(ideal_gains(judged, gains, rel))
    if n_relevant == 0:
        return 0.0
    total = sum(blended for _, _, _, blended in blended_ratio_rows(ranking, judged, beta, gains, rel, cutoff))
    return total / (n_relevant if cutoff is None else min(cutoff, n_relevant))


def ndcg_z1(ranking: Sequence[str], judged: Judged, cutoff: int, gains: Gains = None, rel: int = 1) -> float:
    """Σ_{i≤k} g(i) / log2(i + 1) with g = 2^label − 1 (or ``gains[label]``) for labels ≥ rel."""
    total = 0.0
    for rank, doc in enumerate(ranking[:cutoff], start=1):
        label = judged.get(doc)
        if label is None or label < rel:
            continue
        gain = gains[label] if gains is not None and label in gains else 2.0 ** label - 1
        total += gain / math.log2(rank + 1)
    return total


def first_relevant_rank(ranking: Sequence[str], judged: Judged, run_depth: int, rel: int = 1) -> float:
    """Rank of the first relevant doc; none retrieved: len(ranking) + 1; query not in the run
    (no docs): run_depth + 1, with run_depth the most docs any qrels query retrieved (queries only
    in the run do not count), and NaN if that is 0 (0 would make run_depth + 1 the best rank)."""
    for rank, doc in enumerate(ranking, start=1):
        if is_relevant(doc, judged, rel):
            return float(rank)
    if not ranking and not run_depth:
        return math.nan
    return float((len(ranking) if ranking else run_depth) + 1)


def run_depth(qrels: Mapping[str, Judged], run: Mapping[str, Mapping[str, float]]) -> int:
    """The most docs any query of the qrels retrieved (``first_relevant_rank``'s ``run_depth``)."""
    return max((len(run[query_id]) for query_id in qrels if query_id in run), default=0)


def median(values: Iterable[float]) -> float:
    return statistics.median(values)


def expected_reciprocal_rank(gains: Sequence[float], top_gain: float, cutoff: int) -> float:
    """ERR@k = Σ_{r≤k} (1/r)·p(r)·Π_{i<r}(1 − p(i)), p = gain / (top_gain + 1)."""
    total, continue_probability = 0.0, 1.0
    for rank, gain in enumerate(gains[:cutoff], start=1):
        stop = gain / (top_gain + 1)
        total += continue_probability * stop / rank
        continue_probability *= 1 - stop
    return total


def nerr(ranking: Sequence[str], judged: Judged, cutoff: int, top_gain: float, gains: Gains = None,
         rel: int = 1) -> float:
    """ERR@k of the run divided by ERR@k of the ideal list (0 when that is 0)."""
    run_gains = [graded_gain(judged.get(doc), gains, rel) for doc in ranking]
    best = expected_reciprocal_rank(ideal_gains(judged, gains, rel), top_gain, cutoff)
    return expected_reciprocal_rank(run_gains, top_gain, cutoff) / best if best else 0.0


def _normalised_dcg(ranking: Sequence[str], judged: Judged, cutoff: int, gains: Gains, rel: int,
                    discount) -> float:
    def dcg(gain_list: Sequence[float]) -> float:
        return sum(gain / discount(rank) for rank, gain in enumerate(gain_list[:cutoff], start=1))

    best = dcg(ideal_gains(judged, gains, rel))
    return dcg([graded_gain(judged.get(doc), gains, rel) for doc in ranking]) / best if best else 0.0


def msndcg(ranking: Sequence[str], judged: Judged, cutoff: int, gains: Gains = None, rel: int = 1) -> float:
    """Microsoft nDCG@k: discount log2(r + 1), NTCIREVAL gains, ideal list of the relevant docs."""
    return _normalised_dcg(ranking, judged, cutoff, gains, rel, lambda rank: math.log2(rank + 1))


def ndcg_jk(ranking: Sequence[str], judged: Judged, cutoff: int, gains: Gains = None, rel: int = 1,
            logb: float = 2.0) -> float:
    """Järvelin-Kekäläinen nDCG@k: discount 1 up to rank max(1, b), then log_b r (b = 2: max(1, log2 r), ranks
    1 and 2 undiscounted); b = 0: ln r from rank 2 (NTCIREVAL's -logb 0)."""
    def discount(rank: int) -> float:
        if rank <= max(1.0, logb):
            return 1.0
        return math.log(rank) / math.log(logb) if logb else math.log(rank)
    return _normalised_dcg(ranking, judged, cutoff, gains, rel, discount)


def read_trec_qrels(path) -> dict[str, dict[str, int]]:
    """``{query_id: {doc_id: label}}`` of a plain TREC qrels file (``qid iter docid label``)."""
    qrels: dict[str, dict[str, int]] = {}
    with open(path, encoding='utf-8') as handle:
        for line in handle:
            query_id, _, doc_id, label = line.split()
            qrels.setdefault(query_id, {})[doc_id] = int(label)
    return qrels


def read_trec_run(path) -> dict[str, dict[str, float]]:
    """``{query_id: {doc_id: score}}`` of a plain TREC run file (``qid Q0 docid rank score tag``)."""
    run: dict[str, dict[str, float]] = {}
    with open(path, encoding='utf-8') as handle:
        for line in handle:
            query_id, _, doc_id, _, score, _ = line.split()
            run.setdefault(query_id, {})[doc_id] = float(score)
    return run


# trec_eval's measures, plainly (checked against pytrec_eval in tests/engine/test_ties.py).

def n_relevant(judged: Judged, rel: int) -> int:
    return sum(label >= rel for label in judged.values())


def average_precision(ranking: Sequence[str], judged: Judged, rel: int = 1, cutoff: int | None = None) -> float:
    """Σ over relevant docs ranked cutoff or better of (relevant docs up to them) / rank, divided by R."""
    total, hits = 0.0, 0
    for rank, doc in enumerate(ranking[:cutoff], start=1):
        if is_relevant(doc, judged, rel):
            hits += 1
            total += hits / rank
    return total / n_relevant(judged, rel) if n_relevant(judged, rel) else 0.0


def precision(ranking: Sequence[str], judged: Judged, cutoff: int, rel: int = 1) -> float:
    return sum(is_relevant(doc, judged, rel) for doc in ranking[:cutoff]) / cutoff


def recall(ranking: Sequence[str], judged: Judged, cutoff: int, rel: int = 1) -> float:
    found = sum(is_relevant(doc, judged, rel) for doc in ranking[:cutoff])
    return found / n_relevant(judged, rel) if n_relevant(judged, rel) else 0.0


def success(ranking: Sequence[str], judged: Judged, cutoff: int, rel: int = 1) -> float:
    return float(any(is_relevant(doc, judged, rel) for doc in ranking[:cutoff]))


def reciprocal_rank(ranking: Sequence[str], judged: Judged, rel: int = 1, cutoff: int | None = None) -> float:
    for rank, doc in enumerate(ranking[:cutoff], start=1):
        if is_relevant(doc, judged, rel):
            return 1 / rank
    return 0.0


def r_precision(ranking: Sequence[str], judged: Judged, rel: int = 1) -> float:
    count = n_relevant(judged, rel)
    return sum(is_relevant(doc, judged, rel) for doc in ranking[:count]) / count if count else 0.0


def trec_ndcg(ranking: Sequence[str], judged: Judged, cutoff: int | None = None, gains: Gains = None) -> float:
    """trec_eval's ndcg(_cut): gain = label, or ``gains[label]`` (negatives 0), discount log2(rank + 1), ideal
    from all judged docs."""
    def gain(label: int) -> float:
        return max(gains[label] if gains is not None and label in gains else label, 0)

    def dcg(gain_list: Sequence[float]) -> float:
        return sum(value / math.log2(rank + 1) for rank, value in enumerate(gain_list[:cutoff], start=1))

    best = dcg(sorted((gain(label) for label in judged.values()), reverse=True))
    return dcg([gain(judged[doc]) if doc in judged else 0 for doc in ranking]) / best if best else 0.0


def condensed(ranking: Sequence[str], judged: Judged, lowest_judged: int | None = None) -> list[str]:
    """The condensed list: ``ranking`` without its unjudged docs and, given ``lowest_judged``, without the
    docs labelled below it (trec_eval's -J: 0, NTCIREVAL's label -j: None)."""
    return [doc for doc in ranking if doc in judged and (lowest_judged is None or judged[doc] >= lowest_judged)]


def _run_gains(ranking: Sequence[str], judged: Judged, gains: Gains, rel: int, cutoff: int | None) -> list[float]:
    return [graded_gain(judged.get(doc), gains, rel) for doc in ranking[:cutoff]]


def rbp_ntcir(ranking: Sequence[str], judged: Judged, top_gain: float, p: float = 0.95, gains: Gains = None,
              rel: int = 1, cutoff: int | None = None) -> float:
    """NTCIREVAL's RBP: (1 − p)·Σ_{r≤k} g(r)·p^{r−1} / g_max (0 when g_max is 0)."""
    total = sum(gain * p ** (rank - 1)
                for rank, gain in enumerate(_run_gains(ranking, judged, gains, rel, cutoff), start=1))
    return (1 - p) * total / top_gain if top_gain else 0.0


def err_ntcir(ranking: Sequence[str], judged: Judged, top_gain: float, gains: Gains = None, rel: int = 1,
              cutoff: int | None = None) -> float:
    """NTCIREVAL's ERR (not normalised): ERR@k with p = gain / (g_max + 1), over the whole list without k."""
    run_gains = _run_gains(ranking, judged, gains, rel, cutoff)
    return expected_reciprocal_rank(run_gains, top_gain, len(run_gains))


def irbu(ranking: Sequence[str], judged: Judged, cutoff: int, top_gain: float, u: float, gains: Gains = None,
         rel: int = 1) -> float:
    """NTCIREVAL's iRBU@k = Σ_{r≤k} u^r·π(r)·Π_{i<r}(1 − π(i)), π = gain / (g_max + 1)."""
    total, continue_probability = 0.0, 1.0
    for rank, gain in enumerate(_run_gains(ranking, judged, gains, rel, cutoff), start=1):
        stop = gain / (top_gain + 1)
        total += u ** rank * stop * continue_probability
        continue_probability *= 1 - stop
    return total


def gap(ranking: Sequence[str], judged: Judged, rel: int = 1, cutoff: int | None = None) -> float:
    """GAP (NTCIREVAL): Σ_{r≤k} GS(r)/r / GI(min(k, R)), GS(r) = Σ_{i≤r} μ(μ + 1) with μ = min(lev(r), lev(i))
    for a relevant r, lev = the label of a relevant doc else 0, GI(k) the same weights of the ideal levels."""
    levels = [judged[doc] if is_relevant(doc, judged, rel) else 0 for doc in ranking[:cutoff]]
    total = 0.0
    for rank, level in enumerate(levels, start=1):
        if level > 0:
            total += sum(min(level, other) * (min(level, other) + 1) for other in levels[:rank]) / rank
    ideal = sorted((label for label in judged.values() if label >= rel), reverse=True)[:cutoff]
    best = sum(level * (level + 1) for level in ideal)
    return total / best if best else 0.0


def sakai_bpref(name: str, ranking: Sequence[str], judged: Judged, rel: int = 1, gains: Gains = None,
                top_gain: float = 1.0) -> float:
    """Sakai's bpref family (NTCIREVAL's ``compute -j``) on the condensed list (the judged docs of
    ``ranking``): bpref_NTCIR, bpref_R, bpref_N, bpref_relative, rpref_N, rpref_relative, rpref_relative2;
    0 where R = 0 or N = 0."""
    condensed_list = [doc for doc in ranking if doc in judged]
    n_rel = sum(label >= rel for label in judged.values())
    n_nonrel = len(judged) - n_rel
    if not n_rel or not n_nonrel:
        return 0.0
    if name.startswith('bpref'):
        total = 0.0
        for rank, doc in enumerate(condensed_list, start=1):
            if not is_relevant(doc, judged, rel):
                continue
            above = sum(not is_relevant(other, judged, rel) for other in condensed_list[:rank - 1])
            if name == 'bpref_NTCIR':
                total += 1 - min(n_rel, above) / min(n_rel, n_nonrel)
            elif name == 'bpref_R':
                total += 1 - min(n_rel, above) / n_rel
            elif name == 'bpref_N':
                total += 1 - above / n_nonrel
            else:  # bpref_relative: a relevant doc at rank 1 contributes 0
                total += 1 - above / (rank - 1) if rank > 1 else 0.0
        return total / n_rel
    gain_of = [graded_gain(judged[doc], gains, rel) for doc in condensed_list]
    ideal_total = sum(ideal_gains(judged, gains, rel))
    total = 0.0
    for rank, gain in enumerate(gain_of, start=1):
        if gain <= 0:
            continue
        penalty = sum((gain - other) / gain for other in gain_of[:rank - 1] if other < gain)
        divisor = {'rpref_N': n_rel + n_nonrel - (ideal_total / top_gain if top_gain else 0.0),
                   'rpref_relative': rank - 1, 'rpref_relative2': rank}[name]
        total += gain * (1 - penalty / divisor) if divisor else 0.0
    return total / ideal_total if ideal_total else 0.0


class ClassJudged:
    """One query's judgments as NTCIREVAL's ``label -ec`` and ``compute -ec`` see them for one ranking, in
    the form the measures above read (``doc in judged``, ``judged[doc]``, ``judged.get(doc)`` for the ranked
    docs; ``judged.values()`` for R and the ideal list).

    ``judged`` gives each judged doc's label and ``classes`` its class. Walking down ``ranking``, the
    first judged member of each class keeps its own label; a later member is judged non-relevant (label 0;
    a negative label stays). The values are each class's highest label, one per class.
    """

    def __init__(self, ranking: Sequence[str], judged: Judged, classes: Mapping[str, int]) -> None:
        self._best: dict[int, int] = {}
        for doc, label in judged.items():
            self._best[classes[doc]] = max(label, self._best.get(classes[doc], label))
        self._labels: dict[str, int] = {}
        seen: set[int] = set()
        for doc in ranking:
            if doc in judged:
                self._labels[doc] = min(judged[doc], 0) if classes[doc] in seen else judged[doc]
                seen.add(classes[doc])

    def __contains__(self, doc: object) -> bool:
        return doc in self._labels

    def __getitem__(self, doc: str) -> int:
        return self._labels[doc]

    def get(self, doc: str, default: int | None = None) -> int | None:
        return self._labels.get(doc, default)

    def values(self) -> Iterable[int]:
        return self._best.values()


# NTCIREVAL's other blended-ratio measures (tests/data/ntcireval_full/README.md, "Definitions").

def blended_ratio_rows(ranking: Sequence[str], judged: Judged, beta: float, gains: Gains, rel: int,
                       cutoff: int | None = None) -> list[tuple[int, int, int, float]]:
    """(rank r, label, C(r), BR(r)) for each relevant doc ranked ``cutoff`` or better, BR(r) = (C(r) + β·cg(r)) /
    (r + β·cg*(r))."""
    ideal = ideal_gains(judged, gains, rel)
    rows, hits, cumulative_gain = [], 0, 0.0
    for rank, doc in enumerate(ranking, start=1):
        if cutoff is not None and rank > cutoff:
            break
        cumulative_gain += graded_gain(judged.get(doc), gains, rel)
        if is_relevant(doc, judged, rel):
            hits += 1
            ideal_at_rank = sum(ideal[:rank])
            rows.append((rank, judged[doc], hits, (hits + beta * cumulative_gain) / (rank + beta * ideal_at_rank)))
    return rows


def o_measure(ranking: Sequence[str], judged: Judged, beta: float = 1.0, gains: Gains = None, rel: int = 1) -> float:
    """BR at the first relevant doc; 0 if none is retrieved."""
    rows = blended_ratio_rows(ranking, judged, beta, gains, rel)
    return rows[0][3] if rows else 0.0


def _up_to_preferred(rows: list[tuple[int, int, int, float]]) -> list[tuple[int, int, int, float]]:
    """The rows down to the preferred rank: the first holding the highest label retrieved."""
    highest = max(label for _, label, _, _ in rows)
    end = next(i for i, (_, label, _, _) in enumerate(rows) if label == highest)
    return rows[:end + 1]


def p_measure(ranking: Sequence[str], judged: Judged, beta: float = 1.0, gains: Gains = None, rel: int = 1) -> float:
    """BR at the preferred rank; 0 if no relevant doc is retrieved."""
    rows = blended_ratio_rows(ranking, judged, beta, gains, rel)
    return _up_to_preferred(rows)[-1][3] if rows else 0.0


def p_plus(ranking: Sequence[str], judged: Judged, beta: float = 1.0, gains: Gains = None, rel: int = 1) -> float:
    """The mean BR over the relevant docs down to the preferred rank; 0 if no relevant doc is retrieved."""
    rows = blended_ratio_rows(ranking, judged, beta, gains, rel)
    if not rows:
        return 0.0
    kept = _up_to_preferred(rows)
    return sum(blended for _, _, _, blended in kept) / len(kept)


def ncu(ranking: Sequence[str], judged: Judged, stopping: str = 'gu', utility: str = 'BR', beta: float = 1.0,
        gains: Gains = None, stops: Gains = None, gamma: float = 0.95, rel: int = 1) -> float:
    """Σ over relevant docs of utility (BR, or precision for 'P') times the stop weight (gu: the stop value,
    ``stops[label]`` or the gain; rb: γ^(C(r)-1)), over the weights of the R relevant docs of the qrels."""
    def stop_value(label: int) -> float:
        return float(stops[label]) if stops is not None and label in stops else graded_gain(label, gains, rel)

    rows = blended_ratio_rows(ranking, judged, beta if utility == 'BR' else 0.0, gains, rel)
    if stopping == 'gu':
        total = sum(blended * stop_value(label) for _, label, _, blended in rows)
        norm = sum(stop_value(label) for label in judged.values() if label >= rel)
    else:
        total = sum(blended * gamma ** (hits - 1) for _, _, hits, blended in rows)
        norm = sum(gamma ** k for k in range(n_relevant(judged, rel)))
    return total / norm if norm else 0.0


def ebr(ranking: Sequence[str], judged: Judged, top_gain: float, beta: float = 1.0, gains: Gains = None,
        rel: int = 1, cutoff: int | None = None) -> float:
    """Σ_{r≤k} BR(r)·π(r)·Π_{i<r}(1 − π(i)), π = gain / (top_gain + 1)."""
    ideal = ideal_gains(judged, gains, rel)
    total, reach, hits, cumulative_gain = 0.0, 1.0, 0, 0.0
    for rank, doc in enumerate(ranking[:cutoff], start=1):
        gain = graded_gain(judged.get(doc), gains, rel)
        cumulative_gain += gain
        hits += is_relevant(doc, judged, rel)
        stop = gain / (top_gain + 1)
        total += reach * stop * (hits + beta * cumulative_gain) / (rank + beta * sum(ideal[:rank]))
        reach *= 1 - stop
    return total


# trec_eval 9.0.8's other measures (its m_<name>.c), plainly: a label >= rel is relevant, 0 .. rel - 1 judged
# non-relevant, below 0 "in the pool, not judged"; a doc missing from ``judged`` is not in the pool.

MIN_GEO_MEAN = 1e-5
INFAP_EPSILON = 1e-5
ELEVEN_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)


def n_judged_non_relevant(judged: Judged, rel: int) -> int:
    return sum(0 <= label < rel for label in judged.values())


def bpref(ranking: Sequence[str], judged: Judged, rel: int = 1) -> float:
    """m_bpref.c: Σ over relevant docs of 1 − min(n, R)/min(N, R) (1 while n = 0), n the judged non-relevant
    docs above, / R; a term kept from 0 to 1 (0 where min(N, R) = 0), which only equivalence classes need
    (they can put more judged non-relevant docs above than N counts)."""
    big_r, big_n = n_relevant(judged, rel), n_judged_non_relevant(judged, rel)
    total, nonrel = 0.0, 0
    for doc in ranking:
        label = judged.get(doc)
        if label is None or label < 0:
            continue
        if label < rel:
            nonrel += 1
        else:
            if not nonrel:
                total += 1.0
            elif min(big_n, big_r):
                total += max(1.0 - min(nonrel, big_r) / min(big_n, big_r), 0.0)
    return total / big_r if big_r else 0.0


def inferred_ap(ranking: Sequence[str], judged: Judged, rel: int = 1) -> float:
    """m_infap.c: for a relevant doc at 0-based index j: 1 if j = 0, else 1/(j+1) + (j/(j+1)) · ((c + n + u)/j)
    · ((c + ε)/(c + n + 2ε)), c, n, u the relevant, judged non-relevant and pooled-unjudged docs above; / R."""
    total, rel_seen, nonrel, pooled = 0.0, 0, 0, 0
    for j, doc in enumerate(ranking):
        label = judged.get(doc)
        if label is None:
            continue
        if label < 0:
            pooled += 1
        elif label < rel:
            nonrel += 1
        else:
            rel_seen += 1
            c = rel_seen - 1
            total += 1.0 if j == 0 else (1.0 / (j + 1.0) + (j / (j + 1.0)) * ((c + nonrel + pooled) / j)
                                         * ((c + INFAP_EPSILON) / (c + nonrel + 2 * INFAP_EPSILON)))
    big_r = n_relevant(judged, rel)
    return total / big_r if big_r else 0.0


def iprec_at_recall(ranking: Sequence[str], judged: Judged, recall: float, rel: int = 1) -> float:
    """m_iprec_at_recall.c: c = int(recall·R + 0.9); 0 if c exceeds the relevant docs retrieved, else the largest
    precision at or below the c-th relevant doc (at the first one for c = 0)."""
    cut = int(recall * n_relevant(judged, rel) + 0.9)
    precisions, found = [], 0
    for rank, doc in enumerate(ranking, start=1):
        if is_relevant(doc, judged, rel):
            found += 1
            precisions.append(found / rank)
    if cut > found or not precisions:
        return 0.0
    return max(precisions[max(cut, 1) - 1:])


def eleven_pt_avg(ranking: Sequence[str], judged: Judged, rel: int = 1) -> float:
    return sum(iprec_at_recall(ranking, judged, recall, rel) for recall in ELEVEN_POINTS) / len(ELEVEN_POINTS)


def set_measure(name: str, ranking: Sequence[str], judged: Judged, rel: int = 1, beta: float = 1.0) -> float:
    """set_P, set_relative_P, set_recall, set_F (beta: trec_eval's parameter x), set_map of the retrieved set."""
    found, retrieved, big_r = sum(is_relevant(doc, judged, rel) for doc in ranking), len(ranking), n_relevant(judged,
                                                                                                                rel)
    if name == 'set_P':
        return found / retrieved if retrieved else 0.0
    if name == 'set_relative_P':
        return found / min(retrieved, big_r) if retrieved and big_r else 0.0
    if name == 'set_recall':
        return found / big_r if big_r else 0.0
    if name == 'set_map':
        return found * found / (retrieved * big_r) if retrieved and big_r else 0.0
    if not found:  # set_F
        return 0.0
    precision, recall_ = found / retrieved, found / big_r
    return (beta + 1.0) * precision * recall_ / (beta * precision + recall_)


def utility(ranking: Sequence[str], judged: Judged, weights: Sequence[float] = (1.0, -1.0, 0.0, 0.0),
            num_docs: int = 0, rel: int = 1) -> float:
    found, retrieved, big_r = sum(is_relevant(doc, judged, rel) for doc in ranking), len(ranking), n_relevant(judged,
                                                                                                                rel)
    a, b, c, d = weights
    return a * found + b * (retrieved - found) + c * (big_r - found) + d * (num_docs + found - retrieved - big_r)


def num_nonrel_judged_ret(ranking: Sequence[str], judged: Judged, rel: int = 1) -> int:
    return sum(doc in judged and 0 <= judged[doc] < rel for doc in ranking)


def rprec_mult(ranking: Sequence[str], judged: Judged, mult: float, rel: int = 1) -> float:
    cut = int(mult * n_relevant(judged, rel) + 0.9)
    return sum(is_relevant(doc, judged, rel) for doc in ranking[:cut]) / cut if cut else 0.0


def relative_precision(ranking: Sequence[str], judged: Judged, cutoff: int, rel: int = 1) -> float:
    big_r = n_relevant(judged, rel)
    return sum(is_relevant(doc, judged, rel) for doc in ranking[:cutoff]) / min(cutoff, big_r) if big_r else 0.0


def bin_g(ranking: Sequence[str], judged: Judged, rel: int = 1) -> float:
    """m_binG.c: Σ over relevant docs at 0-based index i, the j-th relevant, of 1/log2(3 + i − j), / R."""
    total, found = 0.0, 0
    for i, doc in enumerate(ranking):
        if is_relevant(doc, judged, rel):
            found += 1
            total += 1.0 / math.log2(3 + i - found)
    return total / n_relevant(judged, rel) if found else 0.0


def trec_gain_of(label: int | None, gains: Gains) -> float:
    """The gain of trec_eval's Rndcg, ndcg_rel and G: ``gains[label]`` or the label for labels >= 0, else 0."""
    if label is None or label < 0:
        return 0.0
    return float(gains[label]) if gains is not None and label in gains else float(label)


def _trec_ideal(judged: Judged, gains: Gains) -> list[float]:
    return sorted((g for g in (trec_gain_of(label, gains) for label in judged.values()) if g > 0), reverse=True)


def rndcg(ranking: Sequence[str], judged: Judged, gains: Gains = None, rel: int = 1) -> float:
    """m_Rndcg.c's loops: nDCG taken where the ideal gain changes (and at the end of the ranking when
    it extends two past the ideal list), averaged."""
    if not n_relevant(judged, rel):
        return 0.0
    ideal = _trec_ideal(judged, gains)
    run = [trec_gain_of(judged.get(doc), gains) for doc in ranking]

    def ideal_at(i: int) -> float:
        return ideal[i] if i < len(ideal) else 0.0
    dcg = idcg = total = 0.0
    points, previous, i = 0, ideal_at(0), 0
    while i < len(run) and (i == 0 or ideal_at(i - 1) > 0):
        if ideal_at(i) != previous:
            if idcg > 0:
                total, points = total + dcg / idcg, points + 1
            previous = ideal_at(i)
        dcg += run[i] / math.log2(i + 2)
        idcg += ideal_at(i) / math.log2(i + 2)
        i += 1
    if i < len(run):
        dcg += sum(run[k] / math.log2(k + 2) for k in range(i, len(run)))
        if idcg > 0:
            total, points = total + dcg / idcg, points + 1
    elif i == 0 or ideal_at(i - 1) > 0:
        while True:
            if ideal_at(i) != previous:
                if idcg > 0:
                    total, points = total + dcg / idcg, points + 1
                previous = ideal_at(i)
            if ideal_at(i) <= 0:
                break
            idcg += ideal_at(i) / math.log2(i + 2)
            i += 1
    return total / points if points else 0.0


def ndcg_rel(ranking: Sequence[str], judged: Judged, gains: Gains = None) -> float:
    """m_ndcg_rel.c: DCG/IDCG at each retrieved doc of positive gain (the ideal stopping at its last positive
    gain), and DCG at the end for each positive doc not retrieved, averaged over the positive docs. (Under
    equivalence classes with gains not growing with the label a retrieved doc can gain where its class does not:
    such a term counts 0 where the ideal has no gain, and the docs not retrieved at least 0.)"""
    ideal = _trec_ideal(judged, gains)
    idcg_at = [0.0]
    for rank, gain in enumerate(ideal, start=1):
        idcg_at.append(idcg_at[-1] + gain / math.log2(rank + 1))
    dcg = total = 0.0
    found = 0
    for rank, doc in enumerate(ranking, start=1):
        gain = trec_gain_of(judged.get(doc), gains)
        dcg += gain / math.log2(rank + 1)
        if gain > 0:
            found += 1
            total += dcg / idcg_at[min(rank, len(ideal))] if ideal else 0.0  # (0 only under classes)
    if ideal:
        total += max(len(ideal) - found, 0) * dcg / idcg_at[-1]
    return total / len(ideal) if total > 0 else 0.0


def normalised_gain(ranking: Sequence[str], judged: Judged, gains: Gains = None) -> float:
    """m_G.c: Σ_i g(i) / log2(2 + cost(i) − S(i)), cost the running Σ max(ideal gain, 1), S the running gain;
    divided by the ideal's total gain. (cost − S counts as 0 where it is below: only equivalence classes with
    gains not growing with the label let the run's gain run ahead of the ideal's.)"""
    ideal = _trec_ideal(judged, gains)
    total = cost = gained = 0.0
    for i, doc in enumerate(ranking):
        gain = trec_gain_of(judged.get(doc), gains)
        gained += gain
        cost += max(ideal[i] if i < len(ideal) else 0.0, 1.0)
        if gain:
            total += gain / math.log2(2 + max(cost - gained, 0.0))
    return total / sum(ideal) if ideal else 0.0


def geometric_mean(values: Iterable[float]) -> float:
    """trec_eval's gm aggregate: exp(mean log(max(v, 1e-5)))."""
    logs = [math.log(max(value, MIN_GEO_MEAN)) for value in values]
    return math.exp(sum(logs) / len(logs)) if logs else math.nan

# The C/W/L measures ir_measures takes from cwl_eval, and trectools' RBP (tests/measures/test_cwl.py).
#
# A C/W/L measure (Moffat, Thomas & Scholer, CIKM 2013; Azzopardi, Thomas & Moffat, SIGIR 2019) is given by
# C(i), the probability that a user at rank i goes on to rank i + 1: the user reaches rank i with
# P(i) = Π_{j<i} C(j), looks at rank i with W(i) = P(i) / Σ_j P(j), and the measure is the expected gain
# per doc looked at, Σ_i W(i)·g(i). cwl_eval pads or truncates every ranked list to CWL_DEPTH ranks
# (ir_measures calls it with max_n=1000), unjudged and missing docs gaining 0.

CWL_DEPTH = 1000


def cwl_gain(label: float | None, min_rel: int, max_rel: int) -> float:
    """ir_measures' gain for cwl_eval's graded measures: the label clipped at 0 (negative labels count as 0),
    then to [min_rel, max_rel], scaled to [0, 1]; an unjudged doc gains 0."""
    if label is None:
        return 0.0
    clipped = min(max(max(label, 0), min_rel), max_rel)
    return (clipped - min_rel) / (max_rel - min_rel)


def cwl_binary_gain(label: float | None, rel: int) -> float:
    """ir_measures' gain for cwl_eval's binary RBP: 1 for a judged doc whose label (clipped at 0) is >= rel."""
    return 0.0 if label is None else float(max(label, 0) >= rel)


def cwl_expected_utility(gains: Sequence[float], continuation) -> float:
    """Σ_i W(i)·g(i) over ranks 1 .. CWL_DEPTH, W(i) = Π_{j<i} C(j) / Σ_k Π_{j<k} C(j), with C(i) =
    ``continuation(i, g(i), g(1) + ... + g(i))``."""
    padded = [*gains[:CWL_DEPTH], *[0.0] * (CWL_DEPTH - len(gains))]
    reach, reached, utility, cumulative = 1.0, 0.0, 0.0, 0.0
    for rank, gain in enumerate(padded, start=1):
        cumulative += gain
        reached += reach
        utility += reach * gain
        reach *= continuation(rank, gain, cumulative)
    return utility / reached


def _graded(ranking: Sequence[str], judged: Judged, min_rel: int, max_rel: int) -> list[float]:
    return [cwl_gain(judged.get(doc), min_rel, max_rel) for doc in ranking]


def cwl_rbp(ranking: Sequence[str], judged: Judged, p: float, rel: int) -> float:
    """cwl_eval's RBP: C(i) = p, binary gains at ``rel`` (Moffat & Zobel 2008, normalised over CWL_DEPTH ranks)."""
    return cwl_expected_utility([cwl_binary_gain(judged.get(doc), rel) for doc in ranking], lambda i, g, cg: p)


def trectools_rbp(ranking: Sequence[str], judged: Judged, p: float, cutoff: int | None = None) -> float:
    """trectools' graded RBP: (1 − p)·Σ_{i≤k} p^(i−1)·label(i) over the docs of positive label (Moffat & Zobel
    2008 with the labels as gains; unjudged docs and labels <= 0 gain 0)."""
    return sum((1 - p) * p ** (rank - 1) * judged[doc] for rank, doc in enumerate(ranking[:cutoff], start=1)
               if judged.get(doc, 0) > 0)


def sdcg(ranking: Sequence[str], judged: Judged, cutoff: int, min_rel: int, max_rel: int) -> float:
    """cwl_eval's scaled DCG@k: DCG@k over the DCG@k of k docs of gain 1, i.e. C(i) = log2(i + 1)/log2(i + 2)
    for i < k, else 0."""
    return cwl_expected_utility(_graded(ranking, judged, min_rel, max_rel),
                                lambda i, g, cg: math.log2(i + 1) / math.log2(i + 2) if i < cutoff else 0.0)


def bpm(ranking: Sequence[str], judged: Judged, cutoff: int, target: float, min_rel: int, max_rel: int) -> float:
    """Zhang et al. 2017's static Bejeweled Player Model as cwl_eval has it: the user goes on while the gain so
    far is below T and fewer than K docs are seen, C(i) = [CG(i) < T and i < K]."""
    return cwl_expected_utility(_graded(ranking, judged, min_rel, max_rel),
                                lambda i, g, cg: float(cg < target and i < cutoff))


def insq(ranking: Sequence[str], judged: Judged, target: float, min_rel: int, max_rel: int) -> float:
    """INSQ (Moffat, Scholer & Thomas, ADCS 2012): C(i) = ((i + 2T − 1)/(i + 2T))²."""
    return cwl_expected_utility(_graded(ranking, judged, min_rel, max_rel),
                                lambda i, g, cg: ((i + 2 * target - 1) / (i + 2 * target)) ** 2)


def inst(ranking: Sequence[str], judged: Judged, target: float, min_rel: int, max_rel: int) -> float:
    """INST (Bailey, Moffat, Scholer & Thomas, SIGIR 2015): C(i) = ((i + T + T_i − 1)/(i + T + T_i))², with
    T_i = T − CG(i) the gain still wanted after rank i."""
    def continuation(i: int, gain: float, cumulative: float) -> float:
        wanted = target - cumulative
        return ((i + target + wanted - 1) / (i + target + wanted)) ** 2
    return cwl_expected_utility(_graded(ranking, judged, min_rel, max_rel), continuation)


def cwl_nerr(ranking: Sequence[str], judged: Judged, equation: int, min_rel: int, max_rel: int,
         cutoff: int | None = None, p: float = 0.9, target: float = 1.0) -> float:
    """Azzopardi, Mackenzie & Moffat (ICTIR 2021)'s C/W/L forms of ERR, the user stopping at rank i with
    probability g(i): C(i) = (1 − g(i)) times 1 for i < k (Eq. 8), i/(i + 1) for i < k (Eq. 9), p (Eq. 10),
    or INSQ's ((i + 2T − 1)/(i + 2T))² (Eq. 11 in ir_measures' NERR11); 0 from rank k on for Eq. 8 and 9."""
    def continuation(i: int, gain: float, cumulative: float) -> float:
        if equation in (8, 9) and i >= cutoff:
            return 0.0
        base = {8: 1.0, 9: i / (i + 1), 10: p, 11: ((i + 2 * target - 1) / (i + 2 * target)) ** 2}[equation]
        return base * (1 - gain)
    return cwl_expected_utility(_graded(ranking, judged, min_rel, max_rel), continuation)


# gdeval, Judged, Compat and trec_eval 10.0 (docs/measures.md, "gdeval, Judged, Compat and trec_eval 10.0"), from the
# tools' definitions: ir_measures' judged and compat providers, ir_measures' bin/gdeval.pl, trec_eval 10.0's
# m_rbp.c, m_rbp_resid.c and m_unjudged.c.

def judged_rate(ranking: Sequence[str], judged: Judged, cutoff: int | None = None) -> float:
    """Judged@k: the fraction of the top min(k, n) docs that have a qrels entry (any label); 0 for no docs."""
    top = ranking[:cutoff]
    return sum(doc in judged for doc in top) / len(top) if top else 0.0


GDEVAL_MAX_GRADE = 4


def gdeval_gain(label: int | None) -> float:
    """gdeval's gain: 2^label − 1 for a label above 0; 0 for the others and unjudged docs (None)."""
    return 2.0 ** label - 1 if label is not None and label > 0 else 0.0


def gdeval_err(ranking: Sequence[str], judged: Judged, cutoff: int) -> float:
    """gdeval's ERR@k: Σ_{r≤k} (1/r)·R(r)·Π_{i<r}(1 − R(i)), R = gain / 2^4."""
    total, reach = 0.0, 1.0
    for rank, doc in enumerate(ranking[:cutoff], start=1):
        stop = gdeval_gain(judged.get(doc)) / 2 ** GDEVAL_MAX_GRADE
        total += reach * stop / rank
        reach *= 1 - stop
    return total


def gdeval_ndcg(ranking: Sequence[str], judged: Judged, cutoff: int) -> float:
    """gdeval's nDCG@k: Σ_{r≤k} gain / log(r + 1) over the same sum of the gains of the labels above 0, highest
    first; 0 for a query without a label above 0."""
    def dcg(gains: Sequence[float]) -> float:
        return sum(gain / math.log(rank + 1) for rank, gain in enumerate(gains[:cutoff], start=1))

    best = dcg(sorted((gdeval_gain(label) for label in judged.values()), reverse=True))
    return dcg([gdeval_gain(judged.get(doc)) for doc in ranking]) / best if best else 0.0


def compat(ranking: Sequence[str], judged: Judged, p: float = 0.95, normalize: bool = True) -> float:
    """Compat (Clarke, Vtyurina & Smucker 2021): the rank-biased overlap, to depth max(n, m), of the ranking with
    the ideal ranking of the m docs labelled above 0 (label descending; docs of a label in the ranking's order,
    the unretrieved ones after); with ``normalize``, divided by the ideal's overlap with itself (if above 0)."""
    position = {doc: rank for rank, doc in enumerate(ranking)}
    ideal = sorted((doc for doc, label in judged.items() if label > 0),
                   key=lambda doc: (-judged[doc], position.get(doc, len(ranking)), doc))
    depth = max(len(ranking), len(ideal))

    def rbo(first: Sequence[str], second: Sequence[str]) -> float:
        score, weights, weight = 0.0, 0.0, 1.0
        for d in range(1, depth + 1):
            score += weight * len(set(first[:d]) & set(second[:d])) / d
            weights += weight
            weight *= p
        return score / weights if weights else 0.0

    score = rbo(ranking, ideal)
    best = rbo(ideal, ideal)
    return score / best if normalize and best > 0 else score


def trec_rbp(ranking: Sequence[str], judged: Judged, p: float = 0.9, gains: Gains = None) -> float:
    """trec_eval 10.0's rbp: (1 − p)·Σ_r g(r)·p^{r−1}; a doc labelled L >= 0 gains ``gains[L]`` (default L), others
    0; every gain divided by the largest gain of the levels 0 .. the query's largest label >= 0 (and its
    real-valued labels) and of the levels ``gains`` names, where that exceeds 1."""
    gains = gains or {}
    levels = [label for label in judged.values() if label >= 0]
    levels += range(math.floor(max(levels)) + 1) if levels else []
    level_gains = [gains.get(level, level) for level in levels]
    highest = max([0.0, *level_gains, *gains.values()])
    scale = highest if highest > 1 else 1.0
    total, weight = 0.0, 1.0
    for doc in ranking:
        label = judged.get(doc)
        if label is not None and label >= 0:
            total += gains.get(label, label) / scale * weight
        weight *= p
    return (1 - p) * total


def is_unjudged_for_trec_eval(doc: str, judged: Judged) -> bool:
    """trec_eval's unjudged docs: not in the qrels (-1), or labelled below 0 (-2, in the pool but not judged)."""
    return doc not in judged or judged[doc] < 0


def trec_rbp_resid(ranking: Sequence[str], judged: Judged, p: float = 0.9) -> float:
    """trec_eval 10.0's rbp_resid: p^n + (1 − p)·Σ over the unjudged docs of p^{r−1}; 0 when none is unjudged."""
    unjudged, total, weight = 0, 0.0, 1.0
    for doc in ranking:
        if is_unjudged_for_trec_eval(doc, judged):
            unjudged += 1
            total += weight
        weight *= p
    return weight + (1 - p) * total if unjudged else 0.0


def trec_unj(ranking: Sequence[str], judged: Judged, cutoff: int) -> float:
    """trec_eval 10.0's unj_k: the unjudged docs among the first k, divided by k."""
    return sum(is_unjudged_for_trec_eval(doc, judged) for doc in ranking[:cutoff]) / cutoff
