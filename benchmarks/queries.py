"""What grows with queries and with the run's length (issue 39 §6), all four figures in one run: the whole
command on 1M queries of one doc each against one query of 1M docs (the same measures); the cost of
per-query output (``-q``) on the former; peak RSS of our command against the plain ``ir_measures`` command
on the 1M-line run (benchmarks/data/1m, datagen.py); a 35M-line run (streamed) against the 7M-line run
(read whole), both contiguous (scale.py's data).

    python benchmarks/queries.py [--repeat 5]

Data (seeded, written once to benchmarks/data/queries/): ``many`` has 1,000,000 queries with one
retrieved doc and one judged doc each (relevant for half of them); ``one`` has a single query
retrieving 1,000,000 docs, 500,000 of them judged relevant. Each measurement is a fresh process,
interleaved; output goes to a temporary file. Writes benchmarks/results/queries-<date>.md/.json.
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
#: What the plain ir_measures command is asked for (run.py's ``ir_measures_cli``).
IR_MEASURES = ['nDCG@5', 'RR@100', 'R@100', 'AP']


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
    import datagen
    import scale
    files = data()
    ours = [sys.executable, '-m', 'irmeasures_ext']
    ir_measures_command = [sys.executable, '-m', 'ir_measures']
    one_million, seven, thirty_five = datagen.paths('1m'), scale.data(7), scale.data(35)
    variants = {  # name: (command, inputs, arguments after them, environment)
        '1M queries x 1 doc': (ours, files['many'], MEASURES, {}),
        '1 query x 1M docs': (ours, files['one'], MEASURES, {}),
        '1M queries x 1 doc, -q': (ours, files['many'], [*MEASURES, '-q'], {}),
        '1M-line run': (ours, one_million, MEASURES, {}),
        '1M-line run, ir_measures command': (ir_measures_command, one_million, [' '.join(IR_MEASURES)],
                                             {'IRMEASURES_EXT_NO_AUTOLOAD': '1'}),
        '7M-line run (read whole)': (ours, (seven[0], seven[1]['contiguous']), MEASURES, {}),
        '35M-line run (streamed)': (ours, (thirty_five[0], thirty_five[1]['contiguous']), MEASURES, {}),
    }
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in variants}
    load_before = os.getloadavg()
    for round_no in range(args.repeat):
        for name in rotated(list(variants), round_no):
            command, inputs, arguments, environment = variants[name]
            with tempfile.TemporaryFile() as out:
                runs[name].append(run_measured([*command, *map(str, inputs), *arguments],
                                               child_environment(**environment), stdout=out, inputs=inputs))
            print(f'  [{round_no + 1}/{args.repeat}] {name}: {runs[name][-1][0]:.2f} s, {runs[name][-1][1]:.0f} MB',
                  flush=True)
    summary = {name: {'seconds': statistics.median(s for s, _ in values),
                      'peak_rss_mb': statistics.median(m for _, m in values)} for name, values in runs.items()}
    write_results('queries', {'machine': machine(), 'runs': runs, 'summary': summary},
                  _report(summary, args.repeat, load_before))
    return 0


def _report(summary: dict, repeat: int, load_before: tuple[float, ...]) -> str:
    lines = [f'# Cost in queries and in length — {time.strftime("%Y-%m-%d %H:%M")}', '',
             f'Whole processes, medians of {repeat} interleaved runs; our measures: `{" ".join(MEASURES)}`, the '
             f'ir_measures command\'s: `{" ".join(IR_MEASURES)}` (hook off). Machine: {json.dumps(machine())}.',
             f'Load average before/after: {load_before[0]:.2f} / {os.getloadavg()[0]:.2f}.', '',
             '| run | wall s | peak RSS MB |', '| --- | --- | --- |']
    lines += [f'| {name} | {row["seconds"]:.2f} | {row["peak_rss_mb"]:.0f} |' for name, row in summary.items()]
    lines += ['', '## Targets', '']

    def target(text: str, numerator: str, denominator: str, key: str, limit: float) -> None:
        ratio = summary[numerator][key] / summary[denominator][key]
        lines.append(f'- {text} ≤ {limit}×: {"met" if ratio <= limit else "MISSED"} ({ratio:.2f}×)')

    target('time, 1M queries x 1 doc / 1 query x 1M docs', '1M queries x 1 doc', '1 query x 1M docs', 'seconds', 3)
    target('time, `-q` / without', '1M queries x 1 doc, -q', '1M queries x 1 doc', 'seconds', 1.5)
    target('peak RSS, our command / the ir_measures command (1M-line run)', '1M-line run',
           '1M-line run, ir_measures command', 'peak_rss_mb', 0.5)
    target('time, 35M-line run streamed / 7M-line run read whole (linear: 5×)', '35M-line run (streamed)',
           '7M-line run (read whole)', 'seconds', 5.5)
    return '\n'.join(lines) + '\n'


if __name__ == '__main__':
    sys.exit(main())
