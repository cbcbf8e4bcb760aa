"""Memory and time in the run's length (issue 30): the whole command on generated runs of 1,000 docs a query,
queries contiguous (the usual TREC layout) and interleaved, and 1M queries × 1 doc against one query × 1M docs.

    python benchmarks/scale.py [--sizes 7,35,100] [--repeat 3] [--baseline OTHER_VENV/bin/python]

Data (seeded, written once to benchmarks/data/scale/, gitignored): per size N (millions of lines), N × 1,000
queries of 1,000 docs each (an 8.8M-passage pool, MS MARCO-dev-shaped: one relevant doc a query, in the
run for 85% of them; scores rounded to 3 decimals, so ties are common), written 1M lines at a time;
``interleaved`` is the same lines with each million of them shuffled (every query's lines spread over
about 38 MB of the file). The two query shapes are those of queries.py. Each measurement is a fresh
``python -m irmeasures_ext QRELS RUN --suite quoter Q@1000 nDCG@5 RR@100 R@100 AP`` process (whole-process
wall time and peak RSS, common.run_measured), interleaved in rotating order. ``--in-memory-too`` adds the
contiguous runs evaluated in memory (streaming threshold raised), to choose
``irmeasures_ext.readers.pieces.STREAM_FROM_BYTES``; ``--baseline`` adds the TREC runs evaluated by another
install's command (an earlier commit), in the same rounds, with paired ratios; ``--parquet`` adds Parquet runs
of the same sizes (dask_scale.py's: folders of 16 files, query by query, in row groups of 262,144 rows),
streamed at every size and read whole. Writes
benchmarks/results/scale-<date>.md/.json.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv
from common import HERE, child_environment, machine, rotated, run_measured, write_results

DATA = HERE / 'data' / 'scale'
DEPTH = 1000
POOL = 8_841_823
#: Queries generated (and shuffled, for ``interleaved``) at once: a million lines.
CHUNK_QUERIES = 1000
MEASURES = ['--suite', 'quoter', 'Q@1000', 'nDCG@5', 'RR@100', 'R@100', 'AP']
LAYOUTS = ('contiguous', 'interleaved')


def data(millions: int) -> tuple[Path, dict[str, Path]]:
    """(qrels, {layout: run}) of ``millions`` million lines, generated on first use."""
    directory = DATA / f'{millions}m'
    qrels, runs = directory / 'qrels.txt', {layout: directory / f'run-{layout}.txt' for layout in LAYOUTS}
    if not (qrels.exists() and all(path.exists() for path in runs.values())):
        directory.mkdir(parents=True, exist_ok=True)
        _generate(millions, qrels, runs)
    return qrels, runs


def _generate(millions: int, qrels_path: Path, runs: dict[str, Path]) -> None:
    rng = np.random.default_rng(20261202 + millions)
    options = pacsv.WriteOptions(include_header=False, delimiter=' ', quoting_style='none')
    temporary = {layout: path.with_suffix('.tmp') for layout, path in runs.items()}
    qrels_temporary = qrels_path.with_suffix('.tmp')
    with open(qrels_temporary, 'w') as qrels:
        writers: dict[str, pacsv.CSVWriter] = {}
        try:
            for chunk in range(millions * 1_000_000 // (CHUNK_QUERIES * DEPTH)):
                table, judged = _chunk(rng, chunk)
                qrels.writelines(f'{query} 0 {doc} 1\n' for query, doc in judged)
                shuffled = table.take(pa.array(rng.permutation(table.num_rows)))
                for layout, rows in (('contiguous', table), ('interleaved', shuffled)):
                    if layout not in writers:
                        writers[layout] = pacsv.CSVWriter(str(temporary[layout]), table.schema, write_options=options)
                    writers[layout].write_table(rows)
        finally:
            for writer in writers.values():
                writer.close()
    for layout, path in runs.items():
        temporary[layout].replace(path)
    qrels_temporary.replace(qrels_path)


def _chunk(rng: np.random.Generator, chunk: int) -> tuple[pa.Table, list[tuple[str, str]]]:
    """CHUNK_QUERIES queries' lines (each query's 1,000 distinct docs by descending score) and their judgments."""
    queries = chunk * CHUNK_QUERIES + np.arange(CHUNK_QUERIES)
    docs = (rng.integers(0, POOL, (CHUNK_QUERIES, 1))
            + 7919 * np.arange(DEPTH)) % POOL  # (distinct within a query: 7919 and POOL are coprime)
    scores = -np.sort(-np.round(rng.normal(size=(CHUNK_QUERIES, DEPTH)), 3), axis=1)
    relevant_at = rng.integers(0, DEPTH, CHUNK_QUERIES)
    relevant = np.where(rng.random(CHUNK_QUERIES) < 0.85, docs[np.arange(CHUNK_QUERIES), relevant_at],
                        (docs[:, 0] + 7919 * DEPTH) % POOL)
    query_ids = np.repeat(np.char.add('q', queries.astype(str)), DEPTH)
    table = pa.table({'qid': query_ids, 'q0': np.full(query_ids.shape, 'Q0'),
                      'docid': np.char.add('D', docs.ravel().astype(str)),
                      'rank': np.tile(np.arange(1, DEPTH + 1), CHUNK_QUERIES), 'score': scores.ravel(),
                      'tag': np.full(query_ids.shape, 'scale')})
    return table, [(f'q{query}', f'D{doc}') for query, doc in zip(queries.tolist(), relevant.tolist(), strict=True)]


def _command(stream_from_bytes: int | None = None) -> list[str]:
    """The command, with the streaming threshold (``STREAM_FROM_BYTES``) set to ``stream_from_bytes`` if given."""
    if stream_from_bytes is None:
        return [sys.executable, '-m', 'irmeasures_ext']
    return [sys.executable, '-c', f'from irmeasures_ext.readers import pieces; pieces.STREAM_FROM_BYTES = '
                                  f'{stream_from_bytes}; from irmeasures_ext.cli import command; command()']


IN_MEMORY, STREAMED = 1 << 62, 1
#: The name suffix of the variants run by the --baseline install.
BASELINE = ', baseline'
#: The Parquet runs' row groups (a streamed run's peak memory follows its largest row group, which pyarrow's
#: writer makes up to 1M rows by default): the same at every size.
PARQUET_ROW_GROUP_ROWS = 1 << 18


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--sizes', default='7,35', help='run sizes in millions of lines, comma-separated; the '
                                                        'ratios compare each with the first')
    parser.add_argument('--repeat', type=int, default=3)
    parser.add_argument('--in-memory-too', action='store_true')
    parser.add_argument('--baseline', metavar='PYTHON',
                        help="also the TREC runs of each size evaluated by another install's command (e.g. an "
                             'earlier commit installed in another environment), in the same rounds')
    parser.add_argument('--parquet', action='store_true',
                        help="also the runs of dask_scale.py (folders of 16 Parquet files) of each size, streamed "
                             "(at every size) and read whole")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(',')]
    from dask_scale import generate as parquet_data
    from queries import data as query_shapes
    shapes = query_shapes()
    variants: dict[str, tuple[list[str], Path, Path]] = {}
    for size in sizes:
        qrels, runs = data(size)
        for layout, run in runs.items():
            variants[f'{size}M {layout}'] = (_command(), qrels, run)
            if args.baseline:
                variants[f'{size}M {layout}{BASELINE}'] = ([args.baseline, '-m', 'irmeasures_ext'], qrels, run)
        if args.in_memory_too:
            variants[f'{size}M contiguous, in memory'] = (_command(IN_MEMORY), qrels, runs['contiguous'])
        if args.parquet:
            folder = DATA / f'{size}m-parquet'
            parquet_qrels, parquet_run = parquet_data(size * 1_000_000, 16, folder, PARQUET_ROW_GROUP_ROWS)
            variants[f'{size}M Parquet, streamed'] = (_command(STREAMED), parquet_qrels, parquet_run)
            variants[f'{size}M Parquet, in memory'] = (_command(IN_MEMORY), parquet_qrels, parquet_run)
    variants['1M queries x 1 doc'] = (_command(), *shapes['many'])
    variants['1 query x 1M docs'] = (_command(), *shapes['one'])
    runs_of: dict[str, list[tuple[float, float]]] = {name: [] for name in variants}
    names = list(variants)
    load_before = os.getloadavg()
    for round_no in range(args.repeat):
        for name in rotated(names, round_no):
            command, qrels, run = variants[name]
            runs_of[name].append(run_measured([*command, str(qrels), str(run), *MEASURES], child_environment(),
                                              inputs=(qrels, run)))
            print(f'  [{round_no + 1}/{args.repeat}] {name}: {runs_of[name][-1][0]:.2f} s, '
                  f'{runs_of[name][-1][1]:.0f} MB', flush=True)
    summary = {name: {'seconds': statistics.median(s for s, _ in values),
                      'peak_rss_mb': statistics.median(m for _, m in values),
                      'run_bytes': _bytes(variants[name][2])} for name, values in runs_of.items()}
    write_results('scale', {'machine': machine(), 'runs': runs_of, 'summary': summary},
                  _report(summary, sizes, args.repeat, load_before) + _against_baseline(runs_of, args.baseline))
    return 0


def _bytes(path: Path) -> int:
    """A file's size, or a folder's files' together."""
    return sum(part.stat().st_size for part in path.iterdir()) if path.is_dir() else path.stat().st_size


def _report(summary: dict, sizes: list[int], repeat: int, load_before: tuple[float, ...]) -> str:
    lines = [f'# Scale — {time.strftime("%Y-%m-%d %H:%M")}', '',
             f'Whole `python -m irmeasures_ext QRELS RUN {" ".join(MEASURES)}` processes, medians of {repeat} '
             f'interleaved runs. Machine: {json.dumps(machine())}.',
             f'Load average before/after: {load_before[0]:.2f} / {os.getloadavg()[0]:.2f}.', '',
             '| run | file MB | wall s | peak RSS MB |', '| --- | --- | --- | --- |']
    lines += [f'| {name} | {row["run_bytes"] / 1e6:.0f} | {row["seconds"]:.2f} | {row["peak_rss_mb"]:.0f} |'
              for name, row in summary.items()]
    lines += ['', '## Targets', '']
    base = summary[f'{sizes[0]}M contiguous']

    def target(text: str, value: float, limit: float) -> None:
        lines.append(f'- {text} ≤ {limit}×: {"met" if value <= limit else "MISSED"} ({value:.2f}×)')

    for size in sizes[1:]:
        contiguous, interleaved = summary[f'{size}M contiguous'], summary[f'{size}M interleaved']
        target(f'peak RSS {size}M / {sizes[0]}M (contiguous)', contiguous['peak_rss_mb'] / base['peak_rss_mb'], 1.5)
        target(f'peak RSS {size}M interleaved / {sizes[0]}M contiguous',
               interleaved['peak_rss_mb'] / base['peak_rss_mb'], 2)
        target(f'time {size}M / {sizes[0]}M (contiguous; linear: {size / sizes[0]:.0f}×)',
               contiguous['seconds'] / base['seconds'], round(1.1 * size / sizes[0], 2))
        if f'{size}M Parquet, streamed' in summary:
            parquet, parquet_base = summary[f'{size}M Parquet, streamed'], summary[f'{sizes[0]}M Parquet, streamed']
            target(f'peak RSS {size}M / {sizes[0]}M (Parquet, streamed)',
                   parquet['peak_rss_mb'] / parquet_base['peak_rss_mb'], 1.5)
            target(f'time {size}M / {sizes[0]}M (Parquet, streamed; linear: {size / sizes[0]:.0f}×)',
                   parquet['seconds'] / parquet_base['seconds'], round(1.1 * size / sizes[0], 2))
    target('time 1M queries x 1 doc / 1 query x 1M docs',
           summary['1M queries x 1 doc']['seconds'] / summary['1 query x 1M docs']['seconds'], 3)
    return '\n'.join(lines) + '\n'


def _against_baseline(runs_of: dict[str, list[tuple[float, float]]], baseline: str | None) -> str:
    """Each variant beside the baseline install's, paired within rounds (not a target)."""
    if not baseline:
        return ''
    lines = ['', f'## Against the baseline (`{baseline}`), paired within each round', '']
    for name, theirs in runs_of.items():
        if not name.endswith(BASELINE):
            continue
        ours = runs_of[name.removesuffix(BASELINE)]
        times = sorted(mine[0] / other[0] for mine, other in zip(ours, theirs, strict=True))
        memory = sorted(mine[1] / other[1] for mine, other in zip(ours, theirs, strict=True))
        lines.append(f'- {name.removesuffix(BASELINE)}: time {statistics.median(times):.2f}× '
                     f'({times[0]:.2f}–{times[-1]:.2f}×), peak RSS {statistics.median(memory):.2f}× '
                     f'({memory[0]:.2f}–{memory[-1]:.2f}×)')
    return '\n'.join(lines) + '\n'


if __name__ == '__main__':
    sys.exit(main())
