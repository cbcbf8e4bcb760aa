"""Issue 51's speed targets for rank fusion, against ranx 0.3.21 in the same rounds.

    python benchmarks/fusion.py --ranx-python /tmp/ranxenv/bin/python [--repeat 3] [--parts fuse,optimize]
                                [--queries 1000]

ranx is not a dependency: it runs in another environment, whose interpreter ``--ranx-python`` names (e.g.
``python3.11 -m venv /tmp/ranxenv && /tmp/ranxenv/bin/pip install ranx==0.3.21``).

Data (benchmarks/data/fusion/<queries>q/, written once, seeded, from datagen.py's ``1m`` run and qrels; every run
answers every query, as ranx's ``fuse`` requires):

- ``fuse``: 10 runs of 1,000 docs a query (1M lines at 1,000 queries): each a noisy copy of the 1m run (scores
  plus N(0, 0.5), rounded to 2 decimals: ties remain), a tenth of each list's docs replaced by docs of its own, so
  that a query has ~1,900 candidates and every run misses some;
- ``optimize``: 2 runs of 100 docs a query, each the top 100 of the 1m run's scores plus its own N(0, 1) noise
  (unrounded: no tied scores within a list), and the 1m qrels.

Every measurement is a fresh process, interleaved in a rotating order over ``--repeat`` rounds after a warm-up
round that is not counted; the figures are medians, with each round's ratio. A child times itself (after its
imports) and the parent times the whole process (GNU time's peak RSS):

- ``fuse`` (for ``rrf`` k=60 and ``wsum`` with equal weights, both after the min-max norm): ``ours`` is
  ``irmeasures_ext.fusion.fuse(paths, ...)`` giving the fused DataFrame (nothing written): the child times the
  read and fusion, the parent the whole process (``python -c``). ``ranx_warm`` first reads and fuses 10 tiny
  runs with the same method and norm, so that numba's code is ready (loaded from numba's on-disk cache, as in every
  process after ranx's first use: its ``warm-up`` row is what that costs a process's first call), then times
  ``Run.from_file`` of the 10 runs (read) and ``ranx.fuse`` giving a ``Run`` (fuse). ``ranx_cold`` times the same
  as the process's first call with an empty ``NUMBA_CACHE_DIR``: numba compiles, as at ranx's first use; it is
  measured once, in the first round (compiling takes the same time every time). Target (issue 51): ranx warm
  (read + fuse) / ours >= 5, for ours in-process (read + fuse, like for like) and as a whole process (start-up
  and imports included). ``--profile`` adds cProfile's top 15 functions (cumulative) of ours' read + fuse.
- ``optimize``: nDCG@10 of RRF for k = 1, 2, ..., 100 (100 settings) and of wsum for ranx's weight grid at step
  0.01 (101 weight pairs summing to 1), min-max norm, on the 1,000 queries: ``ours`` is
  ``irmeasures_ext.fusion.optimize`` (reads the qrels and runs, fuses and evaluates in-process, writes nothing),
  ``ranx_warm`` ``ranx.optimize_fusion`` after the same optimisation of tiny runs (timed: ``Qrels.from_file`` and
  ``Run.from_file`` (read), ``optimize_fusion`` (optimize)). Reported: ranx / ours (the issue states no number),
  and whether both pick the same setting with the same score.

Writes benchmarks/results/fusion-<date>.md/.json.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from common import child_environment, machine, rotated, run_measured, write_results  # noqa: E402

DATA = HERE / 'data' / 'fusion'
N_RUNS, OWN_DOCS, OPTIMIZE_DEPTH = 10, 0.1, 100
#: The fusions timed: method, norm and parameters (given alike to ours and ranx).
FUSIONS = {'rrf': ('rrf', 'min-max', {'k': 60}), 'wsum': ('wsum', 'min-max', {'weights': [1 / N_RUNS] * N_RUNS})}
#: The optimisations timed: method and grid (ours: ``optimize``'s grid; ranx: ``optimize_fusion``'s keywords).
OPTIMIZATIONS: dict[str, tuple[str, dict[str, list[Any]], dict[str, Any]]] = {
    'rrf': ('rrf', {'k': list(range(1, 101))}, {'min_k': 1, 'max_k': 100, 'step': 1}),
    'wsum': ('wsum', {'weights': [[i / 100, (100 - i) / 100] for i in range(101)]}, {'step': 0.01})}
MEASURE, RANX_METRIC = 'nDCG@10', 'ndcg@10'
#: Issue 51: fusing is at least this many times faster than ranx warm.
FUSE_TARGET = 5.0

OURS_FUSE = '''
import json, sys, time
spec = json.loads(sys.argv[1])
start = time.perf_counter()
from irmeasures_ext.fusion import fuse
imported = time.perf_counter()
fused = fuse(spec['runs'], method=spec['method'], norm=spec['norm'], params=spec['params'])
done = time.perf_counter()
check = {'rows': len(fused), 'score_sum': float(fused['score'].sum())} if spec['check'] else {}
print(json.dumps({'import': imported - start, 'read+fuse': done - imported} | check))
'''
RANX_FUSE = '''
import json, sys, time
spec = json.loads(sys.argv[1])
start = time.perf_counter()
from ranx import Run, fuse
imported = time.perf_counter()
timings = {'import': imported - start}
if spec['warm']:
    fuse([Run.from_file(path) for path in spec['tiny']], norm=spec['norm'], method=spec['method'],
         params=spec['params'])
    timings['warm-up'] = time.perf_counter() - imported
begin = time.perf_counter()
runs = [Run.from_file(path) for path in spec['runs']]
read = time.perf_counter()
fused = fuse(runs, norm=spec['norm'], method=spec['method'], params=spec['params'])
done = time.perf_counter()
timings |= {'read': read - begin, 'fuse': done - read, 'read+fuse': done - begin}
if spec['check']:
    timings |= {'rows': sum(len(docs) for docs in fused.run.values()),
                'score_sum': float(sum(sum(docs.values()) for docs in fused.run.values()))}
print(json.dumps(timings))
'''
OURS_OPTIMIZE = '''
import json, sys, time
spec = json.loads(sys.argv[1])
start = time.perf_counter()
from irmeasures_ext.fusion import optimize
imported = time.perf_counter()
best = optimize(spec['qrels'], spec['runs'], spec['method'], spec['measure'], grid=spec['grid'], norm=spec['norm'])
done = time.perf_counter()
print(json.dumps({'import': imported - start, 'read+optimize': done - imported, 'settings': len(best.report),
                  'best': {name: value for name, value in best.params.items()}, 'best_score': best.score,
                  'scores': best.report['score'].tolist()}, default=list))
'''
RANX_OPTIMIZE = '''
import json, sys, time
spec = json.loads(sys.argv[1])
start = time.perf_counter()
from ranx import Qrels, Run, optimize_fusion
imported = time.perf_counter()
def tuned(qrels, runs):
    return optimize_fusion(qrels, runs, norm=spec['norm'], method=spec['method'], metric=spec['metric'],
                           return_optimization_report=True, show_progress=False, **spec['grid'])
tuned(Qrels.from_file(spec['tiny_qrels']), [Run.from_file(path) for path in spec['tiny']])
begin = time.perf_counter()
qrels, runs = Qrels.from_file(spec['qrels']), [Run.from_file(path) for path in spec['runs']]
read = time.perf_counter()
best, report = tuned(qrels, runs)
done = time.perf_counter()
print(json.dumps({'import': imported - start, 'warm-up': begin - imported, 'read': read - begin,
                  'optimize': done - read, 'read+optimize': done - begin, 'settings': len(report.results),
                  'best': {name: [float(w) for w in value] if name == 'weights' else value
                           for name, value in best.items()},
                  'best_score': float(report.results[report.configs.index(str(best[next(iter(best))]))]),
                  'scores': [float(score) for score in report.results]}))
'''
PROFILE = '''
import cProfile, json, pstats, sys
spec = json.loads(sys.argv[1])
from irmeasures_ext.fusion import fuse
profile = cProfile.Profile()
profile.runcall(fuse, spec['runs'], method=spec['method'], norm=spec['norm'], params=spec['params'])
pstats.Stats(profile, stream=sys.stdout).sort_stats('cumulative').print_stats(15)
'''


# ------------------------------------------------------------------ data

def _write_run(path: Path, query: pa.Array, doc: pa.Array, score: np.ndarray, per_query: int, tag: str) -> None:
    rows = len(score)
    table = pa.table({'query': query, 'q0': pa.array(['Q0'] * rows), 'doc': doc,
                      'rank': pa.array(np.arange(rows) % per_query + 1), 'score': pa.array(score),
                      'tag': pa.array([tag] * rows)})
    path.parent.mkdir(parents=True, exist_ok=True)
    pacsv.write_csv(table, path, pacsv.WriteOptions(include_header=False, delimiter=' ', quoting_style='none'))


def _read_1m(queries: int) -> tuple[pa.Table, Path]:
    """The first ``queries`` queries of datagen's 1m run (1,000 lines each, in the file's query order) and its
    qrels' path."""
    from datagen import DEPTH, paths
    qrels, run = paths('1m')
    table = pacsv.read_csv(run, read_options=pacsv.ReadOptions(column_names=['query', 'q0', 'doc', 'rank', 'score',
                                                                             'tag']),
                           parse_options=pacsv.ParseOptions(delimiter=' '),
                           convert_options=pacsv.ConvertOptions(column_types={'query': pa.string(),
                                                                              'doc': pa.string()}))
    return table.slice(0, queries * DEPTH), qrels


def _sorted_lists(query_index: np.ndarray, score: np.ndarray, keep: int) -> np.ndarray:
    """The rows of each query's ``keep`` best scores, a query's rows contiguous, by descending score."""
    order = np.lexsort((-score, query_index))
    place = np.arange(len(order)) - np.searchsorted(query_index[order], query_index[order])
    return order[place < keep]


def fuse_data(queries: int) -> list[Path]:
    """The 10 runs to fuse (and writes them on first use)."""
    directory = DATA / f'{queries}q'
    runs = [directory / f'fuse{i}.txt' for i in range(N_RUNS)]
    if all(path.exists() for path in runs):
        return runs
    table, _ = _read_1m(queries)
    depth = table.num_rows // queries
    query_index = np.arange(table.num_rows) // depth
    rng = np.random.default_rng(51)
    for i, path in enumerate(runs):
        score = np.round(table['score'].to_numpy() + rng.normal(0, 0.5, table.num_rows), 2)
        own = rng.random(table.num_rows) < OWN_DOCS
        doc = pc.if_else(pa.array(own), pc.binary_join_element_wise(f'R{i}-', pc.cast(pa.array(np.arange(
            table.num_rows)), pa.string()), ''), table['doc'])
        order = _sorted_lists(query_index, score, depth)
        _write_run(path.with_suffix('.tmp'), table['query'].take(order), doc.take(order), score[order], depth,
                   f'copy{i}')
        path.with_suffix('.tmp').replace(path)
    return runs


def optimize_data(queries: int) -> tuple[Path, list[Path]]:
    """(qrels, the 2 runs of 100 docs a query) of the optimisation (written on first use)."""
    directory = DATA / f'{queries}q'
    qrels, runs = directory / 'qrels.txt', [directory / f'optimize{i}.txt' for i in range(2)]
    if qrels.exists() and all(path.exists() for path in runs):
        return qrels, runs
    table, qrels_1m = _read_1m(queries)
    query_index = np.arange(table.num_rows) // (table.num_rows // queries)
    rng = np.random.default_rng(5151)
    for i, path in enumerate(runs):
        score = table['score'].to_numpy() + rng.normal(0, 1, table.num_rows)
        order = _sorted_lists(query_index, score, OPTIMIZE_DEPTH)
        _write_run(path, table['query'].take(order), table['doc'].take(order), score[order], OPTIMIZE_DEPTH,
                   f'noisy{i}')
    wanted = set(table['query'].unique().to_pylist())
    with open(qrels_1m) as source, open(qrels, 'w') as target:
        target.writelines(line for line in source if line.split(' ', 1)[0] in wanted)
    return qrels, runs


def tiny_data() -> tuple[Path, list[Path]]:
    """(qrels, 10 runs) of 2 queries x 5 docs: what a warm child fuses or optimises first, to compile."""
    directory = DATA / 'tiny'
    qrels, runs = directory / 'qrels.txt', [directory / f'tiny{i}.txt' for i in range(N_RUNS)]
    if qrels.exists() and all(path.exists() for path in runs):
        return qrels, runs
    rng = np.random.default_rng(7)
    query = pa.array([str(q) for q in (1, 2) for _ in range(5)])
    for i, path in enumerate(runs):
        doc = pa.array([f'D{d}' for _ in (1, 2) for d in rng.choice(8, 5, replace=False)])
        _write_run(path, query, doc, np.tile(np.round(np.sort(rng.random(5))[::-1], 3), 2), 5, f'tiny{i}')
    qrels.write_text(''.join(f'{q} 0 D{d} {d % 3}\n' for q in (1, 2) for d in range(8)))
    return qrels, runs


# ------------------------------------------------------------------ measuring

#: A command: argv (its last item a JSON spec, to which the parent adds ``check``), its inputs, extra environment
#: (``NUMBA_CACHE_DIR`` set to ``fresh`` gets an empty directory) and whether it is measured once (first round only).
Command = tuple[list[str], tuple[Path, ...], dict[str, str], bool]


def measured_rounds(commands: dict[str, Command],
                    repeat: int) -> tuple[dict[str, list[float]], dict[str, list[float]], dict[str, dict]]:
    """Each command ``repeat`` times (once if so marked) in a fresh process, in a rotating order round by round
    after a warm-up round that is not counted (and skips the commands measured once). Returns the seconds per series
    (``<command>`` the whole process, ``<command>: <part>`` the child's own timings), the peak RSS MB per command
    and each warmed-up command's warm-up output (with its checks)."""
    seconds: dict[str, list[float]] = {}
    peak_mb: dict[str, list[float]] = {name: [] for name in commands}
    checks: dict[str, dict] = {}
    for round_no in range(repeat + 1):  # round 0 warms up, not counted
        for name in rotated(list(commands), round_no):
            command, inputs, extra, once = commands[name]
            if once and round_no != 1:
                continue
            spec = json.loads(command[-1]) | {'check': round_no == 0}
            with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryFile('w+') as out:
                env = child_environment(**{key: cache if value == 'fresh' else value for key, value in extra.items()})
                wall, peak = run_measured([*command[:-1], json.dumps(spec)], env, stdout=out, inputs=inputs)
                out.seek(0)
                result = json.loads(out.read().splitlines()[-1])
            if not round_no:
                checks[name] = result
                continue
            peak_mb[name].append(peak)
            timed = {name: wall} | {f'{name}: {part}': value for part, value in result.items()
                                    if isinstance(value, float) and part not in ('score_sum', 'best_score')}
            for series, value in timed.items():
                seconds.setdefault(series, []).append(value)
            parts = ', '.join(f'{part.split(": ")[1]} {value:.3f} s' for part, value in timed.items() if part != name)
            print(f'  [round {round_no}/{repeat}] {name:18s} {wall:.3f} s, {peak:.0f} MB ({parts})', flush=True)
    return seconds, peak_mb, checks


def speedup(seconds: dict[str, list[float]], theirs: str, ours: str) -> dict[str, Any]:
    """How many times faster ``ours`` is than ``theirs``: the ratio of the medians and each round's (sorted; a
    command measured once is paired with the first round)."""
    return {'of_medians': statistics.median(seconds[theirs]) / statistics.median(seconds[ours]),
            'per_round': sorted(t / o for t, o in zip(seconds[theirs], seconds[ours], strict=False))}


def speedup_line(label: str, ratio: dict[str, Any], target: float | None = None) -> str:
    """A report line of :func:`speedup` (with ``target``: met or MISSED, on the medians)."""
    per_round = ratio['per_round']
    verdict = '' if target is None else \
        f' ≥ {target:g}×: {"met" if ratio["of_medians"] >= target else "MISSED"}'
    return (f'- {label}{verdict} ({ratio["of_medians"]:.2f}× on medians; within each round: median '
            f'{statistics.median(per_round):.2f}×, {per_round[0]:.2f}–{per_round[-1]:.2f}×)')


def table_rows(seconds: dict[str, list[float]], peak_mb: dict[str, list[float]], prefix: str) -> list[str]:
    """The report's rows of every series of the commands named ``prefix``...: median, min–max, peak RSS."""
    rows = []
    for series, values in seconds.items():
        if series.startswith(prefix) and not series.endswith(': import'):
            command = series.split(':')[0]
            rss = f'{statistics.median(peak_mb[command]):.0f}' if series == command else ''
            label = (f'{series} (whole process)' if series == command else series) + \
                (' (1 round)' if len(values) == 1 else '')
            rows.append(f'| {label} | {statistics.median(values):.3f} | {min(values):.3f}–{max(values):.3f} '
                        f'| {rss} |')
    return rows


def ranx_versions(ranx_python: str) -> dict[str, str]:
    code = 'from importlib import metadata as m; import json; print(json.dumps({p: m.version(p) for p in ' \
           '("ranx", "numba", "numpy")}))'
    return json.loads(subprocess.run([ranx_python, '-c', code], capture_output=True, text=True, check=True).stdout)


def part_fuse(ranx_python: str, queries: int, repeat: int, methods: list[str]) -> tuple[dict, list[str]]:
    runs = fuse_data(queries)
    _, tiny = tiny_data()
    commands: dict[str, Command] = {}
    for name in methods:
        method, norm, params = FUSIONS[name]
        spec = {'runs': list(map(str, runs)), 'tiny': list(map(str, tiny)), 'method': method, 'norm': norm,
                'params': params}
        commands[f'{name} ours'] = ([sys.executable, '-c', OURS_FUSE, json.dumps(spec)], tuple(runs), {}, False)
        commands[f'{name} ranx_warm'] = ([ranx_python, '-c', RANX_FUSE, json.dumps(spec | {'warm': True})],
                                         tuple(runs), {}, False)
        commands[f'{name} ranx_cold'] = ([ranx_python, '-c', RANX_FUSE, json.dumps(spec | {'warm': False})],
                                         tuple(runs), {'NUMBA_CACHE_DIR': 'fresh'}, True)
    load = [os.getloadavg()]
    seconds, peak_mb, checks = measured_rounds(commands, repeat)
    load.append(os.getloadavg())
    lines, ratios = [f'## Fusing {N_RUNS} runs of {queries * 1000:,} lines', '',
                     f'{repeat} rounds after a warm-up round; each command a fresh process. Load average before and '
                     f'after: {load[0][0]:.2f}, {load[1][0]:.2f}.', ''], {}
    for name in methods:
        ours, warm = f'{name} ours', f'{name} ranx_warm'
        agree = checks[ours]['rows'] == checks[warm]['rows'] and np.isclose(checks[ours]['score_sum'],
                                                                            checks[warm]['score_sum'], rtol=1e-9)
        ratios[name] = {
            'ranx warm read+fuse / ours read+fuse (in-process)': speedup(seconds, f'{warm}: read+fuse',
                                                                        f'{ours}: read+fuse'),
            'ranx warm read+fuse / ours whole process': speedup(seconds, f'{warm}: read+fuse', ours),
            'ranx warm fuse alone / ours read+fuse (in-process)': speedup(seconds, f'{warm}: fuse',
                                                                         f'{ours}: read+fuse'),
            'ranx cold (compiling) read+fuse / ours whole process': speedup(seconds, f'{name} ranx_cold: read+fuse',
                                                                           ours)}
        method, norm, params = FUSIONS[name]
        lines += [f'### {method}, norm {norm}, {params if method != "wsum" else "equal weights"}', '',
                  '| measurement | median s | min–max s | peak RSS MB |', '| --- | --- | --- | --- |',
                  *table_rows(seconds, peak_mb, f'{name} '), '',
                  *(speedup_line(label, ratio, FUSE_TARGET if label.startswith('ranx warm read+fuse') else None)
                    for label, ratio in ratios[name].items()), '',
                  f'Same fused run (warm-up round): {checks[ours]["rows"]:,} (query, doc) pairs by ours and '
                  f'{checks[warm]["rows"]:,} by ranx; sums of the fused scores {checks[ours]["score_sum"]:.9g} and '
                  f'{checks[warm]["score_sum"]:.9g}: {"agree" if agree else "DIFFER"}.', '']
    return {'commands': {name: command[:2] + [command[-1]] for name, (command, *_) in commands.items()},
            'environments': {name: extra for name, (_, _, extra, _) in commands.items()}, 'seconds': seconds,
            'peak_rss_mb': peak_mb, 'checks': checks, 'ratios': ratios, 'load_average': load}, lines


def part_optimize(ranx_python: str, queries: int, repeat: int, methods: list[str]) -> tuple[dict, list[str]]:
    qrels, runs = optimize_data(queries)
    tiny_qrels, tiny = tiny_data()
    commands: dict[str, Command] = {}
    for name in methods:
        method, grid, ranx_grid = OPTIMIZATIONS[name]
        spec = {'qrels': str(qrels), 'runs': list(map(str, runs)), 'method': method, 'norm': 'min-max'}
        commands[f'{name} ours'] = ([sys.executable, '-c', OURS_OPTIMIZE, json.dumps(
            spec | {'grid': grid, 'measure': MEASURE})], (qrels, *runs), {}, False)
        commands[f'{name} ranx_warm'] = ([ranx_python, '-c', RANX_OPTIMIZE, json.dumps(
            spec | {'grid': ranx_grid, 'metric': RANX_METRIC, 'tiny': list(map(str, tiny[:2])),
                    'tiny_qrels': str(tiny_qrels)})], (qrels, *runs), {}, False)
    load = [os.getloadavg()]
    seconds, peak_mb, checks = measured_rounds(commands, repeat)
    load.append(os.getloadavg())
    lines, ratios, agreement = [f'## Optimising on {queries:,} queries (2 runs of {OPTIMIZE_DEPTH} docs a query, '
                                f'{MEASURE})', '',
                                f'{repeat} rounds after a warm-up round; each command a fresh process. Load average '
                                f'before and after: {load[0][0]:.2f}, {load[1][0]:.2f}.', ''], {}, {}
    for name in methods:
        ours, warm = checks[f'{name} ours'], checks[f'{name} ranx_warm']
        differences = np.abs(np.array(ours['scores']) - np.array(warm['scores']))
        best = max(ours['scores'])
        agreement[name] = {'settings': [ours['settings'], warm['settings']], 'best': [ours['best'], warm['best']],
                           'best_score': [ours['best_score'], warm['best_score']],
                           'max_score_difference': float(differences.max()),
                           'settings_with_ours_best_score': int(np.sum(np.isclose(ours['scores'], best, rtol=0,
                                                                                  atol=1e-12)))}
        ratios[name] = {
            'ranx warm read+optimize / ours read+optimize (in-process)': speedup(
                seconds, f'{name} ranx_warm: read+optimize', f'{name} ours: read+optimize'),
            'ranx warm optimize alone / ours read+optimize (in-process)': speedup(
                seconds, f'{name} ranx_warm: optimize', f'{name} ours: read+optimize'),
            'ranx warm whole process / ours whole process': speedup(seconds, f'{name} ranx_warm', f'{name} ours')}
        grid_text = 'k = 1, ..., 100' if name == 'rrf' else 'weights (w, 1 − w), w = 0, 0.01, ..., 1 (ranx step 0.01)'
        lines += [f'### {name}: {grid_text}; {ours["settings"]} settings by ours, {warm["settings"]} by ranx', '',
                  '| measurement | median s | min–max s | peak RSS MB |', '| --- | --- | --- | --- |',
                  *table_rows(seconds, peak_mb, f'{name} '), '',
                  *(speedup_line(label, ratio) for label, ratio in ratios[name].items()), '',
                  f'Best setting: ours {ours["best"]} ({ours["best_score"]:.6f}), ranx {warm["best"]} '
                  f'({warm["best_score"]:.6f}); {agreement[name]["settings_with_ours_best_score"]} setting(s) reach '
                  f"ours' best score (ours keeps the first, ranx the last); the largest difference of a setting's "
                  f'score between the two: {agreement[name]["max_score_difference"]:.2e}.', '']
    return {'commands': {name: command[:2] + [command[-1]] for name, (command, *_) in commands.items()},
            'seconds': seconds, 'peak_rss_mb': peak_mb, 'agreement': agreement, 'ratios': ratios,
            'load_average': load}, lines


def profiled(queries: int, name: str) -> list[str]:
    """The report's section of cProfile's top 15 functions (cumulative) of ours fusing the runs by ``name``."""
    method, norm, params = FUSIONS[name]
    spec = {'runs': list(map(str, fuse_data(queries))), 'method': method, 'norm': norm, 'params': params}
    profile = subprocess.run([sys.executable, '-c', PROFILE, json.dumps(spec)], capture_output=True, text=True,
                             check=True, env=child_environment(), cwd=tempfile.gettempdir()).stdout
    kept = [line.replace(str(Path(sys.prefix)), '<venv>') for line in profile.strip().splitlines()]
    return [f'## Where ours spends its time: cProfile of `fuse` ({name}), top 15 by cumulative time', '', '```',
            *kept, '```', '']


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--ranx-python', required=True, help='the interpreter of an environment with ranx 0.3.21')
    parser.add_argument('--repeat', type=int, default=3)
    parser.add_argument('--parts', default='fuse,optimize', help='fuse, optimize or both (comma-separated)')
    parser.add_argument('--methods', default='rrf,wsum', help='rrf, wsum or both (comma-separated)')
    parser.add_argument('--profile', action='store_true',
                        help="add cProfile's top 15 functions of ours' fusion (the first method) to the report")
    parser.add_argument('--queries', type=int, default=1000,
                        help="the 1m run's first queries to use (1,000 lines each a fused run); smaller for trials")
    args = parser.parse_args()
    if not shutil.which(args.ranx_python) and not Path(args.ranx_python).exists():
        parser.error(f'no interpreter {args.ranx_python}')
    parts, methods = args.parts.split(','), args.methods.split(',')
    record: dict[str, Any] = {'machine': machine(), 'ranx_environment': ranx_versions(args.ranx_python),
                              'queries': args.queries, 'repeat': args.repeat}
    lines = [f'# Fusion against ranx {record["ranx_environment"]["ranx"]} (issue 51)', '',
             f'ranx {record["ranx_environment"]} in {args.ranx_python}; ours: irmeasures_ext '
             f'{record["machine"]["packages"]["irmeasures_ext"]} ({record["machine"]["install"]} install), '
             f'{record["machine"]["cpu_count"]} CPUs ({record["machine"]["cpu"]}). Medians over the rounds; '
             f'"whole process" is the parent\'s clock around a fresh process, the other rows the child\'s own '
             f'clock after its imports. ranx_warm: numba\'s code loaded from its on-disk cache by a tiny fusion '
             f'(or optimisation) first, its "warm-up" row; ranx_cold: the first call of a process with an empty '
             f'NUMBA_CACHE_DIR (numba compiles), measured in the first round only.', '']
    for part, function in (('fuse', part_fuse), ('optimize', part_optimize)):
        if part in parts:
            record[part], part_lines = function(args.ranx_python, args.queries, args.repeat, methods)
            lines += part_lines
    if args.profile:
        lines += profiled(args.queries, methods[0])
    write_results('fusion', record, '\n'.join(lines) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
