"""Inputs and reference outputs for the reproducibility measures (issue 50), checked against repro_eval 0.5.0.

Two steps, each its own sub-command (default: both, in order):

  data       writes the qrels and runs (seeded; stdlib + numpy only, no repro_eval needed)
  reference  runs repro_eval 0.5.0 on them through its documented API and writes its outputs (ref_*.json)

The reference step needs repro_eval installed OUTSIDE this package's dependencies, e.g.

  python3.11 -m venv /tmp/repro && /tmp/repro/bin/pip install repro-eval==0.5.0 pandas
  cd tests/data/repro_eval && /tmp/repro/bin/python generate.py

(repro_eval 0.5.0 imports pandas without declaring it, hence `pandas` above.)  See README.md for what each
file holds, the versions used, and the SHA-256 of every file.
"""

import io
import json
import os
import sys
import traceback
import warnings
from contextlib import redirect_stderr, redirect_stdout

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SEED = 50  # issue 50
DEPTH = 30  # documents per topic in every run (equal lengths: repro_eval's KTU needs them, see README)

# --- collection A: the original collection (reproducibility) ---------------------------------------------
TOPICS_A = [str(t) for t in range(101, 111)]  # 10 judged topics
UNJUDGED_TOPIC = "111"  # in all four runs, not in qrels_orig.txt
MISSING_FROM_RPD_A = "104"  # left out of rpd_a.txt
NOTHING_RELEVANT_RPD_B = "106"  # rpd_b.txt retrieves only non-relevant or unjudged documents there
# --- collection B: the other collection (replicability) --------------------------------------------------
TOPICS_B = [str(t) for t in range(201, 209)]  # 8 judged topics
MISSING_FROM_RPL_B = "205"  # left out of rpl_b.txt


def _docid(rng, used):
    while True:
        d = "doc%05d" % rng.integers(0, 100000)  # random ids: docid order is unrelated to rank order
        if d not in used:
            used.add(d)
            return d


def make_collection(rng, topics, pool_size=60, judged=32):
    """Per topic a pool of docids, a latent relevance (0..3) for each, and a qrels subset of the pool."""
    pools, latent, qrels = {}, {}, {}
    for t in topics:
        used = set()
        pool = [_docid(rng, used) for _ in range(pool_size)]
        rel = rng.choice(4, size=pool_size, p=[0.55, 0.2, 0.15, 0.1])
        pools[t], latent[t] = pool, dict(zip(pool, (int(r) for r in rel)))
        judged_idx = sorted(rng.choice(pool_size, size=judged, replace=False))
        qrels[t] = {pool[i]: int(rel[i]) for i in judged_idx}
        if not any(v > 0 for v in qrels[t].values()):  # every judged topic gets one relevant doc
            qrels[t][pool[judged_idx[0]]] = 1
    return pools, latent, qrels


def system_scores(rng, pool, latent, signal, noise):
    """A system's scores for the whole pool: signal * latent relevance + gaussian noise, 3 decimals."""
    return {d: round(float(signal * latent[d] + rng.normal(0.0, noise)) + 10.0, 3) for d in pool}


def top(scores, k=DEPTH):
    """The top k (score desc; ties by docid desc, as trec_eval and repro_eval's break_ties order them)."""
    return sorted(scores.items(), key=lambda kv: (kv[1], kv[0]), reverse=True)[:k]


def force_ties(rng, ranked, n_groups=2):
    """Give a few adjacent pairs/triples the same score (the first of the group's)."""
    ranked = list(ranked)
    for _ in range(n_groups):
        i = int(rng.integers(1, len(ranked) - 3))
        size = int(rng.integers(2, 4))
        s = ranked[i][1]
        for j in range(i, i + size):
            ranked[j] = (ranked[j][0], s)
    return ranked


def reproduce(rng, orig_scores, pool, latent, swap=3, noise=0.15):
    """A reproduced ranking: the original scores perturbed, and `swap` of its docs replaced by other pool docs."""
    ranked = top(orig_scores)
    kept = [(d, round(s + float(rng.normal(0.0, noise)), 3)) for d, s in ranked]
    outside = [d for d in pool if d not in dict(ranked)]
    for pos in rng.choice(len(kept), size=swap, replace=False):
        new = outside.pop(int(rng.integers(0, len(outside))))
        kept[int(pos)] = (new, kept[int(pos)][1])
    return top(dict(kept))


def write_run(path, tag, ranking_by_topic):
    """TREC run: score desc; inside a group of equal scores the docs go in ASCENDING docid order, so that
    repro_eval's break_ties (and trec_eval) has to reorder them."""
    with open(path, "w") as f:
        for t in sorted(ranking_by_topic):
            ranked = ranking_by_topic[t]
            ranked = sorted(ranked, key=lambda kv: kv[0])  # docid asc, then a stable sort by score desc
            ranked = sorted(ranked, key=lambda kv: -kv[1])
            for r, (d, s) in enumerate(ranked, 1):
                f.write("%s Q0 %s %d %.3f %s\n" % (t, d, r, s, tag))


def write_qrels(path, qrels):
    with open(path, "w") as f:
        for t in sorted(qrels):
            for d in sorted(qrels[t]):
                f.write("%s 0 %s %d\n" % (t, d, qrels[t][d]))


def make_data():
    rng = np.random.default_rng(SEED)

    # collection A; the unjudged topic has a pool and a latent relevance but no qrels
    pools, latent, qrels = make_collection(rng, TOPICS_A + [UNJUDGED_TOPIC])
    del qrels[UNJUDGED_TOPIC]
    runs = {"orig_b": {}, "orig_a": {}, "rpd_b": {}, "rpd_a": {}}
    for t in TOPICS_A + [UNJUDGED_TOPIC]:
        sb = system_scores(rng, pools[t], latent[t], signal=0.6, noise=1.0)
        sa = system_scores(rng, pools[t], latent[t], signal=1.2, noise=1.0)
        runs["orig_b"][t] = force_ties(rng, top(sb))
        runs["orig_a"][t] = force_ties(rng, top(sa))
        if t == NOTHING_RELEVANT_RPD_B:
            nonrel = [d for d in pools[t] if qrels[t].get(d, 0) == 0]
            rb = {d: sb[d] for d in nonrel}
            runs["rpd_b"][t] = force_ties(rng, top(rb), n_groups=1)
        else:
            runs["rpd_b"][t] = force_ties(rng, reproduce(rng, sb, pools[t], latent[t]), n_groups=1)
        if t != MISSING_FROM_RPD_A:
            runs["rpd_a"][t] = force_ties(rng, reproduce(rng, sa, pools[t], latent[t], swap=2), n_groups=1)
    write_qrels(os.path.join(HERE, "qrels_orig.txt"), qrels)
    for name, by_topic in runs.items():
        write_run(os.path.join(HERE, name + ".txt"), name, by_topic)

    # collection B (replicability): other topics, other documents, the same two systems' ideas
    pools_b, latent_b, qrels_b = make_collection(rng, TOPICS_B)
    rpl = {"rpl_b": {}, "rpl_a": {}}
    for t in TOPICS_B:
        sb = system_scores(rng, pools_b[t], latent_b[t], signal=0.5, noise=1.0)
        sa = system_scores(rng, pools_b[t], latent_b[t], signal=0.9, noise=1.0)
        if t != MISSING_FROM_RPL_B:
            rpl["rpl_b"][t] = force_ties(rng, top(sb))
        rpl["rpl_a"][t] = force_ties(rng, top(sa))
    write_qrels(os.path.join(HERE, "qrels_rpl.txt"), qrels_b)
    for name, by_topic in rpl.items():
        write_run(os.path.join(HERE, name + ".txt"), name, by_topic)

    # edge cases (tiny, hand-written): what repro_eval does where its definitions are odd
    with open(os.path.join(HERE, "qrels_edge.txt"), "w") as f:
        f.write("1 0 a 1\n1 0 c 2\n1 0 e 1\n2 0 b 1\n2 0 d 3\n")
    with open(os.path.join(HERE, "edge_orig.txt"), "w") as f:  # score-sorted
        for t, docs in (("1", "abcdef"), ("2", "abcdef")):
            for r, d in enumerate(docs, 1):
                f.write("%s Q0 %s %d %.1f edge_orig\n" % (t, d, r, 10 - r))
    with open(os.path.join(HERE, "edge_rep_unsorted.txt"), "w") as f:
        # topic 1: lines NOT in score order (b has the top score but comes second in the file);
        # topic 2: a tie (c, e at 5.0) split by a doc with another score between them in the file
        f.write("1 Q0 a 1 8.0 unsorted\n1 Q0 b 2 9.0 unsorted\n1 Q0 c 3 7.0 unsorted\n"
                "1 Q0 d 4 6.0 unsorted\n1 Q0 e 5 5.0 unsorted\n1 Q0 f 6 4.0 unsorted\n")
        f.write("2 Q0 a 1 9.0 unsorted\n2 Q0 c 2 5.0 unsorted\n2 Q0 b 3 8.0 unsorted\n"
                "2 Q0 e 4 5.0 unsorted\n2 Q0 d 5 7.0 unsorted\n2 Q0 f 6 4.0 unsorted\n")
    with open(os.path.join(HERE, "edge_rep_short.txt"), "w") as f:  # topic 1 has 4 docs, not 6
        for t, docs in (("1", "abdc"), ("2", "abcdfe")):
            for r, d in enumerate(docs, 1):
                f.write("%s Q0 %s %d %.1f short\n" % (t, d, r, 10 - r))
    with open(os.path.join(HERE, "edge_rep_extra_topic.txt"), "w") as f:  # topic 3 is not in edge_orig.txt
        for t, docs in (("1", "abcdef"), ("2", "abcdef"), ("3", "abc")):
            for r, d in enumerate(docs, 1):
                f.write("%s Q0 %s %d %.1f extra\n" % (t, d, r, 10 - r))


# ----------------------------------------------------------------------------------------------------------
# reference (repro_eval 0.5.0)
# ----------------------------------------------------------------------------------------------------------

def _plain(x):
    """numpy scalars -> float (repr-exact in JSON); dicts/lists recursively."""
    if isinstance(x, dict):
        return {str(k): _plain(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_plain(v) for v in x]
    if isinstance(x, (np.floating, float)):
        return float(x)
    if isinstance(x, (np.integer,)):
        return int(x)
    return x


class Capture:
    """Records warnings, stdout and stderr of one call."""

    def __init__(self, log, label):
        self.log, self.label = log, label

    def __enter__(self):
        self.out, self.err = io.StringIO(), io.StringIO()
        self._w = warnings.catch_warnings(record=True)
        self.caught = self._w.__enter__()
        warnings.simplefilter("always")
        self._o, self._e = redirect_stdout(self.out), redirect_stderr(self.err)
        self._o.__enter__()
        self._e.__enter__()
        return self

    def __exit__(self, et, ev, tb):
        self._e.__exit__(et, ev, tb)
        self._o.__exit__(et, ev, tb)
        self._w.__exit__(et, ev, tb)
        entry = {"call": self.label,
                 "warnings": sorted({"%s: %s" % (w.category.__name__, w.message) for w in self.caught
                                     if "scipy.stats.stats" not in str(w.message)}),
                 "stdout": self.out.getvalue(), "stderr": self.err.getvalue()}
        if et is not None:
            entry["exception"] = "".join(traceback.format_exception_only(et, ev)).strip()
        self.log.append(entry)
        return et is not None and self.swallow

    swallow = False


def _encode(obj, indent=0):
    """JSON, one line per innermost dict or list (floats via repr, NaN/Infinity as Python's json writes them)."""
    leaf = lambda v: not isinstance(v, (dict, list))  # noqa: E731
    if isinstance(obj, dict) and obj and not all(leaf(v) for v in obj.values()):
        pad = " " * (indent + 1)
        items = [pad + json.dumps(k) + ": " + _encode(v, indent + 1) for k, v in obj.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    if isinstance(obj, list) and obj and not all(leaf(v) for v in obj):
        pad = " " * (indent + 1)
        return "[\n" + ",\n".join(pad + _encode(v, indent + 1) for v in obj) + "\n" + " " * indent + "]"
    return json.dumps(obj, allow_nan=True)


def _dump(name, obj):
    with open(os.path.join(HERE, name), "w") as f:
        f.write(_encode(_plain(obj)) + "\n")


def make_reference():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # its `from scipy.stats.stats import ...`
        import repro_eval
        from repro_eval.Evaluator import RpdEvaluator, RplEvaluator
        from repro_eval.util import arp_scores
    import importlib.metadata as md

    p = lambda n: os.path.join(HERE, n)  # noqa: E731
    versions = {k: md.version(k) for k in ("repro-eval", "ir_measures", "pytrec_eval_terrier", "numpy", "scipy",
                                            "pandas")}
    versions["python"] = sys.version.split()[0]
    assert versions["repro-eval"] == "0.5.0", versions
    log = []
    meta = {"generator": "generate.py reference", "versions": versions,
            "defaults": {"RUN_LENGTH": repro_eval.RUN_LENGTH, "RBO_P": repro_eval.RBO_P,
                         "RBO_DEPTH": repro_eval.RBO_DEPTH, "exclude": repro_eval.exclude}}

    # ---- reproducibility ----
    with Capture(log, "RpdEvaluator(...); trim(); evaluate()"):
        rpd = RpdEvaluator(qrels_orig_path=p("qrels_orig.txt"),
                           run_b_orig_path=p("orig_b.txt"), run_a_orig_path=p("orig_a.txt"),
                           run_b_rep_path=p("rpd_b.txt"), run_a_rep_path=p("rpd_a.txt"))
        rpd.trim()
        rpd.evaluate()
    out = {"meta": dict(meta, measures=[str(m) for m in rpd.measures],
                        inputs={"qrels": "qrels_orig.txt", "orig_b": "orig_b.txt", "orig_a": "orig_a.txt",
                                "rep_b": "rpd_b.txt", "rep_a": "rpd_a.txt"})}
    calls = [
        ("ktu_per_topic", "ktu(per_topic=True)", lambda: rpd.ktu(per_topic=True)),
        ("ktu_mean", "ktu()", lambda: rpd.ktu()),
        ("rbo_per_topic", "rbo(per_topic=True)", lambda: rpd.rbo(per_topic=True)),
        ("rbo_mean", "rbo()", lambda: rpd.rbo()),
        ("rmse", "rmse()", lambda: rpd.rmse()),
        ("nrmse", "nrmse()", lambda: rpd.nrmse()),
        ("er", "er()", lambda: rpd.er()),
        ("dri", "dri()", lambda: rpd.dri()),
        ("ttest_paired_pvalue", "ttest()", lambda: rpd.ttest()),
    ]
    for key, label, fn in calls:
        with Capture(log, "rpd." + label):
            out[key] = fn()
    out["arp"] = {"orig_b": arp_scores(rpd.run_b_orig_score), "orig_a": arp_scores(rpd.run_a_orig_score),
                  "rep_b": arp_scores(rpd.run_b_rep_score), "rep_a": arp_scores(rpd.run_a_rep_score)}
    out["log"] = [e for e in log]
    _dump("ref_rpd.json", out)
    _dump("ref_rpd_topic_scores.json", {
        "meta": {"what": "repro_eval 0.5.0 util.evaluate_run output (per topic, per ir_measures measure) after "
                         "trim(); evaluate(): the scores every other rpd measure is computed from"},
        "orig_b": rpd.run_b_orig_score, "orig_a": rpd.run_a_orig_score,
        "rep_b": rpd.run_b_rep_score, "rep_a": rpd.run_a_rep_score})

    # ---- replicability ----
    log = []
    with Capture(log, "RplEvaluator(...); trim(); evaluate()"):
        rpl = RplEvaluator(qrels_orig_path=p("qrels_orig.txt"), qrels_rpl_path=p("qrels_rpl.txt"),
                           run_b_orig_path=p("orig_b.txt"), run_a_orig_path=p("orig_a.txt"),
                           run_b_rep_path=p("rpl_b.txt"), run_a_rep_path=p("rpl_a.txt"))
        rpl.trim()
        rpl.evaluate()
    out = {"meta": dict(meta, inputs={"qrels_orig": "qrels_orig.txt", "qrels_rpl": "qrels_rpl.txt",
                                      "orig_b": "orig_b.txt", "orig_a": "orig_a.txt",
                                      "rep_b": "rpl_b.txt", "rep_a": "rpl_a.txt"})}
    for key, label, fn in [("er", "er()", lambda: rpl.er()), ("dri", "dri()", lambda: rpl.dri()),
                           ("ttest_unpaired_pvalue", "ttest()", lambda: rpl.ttest())]:
        with Capture(log, "rpl." + label):
            out[key] = fn()
    out["arp"] = {"orig_b": arp_scores(rpl.run_b_orig_score), "orig_a": arp_scores(rpl.run_a_orig_score),
                  "rep_b": arp_scores(rpl.run_b_rep_score), "rep_a": arp_scores(rpl.run_a_rep_score)}
    out["rep_topic_scores"] = {"rep_b": rpl.run_b_rep_score, "rep_a": rpl.run_a_rep_score}
    out["log"] = log
    _dump("ref_rpl.json", out)

    # ---- edge cases: KTU / RBO (and a failing call's exception) against edge_orig.txt ----
    log, edge = [], {"meta": dict(meta, inputs={"qrels": "qrels_edge.txt", "orig_b": "edge_orig.txt"})}
    for rep in ("edge_rep_unsorted.txt", "edge_rep_short.txt", "edge_rep_extra_topic.txt"):
        res = {}
        for key, fn in (("ktu_per_topic", lambda e: e.ktu(per_topic=True)),
                        ("rbo_per_topic", lambda e: e.rbo(per_topic=True))):
            n0 = len(log)
            cap = Capture(log, "%s %s" % (rep, key))
            cap.swallow = True
            with cap:
                e = RpdEvaluator(qrels_orig_path=p("qrels_edge.txt"), run_b_orig_path=p("edge_orig.txt"),
                                 run_b_rep_path=p(rep))
                e.trim()
                e.evaluate()
                res[key] = fn(e)["baseline"]
            if "exception" in log[n0]:
                res[key] = {"exception": log[n0]["exception"]}
        edge[rep] = res
    edge["log"] = log
    _dump("ref_edge.json", edge)


if __name__ == "__main__":
    steps = sys.argv[1:] or ["data", "reference"]
    for s in steps:
        {"data": make_data, "reference": make_reference}[s]()
