"""What each speed trick of the package is worth to a user: the whole command with the trick and without.

    python benchmarks/tricks.py [--repeat 15]

Each variant is a copy of the installed package with one trick undone by a small source edit
(:data:`UNDONE`), put first on ``PYTHONPATH`` of a fresh process; every variant runs the same commands,
interleaved round by round: the 1M-line run evaluated (``--suite quoter`` + Q@1000 nDCG@5 RR@100 R@100
AP, as ``run.py``'s ``cli``), the same with the per-query rows (``-q``), four such runs compared, and the
bundled 20-query sample.
A trick stays in the package only where undoing it costs more than 5% of one of these commands (README
of benchmarks/, "Speed tricks"). Writes benchmarks/results/tricks-<date>.md and .json.
"""
from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from common import HERE, child_environment, drop_cached_libraries, machine, run_measured, write_results

import irmeasures_ext
from irmeasures_ext import sample

#: Each trick, undone: (file of the package, the text appended to it, which replaces the trick's
#: functions after the module has defined them).
UNDONE: dict[str, tuple[str, str]] = {
    'import pyarrow.compute (no private pyarrow._compute)': (
        '_arrow/compute.py', '\nimport pyarrow.compute  # noqa\n'),
    'no raised trim threshold (keep_freed_memory)': (
        '_arrow/memory.py', '\ndef keep_freed_memory(): pass\n'),
    'default allocators in the command (one malloc arena, malloc for Arrow)': (
        '_arrow/memory.py', '\ndef use_malloc_for_arrow(): pass\ndef use_one_malloc_arena(): pass\n'),
    'no malloc_trim between the runs of a comparison': (
        '_arrow/memory.py', '\ndef release_freed_memory(): pass\n'),
    'np.median (no partitioned median)': (
        'measures/rank_stats.py',
        '\nMedianAgg.of = staticmethod(lambda values: __import__("numpy").median(values, -1))\n'),
    'interpreter teardown (no os._exit)': (
        'cli/__init__.py', '\ndef command():\n    sys.exit(main())\n'),
}

ONE_M = HERE / 'data' / '1m'
SUITE = ['--suite', 'quoter', 'Q@1000', 'nDCG@5', 'RR@100', 'R@100', 'AP']


def commands(root: Path) -> dict[str, tuple[list[str], tuple[Path, ...]]]:
    """The measured commands: name -> (arguments of ``python -m irmeasures_ext``, input files); the
    comparison's four runs are links to the 1M-line run under ``root``."""
    qrels, run = ONE_M / 'qrels.txt', ONE_M / 'run.txt'
    sample_qrels, sample_run = sample.QRELS, sample.RUN
    runs = [root / f'run{number}.txt' for number in range(4)]
    for link in runs:
        link.symlink_to(run)
    return {'1M-line run': ([str(qrels), str(run), *SUITE], (qrels, run)),
            '1M-line run, -q': ([str(qrels), str(run), *SUITE, '-q'], (qrels, run)),
            'compare 4 runs of 1M lines': (['compare', str(qrels), *map(str, runs), *SUITE], (qrels, run)),
            'sample (20 queries)': ([str(sample_qrels), str(sample_run), *SUITE], (sample_qrels, sample_run))}


def make_variants(root: Path) -> dict[str, Path]:
    """The package as installed ('all tricks') and one copy per undone trick, each under its own folder."""
    installed = Path(irmeasures_ext.__file__).parent
    variants = {'all tricks': installed.parent}
    for number, (name, (file, appended)) in enumerate(UNDONE.items()):
        folder = root / f'variant{number}'
        shutil.copytree(installed, folder / 'irmeasures_ext', ignore=shutil.ignore_patterns('__pycache__'))
        with open(folder / 'irmeasures_ext' / file, 'a') as module:
            module.write(appended)
        variants[name] = folder
    return variants


def paired_ratio(by_variant: dict[str, list[tuple[float, float]]], variant: str, field: int) -> float:
    """The median over rounds of the variant's figure (0: seconds, 1: peak RSS) over the same round's
    'all tricks' figure: each ratio compares two processes run back to back, so a busy spell of the
    machine weighs on both."""
    return statistics.median(mine[field] / base[field] for mine, base in zip(by_variant[variant],
                                                                             by_variant['all tricks'], strict=True))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--repeat', type=int, default=15)
    args = parser.parse_args()
    if not (ONE_M / 'run.txt').exists():
        sys.exit('benchmarks/data/1m is missing: run `python benchmarks/run.py --size 1m` once to generate it')
    drop_cached_libraries()
    with tempfile.TemporaryDirectory() as root:
        variants = make_variants(Path(root))
        measured = commands(Path(root))
        runs: dict[str, dict[str, list[tuple[float, float]]]] = {
            command: {variant: [] for variant in variants} for command in measured}
        names = list(variants)
        load_before = os.getloadavg()
        for round_no in range(args.repeat + 1):  # round 0 warms up (bytecode caches), not counted
            shift = round_no % len(names)
            for command, (arguments, inputs) in measured.items():
                for variant in names[shift:] + names[:shift]:
                    env = child_environment(PYTHONPATH=str(variants[variant]))
                    result = run_measured([sys.executable, '-m', 'irmeasures_ext', *arguments], env, inputs=inputs)
                    if round_no:
                        runs[command][variant].append(result)
    summary = {command: {variant: {'seconds': statistics.median(s for s, _ in values),
                                   'peak_rss_mb': statistics.median(m for _, m in values)}
                         for variant, values in by_variant.items()} for command, by_variant in runs.items()}
    lines = [f'# Speed tricks — {time.strftime("%Y-%m-%d %H:%M")}', '',
             f'Whole `python -m irmeasures_ext` processes, medians of {args.repeat} interleaved rounds. '
             f'Machine: {machine()}.', f'Load average before/after: {load_before[0]:.2f} / {os.getloadavg()[0]:.2f}.',
             '', '| variant | ' + ' | '.join(f'{command}: s, MB (paired ratios to all tricks)'
                                           for command in summary) + ' |',
             '| --- |' + ' --- |' * len(summary)]
    for variant in variants:
        cells = []
        for command, by_variant in summary.items():
            row = by_variant[variant]
            cells.append(f'{row["seconds"]:.3f} ({paired_ratio(runs[command], variant, 0):.2f}×), '
                         f'{row["peak_rss_mb"]:.0f} ({paired_ratio(runs[command], variant, 1):.2f}×)')
        lines.append(f'| {variant} | ' + ' | '.join(cells) + ' |')
    write_results('tricks', {'runs': runs, 'summary': summary, 'machine': machine()}, '\n'.join(lines) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
