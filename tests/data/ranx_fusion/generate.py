"""Inputs for the rank-fusion reference (issue 51): our own seeded runs and qrels, in TREC format.

    python generate.py          # writes the files next to this script (stdlib + numpy only; no ranx)

What is written (see README.md for the whole story and topic_notes.tsv for what each query exercises):

  run_a.txt .. run_d.txt   the runs to fuse: 4 runs over queries q01..q12 (BM25-like positive scores,
                           probabilities, all-negative log-probabilities, mixed-sign dot products)
  qrels_test.txt           graded labels (0..3) for q01..q12 (ranx's remedy for runs that do not answer the
                           same queries, Run.make_comparable, takes a Qrels: this is the one used)
  train_a.txt .. train_d.txt, qrels_train.txt
                           the training split (queries t01..t10, every run answers every query) for the methods
                           that are trained or optimised (ProbFuse, SegFuse, SlideFuse, PosFuse, MAPFuse,
                           BayesFuse; optimize_fusion)
  long_a.txt, long_b.txt   2 runs x 2 queries of 24 docs with large tie groups (ranx's input sort is unstable
                           above 15 docs a query)
  cond_a.txt .. cond_c.txt 3 runs x 5 queries for Condorcet: c1..c4 full rankings of the same 8 docs whose
                           majority relation is a total order (also weighted 0.6/0.25/0.15), c5 a 3-doc cycle
  topic_notes.tsv          what each query is for

The last column of topic_notes.tsv lists every tie group (forced or from rounding).

Conventions of the run files: `qid Q0 docid rank score tag`, one line a doc, lines in rank order; inside a group of
equal scores the docs are listed in DESCENDING docid order (trec_eval's tie rule), so that "file order", "descending
docid" and ranx's input order (stable for <= 15 docs a query) all agree on the main and training runs.
"""

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 51  # issue 51

TEST_QUERIES = ["q%02d" % i for i in range(1, 13)]
TRAIN_QUERIES = ["t%02d" % i for i in range(1, 11)]
RUNS = ["a", "b", "c", "d"]

NOTES = {}


def note(qid, text):
    NOTES[qid] = text


# --- score scales, one a run --------------------------------------------------------------------------------------
def scale(run, x):
    """Map latent strengths x (higher = better, roughly in [-2, 3]) to the run's own score scale."""
    x = np.asarray(x, dtype=float)
    if run == "a":  # BM25-like, positive, 1 decimal
        return np.round(6.0 + 4.0 * x, 1)
    if run == "b":  # probabilities in (0, 1), 2 decimals
        return np.round(1.0 / (1.0 + np.exp(-(x - 0.5))), 2)
    if run == "c":  # log-probabilities: every score negative, 2 decimals
        return np.round(-8.0 + 2.0 * x - 0.5, 2)
    if run == "d":  # dot products, mixed sign, 2 decimals
        return np.round(1.1 * (x - 0.6), 2)
    raise ValueError(run)


RESERVED = {"d901", "d902", "d903", "d904", "d905", "d906", "d907"}  # q02's hand-made docs


def make_pool(rng, size):
    taken = set(RESERVED)
    pool = []
    while len(pool) < size:
        d = "d%03d" % rng.integers(100, 1000)  # random ids: docid order is unrelated to rank order
        if d not in taken:
            taken.add(d)
            pool.append(d)
    return pool


def ranked(scores):
    """Doc -> score dict to the file's line order: score descending, ties by descending docid."""
    items = sorted(scores.items(), key=lambda kv: kv[0], reverse=True)
    return sorted(items, key=lambda kv: -kv[1])  # stable: ties keep descending docid


def random_run(rng, run, pool, latent, n, noise=0.8):
    docs = list(rng.choice(pool, size=n, replace=False))
    x = np.array([latent[d] for d in docs]) + rng.normal(0.0, noise, size=n)
    return dict(zip(docs, (float(s) for s in scale(run, x))))


def force_tie(scores, k=2, start=None, rng=None):
    """Give k docs adjacent in score order the same score (the highest of them)."""
    order = [d for d, _ in ranked(scores)]
    if len(order) < k:
        return scores
    i = start if start is not None else int(rng.integers(0, len(order) - k + 1))
    top = scores[order[i]]
    for d in order[i:i + k]:
        scores[d] = top
    return scores


def write_run(path, tag, run):
    with open(path, "w") as f:
        for qid in sorted(run):
            for rank, (doc, score) in enumerate(ranked(run[qid]), start=1):
                f.write("%s Q0 %s %d %r %s\n" % (qid, doc, rank, score, tag))


def write_qrels(path, qrels):
    with open(path, "w") as f:
        for qid in sorted(qrels):
            for doc in sorted(qrels[qid]):
                f.write("%s 0 %s %d\n" % (qid, doc, qrels[qid][doc]))


def latent_and_qrels(rng, pool):
    rel = rng.choice(4, size=len(pool), p=[0.5, 0.25, 0.15, 0.1])
    latent = {d: float(r) + rng.normal(0.0, 0.3) for d, r in zip(pool, rel)}
    qrels = {d: int(r) for d, r in zip(pool, rel)}
    return latent, qrels


# --- the test split ---------------------------------------------------------------------------------------------
def make_test(rng):
    runs = {r: {} for r in RUNS}
    qrels = {}
    for qid in TEST_QUERIES:
        size = 20 if qid in ("q09", "q12") else 16
        pool = make_pool(rng, size)
        latent, qrels[qid] = latent_and_qrels(rng, pool)
        lengths = {"q12": (15, 15, 14, 15)}.get(qid, tuple(int(rng.integers(7, 14)) for _ in RUNS))
        for r, n in zip(RUNS, lengths):
            runs[r][qid] = random_run(rng, r, pool, latent, n)

        if qid == "q01":
            note(qid, "ordinary; forced ties inside runs a (2 docs), b (3 docs) and d (2 docs, at the top)")
            force_tie(runs["a"][qid], 2, rng=rng)
            force_tie(runs["b"][qid], 3, rng=rng)
            force_tie(runs["d"][qid], 2, start=0)
        elif qid == "q02":
            note(qid, "ties that survive fusion: d901/d902 tied in every run that has them (a, b, c) -> tie under every "
                      "score-based method; d903/d904 swap ranks 1 and 2 between a and b and are absent from c and d -> "
                      "tie under rank-based methods; d905/d906/d907 only in run a, one score -> 3-way tie")
            # same scores in each run that has them
            for r, s in (("a", 20.0), ("b", 0.77), ("c", -3.21)):
                runs[r][qid]["d901"] = s
                runs[r][qid]["d902"] = s
            for r in ("a", "b"):
                hi = max(runs[r][qid].values())
                step = 1.0 if r == "a" else 0.01
                first, second = ("d903", "d904") if r == "a" else ("d904", "d903")
                runs[r][qid][first] = round(hi + 2 * step, 2)
                runs[r][qid][second] = round(hi + step, 2)
            for d in ("d905", "d906", "d907"):
                runs["a"][qid][d] = 7.5
            for d in ("d901", "d902", "d903", "d904", "d905", "d906", "d907"):
                qrels[qid][d] = 1
        elif qid == "q03":
            note(qid, "run d does not answer q03 (absent from run_d.txt); a forced tie inside run c")
            del runs["d"][qid]
            force_tie(runs["c"][qid], 2, rng=rng)
        elif qid == "q04":
            note(qid, "run b gives every doc of q04 the same score (0.5): max == min, zero variance")
            for d in runs["b"][qid]:
                runs["b"][qid][d] = 0.5
        elif qid == "q05":
            note(qid, "run d's scores are all <= 0 with max exactly 0.0 (max norm divides by 1e-9); run c all negative "
                      "as everywhere")
            mx = max(runs["d"][qid].values())
            runs["d"][qid] = {d: round(s - mx - (0.0 if s == mx else 0.25), 2) for d, s in runs["d"][qid].items()}
            top = max(runs["d"][qid], key=runs["d"][qid].get)
            runs["d"][qid][top] = 0.0
        elif qid == "q06":
            note(qid, "run a retrieves a single doc; run c retrieves two docs with the same score")
            keep = sorted(runs["a"][qid], key=runs["a"][qid].get)[-1]
            runs["a"][qid] = {keep: runs["a"][qid][keep]}
            two = sorted(runs["c"][qid], key=runs["c"][qid].get)[-2:]
            runs["c"][qid] = {d: runs["c"][qid][two[1]] for d in two}
        elif qid == "q07":
            note(qid, "little overlap: each run draws mostly from its own part of the pool, so most docs are in one run "
                      "only (Log_ISR gives them 0, CombMNZ = CombSUM for them)")
            parts = [pool[0:4], pool[4:8], pool[8:12], pool[12:16]]
            for r, part in zip(RUNS, parts):
                docs = part + [pool[int(rng.integers(0, 16))]]
                x = np.array([latent[d] for d in docs]) + rng.normal(0.0, 0.8, size=len(docs))
                runs[r][qid] = dict(zip(docs, (float(s) for s in scale(r, x))))
        elif qid == "q08":
            note(qid, "runs a and b rank the same docs in the same order (different scores); a forced tie inside c")
            docs = [d for d, _ in ranked(runs["a"][qid])]
            runs["b"][qid] = {d: round(0.95 - 0.05 * i, 2) for i, d in enumerate(docs)}
            force_tie(runs["c"][qid], 2, rng=rng)
        elif qid == "q09":
            note(qid, "pool of 20: the fused lists are longer than 15 (ranx's output sort is unstable there); "
                      "forced ties inside runs a and d")
            force_tie(runs["a"][qid], 2, rng=rng)
            force_tie(runs["d"][qid], 3, rng=rng)
        elif qid == "q10":
            note(qid, "ordinary; a forced tie at the bottom of run b")
            force_tie(runs["b"][qid], 2, start=len(runs["b"][qid]) - 2)
        elif qid == "q11":
            note(qid, "answered by run a only (absent from run_b/c/d.txt)")
            for r in ("b", "c", "d"):
                del runs[r][qid]
        elif qid == "q12":
            note(qid, "long: 15, 15, 14, 15 docs (the most ranx sorts stably), pool of 20; forced ties inside a and c")
            force_tie(runs["a"][qid], 2, rng=rng)
            force_tie(runs["c"][qid], 2, rng=rng)
        if not any(v > 0 for v in qrels[qid].values()):
            qrels[qid][pool[0]] = 1
    return runs, qrels


# --- the training split -----------------------------------------------------------------------------------------
def make_train(rng):
    runs = {r: {} for r in RUNS}
    qrels = {}
    for qid in TRAIN_QUERIES:
        pool = make_pool(rng, 14)
        latent, qrels[qid] = latent_and_qrels(rng, pool)
        if qid == "t04":  # a query without a relevant doc: every label 0
            qrels[qid] = {d: 0 for d in qrels[qid]}
            note(qid, "training query without a relevant doc (every label 0)")
        for r in RUNS:
            n = int(rng.integers(5, 13))  # shorter than the test runs: PosFuse/SlideFuse probs run out
            runs[r][qid] = random_run(rng, r, pool, latent, n)
        force_tie(runs[RUNS[TRAIN_QUERIES.index(qid) % 4]][qid], 2, rng=rng)
        if qid == "t01":
            note(qid, "training query; a forced tie inside run a")
        elif qid != "t04":
            note(qid, "training query; a forced tie inside run %s" % RUNS[TRAIN_QUERIES.index(qid) % 4])
        if qid != "t04" and not any(v > 0 for v in qrels[qid].values()):
            qrels[qid][pool[0]] = 1
    return runs, qrels


# --- the long-list tie demonstration -----------------------------------------------------------------------------
def make_long(rng):
    runs = {"a": {}, "b": {}}
    for qid in ("L1", "L2"):
        pool = make_pool(rng, 30)
        for r in runs:
            docs = list(rng.choice(pool, size=24, replace=False))
            levels = np.repeat(np.arange(6, 0, -1), 4)  # 6 groups of 4 tied docs
            runs[r][qid] = dict(zip(docs, (float(v) for v in levels)))
        note(qid, "24 docs a run in 6 groups of 4 equal scores (listed in descending docid): ranx re-sorts them "
                  "with numba's quicksort (> 15 docs), which is not stable")
    return runs


def tie_groups(runs, qid):
    out = []
    for r in sorted(runs):
        counts = {}
        for s in runs[r].get(qid, {}).values():
            counts[s] = counts.get(s, 0) + 1
        out += ["%s:%d" % (r, c) for s, c in sorted(counts.items(), reverse=True) if c > 1]
    return out


# --- Condorcet where ranx's comparator is consistent ---------------------------------------------------------------
def transitive(orders, weights):
    """Is the weighted-majority relation of these full rankings a strict total order (no ties, no cycles)?"""
    docs = orders[0]
    wins = {d: 0 for d in docs}
    for i, x in enumerate(docs):
        for y in docs[i + 1:]:
            vx = sum(w for o, w in zip(orders, weights) if o.index(x) < o.index(y))
            vy = sum(w for o, w in zip(orders, weights) if o.index(y) < o.index(x))
            if abs(vx - vy) < 1e-12:
                return False
            wins[x if vx > vy else y] += 1
    return sorted(wins.values()) == list(range(len(docs)))


def make_condorcet(rng):
    runs = {"a": {}, "b": {}, "c": {}}
    for qid in ("c1", "c2", "c3", "c4"):
        pool = make_pool(rng, 8)
        while True:  # three noisy rankings of the same 8 docs whose majority relation is transitive
            base = rng.normal(0.0, 1.0, size=8)
            orders = [[pool[i] for i in np.argsort(-(base + rng.normal(0.0, 0.7, size=8)))] for _ in runs]
            if transitive(orders, [1, 1, 1]) and transitive(orders, [0.6, 0.25, 0.15]):
                break
        for r, order in zip(sorted(runs), orders):
            runs[r][qid] = {d: float(8 - i) for i, d in enumerate(order)}
        note(qid, "Condorcet without ties or cycles: 3 runs rank the same 8 docs, the majority relation is a total "
                  "order (ranx's condorcet is then independent of PYTHONHASHSEED)")
    pool = make_pool(rng, 5)
    x, y, z, u, v = pool
    for r, top in zip(sorted(runs), ([x, y, z], [y, z, x], [z, x, y])):
        runs[r]["c5"] = {d: float(5 - i) for i, d in enumerate(top + [u, v])}
    note("c5", "a Condorcet cycle: %s > %s > %s > %s by 2 votes to 1 each, then %s, %s in every run" % (x, y, z, x, u, v))
    return runs


def main():
    rng = np.random.default_rng(SEED)
    test_runs, test_qrels = make_test(rng)
    train_runs, train_qrels = make_train(rng)
    long_runs = make_long(rng)
    cond_runs = make_condorcet(rng)
    for r in RUNS:
        write_run(os.path.join(HERE, "run_%s.txt" % r), "run_" + r, test_runs[r])
        write_run(os.path.join(HERE, "train_%s.txt" % r), "train_" + r, train_runs[r])
    for r in long_runs:
        write_run(os.path.join(HERE, "long_%s.txt" % r), "long_" + r, long_runs[r])
    for r in cond_runs:
        write_run(os.path.join(HERE, "cond_%s.txt" % r), "cond_" + r, cond_runs[r])
    write_qrels(os.path.join(HERE, "qrels_test.txt"), test_qrels)
    write_qrels(os.path.join(HERE, "qrels_train.txt"), train_qrels)
    with open(os.path.join(HERE, "topic_notes.tsv"), "w") as f:
        f.write("qid\tnote\truns answering\ttie groups (run:size, after rounding)\n")
        for runs, queries in ((test_runs, TEST_QUERIES), (train_runs, TRAIN_QUERIES), (long_runs, ["L1", "L2"]),
                              (cond_runs, ["c1", "c2", "c3", "c4", "c5"])):
            for qid in queries:
                answering = [r for r in sorted(runs) if qid in runs[r]]
                f.write("%s\t%s\t%s\t%s\n" % (qid, NOTES.get(qid, "ordinary"), ",".join(answering),
                                              " ".join(tie_groups(runs, qid)) or "-"))


if __name__ == "__main__":
    main()
