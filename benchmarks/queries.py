"""Cost in the number of queries: the whole command on 1M queries of one doc each against one
query of 1M docs (the same measures), and the cost of per-query output (``-q``) on the former.

    python benchmarks/queries.py [--repeat 5]

Data (seeded, written once to benchmarks/data/queries/): ``many`` has 1,000,000 queries with one
retrieved doc and one judged doc each (relevant for half of them); ``one`` has a single query
retrieving 1,000,000 docs, 500,000 of them judged relevant. Each measurement is a fresh process,
interleaved; ``-q`` output goes to a temporary file. Writes benchmarks/results/queries-<date>.md/.json.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from common import HERE, child_environment, machine, rotated, run_measured, write_results

DATA = HERE / 'data' / 'queries'
N = 1_000_000
MEASURES = ['--suite', 'quoter', 'Q@1000', 'nDCG@5', 'RR@100', 'R@100', 'AP']


def data() -> dict[str, tuple[Path, Path]]:
    """(qrels, run) of both shapes, generated on first use."""
    DATA.mkdir(parents=True, exist_ok=True)
    files = {name: (DATA / f'{name}-qrels.txt', DATA / f'{name}-run.txt') for name in ('many', 'one')}
    if not all(path.exists() for pair in files.values() for path in pair):
        scores = np.round(np.random.default_rng(20261130).random(N), 3)
        with open(files['many'][1], 'w') as run, open(files['many'][0], 'w') as qrels:
            run.writelines(f'q{i} Q0 d{i} 1 {score} t\n' for i, score in enumerate(scores))
            qrels.writelines(f'q{i} 0 d{i if i % 2 else i + 1} 1\n' for i in range(N))
        with open(files['one'][1], 'w') as run, open(files['one'][0], 'w') as qrels:
            run.writelines(f'q Q0 d{i} {i + 1} {score} t\n' for i, score in enumerate(scores))
            qrels.writelines(f'q 0 d{i} 1\n' for i in range(0, N, 2))
    return files


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--repeat', type=int, default=5)
    args = parser.parse_args()
    files = data()
    command = [sys.executable, '-m', 'irmeasures_ext']
    variants = {
        '1M queries x 1 doc': (files['many'], []),
        '1 query x 1M docs': (files['one'], []),
        '1M queries x 1 doc, -q': (files['many'], ['-q']),
    }
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in variants}
    names = list(variants)
    load_before = os.getloadavg()
    for round_no in range(args.repeat):
        for name in rotated(names, round_no):
            with tempfile.TemporaryFile() as out:
                inputs, options = variants[name]
                runs[name].append(run_measured(command + [*map(str, inputs), *MEASURES, *options], child_environment(),
                                               stdout=out, inputs=inputs))
            print(f'  [{round_no + 1}/{args.repeat}] {name}: {runs[name][-1][0]:.2f} s, {runs[name][-1][1]:.0f} MB',
                  flush=True)
    summary = {name: {'seconds': statistics.median(s for s, _ in values),
                      'peak_rss_mb': statistics.median(m for _, m in values)} for name, values in runs.items()}
    many, one, per_query = (summary[name]['seconds'] for name in names)
    lines = [f'# Cost in queries — {time.strftime("%Y-%m-%d %H:%M")}', '',
             f'Whole `irmeasures-ext` processes, medians of {args.repeat} interleaved runs; measures: '
             f'`{" ".join(MEASURES)}`. Machine: {json.dumps(machine())}.',
             f'Load average before/after: {load_before[0]:.2f} / {os.getloadavg()[0]:.2f}.', '',
             '| run | wall s | peak RSS MB |', '| --- | --- | --- |']
    lines += [f'| {name} | {row["seconds"]:.2f} | {row["peak_rss_mb"]:.0f} |' for name, row in summary.items()]
    lines += ['', '## Targets', '',
              f'- 1M queries x 1 doc ≤ 3× 1 query x 1M docs: {"met" if many <= 3 * one else "MISSED"} '
              f'({many / one:.2f}×)',
              f'- `-q` ≤ 1.5× the time without it: {"met" if per_query <= 1.5 * many else "MISSED"} '
              f'({per_query / many:.2f}×)']
    write_results('queries', {'runs': runs, 'summary': summary}, '\n'.join(lines) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
