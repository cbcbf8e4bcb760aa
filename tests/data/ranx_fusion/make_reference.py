"""What ranx 0.3.21 computes on our own runs (issue 51): the reference for our rank fusion.

Kept as provenance; the test suite never runs it (it needs ranx, which is not a dependency of the package).

    python3.11 -m venv /tmp/ranxenv && /tmp/ranxenv/bin/pip install ranx==0.3.21
    cd tests/data/ranx_fusion && python generate.py && /tmp/ranxenv/bin/python make_reference.py

The driver (no argument) runs this same script as a worker (`--worker OUT.json`) several times, each in a fresh
process under its own environment (PYTHONHASHSEED, NUMBA_NUM_THREADS), then merges what the workers saw:

  main       PYTHONHASHSEED=0 NUMBA_NUM_THREADS=2    the reference values
  repeat     the same again                          is ranx deterministic at all under one setting?
  seed1/2    PYTHONHASHSEED=1 / 2                    what depends on Python's string hashing (set order)
  threads1/4 NUMBA_NUM_THREADS=1 / 4                 what depends on numba's thread count

and writes reference.json (every fusion case), normalized.json (the normalised runs alone and ranx's own input
order) and optimize_fusion.json. Everything is called through ranx's documented API: Run.from_file,
Qrels.from_file, Run.make_comparable, ranx.fuse, ranx.normalize, ranx.optimize_fusion (the ported test cases of
ranx_test_cases.json are checked through the functions those tests call). See README.md.
"""

import argparse
import datetime
import io
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import traceback
import warnings
from contextlib import redirect_stderr, redirect_stdout
from fractions import Fraction
from itertools import product

HERE = os.path.dirname(os.path.abspath(__file__))

RUN_FILES = ["run_a.txt", "run_b.txt", "run_c.txt", "run_d.txt"]
TRAIN_FILES = ["train_a.txt", "train_b.txt", "train_c.txt", "train_d.txt"]
LONG_FILES = ["long_a.txt", "long_b.txt"]
COND_FILES = ["cond_a.txt", "cond_b.txt", "cond_c.txt"]
W_COND = [0.6, 0.25, 0.15]

# ranx's `norm` argument; None = no normalisation. ranx's default (fuse and optimize_fusion alike) is "min-max".
NORMS = [None, "min-max", "min-max-inverted", "max", "sum", "zmuv", "rank", "borda"]
DEFAULT_NORM = "min-max"

W1 = [0.4, 0.3, 0.2, 0.1]
W_EQUAL = [1.0, 1.0, 1.0, 1.0]
W_ZERO = [0.5, 0.0, 0.3, 0.2]

# (ranx `method`, the issue's name, primary params (used with every norm), extra params (used with min-max)).
# A params spec is either a plain dict (passed to fuse as is) or ("train", optimize_fusion kwargs, label).
TRAIN = "train"
METHODS = [
    ("min", "CombMIN", {}, []),
    ("max", "CombMAX", {}, []),
    ("med", "CombMED", {}, []),
    ("sum", "CombSUM", {}, []),
    ("anz", "CombANZ", {}, []),
    ("mnz", "CombMNZ", {}, []),
    ("gmnz", "CombGMNZ", {"gamma": 0.5}, [{"gamma": 1.0}, {"gamma": 0.0}]),
    ("isr", "ISR", {}, []),
    ("log_isr", "Log_ISR", {}, []),
    ("logn_isr", "LogN_ISR", {}, [{"sigma": 0.5}, {"sigma": 1.0}]),
    ("rrf", "RRF", {}, [{"k": 1}, {"k": 10}]),
    ("posfuse", "PosFuse", (TRAIN, {}, "trained"), []),
    ("probfuse", "ProbFuse", (TRAIN, {"min_n_segments": 3, "max_n_segments": 3}, "n_segments=3,trained"),
     [(TRAIN, {"min_n_segments": 1, "max_n_segments": 1}, "n_segments=1,trained"),
      (TRAIN, {}, "grid,trained")]),
    ("segfuse", "SegFuse", (TRAIN, {}, "trained"), []),
    ("slidefuse", "SlideFuse", (TRAIN, {"min_w": 2, "max_w": 2}, "w=2,trained"),
     [(TRAIN, {"min_w": 1, "max_w": 1}, "w=1,trained"), (TRAIN, {}, "grid,trained")]),
    ("mapfuse", "MAPFuse", (TRAIN, {}, "trained"), []),
    ("bayesfuse", "BayesFuse", (TRAIN, {}, "trained"), []),
    ("bordafuse", "BordaFuse", {}, []),
    ("w_bordafuse", "Weighted BordaFuse", {"weights": W1}, [{"weights": W_EQUAL}, {"weights": W_ZERO}]),
    ("condorcet", "Condorcet", {}, []),
    ("w_condorcet", "Weighted Condorcet", {"weights": W1}, [{"weights": W_EQUAL}, {"weights": W_ZERO}]),
    ("mixed", "Mixed", {"weights": W1}, [{"weights": W_EQUAL}, {"weights": W_ZERO}]),
    ("wmnz", "WMNZ", {"weights": W1}, [{"weights": W_EQUAL}, {"weights": W_ZERO}]),
    ("wsum", "Weighted Sum", {"weights": W1}, [{"weights": W_EQUAL}, {"weights": W_ZERO}]),
    ("rbc", "RBC", {"phi": 0.8}, [{"phi": 0.5}, {"phi": 0.95}]),
]
OPTIMISED_BY_GRID = {"probfuse", "slidefuse"}  # optimize_fusion takes metric/show_progress for these

VARIANTS = [
    ("main", {"PYTHONHASHSEED": "0", "NUMBA_NUM_THREADS": "2"}),
    ("repeat", {"PYTHONHASHSEED": "0", "NUMBA_NUM_THREADS": "2"}),
    ("seed1", {"PYTHONHASHSEED": "1", "NUMBA_NUM_THREADS": "2"}),
    ("seed2", {"PYTHONHASHSEED": "2", "NUMBA_NUM_THREADS": "2"}),
    ("threads1", {"PYTHONHASHSEED": "0", "NUMBA_NUM_THREADS": "1"}),
    ("threads4", {"PYTHONHASHSEED": "0", "NUMBA_NUM_THREADS": "4"}),
]


def norm_label(norm):
    return "none" if norm is None else norm


def params_label(spec):
    if isinstance(spec, tuple):
        return spec[2]
    if not spec:
        return "default"
    return ",".join("%s=%s" % (k, ",".join(map(repr, v)) if isinstance(v, list) else repr(v))
                    for k, v in sorted(spec.items()))


def jsonable(x):
    """Params as JSON: numpy arrays to lists; arrays longer than 64 run-length encoded as {"rle": [[v, n], ...]}."""
    import numpy as np

    if isinstance(x, dict):
        return {k: jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, np.ndarray) and x.ndim > 1:  # ProbFuse's probs: one row a run
        return [jsonable(row) for row in x]
    if isinstance(x, np.ndarray):
        values = [float(v) for v in x.tolist()]
        if len(values) <= 64:
            return values
        rle = []
        for v in values:
            if rle and rle[-1][0] == v:
                rle[-1][1] += 1
            else:
                rle.append([v, 1])
        return {"rle": rle, "length": len(values)}
    if isinstance(x, (np.floating,)):
        return float(x)
    if isinstance(x, (np.integer,)):
        return int(x)
    return x


def run_to_dict(run):
    return {str(q): {str(d): float(s) for d, s in run.run[q].items()} for q in run.run.keys()}


# ==== worker =====================================================================================================
def worker(out_path):
    import numpy as np
    import ranx
    from ranx import Qrels, Run, fuse, normalize, optimize_fusion

    t_start = time.time()
    log = []

    def call(what, fn):
        """Run fn, keeping its warnings and output; returns (value, error)."""
        buf_out, buf_err = io.StringIO(), io.StringIO()
        with warnings.catch_warnings(record=True) as caught, redirect_stdout(buf_out), redirect_stderr(buf_err):
            warnings.simplefilter("always")
            try:
                value, error = fn(), None
            except Exception as e:  # noqa: BLE001 - every failure is recorded
                value, error = None, "%s: %s" % (type(e).__name__, e)
        msgs = sorted({"%s: %s" % (w.category.__name__, str(w.message).splitlines()[0]) for w in caught})
        if msgs or buf_out.getvalue().strip() or buf_err.getvalue().strip() or error:
            log.append({"call": what, "warnings": msgs, "stdout": buf_out.getvalue()[-500:],
                        "stderr": buf_err.getvalue()[-500:], "error": error})
        return value, error

    def load(files):
        return [Run.from_file(os.path.join(HERE, f), kind="trec") for f in files]

    qrels_test = Qrels.from_file(os.path.join(HERE, "qrels_test.txt"), kind="trec")
    qrels_train = Qrels.from_file(os.path.join(HERE, "qrels_train.txt"), kind="trec")

    # --- input sets ---
    raw = load(RUN_FILES)
    refusal = call("fuse(raw runs)", lambda: fuse(raw, norm="min-max", method="sum"))[1]

    def main_set():
        runs = load(RUN_FILES)
        added = {}
        for f, run in zip(RUN_FILES, runs):
            before = set(run.keys())
            run.make_comparable(qrels_test)
            added[f] = sorted(set(run.keys()) - before)
        return runs, added

    def common_set():
        runs = load(RUN_FILES)
        common = sorted(set.intersection(*(set(r.keys()) for r in runs)))
        dropped = sorted(set.union(*(set(r.keys()) for r in runs)) - set(common))
        out = []
        for r in runs:  # same docs, same (file) order, only the common queries
            d = {q: dict(r.run[q]) for q in r.run.keys() if q in common}
            out.append(Run.from_dict(d, name=r.name))
        return out, dropped

    main_runs, added = main_set()
    common_runs, dropped = common_set()
    train_runs = load(TRAIN_FILES)
    long_runs = load(LONG_FILES)
    cond_runs = load(COND_FILES)
    sets = {
        "main": (main_runs, {"set": "main", "runs": RUN_FILES, "remedy": "make_comparable", "qrels": "qrels_test.txt",
                             "empty_queries_added": added}),
        "common": (common_runs, {"set": "common", "runs": RUN_FILES, "remedy": None, "queries_dropped": dropped}),
        "long": (long_runs, {"set": "long", "runs": LONG_FILES, "remedy": None}),
        "cond": (cond_runs, {"set": "cond", "runs": COND_FILES, "remedy": None}),
    }
    input_order = {
        name: {f: {q: list(r.run[q].keys()) for q in r.run.keys()} for f, r in zip(files, runs)}
        for name, runs, files in (("main", main_runs, RUN_FILES), ("common", common_runs, RUN_FILES),
                                  ("train", train_runs, TRAIN_FILES), ("long", long_runs, LONG_FILES),
                                  ("cond", cond_runs, COND_FILES))
    }
    snapshot = {name: [run_to_dict(r) for r in runs] for name, (runs, _) in sets.items()}

    # --- normalised runs alone ---
    normalized = {}
    for set_name in ("main", "common", "train", "long", "cond"):
        runs = train_runs if set_name == "train" else sets[set_name][0]
        files = {"main": RUN_FILES, "common": RUN_FILES, "train": TRAIN_FILES, "long": LONG_FILES,
                 "cond": COND_FILES}[set_name]
        normalized[set_name] = {}
        for norm in NORMS[1:]:
            if norm == "borda":  # borda normalises a list of runs together (ranx.normalize takes one run)
                from ranx.normalization import borda_norm
                value, error = call("borda_norm(%s)" % set_name, lambda: borda_norm(runs))
                normalized[set_name][norm] = error or {f: run_to_dict(r) for f, r in zip(files, value)}
            else:
                got = {}
                for f, r in zip(files, runs):
                    value, error = call("normalize(%s, %s)" % (f, norm), lambda: normalize(r, norm=norm))
                    got[f] = error or run_to_dict(value)
                normalized[set_name][norm] = got

    # --- training (optimize_fusion on the training split, with each case's norm) ---
    trained = {}

    def train(method, norm, kwargs):
        key = (method, norm_label(norm), json.dumps(kwargs, sort_keys=True))
        if key not in trained:
            kw = dict(kwargs)
            if method in OPTIMISED_BY_GRID:
                kw["show_progress"] = False
            trained[key] = call("optimize_fusion(%s, %s, %s)" % key,
                                lambda: optimize_fusion(qrels_train, train_runs, norm=norm, method=method, **kw))
        return trained[key]

    # --- cases ---
    cases = {}

    def add_case(method, name, norm, spec, set_name):
        runs, inputs = sets[set_name]
        case_id = "%s/%s/%s/%s" % (method, norm_label(norm), params_label(spec), set_name)
        case = {"method": method, "method_name": name, "norm": norm, "default_norm": norm == DEFAULT_NORM,
                "inputs": set_name}
        if isinstance(spec, tuple):
            kwargs = spec[1]
            call_text = "optimize_fusion(qrels_train.txt, [train_a..d.txt], norm=%r, method=%r%s)" % (
                norm, method, "".join(", %s=%r" % kv for kv in sorted(kwargs.items())))
            params, error = train(method, norm, kwargs)
            case["params_from"] = call_text
            if error:
                case["error"] = "training: " + error
                cases[case_id] = case
                return
        else:
            params = spec
            case["params_from"] = "given" if spec else "ranx defaults"
        case["params"] = jsonable(params)
        value, error = call("fuse %s" % case_id, lambda: fuse(runs, norm=norm, method=method, params=params))
        if error:
            case["error"] = error
        else:
            case["fused"] = run_to_dict(value)
        cases[case_id] = case

    for method, name, primary, extras in METHODS:
        for norm in NORMS:
            add_case(method, name, norm, primary, "main")
        for spec in extras:
            add_case(method, name, DEFAULT_NORM, spec, "main")
        add_case(method, name, "zmuv", primary, "common")
    for method in ("sum", "rrf", "isr", "bordafuse", "condorcet"):
        name = [m[1] for m in METHODS if m[0] == method][0]
        add_case(method, name, DEFAULT_NORM, {}, "long")
    for norm in (None, DEFAULT_NORM):
        add_case("condorcet", "Condorcet", norm, {}, "cond")
    for weights in (W_COND, [1.0, 1.0, 1.0]):
        add_case("w_condorcet", "Weighted Condorcet", DEFAULT_NORM, {"weights": weights}, "cond")

    # inputs untouched by fuse?
    inputs_untouched = all(snapshot[n] == [run_to_dict(r) for r in sets[n][0]] for n in sets)

    # --- optimize_fusion with its optimisation report ---
    optimize = {}
    for method, metric, kwargs in (("wsum", "map", {}), ("rrf", "ndcg@10", {}), ("probfuse", "ndcg", {})):
        def opt():
            return optimize_fusion(qrels_train, train_runs, norm="min-max", method=method, metric=metric,
                                   return_optimization_report=True, show_progress=False, **kwargs)
        value, error = call("optimize_fusion(%s, %s) with report" % (method, metric), opt)
        if error:
            optimize[method] = {"error": error}
            continue
        best, report = value
        optimize[method] = {
            "call": "optimize_fusion(qrels_train.txt, [train_a..d.txt], norm='min-max', method=%r, metric=%r, "
                    "return_optimization_report=True)" % (method, metric),
            "best_params": jsonable(best),
            "configs_tried": len(report.configs),
            # ranx keys its report by str(config) (e.g. "(np.float64(0.1), ...)"); written here as plain numbers
            "report": [[config_numbers(c), float(r)] for c, r in zip(report.configs, report.results)],
        }

    # --- ranx's own test cases, as we transcribed them (ranx_test_cases.json) ---
    ported = check_ported(call)

    out = {
        "env": {k: os.environ.get(k) for k in ("PYTHONHASHSEED", "NUMBA_NUM_THREADS")},
        "versions": versions(),
        "refusal": refusal,
        "inputs_untouched": inputs_untouched,
        "input_sets": {name: info for name, (_, info) in sets.items()},
        "input_order": input_order,
        "normalized": normalized,
        "cases": cases,
        "optimize": optimize,
        "ported": ported,
        "log": log,
        "seconds": round(time.time() - t_start, 1),
    }
    with open(out_path, "w") as f:
        json.dump(out, f)


def config_numbers(config):
    import re

    numbers = [float(x) for x in re.findall(r"-?\d+(?:\.\d+)?(?:e-?\d+)?", str(config).replace("float64", ""))]
    return numbers[0] if len(numbers) == 1 else numbers


def versions():
    import importlib.metadata as md

    v = {"python": platform.python_version(), "platform": platform.platform()}
    for pkg in ("ranx", "numba", "llvmlite", "numpy", "scipy", "pandas"):
        try:
            v[pkg] = md.version(pkg)
        except md.PackageNotFoundError:
            v[pkg] = None
    return v


def check_ported(call):
    """Check every expected value of ranx_test_cases.json against ranx itself (the functions its tests call)."""
    import math

    import numpy as np
    import ranx.fusion as F
    from ranx import Qrels, Run
    from ranx.normalization import norm_switch

    path = os.path.join(HERE, "ranx_test_cases.json")
    if not os.path.exists(path):
        return {"error": "ranx_test_cases.json missing"}
    spec = json.load(open(path))
    fixtures = spec["fixtures"]
    results = {"checked_values": 0, "failures": []}

    def runs_of(case):
        return [Run(fixtures[case["fixture"]][r]) for r in case["runs"]]

    def close(got, want, how):
        if how == "exact":
            return got == want
        if how == "isclose":
            return math.isclose(got, want, rel_tol=1e-9, abs_tol=0.0)
        if how == "round2":
            return round(got, 2) == want
        raise ValueError(how)

    for case in spec["cases"]:
        def go():
            fx = fixtures[case["fixture"]]
            runs = runs_of(case)
            qrels = Qrels(fx["qrels"]) if "qrels" in fx else None
            kind = case["kind"]
            got_train = None
            if kind == "fuse":
                args = dict(case.get("args", {}))
                if "train" in case:
                    tr = case["train"]
                    train_fn = getattr(F, tr["function"])
                    got_train = train_fn(qrels, runs, *tr.get("args", []))
                    args[tr["param"]] = got_train
                fused = getattr(F, case["function"])(runs, **args)
                got = {q: dict(fused.run[q]) for q in fused.run.keys()}
                name = fused.name
            elif kind == "train":
                got_train = getattr(F, case["function"])(qrels, runs, *case.get("args", []))
                got, name = None, None
            elif kind == "norm":
                if case["function"] == "borda":
                    normed = norm_switch("borda")(runs)
                    got = [{q: dict(r.run[q]) for q in r.run.keys()} for r in normed]
                else:
                    normed = norm_switch(case["function"])(runs[0])
                    got = [{q: dict(normed.run[q]) for q in normed.run.keys()}]
                name = None
            return got, got_train, name

        value, error = call("ported %s" % case["id"], go)
        if error:
            results["failures"].append({"id": case["id"], "error": error})
            continue
        got, got_train, name = value
        how = case.get("compare", "exact")
        bad = []
        if "expected_name" in case and name != case["expected_name"]:
            bad.append("name %r" % name)
        if "expected" in case:
            exp = case["expected"]
            got_list = got if isinstance(got, list) else [got]
            exp_list = exp if isinstance(exp, list) else [exp]
            for g, e in zip(got_list, exp_list):
                if set(g) != set(e):
                    bad.append("queries %s != %s" % (sorted(g), sorted(e)))
                for q in e:
                    if set(g.get(q, {})) != set(e[q]):
                        bad.append("%s docs %s != %s" % (q, sorted(g.get(q, {})), sorted(e[q])))
                    for d, v in e[q].items():
                        results["checked_values"] += 1
                        if d in g.get(q, {}) and not close(float(g[q][d]), v, how):
                            bad.append("%s %s: ranx %r, expected %r" % (q, d, float(g[q][d]), v))
        if "expected_train" in case:
            for i, want in enumerate(case["expected_train"]):
                have = np.asarray(got_train[i], dtype=float)
                if isinstance(want, dict):  # {"segments": [[start, end, value or "negative"], ...], "length": n}
                    if len(have) != want["length"]:
                        bad.append("train[%d] length %d" % (i, len(have)))
                    for start, end, v in want["segments"]:
                        for x in have[start:end]:
                            results["checked_values"] += 1
                            ok = x < 0 if v == "negative" else math.isclose(x, v, rel_tol=1e-9)
                            if not ok:
                                bad.append("train[%d][%d:%d]: %r vs %r" % (i, start, end, float(x), v))
                                break
                else:
                    want_arr = np.asarray(want, dtype=float)
                    results["checked_values"] += want_arr.size
                    if how == "exact":
                        ok = have.shape == want_arr.shape and have.tolist() == want_arr.tolist()
                    else:
                        ok = have.shape == want_arr.shape and np.allclose(have, want_arr, rtol=1e-9, atol=0.0)
                    if not ok:
                        bad.append("train[%d]: ranx %r, expected %r" % (i, have.tolist(), want))
        if bad:
            results["failures"].append({"id": case["id"], "problems": bad})
    results["cases"] = len(spec["cases"])
    return results


# ==== driver =====================================================================================================
def tie_groups(results):
    """{score: sorted docs} for the groups of 2+ docs with the same score."""
    groups = {}
    for d, s in results.items():
        groups.setdefault(s, []).append(d)
    return sorted((s, sorted(ds)) for s, ds in groups.items() if len(ds) > 1)


def compare(a, b):
    """How fused run b differs from fused run a (each {qid: {docid: score}})."""
    queries = sorted(set(a) | set(b))
    values = [q for q in queries if a.get(q) != b.get(q)]  # dict equality: same docs, same scores
    order = [q for q in queries if q not in values and list(a[q]) != list(b[q])]
    ties = [q for q in queries if tie_groups(a.get(q, {})) != tie_groups(b.get(q, {}))]
    return {"queries_values_differ": values, "queries_only_order_differs": order, "queries_tie_groups_differ": ties}


def driver(reuse=None):
    work = reuse or tempfile.mkdtemp(prefix="ranx_fusion_ref_")
    outs, seconds = {}, {}
    for name, env in VARIANTS:
        path = os.path.join(work, name + ".json")
        full_env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1", **env)
        t0 = time.time()
        if not reuse:
            subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", path], env=full_env, check=True)
        outs[name] = json.load(open(path))
        seconds[name] = outs[name]["seconds"] if reuse else round(time.time() - t0, 1)
        print("%-9s %6.1f s  %d cases" % (name, seconds[name], len(outs[name]["cases"])), file=sys.stderr)
    main = outs["main"]

    # --- reference.json ---
    cases = {}
    seen = {}  # fused output -> first case id with it (identical outputs are stored once)
    summary = {"cases": 0, "errors": 0, "hashseed_values_differ": [], "hashseed_only_order_differs": [],
               "threads_values_differ": [], "repeat_differs": []}
    for case_id, case in main["cases"].items():
        case = dict(case)
        summary["cases"] += 1
        if "error" in case:
            summary["errors"] += 1
        fused = case.pop("fused", None)
        if fused is not None:
            key = json.dumps(fused)  # order included
            if key in seen:
                case["fused_same_as"] = seen[key]
            else:
                seen[key] = case_id
                case["fused"] = fused
        # determinism under the same settings, hash seeds, thread counts
        for variant, bucket in (("repeat", "repeat"), ("seed1", "hashseed"), ("seed2", "hashseed"),
                                ("threads1", "threads"), ("threads4", "threads")):
            other = outs[variant]["cases"][case_id]
            env = dict(VARIANTS)[variant]
            label = ("PYTHONHASHSEED=%s" % env["PYTHONHASHSEED"] if bucket == "hashseed" else
                     "NUMBA_NUM_THREADS=%s" % env["NUMBA_NUM_THREADS"] if bucket == "threads" else "repeat")
            entry = {}
            if other.get("params") != main["cases"][case_id].get("params"):
                entry["params"] = other.get("params")
            if ("error" in other) != ("error" in case) or other.get("error") != case.get("error"):
                entry["error"] = other.get("error")
            if fused is not None and "fused" in other:
                diff = compare(fused, other["fused"])
                if any(diff.values()):
                    entry.update({k: v for k, v in diff.items() if v})
                    if diff["queries_values_differ"]:
                        entry["fused"] = {q: other["fused"].get(q) for q in diff["queries_values_differ"]}
            if entry:
                case.setdefault(bucket, {})[label] = entry
                if bucket == "repeat":
                    summary["repeat_differs"].append(case_id)
                elif bucket == "hashseed":
                    key = ("hashseed_values_differ" if entry.get("queries_values_differ") or "params" in entry
                           else "hashseed_only_order_differs")
                    if case_id not in summary[key]:
                        summary[key].append(case_id)
                elif entry.get("queries_values_differ") and case_id not in summary["threads_values_differ"]:
                    summary["threads_values_differ"].append(case_id)
        cases[case_id] = case
    summary["hashseed_only_order_differs"] = [c for c in summary["hashseed_only_order_differs"]
                                              if c not in summary["hashseed_values_differ"]]
    summary["distinct_fused_outputs"] = len(seen)

    meta = {
        "what": "ranx 0.3.21's fuse() on this folder's runs: every method x every norm (primary params), extra "
                "params with min-max, zmuv on the common queries, and the long tie-order runs. See README.md.",
        "date": datetime.date.today().isoformat(),
        "versions": main["versions"],
        "variants": {name: dict(env, seconds=seconds[name]) for name, env in VARIANTS},
        "reference_variant": "main",
        "norms": [norm_label(n) for n in NORMS],
        "default_norm": DEFAULT_NORM,
        "methods": {m: {"name": n, "primary_params": params_label(p), "extra_params": [params_label(e) for e in x]}
                    for m, n, p, x in METHODS},
        "fuse_on_runs_with_different_query_sets": main["refusal"],
        "inputs_untouched_by_fuse": main["inputs_untouched"],
        "summary": summary,
        "ranx_test_cases_check": {v: outs[v]["ported"] for v in outs},
        "log": main["log"],
        "float_format": "JSON numbers written by Python's json (repr: the shortest string that reads back to the "
                        "same double); NaN/Infinity would be bare tokens",
    }
    meta["input_sets"] = main["input_sets"]
    write_json("reference.json.gz", {"meta": meta, "cases": cases}, per_line="cases")

    # --- normalized.json ---
    norm_threads = {}
    for variant in ("threads1", "threads4", "seed1", "seed2"):
        for set_name, per_norm in outs[variant]["normalized"].items():
            for norm, per_run in per_norm.items():
                base = main["normalized"][set_name][norm]
                if per_run != base:
                    norm_threads.setdefault(variant, {}).setdefault(set_name, {})[norm] = {
                        f: {q: per_run[f][q] for q in per_run[f] if per_run[f][q] != base[f].get(q)}
                        for f in per_run if per_run[f] != base[f]}
    write_json("normalized.json.gz", {
        "meta": {"what": "ranx.normalize(run, norm) for each run alone (borda: ranx.normalization.borda_norm on the "
                         "list of runs), on the inputs of each set as ranx holds them (main: after make_comparable; "
                         "train: training runs), under the main variant; `input_order`: the order in which ranx "
                         "holds each run's docs (rank order it uses); `differs_in`: the queries whose normalised "
                         "values differ in another variant, with those values.",
                 "versions": main["versions"], "env": main["env"]},
        "input_order": main["input_order"],
        "input_order_differs_in": {v: outs[v]["input_order"] for v in outs
                                   if outs[v]["input_order"] != main["input_order"]},
        "normalized": main["normalized"],
        "differs_in": norm_threads,
    })

    # --- optimize_fusion.json ---
    excluded = wsum_grid_exclusions(4, Fraction(1, 10))
    write_json("optimize_fusion.json", {
        "meta": {"what": "optimize_fusion on the training split with its optimisation report (config -> metric)",
                 "versions": main["versions"], "env": main["env"],
                 "same_under_other_variants": {v: outs[v]["optimize"] == main["optimize"] for v in outs}},
        "cases": main["optimize"],
        "weight_grid": {
            "rule": "ranx's optimize_weights keeps the weight tuples from {0, 0.1, ..., 1.0}^n_runs whose float "
                    "sum(seq) == 1.0 exactly",
            "n_runs": 4,
            "tuples_summing_to_one_in_exact_arithmetic": excluded["exact"],
            "tuples_ranx_keeps": excluded["kept"],
            "tuples_dropped_by_float_rounding": excluded["dropped"],
            "examples_dropped": excluded["examples"],
        },
    })
    print("wrote reference.json.gz, normalized.json.gz, optimize_fusion.json; work files in %s" % work, file=sys.stderr)


def wsum_grid_exclusions(n_runs, step):
    import numpy as np

    round_digits = str(float(step))[::-1].find(".")
    floats = [round(x, round_digits) for x in np.arange(0, 1 + float(step), float(step))]  # as ranx builds it
    exact_steps = [Fraction(i) * step for i in range(len(floats))]
    exact = kept = 0
    examples = []
    for idx in product(range(len(floats)), repeat=n_runs):
        is_exact = sum(exact_steps[i] for i in idx) == 1
        is_kept = sum(floats[i] for i in idx) == 1.0
        exact += int(is_exact)
        kept += int(is_kept)
        if is_exact and not is_kept and len(examples) < 10:
            examples.append([float(floats[i]) for i in idx])
    return {"exact": exact, "kept": kept, "dropped": exact - kept, "examples": examples}


def write_json(name, obj, per_line=None):
    """Plain JSON (indent 1), or for *.gz one top-level key a line (`per_line`: one item of that key a line),
    gzip level 9 without name or time stamp (the same bytes every time)."""
    import gzip

    if not name.endswith(".gz"):
        with open(os.path.join(HERE, name), "w") as f:
            json.dump(obj, f, indent=1)
            f.write("\n")
        return
    compact = {"separators": (",", ":")}
    lines = ["{"]
    keys = list(obj)
    for i, key in enumerate(keys):
        end = "," if i < len(keys) - 1 else ""
        if key == per_line:
            lines.append(json.dumps(key) + ":{")
            items = list(obj[key].items())
            for j, (k, v) in enumerate(items):
                lines.append(json.dumps(k) + ":" + json.dumps(v, **compact) + ("," if j < len(items) - 1 else ""))
            lines.append("}" + end)
        else:
            lines.append(json.dumps(key) + ":" + json.dumps(obj[key], **compact) + end)
    lines.append("}")
    data = ("\n".join(lines) + "\n").encode("utf-8")
    json.loads(data)  # well-formed
    with open(os.path.join(HERE, name), "wb") as f:
        with gzip.GzipFile(filename="", mode="wb", compresslevel=9, fileobj=f, mtime=0) as gz:
            gz.write(data)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--worker", metavar="OUT_JSON", help="(internal) compute everything under the current environment")
    ap.add_argument("--reuse", metavar="DIR", help="merge the worker outputs a previous run left in DIR")
    args = ap.parse_args()
    if args.worker:
        worker(args.worker)
    else:
        driver(args.reuse)
