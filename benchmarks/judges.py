"""``irmeasures-ext judges`` of 50 runs of 100k lines under two judgement sets, against evaluating every run
under each set with the command (100 invocations), and the label agreement of two sets over 1M judged pairs.

    python benchmarks/judges.py [--runs 50] [--repeat 3]

Data (benchmarks/data/judges/, written once, seeded): the first 100 queries of the 1m run (datagen.py: 1,000 docs
each, 100k lines) and ``runs`` - 1 noisy copies; the 1m qrels of those queries ("nist") and a second set made from
them ("llm": a label moved by one level for a fifth of the docs, a tenth left out, 10 more docs judged per query);
and, for the agreement, two sets of 1M (query, doc) pairs with labels 0-3 that agree on about 70% of them. Every
measurement is a fresh process (GNU time's peak RSS), interleaved: ``judges`` is one process (the agreement, the
leaderboards and every run's scores under both sets); ``twice`` is every run evaluated under each set, one command
at a time, its time the sum and its peak RSS the largest. ``agreement`` is the time of
``irmeasures_ext.judges.agreement.agreement`` on the 1M pairs, timed inside its process (after reading them).
Targets: judges ≤ 1.2× twice; the agreement of 1M pairs well under a second (≤ 0.5 s). Writes
benchmarks/results/judges-<date>.md/.json.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from common import child_environment, machine, run_measured, write_results  # noqa: E402

DATA = HERE / 'data' / 'judges'
MEASURES = ['nDCG@10', 'AP', 'P@10', 'Q@10', 'RR', 'nDCG_Z1@5']
QUERIES = 100
AGREEMENT_PAIRS = 1_000_000
#: The agreement's child: reads the pairs, then times the call alone.
AGREEMENT_CHILD = '''
import sys, time
import pandas as pd
from irmeasures_ext.judges.agreement import agreement
pairs = pd.read_parquet(sys.argv[1])
start = time.perf_counter()
agreement(pairs)
print(time.perf_counter() - start)
'''


def read_trec(path: Path, names: list[str]) -> pa.Table:
    return pacsv.read_csv(path, read_options=pacsv.ReadOptions(column_names=names),
                          parse_options=pacsv.ParseOptions(delimiter=' '),
                          convert_options=pacsv.ConvertOptions(column_types={'query_id': pa.string(),
                                                                             'doc_id': pa.string()}))


def write_trec(table: pa.Table, path: Path) -> None:
    pacsv.write_csv(table, path, pacsv.WriteOptions(include_header=False, delimiter=' ', quoting_style='none'))


def data(count: int) -> tuple[Path, Path, Path, Path]:
    """(nist qrels, llm qrels, folder of runs, agreement pairs), generated on first use."""
    from datagen import paths
    qrels_1m, run_1m = paths('1m')
    folder = DATA / f'runs{count}'
    nist, llm, pairs = DATA / 'nist.txt', DATA / 'llm.txt', DATA / 'pairs.parquet'
    if not (nist.exists() and llm.exists() and pairs.exists() and folder.exists()):
        DATA.mkdir(parents=True, exist_ok=True)
        rng = np.random.default_rng(46)
        run = read_trec(run_1m, ['query_id', 'q0', 'doc_id', 'rank', 'score', 'tag'])
        queries = pc.unique(run['query_id'])[:QUERIES]
        run = run.filter(pc.is_in(run['query_id'], value_set=queries))
        qrels = read_trec(qrels_1m, ['query_id', 'iteration', 'doc_id', 'relevance'])
        qrels = qrels.filter(pc.is_in(qrels['query_id'], value_set=queries))
        write_trec(qrels, nist)
        labels = qrels['relevance'].to_numpy()
        moved = np.clip(labels + rng.choice([-1, 0, 0, 0, 0, 0, 0, 0, 0, 1], len(labels)), 0, 3)
        kept = rng.random(len(labels)) >= 0.1
        extra_queries = np.repeat(queries.to_numpy(zero_copy_only=False), 10)
        extra = pa.table({'query_id': extra_queries, 'iteration': ['0'] * len(extra_queries),
                          'doc_id': [f'llm{i}' for i in range(len(extra_queries))],
                          'relevance': rng.integers(0, 4, len(extra_queries))})
        write_trec(pa.concat_tables([qrels.set_column(3, 'relevance', pa.array(moved)).filter(pa.array(kept)),
                                     extra.cast(qrels.schema)]), llm)
        folder.mkdir(exist_ok=True)
        scores = run['score'].to_numpy()
        for i in range(count):
            noisy = np.round(scores + rng.normal(0, 0.05 * (i > 0), len(scores)), 3)
            write_trec(run.set_column(4, 'score', pa.array(noisy)).set_column(5, 'tag', pa.array([f'r{i}'] * len(run))),
                       folder / f'run{i:02d}.txt')
        first = rng.integers(0, 4, AGREEMENT_PAIRS)
        second = np.where(rng.random(AGREEMENT_PAIRS) < 0.7, first, rng.integers(0, 4, AGREEMENT_PAIRS))
        ids = [f'q{i // 100}' for i in range(AGREEMENT_PAIRS)], [f'd{i}' for i in range(AGREEMENT_PAIRS)]
        import pyarrow.parquet as pq
        pq.write_table(pa.table({'judge': ['a'] * AGREEMENT_PAIRS + ['b'] * AGREEMENT_PAIRS,
                                 'query_id': ids[0] * 2, 'doc_id': ids[1] * 2,
                                 'relevance': np.concatenate([first, second])}), pairs)
    return nist, llm, folder, pairs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--runs', type=int, default=50)
    parser.add_argument('--repeat', type=int, default=3)
    args = parser.parse_args()
    nist, llm, folder, pairs = data(args.runs)
    files = sorted(folder.iterdir())
    command = [sys.executable, '-m', 'irmeasures_ext']
    env = child_environment()
    results: dict[str, list] = {'judges': [], 'twice': [], 'agreement': []}
    load_before = os.getloadavg()
    for round_no in range(args.repeat):
        kinds = ['judges', 'twice'] if round_no % 2 == 0 else ['twice', 'judges']
        for kind in kinds:
            with tempfile.TemporaryFile() as out:
                if kind == 'judges':
                    results[kind].append(run_measured(
                        command + ['judges', '--qrels', f'nist={nist}', '--qrels', f'llm={llm}', str(folder),
                                   *MEASURES], env, stdout=out, inputs=(nist, llm, *files)))
                else:
                    each = [run_measured(command + [str(qrels), str(f), *MEASURES], env, stdout=out,
                                         inputs=(qrels, f)) for f in files for qrels in (nist, llm)]
                    results[kind].append((sum(s for s, _ in each), max(m for _, m in each)))
            print(f'  [{round_no + 1}/{args.repeat}] {kind}: {results[kind][-1][0]:.2f} s, '
                  f'{results[kind][-1][1]:.0f} MB', flush=True)
        timed = subprocess.run([sys.executable, '-c', AGREEMENT_CHILD, str(pairs)], env=env, check=True,
                               capture_output=True, text=True, cwd=tempfile.gettempdir())
        results['agreement'].append(float(timed.stdout.split()[-1]))
        print(f'  [{round_no + 1}/{args.repeat}] agreement of {AGREEMENT_PAIRS:,} pairs: '
              f'{results["agreement"][-1]:.3f} s', flush=True)
    judges_s, twice_s = (statistics.median(r[0] for r in results[kind]) for kind in ('judges', 'twice'))
    judges_mb, twice_mb = (statistics.median(r[1] for r in results[kind]) for kind in ('judges', 'twice'))
    agreement_s = statistics.median(results['agreement'])
    ratio = judges_s / twice_s
    lines = [f'# Judges: {args.runs} runs of 100k lines under two judgement sets — {time.strftime("%Y-%m-%d %H:%M")}',
             '', f'Whole processes, medians of {args.repeat} interleaved rounds. Measures: `{" ".join(MEASURES)}`.',
             f'Machine: {machine()}.',
             f'Load average before/after: {load_before[0]:.2f} / {os.getloadavg()[0]:.2f}.', '',
             '| what | wall s | peak RSS MB |', '| --- | --- | --- |',
             f'| `irmeasures-ext judges` of {args.runs} runs, 2 sets | {judges_s:.2f} | {judges_mb:.0f} |',
             f'| {2 * args.runs} separate `irmeasures-ext` (sum; largest RSS) | {twice_s:.2f} | {twice_mb:.0f} |',
             f'| `agreement` of {AGREEMENT_PAIRS:,} pairs (in process) | {agreement_s:.3f} | |', '', '## Targets', '',
             f'- judges ≤ 1.2× evaluating every run twice with the command: {"met" if ratio <= 1.2 else "MISSED"} '
             f'({ratio:.2f}×)',
             f'- agreement of 1M pairs ≤ 0.5 s: {"met" if agreement_s <= 0.5 else "MISSED"} ({agreement_s:.3f} s)']
    write_results('judges', results, '\n'.join(lines) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
