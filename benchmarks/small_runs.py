"""Issue 48, the per-call tax: 1,000 runs of 100 queries x 100 docs (dict-of-dicts), evaluated one after another
in one process against one qrels (every_measure.py's part ``small``), our evaluator against pytrec_eval's, as a
ratio of paired measurements. Target: ours >= 1.5x faster than pytrec_eval.

    python benchmarks/small_runs.py [--repeat 7] [--baseline PYTHON [--baseline-label TEXT]]

Each measurement is a fresh process (``every_measure.py --child small TOOL``: the seeded data and the evaluator
built, then the 1,000 evaluations timed, AP nDCG@10 P@10 R@100 RR), the tools interleaved in rotating order. A
round's ratio is pytrec_eval's time over ours in that round (measured seconds apart, so that slow drifts of a
shared machine cancel); the reported ratio is the median over the rounds, with the lowest and highest.
``--baseline``: our evaluator run by another environment's Python too (e.g. an install of an earlier commit), and
its ratio to ours round by round. Writes benchmarks/results/small-runs-<date>.md/.json.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from common import machine, rotated, write_results  # noqa: E402
from every_measure import (  # noqa: E402
    FIVE,
    SMALL_DOCS,
    SMALL_QUERIES,
    SMALL_RUNS,
    SMALL_RUNS_TARGET,
    child_command,
    measure_child,
)

TARGET = SMALL_RUNS_TARGET


def measure(tool: str, python: str | None = None) -> dict:
    """One child evaluating the small runs with ``tool`` ('ours', 'pytrec_eval'), by ``python`` (default ours)."""
    command = child_command('small', tool)
    return measure_child(command if python is None else [python, *command[1:]], [])


def report(result: dict) -> str:
    rounds = result['rounds']
    ratios = [r['pytrec_eval'] / r['ours'] for r in rounds]
    ratio = statistics.median(ratios)
    lines = ['# Issue 48: 1,000 small runs in one process, ours against pytrec_eval (benchmarks/small_runs.py)', '',
             f"{SMALL_RUNS} runs of {SMALL_QUERIES} queries x {SMALL_DOCS} docs (dict-of-dicts), {' '.join(FIVE)}; "
             f"{result['machine']['cpu_count']} CPUs, {result['machine']['cpu']}, install: "
             f"{result['machine']['install']}; load before {result['load_before']}, after {result['load_after']}.", '',
             '| round | ours | pytrec_eval | pytrec_eval / ours |' + (' baseline | baseline / ours |'
                                                                    if 'baseline' in rounds[0] else ''),
             '| --- | --- | --- | --- |' + (' --- | --- |' if 'baseline' in rounds[0] else '')]
    for number, r in enumerate(rounds, 1):
        cells = f"| {number} | {r['ours']:.3f} s | {r['pytrec_eval']:.3f} s | {r['pytrec_eval'] / r['ours']:.2f}x |"
        if 'baseline' in r:
            cells += f" {r['baseline']:.3f} s | {r['baseline'] / r['ours']:.2f}x |"
        lines.append(cells)
    lines += ['', f"Median ours {statistics.median(r['ours'] for r in rounds):.3f} s, pytrec_eval "
                  f"{statistics.median(r['pytrec_eval'] for r in rounds):.3f} s; ratio per round: median "
                  f'{ratio:.2f}x (lowest {min(ratios):.2f}x, highest {max(ratios):.2f}x).']
    if 'baseline' in rounds[0]:
        lines.append(f"Baseline ({result['baseline_label']}) / ours per round: median "
                     f"{statistics.median(r['baseline'] / r['ours'] for r in rounds):.2f}x.")
    lines += [f"Largest difference between our aggregates and pytrec_eval's (last run): "
              f"{result['largest_difference']:.1e}.", '',
              f"Target: ours >= {TARGET}x faster than pytrec_eval: {ratio:.2f}x, "
              f"{'met' if ratio >= TARGET else 'NOT met'}."]
    return '\n'.join(lines) + '\n'


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--repeat', type=int, default=7)
    parser.add_argument('--baseline', help="another environment's Python, whose irmeasures_ext is measured too")
    parser.add_argument('--baseline-label', default='baseline')
    args = parser.parse_args(argv)
    tools = {'ours': None, 'pytrec_eval': None} | ({'baseline': args.baseline} if args.baseline else {})
    result: dict = {'machine': machine(), 'load_before': os.getloadavg(), 'rounds': [],
                    'baseline_label': args.baseline_label}
    values: dict[str, dict] = {}
    for round_no in range(args.repeat):
        times = {}
        for name in rotated(list(tools), round_no):
            measured = measure('pytrec_eval' if name == 'pytrec_eval' else 'ours', tools[name])
            times[name] = measured['seconds']
            values[name] = measured['values']
        result['rounds'].append(times)
    result['load_after'] = os.getloadavg()
    result['largest_difference'] = max(abs(values['ours'][m] - values['pytrec_eval'][m]) for m in FIVE)
    write_results('small-runs', result, report(result))
    return 0


if __name__ == '__main__':
    sys.exit(main())
