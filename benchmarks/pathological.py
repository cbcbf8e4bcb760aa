"""Inputs whose cost used to grow with something other than the file's size (issue 13): one very
long doc id among normal lines, and the error for a duplicate doc on the last line of a long run.

    python benchmarks/pathological.py [--lines 5000000] [--repeat 3]

Each case is a whole ``irmeasures-ext`` process (wall time, peak RSS from GNU time), beside
trec_eval's figure where the issue recorded one. Writes benchmarks/results/pathological-<date>.md/.json.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import NEUTRAL_DIRECTORY, child_environment, machine, run_measured, write_results


def write_long_id(directory: Path, megabytes: int) -> tuple[Path, Path]:
    """1,000 normal lines and one doc id of ``megabytes`` MB (judged relevant)."""
    long_id = 'x' * (megabytes << 20)
    qrels, run = directory / f'long{megabytes}-qrels', directory / f'long{megabytes}-run'
    qrels.write_text(f'q 0 {long_id} 1\nq 0 d1 0\n')
    run.write_text(''.join(f'q Q0 d{i} {i} {1000 - i} t\n' for i in range(1, 1000)) + f'q Q0 {long_id} 1000 0 t\n')
    return qrels, run


def write_late_duplicate(directory: Path, lines: int) -> tuple[Path, Path]:
    """A run of ``lines`` lines whose last line repeats the doc of its first."""
    qrels, run = directory / 'dup-qrels', directory / 'dup-run'
    qrels.write_text('q1 0 d0 1\n')
    with open(run, 'w') as handle:
        handle.writelines(f'q{i // 1000} Q0 d{i} {i % 1000 + 1} {1000 - i % 1000} t\n' for i in range(lines))
        handle.write('q0 Q0 d0 1001 0 t\n')
    return qrels, run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--lines', type=int, default=5_000_000)
    parser.add_argument('--repeat', type=int, default=3)
    args = parser.parse_args()
    command = [sys.executable, '-m', 'irmeasures_ext']
    rows = []
    with tempfile.TemporaryDirectory() as directory:
        cases = {f'one doc id of {mb} MB': (write_long_id(Path(directory), mb), 0) for mb in (1, 10)}
        cases[f'duplicate doc on the last of {args.lines:,} lines (the error)'] = (
            write_late_duplicate(Path(directory), args.lines), 2)
        for name, ((qrels, run), expected_status) in cases.items():
            arguments = [*command, str(qrels), str(run), 'RR']
            measured = [run_measured(arguments, child_environment(), expected_status=expected_status,
                                     inputs=(qrels, run)) for _ in range(args.repeat)]
            result = subprocess.run(arguments, capture_output=True, text=True, env=child_environment(),
                                    cwd=NEUTRAL_DIRECTORY)
            rows.append({'case': name, 'seconds': statistics.median(s for s, _ in measured),
                         'peak_rss_mb': statistics.median(m for _, m in measured),
                         'output': (result.stdout or result.stderr).strip()})
    lines = [f'# Pathological inputs — {time.strftime("%Y-%m-%d %H:%M")}', '',
             f'Whole processes, medians of {args.repeat}. Machine: {json.dumps(machine())}.', '',
             '| case | wall s | peak RSS MB | output |', '| --- | --- | --- | --- |']
    lines += [f"| {r['case']} | {r['seconds']:.2f} | {r['peak_rss_mb']:.0f} | `{r['output'][:100]}` |" for r in rows]
    lines += ['', 'Before (issue 13): 1 MB id 7 s, 10 MB id > 40 s (trec_eval < 0.1 s); the late duplicate 15 s and '
              '3.0 GB.']
    write_results('pathological', rows, '\n'.join(lines) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
