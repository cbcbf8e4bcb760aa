"""Peak memory and time of streamed fusion (``fuse_to_file``) against the in-memory ``write_run(fuse(...))``, as
the runs grow.

    python benchmarks/fusion_stream_memory.py [--lines 1000000 3000000] [--max-rows 2097152 524288]

Each size writes two seeded synthetic TREC runs of that many lines (1,000 docs a query, drawn from a pool of 1,500
per query, so the runs share about two thirds of their docs; scores rounded to 2 decimals: ties) into
benchmarks/data/fusion-stream/, then fuses them by RRF with min-max normalisation in fresh processes: once in
memory, once streamed for each ``max_rows``; each process's peak RSS and wall time, and whether each streamed file is
byte for byte the in-memory one. Results go to benchmarks/results/fusion-stream-memory-<date>.{md,json}.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv
from common import child_environment, machine, run_measured, write_results

DATA = Path(__file__).resolve().parent / 'data' / 'fusion-stream'
DEPTH, POOL = 1000, 1500
IN_MEMORY = ('import sys; from irmeasures_ext.fusion import fuse; from irmeasures_ext.ir_metadata import write_run\n'
             'write_run(fuse(sys.argv[1:3], "rrf", "min-max"), sys.argv[3])')
STREAMED = ('import sys; from irmeasures_ext.fusion import fuse_to_file\n'
            'fuse_to_file(sys.argv[1:3], sys.argv[3], "rrf", "min-max", max_rows=int(sys.argv[4]))')


def write_runs(lines: int) -> tuple[Path, Path]:
    """Two runs of ``lines`` lines each (seeded), written on first use."""
    paths = (DATA / f'a-{lines}.txt', DATA / f'b-{lines}.txt')
    if all(path.exists() for path in paths):
        return paths
    DATA.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(51)
    n_queries = lines // DEPTH
    for path in paths:
        docs = np.argsort(rng.random((n_queries, POOL)), axis=1)[:, :DEPTH]
        scores = np.round(rng.normal(size=(n_queries, DEPTH)), 2)
        order = np.argsort(-scores, axis=1, kind='stable')
        docs, scores = np.take_along_axis(docs, order, 1).ravel(), np.take_along_axis(scores, order, 1).ravel()
        queries = np.repeat(np.arange(1, n_queries + 1), DEPTH)
        text = pc.cast(pa.array(queries), pa.string())
        table = pa.table({'qid': text, 'q0': pa.array(np.full(len(queries), 'Q0')),
                          'docid': pc.binary_join_element_wise('D', text, '-', pc.cast(pa.array(docs), pa.string()),
                                                               ''),
                          'rank': pa.array(np.tile(np.arange(1, DEPTH + 1), n_queries)), 'score': pa.array(scores),
                          'tag': pa.array(np.full(len(queries), 'synthetic'))})
        pacsv.write_csv(table, path, pacsv.WriteOptions(include_header=False, delimiter=' ', quoting_style='none'))
    return paths


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--lines', type=int, nargs='+', default=[1_000_000, 3_000_000])
    parser.add_argument('--max-rows', type=int, nargs='+', default=[1 << 19, 1 << 21])
    args = parser.parse_args()
    env = child_environment()
    rows = ['| lines per run | fusion | peak RSS | wall time | same file |', '| --- | --- | --- | --- | --- |']
    measured = []
    for lines in args.lines:
        runs = write_runs(lines)
        (DATA / 'memory').mkdir(exist_ok=True)
        (DATA / 'streamed').mkdir(exist_ok=True)
        expected = DATA / 'memory' / 'fused.txt'  # (the same name: the TREC lines' tag is the file's name)
        expected.unlink(missing_ok=True)
        seconds, peak_mb = run_measured([sys.executable, '-c', IN_MEMORY, *map(str, runs), str(expected)], env,
                                        inputs=runs)
        measured.append({'lines': lines, 'fusion': 'in memory', 'seconds': seconds, 'peak_mb': peak_mb})
        rows.append(f'| {lines:,} | in memory: write_run(fuse(...)) | {peak_mb:.0f} MB | {seconds:.1f} s | |')
        print(rows[-1], flush=True)
        for max_rows in args.max_rows:
            output = DATA / 'streamed' / 'fused.txt'
            output.unlink(missing_ok=True)
            seconds, peak_mb = run_measured([sys.executable, '-c', STREAMED, *map(str, runs), str(output),
                                             str(max_rows)], env, inputs=runs)
            same = output.read_bytes() == expected.read_bytes()
            output.unlink()
            measured.append({'lines': lines, 'fusion': f'streamed, max_rows={max_rows}', 'seconds': seconds,
                             'peak_mb': peak_mb, 'same_file': same})
            rows.append(f'| {lines:,} | streamed: fuse_to_file(..., max_rows={max_rows:,}) | {peak_mb:.0f} MB | '
                        f'{seconds:.1f} s | {"yes" if same else "NO"} |')
            print(rows[-1], flush=True)
        expected.unlink()
    report = '\n'.join([
        '# Streamed fusion: peak memory', '',
        'Two synthetic runs of the given lines each, fused by RRF after min-max normalisation and written as a TREC '
        'file, each in a fresh process (peak RSS by GNU time; inputs in the page cache).', '', *rows, ''])
    write_results('fusion-stream-memory', {'machine': machine(), 'results': measured}, report)


if __name__ == '__main__':
    main()
