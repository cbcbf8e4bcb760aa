"""The ``ntcireval`` command against our five-measure command, as whole processes (issue 29, §5).

    python benchmarks/ntcireval.py [--repeat 5]

On the 1M-line benchmark run (benchmarks/data/1m, generated on first use, see datagen.py), each round
runs, in a rotating order, each in a fresh process (common.run_measured):

- ``five``: ``python -m irmeasures_ext QRELS RUN --suite quoter Q@1000 nDCG@5 RR@100 R@100 AP``;
- ``ntcireval``: ``python -m irmeasures_ext ntcireval QRELS RUN -g 1:2:3 -cutoffs 1,5,10,20,100,1000``
  (the 14 measures without a cutoff and 10 at each of the 6 cutoffs: 74 values per topic);
- ``ntcireval -j``: the same on condensed lists;
- ``ntcireval -ec``: the same with equivalence classes, on ``eqrels.txt``: the 1m qrels with a class per
  doc, the doc's position among its query's qrels lines // 3 + 1 (NTCIREVAL's class ids start at 1), written
  beside them on first use.

A warm-up round (bytecode caches) is not counted. Reports the medians and the ratios the issue sets
targets for (``ntcireval`` ≤ 3× ``five``; ``-j`` and ``-ec`` ≤ 1.5× ``ntcireval``), both as ratios of
the medians and as the median of each round's ratio (two processes run back to back, so a busy spell
of the machine weighs on both). Writes benchmarks/results/ntcireval-<date>.md and .json.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from common import (
    drop_cached_libraries,
    install_kind,
    interleaved_rounds,
    machine,
    rounds_record,
    target_lines,
    target_ratios,
    timing_cells,
    write_results,
)
from datagen import paths

NTCIREVAL = ['-g', '1:2:3', '-cutoffs', '1,5,10,20,100,1000']
#: The issue's targets: (command, the command it is compared with, the largest ratio allowed).
TARGETS = [('ntcireval', 'five', 3.0), ('ntcireval -j', 'ntcireval', 1.5), ('ntcireval -ec', 'ntcireval', 1.5)]


def class_qrels(qrels: Path) -> Path:
    """``eqrels.txt`` beside ``qrels``: each line with a fifth field, the class id (the line's position
    among its query's lines // 3 + 1: NTCIREVAL's class ids start at 1), written once."""
    eqrels = qrels.with_name('eqrels.txt')
    if not eqrels.exists():
        position: dict[str, int] = {}
        with open(qrels) as lines, open(f'{eqrels}.part', 'w') as out:
            for line in lines:
                query_id = line.split(maxsplit=1)[0]
                index = position.get(query_id, 0)
                position[query_id] = index + 1
                out.write(f'{line.rstrip()} {index // 3 + 1}\n')
        os.replace(f'{eqrels}.part', eqrels)
    return eqrels


def commands(qrels: Path, run: Path, eqrels: Path) -> dict[str, tuple[list[str], tuple[Path, ...]]]:
    """name -> (arguments of ``python -m irmeasures_ext``, its input files)."""
    files = [str(qrels), str(run)]
    return {
        'five': ([*files, '--suite', 'quoter', 'Q@1000', 'nDCG@5', 'RR@100', 'R@100', 'AP'], (qrels, run)),
        'ntcireval': (['ntcireval', *files, *NTCIREVAL], (qrels, run)),
        'ntcireval -j': (['ntcireval', *files, *NTCIREVAL, '-j'], (qrels, run)),
        'ntcireval -ec': (['ntcireval', str(eqrels), str(run), *NTCIREVAL, '-ec'], (eqrels, run)),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--repeat', type=int, default=5)
    args = parser.parse_args()
    if install_kind() != 'regular':
        sys.exit(f'irmeasures_ext is {install_kind()} here: benchmark a regular install (benchmarks/README.md)')
    qrels, run = paths('1m')
    measured = commands(qrels, run, class_qrels(qrels))
    drop_cached_libraries()
    load_before = os.getloadavg()
    seconds, peak_mb = interleaved_rounds({name: ([sys.executable, '-m', 'irmeasures_ext', *arguments], inputs)
                                           for name, (arguments, inputs) in measured.items()}, args.repeat)
    load_after = os.getloadavg()
    ratios = target_ratios(seconds, TARGETS)
    lines = [f'# ntcireval against the five-measure command — {time.strftime("%Y-%m-%d %H:%M")}', '',
             f'Whole `python -m irmeasures_ext` processes on `benchmarks/data/1m` (1,000 queries, 1M run lines); '
             f'medians of {args.repeat} interleaved rounds after a warm-up round. Machine: {machine()}.',
             f'Load average before/after: {load_before[0]:.2f} / {load_after[0]:.2f}.', '',
             '| command | arguments | process s (median) | min–max | peak RSS MB |', '| --- | --- | --- | --- | --- |']
    for name, (arguments, _) in measured.items():
        shown = ' '.join(Path(a).name if a.startswith('/') else a for a in arguments)
        lines.append(f'| {name} | `{shown}` | {timing_cells(seconds, peak_mb, name)} |')
    lines += ['', '## Targets (issue 29, §5)', '']
    lines += target_lines(ratios)
    write_results('ntcireval', rounds_record({name: arguments for name, (arguments, _) in measured.items()}, seconds,
                                             peak_mb, ratios, [load_before, load_after]), '\n'.join(lines) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
