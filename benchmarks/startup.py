"""What the installed plugin costs processes that never evaluate: ``import ir_measures`` with the
autoload hook on and off, and the command line's start-up (``--help``, ``--version``).

    python benchmarks/startup.py [--repeat 21]

Each measurement is a fresh interpreter (wall time of the whole process, and its peak RSS from GNU
time), the variants interleaved round by round, bytecode caching on as for users; one warm-up
round first (it writes the bytecode caches of an editable install). Writes
benchmarks/results/startup-<date>.md and .json (numbered, never overwriting).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time

from common import child_environment, machine, run_measured, write_results

IMPORT = [sys.executable, '-c', 'import ir_measures']
PARSE = [sys.executable, '-c', "import ir_measures; ir_measures.parse_measure('Q(beta=0.5)@10')"]
VARIANTS = {
    'import ir_measures, hook off': (IMPORT, {'IRMEASURES_EXT_NO_AUTOLOAD': '1'}),
    'import ir_measures, hook on': (IMPORT, {}),
    "import ir_measures + parse_measure('Q(beta=0.5)@10'), hook on": (PARSE, {}),
    'python -c pass': ([sys.executable, '-c', 'pass'], {}),
    'irmeasures-ext --help': ([sys.executable, '-m', 'irmeasures_ext', '--help'], {}),
    'irmeasures-ext --version': ([sys.executable, '-m', 'irmeasures_ext', '--version'], {}),
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--repeat', type=int, default=21)
    args = parser.parse_args()
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in VARIANTS}
    names = list(VARIANTS)
    for command, extra in VARIANTS.values():  # warm-up: bytecode caches
        run_measured(command, child_environment(**extra))
    load_before = os.getloadavg()
    for round_no in range(args.repeat):
        shift = round_no % len(names)
        for name in names[shift:] + names[:shift]:
            command, extra = VARIANTS[name]
            runs[name].append(run_measured(command, child_environment(**extra)))
    summary = {name: {'seconds': statistics.median(s for s, _ in values), 'peak_rss_mb': statistics.median(
        m for _, m in values)} for name, values in runs.items()}
    off, on = summary['import ir_measures, hook off'], summary['import ir_measures, hook on']
    extra_ms, extra_mb = (on['seconds'] - off['seconds']) * 1000, on['peak_rss_mb'] - off['peak_rss_mb']
    lines = [f'# Start-up costs — {time.strftime("%Y-%m-%d %H:%M")}', '',
             f'Medians of {args.repeat} fresh processes per row, interleaved. Machine: {json.dumps(machine())}.',
             f'Load average before/after: {load_before[0]:.2f} / {os.getloadavg()[0]:.2f}.', '',
             '| process | wall s | peak RSS MB |', '| --- | --- | --- |']
    lines += [f'| {name} | {row["seconds"]:.4f} | {row["peak_rss_mb"]:.1f} |' for name, row in summary.items()]
    lines += ['', '## Target', '',
              f'- `import ir_measures` with the hook costs at most 10 ms and 5 MB more than without: '
              f'{"met" if extra_ms <= 10 and extra_mb <= 5 else "MISSED"} ({extra_ms:+.1f} ms, {extra_mb:+.1f} MB)']
    write_results('startup', {'runs': runs, 'summary': summary, 'machine': machine()}, '\n'.join(lines) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
