"""Issue 35's speed targets, each measured side by side with its reference tools in the same rounds.

    python benchmarks/every_measure.py [--parts mixed,inprocess,small] [--sizes 1m,7m] [--repeat 5]

- ``mixed``: the whole command on the 1M-line graded run for three results tables (``five``: AP nDCG@10
  P@10 R@100 RR; ``five+Bpref``; ``eight``: + Bpref infAP Judged@10), ``irmeasures-ext`` against the plain
  ``ir_measures`` command (its autoload hook off). Targets for ``eight``: ours >= 8x faster, peak RSS <= 0.5x.
  And the hand-off: ``five`` computed by pytrec_eval named with ``--provider`` in both commands (ours reads
  and checks the files, then hands pytrec_eval dict-of-dicts): no slower than ir_measures' own.
- ``inprocess``: the five measures all three compute, from dict-of-dicts built before the timed section,
  on the 1M- and 7M-line runs: our provider (``calc_aggregate``), pytrec_eval (``RelevanceEvaluator`` +
  ``evaluate`` + the means) and ranx (``Qrels``, ``Run``, ``evaluate``) cold (the first call of a fresh
  process, numba's compiled code loaded from its cache) and warm (the same call again). Target: ours
  faster than pytrec_eval and than ranx warm and cold.
- ``small``: 1,000 runs of 100 queries x 100 docs, evaluated one after another in one process against
  one qrels (ranx's issue #74): our evaluator built once, pytrec_eval's evaluator built once, ranx warm
  (one call before the timed section). Target: ours faster than both, and (issue 48) at least 1.5x faster
  than pytrec_eval (benchmarks/small_runs.py measures that ratio alone, in paired rounds).

Every measurement is a fresh process (``--child``), interleaved in rotating order over ``--repeat`` rounds;
the reported figures are medians. The ``inprocess`` and ``small`` times are each child's own clock around
the timed section; ``mixed`` times the whole process (GNU time's peak RSS). Writes
benchmarks/results/every-measure-<date>.md/.json. ranx is not a dependency: install it beside (``pip
install ranx``) or its rows are left out.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import datagen  # noqa: E402
from common import (  # noqa: E402
    NEUTRAL_DIRECTORY,
    child_environment,
    machine,
    rotated,
    run_measured,
    warm_page_cache,
    write_results,
)

FIVE = ['AP', 'nDCG@10', 'P@10', 'R@100', 'RR']
TABLES = {'five': FIVE, 'five+Bpref': [*FIVE, 'Bpref'], 'eight': [*FIVE, 'Bpref', 'infAP', 'Judged@10']}
PYTREC_NAMES = {'AP': 'map', 'nDCG@10': 'ndcg_cut_10', 'P@10': 'P_10', 'R@100': 'recall_100', 'RR': 'recip_rank'}
RANX_NAMES = {'AP': 'map', 'nDCG@10': 'ndcg@10', 'P@10': 'precision@10', 'R@100': 'recall@100', 'RR': 'mrr'}
SMALL_RUNS, SMALL_QUERIES, SMALL_DOCS = 1000, 100, 100
#: Issue 48's target on the small runs: ours this many times faster than pytrec_eval (benchmarks/small_runs.py).
SMALL_RUNS_TARGET = 1.5


def ranx_installed() -> bool:
    try:
        import ranx  # noqa: F401
    except ImportError:
        return False
    return True


# ------------------------------------------------------------------ children: one tool per process

def read_dicts(qrels_path: str, run_path: str) -> tuple[dict, dict]:
    """The qrels and run files as dict-of-dicts (built outside the timed section)."""
    qrels: dict[str, dict[str, int]] = {}
    with open(qrels_path) as handle:
        for line in handle:
            query, _, doc, label = line.split()
            qrels.setdefault(query, {})[doc] = int(label)
    run: dict[str, dict[str, float]] = {}
    with open(run_path) as handle:
        for line in handle:
            query, _, doc, _, score, _ = line.split()
            run.setdefault(query, {})[doc] = float(score)
    return qrels, run


def evaluate_ours(qrels: dict, run: dict) -> dict[str, float]:
    import ir_measures

    import irmeasures_ext
    values = irmeasures_ext.provider.calc_aggregate([ir_measures.parse_measure(m) for m in FIVE], qrels, run)
    return {str(measure): value for measure, value in values.items()}


def evaluate_pytrec(qrels: dict, run: dict) -> dict[str, float]:
    import pytrec_eval
    per_query = pytrec_eval.RelevanceEvaluator(qrels, set(PYTREC_NAMES.values())).evaluate(run)
    # trec_eval -c: every qrels query counts, 0 where the run has none
    return {m: sum(per_query.get(q, {}).get(name, 0.0) for q in qrels) / len(qrels) for m, name in PYTREC_NAMES.items()}


def evaluate_ranx(qrels: dict, run: dict) -> dict[str, float]:
    import ranx
    values = ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run), list(RANX_NAMES.values()))
    return {m: float(values[name]) for m, name in RANX_NAMES.items()}


IN_PROCESS = {'ours': evaluate_ours, 'pytrec_eval': evaluate_pytrec, 'ranx': evaluate_ranx}


def child_inprocess(tool: str, qrels_path: str, run_path: str) -> dict:
    """Times one tool on the dicts; for ranx, its first (cold) and second (warm) call."""
    qrels, run = read_dicts(qrels_path, run_path)
    if tool == 'ours':  # (what the provider loads on first use, as importing pytrec_eval or ranx loads theirs)
        import irmeasures_ext.engine.evaluator  # noqa: F401
    function = IN_PROCESS[tool.split()[0]]
    start = time.perf_counter()
    values = function(qrels, run)
    seconds = time.perf_counter() - start
    if tool != 'ranx':
        return {'seconds': seconds, 'values': values}
    start = time.perf_counter()
    function(qrels, run)
    return {'seconds': seconds, 'warm_seconds': time.perf_counter() - start, 'values': values}


def small_data() -> tuple[dict, list[dict]]:
    """Seeded qrels (30 judged docs a query, labels 0-3) and SMALL_RUNS runs of SMALL_QUERIES x SMALL_DOCS."""
    import random
    rng = random.Random(20261204)
    qrels = {f'q{i}': {f'd{j}': rng.randint(0, 3) for j in rng.sample(range(300), 30)} for i in range(SMALL_QUERIES)}
    runs = [{f'q{i}': {f'd{j}': round(rng.random(), 3) for j in rng.sample(range(300), SMALL_DOCS)}
             for i in range(SMALL_QUERIES)} for _ in range(SMALL_RUNS)]
    return qrels, runs


def child_small(tool: str) -> dict:
    """Times SMALL_RUNS evaluations one after another, the qrels read once."""
    qrels, runs = small_data()
    if tool == 'ours':
        import ir_measures

        import irmeasures_ext
        evaluator = irmeasures_ext.provider.evaluator([ir_measures.parse_measure(m) for m in FIVE], qrels)

        def evaluate(run: dict) -> dict:
            return {str(m): v for m, v in evaluator.calc_aggregate(run).items()}
    elif tool == 'pytrec_eval':
        import pytrec_eval
        trec = pytrec_eval.RelevanceEvaluator(qrels, set(PYTREC_NAMES.values()))

        def evaluate(run: dict) -> dict:
            per_query = trec.evaluate(run)
            return {m: sum(per_query.get(q, {}).get(name, 0.0) for q in qrels) / len(qrels)
                    for m, name in PYTREC_NAMES.items()}
    else:
        import ranx
        ranx_qrels = ranx.Qrels(qrels)

        def evaluate(run: dict) -> dict:
            values = ranx.evaluate(ranx_qrels, ranx.Run(run), list(RANX_NAMES.values()))
            return {m: float(values[name]) for m, name in RANX_NAMES.items()}
        evaluate(runs[0])  # warm: numba's code loaded before the timed section
    start = time.perf_counter()
    last = [evaluate(run) for run in runs][-1]
    return {'seconds': time.perf_counter() - start, 'values': last}


# ------------------------------------------------------------------ the parent

def child_command(*args: str) -> list[str]:
    return [sys.executable, str(Path(__file__).resolve()), '--child', *args]


def measure_child(command: list[str], inputs: list[Path]) -> dict:
    warm_page_cache(inputs)
    result = subprocess.run(command, capture_output=True, text=True, env=child_environment(), check=False,
                            cwd=NEUTRAL_DIRECTORY)
    if result.returncode:
        raise RuntimeError(f'{command} failed: {result.stderr[-2000:]}')
    return json.loads(result.stdout.splitlines()[-1])


#: The hand-off (issue 35 §2): every measure given to another provider by name, through our command and
#: through ir_measures' own: ours reads and checks the files, then hands that provider dict-of-dicts.
HAND_OFF = 'five, --provider pytrec_eval'


def part_mixed(repeat: int) -> dict:
    qrels, run = datagen.paths('1m')
    tables = {**TABLES, HAND_OFF: FIVE}
    tools = {f'{tool} {table}': (tool, table) for table in tables for tool in ('ours', 'ir_measures')}
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in tools}
    for round_no in range(repeat):
        for name in rotated(list(tools), round_no):
            tool, table = tools[name]
            env = child_environment()
            named = ['--provider', 'pytrec_eval'] if table == HAND_OFF else []
            if tool == 'ours':
                command = [sys.executable, '-m', 'irmeasures_ext', str(qrels), str(run), *tables[table], *named]
            else:
                env['IRMEASURES_EXT_NO_AUTOLOAD'] = '1'
                command = [sys.executable, '-m', 'ir_measures', str(qrels), str(run), ' '.join(tables[table]),
                           *named]
            times[name].append(run_measured(command, env, inputs=[qrels, run]))
    return {name: {'seconds': [t for t, _ in values], 'peak_mb': [m for _, m in values]}
            for name, values in times.items()}


def part_inprocess(sizes: list[str], repeat: int) -> dict:
    tools = ['ours', 'pytrec_eval'] + (['ranx'] if ranx_installed() else [])
    results: dict = {}
    for size in sizes:
        qrels, run = datagen.paths(size)
        runs: dict[str, list[dict]] = {tool: [] for tool in tools}
        for round_no in range(repeat):
            for tool in rotated(tools, round_no):
                runs[tool].append(measure_child(child_command('inprocess', tool, str(qrels), str(run)), [qrels, run]))
        results[size] = runs
    return results


def part_small(repeat: int) -> dict:
    tools = ['ours', 'pytrec_eval'] + (['ranx'] if ranx_installed() else [])
    runs: dict[str, list[dict]] = {tool: [] for tool in tools}
    for round_no in range(repeat):
        for tool in rotated(tools, round_no):
            runs[tool].append(measure_child(child_command('small', tool), []))
    return runs


def median(values: list[float]) -> float:
    return statistics.median(values)


def report(result: dict) -> str:
    lines = ['# Issue 35: every measure on our provider (benchmarks/every_measure.py)', '',
             f"{result['machine']['cpu_count']} CPUs, {result['machine']['cpu']}; load before "
             f"{result['load_before']}, after {result['load_after']}; {result['repeat']} rounds; medians.", '']
    if 'mixed' in result:
        mixed = result['mixed']
        lines += ['## Results tables on the 1M-line graded run, whole process', '',
                  '| table | irmeasures-ext | ir_measures command | speed-up | peak RSS ours / theirs |',
                  '| --- | --- | --- | --- | --- |']
        for table in [*TABLES, HAND_OFF]:
            ours, theirs = mixed[f'ours {table}'], mixed[f'ir_measures {table}']
            label = (f"`{' '.join(TABLES[table])}`" if table in TABLES else
                     f'`{" ".join(FIVE)}`, `--provider pytrec_eval`')
            lines.append(f"| {label} | {median(ours['seconds']):.2f} s, "
                         f"{median(ours['peak_mb']):.0f} MB | {median(theirs['seconds']):.2f} s, "
                         f"{median(theirs['peak_mb']):.0f} MB | "
                         f"{median(theirs['seconds']) / median(ours['seconds']):.1f}x | "
                         f"{median(ours['peak_mb']) / median(theirs['peak_mb']):.2f} |")
        eight_ours, eight_theirs = mixed['ours eight'], mixed['ir_measures eight']
        speedup = median(eight_theirs['seconds']) / median(eight_ours['seconds'])
        rss = median(eight_ours['peak_mb']) / median(eight_theirs['peak_mb'])
        hand_off = median(mixed[f'ours {HAND_OFF}']['seconds']) / median(mixed[f'ir_measures {HAND_OFF}']['seconds'])
        lines += ['', f"Target (eight): >= 8x faster: {speedup:.1f}x {'met' if speedup >= 8 else 'NOT met'}; "
                      f"peak RSS <= 0.5x: {rss:.2f} {'met' if rss <= 0.5 else 'NOT met'}. The hand-off to pytrec_eval "
                      f"takes {hand_off:.2f}x pytrec_eval through ir_measures' command on the same files "
                      f"({'met' if hand_off <= 1 else 'NOT met'}: no longer than that provider alone).", '']
    if 'inprocess' in result:
        lines += ['## In process, from dict-of-dicts (AP nDCG@10 P@10 R@100 RR)', '',
                  '| run | ours | pytrec_eval | ranx cold | ranx warm | ours faster than all |',
                  '| --- | --- | --- | --- | --- | --- |']
        for size, runs in result['inprocess'].items():
            ours = median([r['seconds'] for r in runs['ours']])
            trec = median([r['seconds'] for r in runs['pytrec_eval']])
            cold = median([r['seconds'] for r in runs['ranx']]) if 'ranx' in runs else None
            warm = median([r['warm_seconds'] for r in runs['ranx']]) if 'ranx' in runs else None
            others = [t for t in (trec, cold, warm) if t is not None]
            ranx_cells = f'{cold:.3f} s ({cold / ours:.1f}x) | {warm:.3f} s ({warm / ours:.1f}x)' if cold else '- | -'
            lines.append(f"| {size} | {ours:.3f} s | {trec:.3f} s ({trec / ours:.1f}x) | {ranx_cells} | "
                         f"{'yes' if ours < min(others) else 'NO'} |")
        lines.append('')
    if 'small' in result:
        runs = result['small']
        ours = median([r['seconds'] for r in runs['ours']])
        others = {tool: median([r['seconds'] for r in values]) for tool, values in runs.items() if tool != 'ours'}
        lines += [f'## {SMALL_RUNS} runs of {SMALL_QUERIES} queries x {SMALL_DOCS} docs in one process', '',
                  '| ours | ' + ' | '.join(others) + ' | ours faster than all |',
                  '| --- | ' + ' | '.join('---' for _ in others) + ' | --- |',
                  f'| {ours:.2f} s | ' + ' | '.join(f'{t:.2f} s ({t / ours:.1f}x)' for t in others.values())
                  + f" | {'yes' if ours < min(others.values()) else 'NO'} |", '']
        speedup = others['pytrec_eval'] / ours
        lines += [f'Target (issue 48): >= {SMALL_RUNS_TARGET}x faster than pytrec_eval: {speedup:.2f}x on medians, '
                  f"{'met' if speedup >= SMALL_RUNS_TARGET else 'NOT met'} (paired rounds: benchmarks/small_runs.py).",
                  '']
    return '\n'.join(lines) + '\n'


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--parts', default='mixed,inprocess,small')
    parser.add_argument('--sizes', default='1m,7m')
    parser.add_argument('--repeat', type=int, default=5)
    parser.add_argument('--child', nargs='+', help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        kind, *rest = args.child
        print(json.dumps(child_inprocess(*rest) if kind == 'inprocess' else child_small(*rest)))
        return 0
    parts = args.parts.split(',')
    result: dict = {'machine': machine(), 'repeat': args.repeat, 'load_before': os.getloadavg()}
    if 'mixed' in parts:
        result['mixed'] = part_mixed(args.repeat)
    if 'inprocess' in parts:
        result['inprocess'] = part_inprocess(args.sizes.split(','), args.repeat)
    if 'small' in parts:
        result['small'] = part_small(args.repeat)
    result['load_after'] = os.getloadavg()
    write_results('every-measure', result, report(result))
    return 0


if __name__ == '__main__':
    sys.exit(main())
