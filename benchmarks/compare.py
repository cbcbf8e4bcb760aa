"""One ``irmeasures-ext compare`` of 20 runs against 20 separate ``irmeasures-ext`` invocations.

    python benchmarks/compare.py [--runs 20] [--repeat 3]

Data: the 1m qrels and run of benchmarks/run.py (datagen.py), and 19 more runs made from that run
with seeded noise on the scores (benchmarks/data/compare/, written once). Every measurement is a
fresh process (GNU time's peak RSS), interleaved: ``compare`` is one process comparing all runs
(paired t-test, t intervals); ``separate`` is the runs evaluated one command at a time, its time
the sum and its peak RSS the largest of the 20. Targets: compare ≥ 1.5× faster than separate, and
its peak RSS ≤ 1.5× one invocation's. Writes benchmarks/results/compare-<date>.md/.json.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from common import child_environment, machine, run_measured, write_results  # noqa: E402

DATA = HERE / 'data' / 'compare'
MEASURES = ['RR', 'nDCG_Z1@5', 'Success@1', 'Success@10', 'Success@100', 'MedianRank', 'MeanRank',
            'Q@1000', 'nDCG@5', 'RR@100', 'R@100', 'AP']


def runs(count: int) -> tuple[Path, list[Path]]:
    """(qrels, runs): the 1m run and ``count`` - 1 noisy copies, generated on first use."""
    from datagen import paths
    qrels, base = paths('1m')
    DATA.mkdir(parents=True, exist_ok=True)
    files = [base] + [DATA / f'run{i}.txt' for i in range(1, count)]
    missing = [f for f in files[1:] if not f.exists()]
    if missing:
        options = pacsv.ParseOptions(delimiter=' ')
        names = ['query_id', 'q0', 'doc_id', 'rank', 'score', 'tag']
        table = pacsv.read_csv(base, read_options=pacsv.ReadOptions(column_names=names), parse_options=options,
                               convert_options=pacsv.ConvertOptions(column_types={'query_id': pa.string(),
                                                                                  'doc_id': pa.string()}))
        scores = table['score'].to_numpy()
        for path in missing:
            seed = int(path.stem[3:])
            noisy = np.round(scores + np.random.default_rng(seed).normal(0, 0.05, len(scores)), 3)
            out = table.set_column(4, 'score', pa.array(noisy)).set_column(5, 'tag', pa.array([f'run{seed}'] *
                                                                                              len(scores)))
            pacsv.write_csv(out, path, pacsv.WriteOptions(include_header=False, delimiter=' ', quoting_style='none'))
    return qrels, files


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--runs', type=int, default=20)
    parser.add_argument('--repeat', type=int, default=3)
    args = parser.parse_args()
    qrels, files = runs(args.runs)
    command = [sys.executable, '-m', 'irmeasures_ext']
    env = child_environment()
    results: dict[str, list] = {'compare': [], 'separate': []}
    load_before = os.getloadavg()
    for round_no in range(args.repeat):
        kinds = ['compare', 'separate'] if round_no % 2 == 0 else ['separate', 'compare']
        for kind in kinds:
            with tempfile.TemporaryFile() as out:
                if kind == 'compare':
                    results[kind].append(run_measured(command + ['compare', str(qrels), *map(str, files), *MEASURES],
                                                      env, stdout=out, inputs=(qrels, *files)))
                else:
                    each = [run_measured(command + [str(qrels), str(f), *MEASURES], env, stdout=out, inputs=(qrels, f))
                            for f in files]
                    results[kind].append((sum(s for s, _ in each), max(m for _, m in each), [s for s, _ in each]))
            print(f'  [{round_no + 1}/{args.repeat}] {kind}: {results[kind][-1][0]:.2f} s, '
                  f'{results[kind][-1][1]:.0f} MB', flush=True)
    compare_s = statistics.median(r[0] for r in results['compare'])
    compare_mb = statistics.median(r[1] for r in results['compare'])
    separate_s = statistics.median(r[0] for r in results['separate'])
    single_mb = statistics.median(r[1] for r in results['separate'])
    one_run_s = statistics.median(s for r in results['separate'] for s in r[2])
    speedup, memory = separate_s / compare_s, compare_mb / single_mb
    lines = [f'# Compare {args.runs} runs of 1M lines — {time.strftime("%Y-%m-%d %H:%M")}', '',
             f'Whole processes, medians of {args.repeat} interleaved rounds. Measures: `{" ".join(MEASURES)}`.',
             f'Machine: {machine()}.',
             f'Load average before/after: {load_before[0]:.2f} / {os.getloadavg()[0]:.2f}.', '',
             '| what | wall s | peak RSS MB |', '| --- | --- | --- |',
             f'| `irmeasures-ext compare` of {args.runs} runs | {compare_s:.2f} | {compare_mb:.0f} |',
             f'| {args.runs} separate `irmeasures-ext` (sum; largest RSS) | {separate_s:.2f} | {single_mb:.0f} |',
             f'| one separate invocation (median) | {one_run_s:.2f} | |', '', '## Targets', '',
             f'- compare ≥ 1.5× faster than separate invocations: {"met" if speedup >= 1.5 else "MISSED"} '
             f'({speedup:.2f}×)',
             f'- compare peak RSS ≤ 1.5× one invocation\'s: {"met" if memory <= 1.5 else "MISSED"} ({memory:.2f}×)']
    write_results('compare', results, '\n'.join(lines) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
