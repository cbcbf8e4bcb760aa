"""A generated Parquet run evaluated by ``irmeasures_ext.dask`` on a 2-process LocalCluster against one
process (our provider, on the run read whole with pyarrow and streamed from its path): time and peak
memory of each process.

    python benchmarks/dask_scale.py [--lines 35000000] [--files 16] [--repeat 1]

The run (written once to ``benchmarks/data/dask-<lines>/``, gitignored) is MS MARCO-dev-shaped: 1,000 docs
a query of an 8.8M-passage pool, ~1.06 relevant docs a query (85% retrieved), scores rounded to 3
decimals; listed query by query and cut into ``--files`` Parquet files at row counts, so queries straddle
the files (the engine evaluates those from the partitions' edges). Each measurement is a fresh process
(``common.run_measured``): ``in memory`` reads the folder with ``pyarrow.dataset`` and calls
``irmeasures_ext.provider.calc_aggregate`` on the table; ``streamed`` gives the provider the folder's path
(read batch by batch, as the command reads it); ``dask`` starts ``distributed.LocalCluster(n_workers=2,
processes=True, threads_per_worker=1)`` and calls ``irmeasures_ext.dask.calc_aggregate`` on the Parquet
glob. "timed" is the call alone (for ``dask``: after the cluster started; for ``in memory``: the read and
the call), "process" the whole child; each worker's peak RSS is its ``ru_maxrss``, asked for after the
call; the client's is the child's own. All give the same aggregates (checked to 1e-12).
"""
from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import tempfile
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from common import child_environment, machine, rotated, run_measured, write_results

DATA_DIR = Path(__file__).resolve().parent / 'data'
DEPTH = 1000
POOL = 8_841_823
MEASURES = 'Q@1000 nDCG@10 RR@10 R@100 AP MedianRank'

ONE_PROCESS = '''
import json, sys, time
import ir_measures, pyarrow.dataset as ds, irmeasures_ext
measures = [ir_measures.parse_measure(name) for name in sys.argv[3].split()]
start = time.perf_counter()
run = {run}
values = irmeasures_ext.provider.calc_aggregate(measures, sys.argv[1], run)
seconds = time.perf_counter() - start
print(json.dumps({{'timed': seconds, 'values': {{str(m): v for m, v in values.items()}}}}))
'''
CHILD = {
    'in memory': ONE_PROCESS.format(run="ds.dataset(sys.argv[2], format='parquet').to_table()"),
    'streamed': ONE_PROCESS.format(run='sys.argv[2]'),
    'dask': '''
import json, resource, sys, time
import distributed, ir_measures, irmeasures_ext.dask

def peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

if __name__ == '__main__':
    measures = [ir_measures.parse_measure(name) for name in sys.argv[3].split()]
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        start = time.perf_counter()
        values = irmeasures_ext.dask.calc_aggregate(measures, sys.argv[1], sys.argv[2] + '/*.parquet')
        seconds = time.perf_counter() - start
        workers = sorted(client.run(peak_mb).values())
    print(json.dumps({'timed': seconds, 'values': {str(m): v for m, v in values.items()},
                      'worker_peak_mb': workers, 'client_peak_mb': peak_mb()}))
''',
}


def generate(lines: int, files: int, directory: Path, row_group_rows: int = 1 << 20) -> tuple[Path, Path]:
    """(qrels file, folder of Parquet files) of a run of ``lines`` lines, written once, in row groups of at
    most ``row_group_rows`` rows. The doc at position p of query q is (offset_q + p * STRIDE) mod POOL:
    distinct within a query, drawn row by row."""
    qrels_path, run_dir = directory / 'qrels.txt', directory / 'run'
    if qrels_path.exists() and run_dir.exists():
        return qrels_path, run_dir
    run_dir.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(20240501)
    n_queries = math.ceil(lines / DEPTH)
    query_ids = np.sort(rng.choice(1_200_000, n_queries, replace=False)).astype(str)
    offsets = rng.integers(0, POOL, n_queries)
    n_relevant = 1 + (rng.random(n_queries) < 0.06)
    relevant_query = np.repeat(np.arange(n_queries), n_relevant)
    retrieved = rng.random(len(relevant_query)) < 0.85
    position = np.where(retrieved, rng.integers(0, DEPTH, len(relevant_query)), DEPTH)  # DEPTH: not retrieved
    relevant_rows = relevant_query * DEPTH + position
    relevant_rows = np.unique(relevant_rows[retrieved])
    per_file = math.ceil(lines / files)
    for number, first in enumerate(range(0, lines, per_file)):
        rows = np.arange(first, min(first + per_file, lines))
        query = rows // DEPTH
        scores = np.round(rng.normal(size=len(rows)) + 2.0 * np.isin(rows, relevant_rows), 3)
        table = pa.table({'query_id': query_ids[query], 'doc_id': _doc_ids(offsets[query], rows % DEPTH),
                          'score': scores})
        pq.write_table(table, run_dir / f'part-{number:03d}.parquet', row_group_size=row_group_rows)
    docs = _doc_ids(offsets[relevant_query], position)
    qrels_path.write_text(''.join(f'{query_ids[q]} 0 {doc} 1\n' for q, doc in zip(relevant_query, docs, strict=True)))
    return qrels_path, run_dir


#: Coprime with POOL: a query's positions 0..DEPTH give distinct docs.
STRIDE = 7_919


def _doc_ids(offsets: np.ndarray, positions: np.ndarray) -> np.ndarray:
    return ((offsets + positions * STRIDE) % POOL).astype(str)


def measure(kind: str, qrels: Path, run_dir: Path) -> dict:
    """One fresh child of ``kind``: its own report, with the whole process's seconds and peak RSS."""
    with tempfile.TemporaryFile('w+') as out:
        seconds, peak_mb = run_measured([sys.executable, '-c', CHILD[kind], str(qrels), str(run_dir), MEASURES],
                                        child_environment(), stdout=out, inputs=sorted(run_dir.iterdir()))
        out.seek(0)
        report = json.loads(out.read().splitlines()[-1])
    return {**report, 'process': seconds, 'peak_mb': peak_mb}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--lines', type=int, default=35_000_000, help='run lines (1,000 a query)')
    parser.add_argument('--files', type=int, default=16, help='Parquet files the run is cut into')
    parser.add_argument('--repeat', type=int, default=1, help='rounds (each runs all three, in rotating order)')
    args = parser.parse_args()
    qrels, run_dir = generate(args.lines, args.files, DATA_DIR / f'dask-{args.lines}-{args.files}')
    rounds = []
    for round_number in range(args.repeat):
        rounds.append({kind: measure(kind, qrels, run_dir) for kind in rotated([*CHILD], round_number)})
    for one in rounds:
        for kind in ('streamed', 'dask'):
            for name, value in one['in memory']['values'].items():
                if not math.isclose(value, one[kind]['values'][name], rel_tol=0, abs_tol=1e-12):
                    raise RuntimeError(f'{name}: in memory {value}, {kind} {one[kind]["values"][name]}')
    data = {'machine': machine(), 'lines': args.lines, 'files': args.files, 'measures': MEASURES, 'rounds': rounds}
    write_results(f'dask-{args.lines // 1_000_000}m', data, report(data))
    return 0


def report(data: dict) -> str:
    def median(kind: str, key: str) -> float:
        return statistics.median(one[kind][key] for one in data['rounds'])
    workers = [max(one['dask']['worker_peak_mb']) for one in data['rounds']]
    lines = [f"# Dask against one process: {data['lines']:,} lines in {data['files']} Parquet files",
             '', f"{data['machine']['cpu_count']} CPUs ({data['machine']['cpu']}), install: "
             f"{data['machine']['install']}; measures {data['measures']}; medians of {len(data['rounds'])} round(s).",
             '', '| | timed s | process s | peak RSS MB |', '| --- | --- | --- | --- |',
             *(f"| one process, {kind} | {median(kind, 'timed'):.2f} | {median(kind, 'process'):.2f} | "
               f"{median(kind, 'peak_mb'):.0f} |" for kind in ('in memory', 'streamed')),
             f"| Dask, 2 workers: client | {median('dask', 'timed'):.2f} | {median('dask', 'process'):.2f} | "
             f"{median('dask', 'client_peak_mb'):.0f} |",
             f"| Dask: the larger worker's peak | | | {statistics.median(workers):.0f} |",
             '', 'Aggregates (equal to 1e-12 in every round):', '',
             *(f'- {name}: {value:.6f}' for name, value in data['rounds'][0]['in memory']['values'].items()), '']
    return '\n'.join(lines)


if __name__ == '__main__':
    sys.exit(main())
