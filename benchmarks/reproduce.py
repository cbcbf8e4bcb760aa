"""The reproducibility statistics of 10 reproduced runs of 1M lines (5 reproductions of an original baseline and
advanced run), against evaluating those 10 runs with the same measures.

    python benchmarks/reproduce.py [--repeat 3] [--repro-eval-python /tmp/repro/bin/python]

Data (benchmarks/data/reproduce/, written once, seeded): the 1m collection of datagen.py (1,000 queries, 1,000 docs
each); the original baseline is its run, the original advanced one a noisy copy, and each reproduction a noisier copy
of both (scores moved by a normal noise, rounded to 3 decimals: ties remain, lists reorder). Every measurement is a
fresh process, interleaved over ``--repeat`` rounds after a warm-up round:

- ``evaluate``: our provider's per-topic scores of the 10 reproduced runs (``Evaluation.results``, one qrels read);
- ``evaluate_reference``: the same runs evaluated as ir_measures evaluates them by default, and as repro_eval does:
  ``ir_measures.evaluator`` made once from the qrels (its default provider for these measures is pytrec_eval,
  trec_eval's code), then ``iter_calc`` of each run read with ``read_trec_run``;
- ``statistics``: :class:`irmeasures_ext.reproduce.Experiment` on the original runs, then its ``reproducibility``
  for each reproduction (RMSE, nRMSE, paired t-test, ER, ΔRI per measure): the originals are evaluated once;
- ``with_lists``: the same with ``ranked_lists=True`` (also KTU, repro_eval's KTU and RBO, RBO_ext of every run);
- ``pairing_floor``: ``evaluate``, and for each run the least any ranked-list statistic adds to it: pairing its
  (topic, doc) keys (doc ids hashed as the engine hashes them) with the original's, looked up in a table of those
  made once (``GroupedHashes``, as ``ranked_list_agreement`` pairs them); a lower bound of ``with_lists`` beside
  ``evaluate``, were the statistics and the lists free.

With ``--repro-eval-python`` (the interpreter of another environment with repro_eval 0.5.0, not a dependency:
``python3.11 -m venv /tmp/repro && /tmp/repro/bin/pip install repro-eval==0.5.0 pandas``), the reference tool on one
reproduction (the originals and the first reproduced pair), against ours on the same:

- ``one_reproduction``: ``with_lists`` for that pair alone;
- ``repro_eval``: its ``RpdEvaluator`` on the same four files (its measures set to ours), ``trim()``,
  ``evaluate()``, then ``rmse``, ``nrmse``, ``er``, ``dri``, ``ttest``, ``ktu`` and ``rbo``.

Targets (issue 50): statistics ≤ 1.5× evaluate; with_lists ≤ 1.5× evaluate (and the pairing floor beside it).
Reported, with no target: statistics and with_lists against ``evaluate_reference`` (what evaluating the runs costs
without our provider), and repro_eval / one_reproduction. Writes benchmarks/results/reproduce-<date>.md/.json.
"""
from __future__ import annotations

import argparse
import math
import os
import statistics
import subprocess
import sys
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from common import interleaved_rounds, rounds_record, target_lines, target_ratios, timing_cells, write_results  # noqa: E402

DATA = HERE / 'data' / 'reproduce'
REPRODUCTIONS = 5
MEASURES = ['AP', 'nDCG', 'nDCG@10', 'P@5', 'P@10', 'P@20', 'R@100', 'R@1000', 'RR', 'Rprec', 'Bpref']
CHILD = '''
import sys, warnings
warnings.simplefilter('ignore')
kind, qrels, measures, *runs = sys.argv[1:]
measures = measures.split(',')
if kind in ('evaluate', 'pairing_floor'):
    from irmeasures_ext.evaluation import Evaluation
    from irmeasures_ext.plugin import measures_of, provider
    from irmeasures_ext.readers.inputs import read_input
    evaluation = Evaluation(list(measures_of(measures)), provider)
    evaluation.read_qrels(qrels)
    if kind == 'pairing_floor':
        from irmeasures_ext.engine.doc_ids import DocIds, GroupedHashes, sorted_distinct
        def keys(table):  # (every run answers the same topics: numbered alike)
            topics, topic = sorted_distinct(table['query_id'])
            return topic, DocIds.of(table['doc_id']).hash, len(topics)
        originals = [GroupedHashes.of(*keys(read_input(path, 'run').table)) for path in runs[:2]]
        assert None not in originals, 'two docs of a topic share a hash: the lists would join their strings'
    for i, run in enumerate(runs[2:]):
        read = read_input(run, 'run')
        evaluation.results(read)
        if kind == 'pairing_floor':
            originals[i % 2].rows_of(*keys(read.table)[:2])
elif kind == 'evaluate_reference':
    import ir_measures
    evaluator = ir_measures.evaluator([ir_measures.parse_measure(text) for text in measures],
                                      ir_measures.read_trec_qrels(qrels))
    for run in runs[2:]:
        for _ in evaluator.iter_calc(ir_measures.read_trec_run(run)):
            pass
else:
    from irmeasures_ext.reproduce import Experiment
    experiment = Experiment(qrels, runs[0], runs[1], measures)
    for baseline, advanced in zip(runs[2::2], runs[3::2]):
        experiment.reproducibility(baseline, advanced, ranked_lists=kind == 'with_lists')
'''

REPRO_EVAL = '''
import sys, warnings
warnings.simplefilter('ignore')
import ir_measures
from repro_eval.Evaluator import RpdEvaluator
qrels, measures, original_b, original_a, reproduced_b, reproduced_a = sys.argv[1:]
rpd = RpdEvaluator(qrels_orig_path=qrels, run_b_orig_path=original_b, run_a_orig_path=original_a,
                   run_b_rep_path=reproduced_b, run_a_rep_path=reproduced_a)
rpd.measures = [ir_measures.parse_measure(measure) for measure in measures.split(',')]
rpd.trim()
rpd.evaluate()
for statistic in (rpd.rmse, rpd.nrmse, rpd.er, rpd.dri, rpd.ttest, rpd.ktu, rpd.rbo):
    statistic()
'''


def read_run(path: Path) -> pa.Table:
    return pacsv.read_csv(path, read_options=pacsv.ReadOptions(column_names=['query_id', 'q0', 'doc_id', 'rank',
                                                                             'score', 'tag']),
                          parse_options=pacsv.ParseOptions(delimiter=' '),
                          convert_options=pacsv.ConvertOptions(column_types={'query_id': pa.string(),
                                                                             'doc_id': pa.string()}))


def noisy_copy(run: pa.Table, rng: np.random.Generator, noise: float, path: Path) -> None:
    """``run`` with its scores moved by N(0, noise), rounded to 3 decimals, each query's lines by score descending."""
    scores = np.round(run['score'].to_numpy() + rng.normal(0, noise, run.num_rows), 3)
    moved = run.set_column(4, 'score', pa.array(scores))
    moved = moved.take(pc.sort_indices(moved, [('query_id', 'ascending'), ('score', 'descending')]))
    moved = moved.set_column(3, 'rank', pa.array(np.arange(moved.num_rows) % 1000 + 1))
    pacsv.write_csv(moved, path, pacsv.WriteOptions(include_header=False, delimiter=' ', quoting_style='none'))


def data() -> tuple[Path, list[Path]]:
    """(qrels, [original baseline, original advanced, then each reproduction's baseline and advanced])."""
    from datagen import paths
    qrels, run_1m = paths('1m')
    names = ['original_b', 'original_a'] + [f'rep{i}_{kind}' for i in range(REPRODUCTIONS) for kind in 'ba']
    runs = [DATA / f'{name}.txt' for name in names]
    if not all(path.exists() for path in runs):
        DATA.mkdir(parents=True, exist_ok=True)
        rng = np.random.default_rng(50)
        baseline = read_run(run_1m)
        pacsv.write_csv(baseline, runs[0], pacsv.WriteOptions(include_header=False, delimiter=' ',
                                                              quoting_style='none'))
        noisy_copy(baseline, rng, 0.3, runs[1])
        advanced = read_run(runs[1])
        for i in range(REPRODUCTIONS):
            noisy_copy(baseline, rng, 0.05 * (i + 1), runs[2 + 2 * i])
            noisy_copy(advanced, rng, 0.05 * (i + 1), runs[3 + 2 * i])
    return qrels, runs


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--repeat', type=int, default=3)
    parser.add_argument('--repro-eval-python', help='the interpreter of an environment with repro_eval 0.5.0')
    args = parser.parse_args()
    qrels, runs = data()
    arguments = [str(qrels), ','.join(MEASURES), *map(str, runs)]
    child = [sys.executable, '-c', CHILD]
    commands = {kind: ([*child, kind, *arguments], (qrels, *runs))
                for kind in ('evaluate', 'evaluate_reference', 'statistics', 'with_lists', 'pairing_floor')}
    compared = [('statistics', 'evaluate', 1.5), ('with_lists', 'evaluate', 1.5),
                ('pairing_floor', 'evaluate', 1.5)]  # (the floor: beside the target)
    if args.repro_eval_python:
        commands['one_reproduction'] = ([*child, 'with_lists', *arguments[:6]], (qrels, *runs[:4]))
        commands['repro_eval'] = ([args.repro_eval_python, '-c', REPRO_EVAL, *arguments[:6]], (qrels, *runs[:4]))
    load = [os.getloadavg()]
    seconds, peak_mb = interleaved_rounds(commands, args.repeat)
    load.append(os.getloadavg())
    ratios = target_ratios(seconds, compared)
    beside = _without_target(seconds, [('statistics', 'evaluate_reference'), ('with_lists', 'evaluate_reference')])
    reference = _without_target(seconds, [('repro_eval', 'one_reproduction')]) if args.repro_eval_python else {}
    lines = ['# Reproducibility statistics of 10 reproduced 1M-line runs', '',
             f'Measures: {", ".join(MEASURES)}. {args.repeat} rounds, each command a fresh process.', '',
             '| command | median s | min–max s | peak RSS MB |', '| --- | --- | --- | --- |',
             *(f'| {name} | {timing_cells(seconds, peak_mb, name)} |' for name in commands), '',
             *target_lines(ratios),
             *_reported(beside, _tools(sys.executable, 'ir-measures')),
             *(_reported(reference, _tools(args.repro_eval_python, 'repro-eval')) if args.repro_eval_python else []),
             '',
             f'Load average before and after: {load[0][0]:.2f}, {load[1][0]:.2f}; median evaluate '
             f'{statistics.median(seconds["evaluate"]):.2f} s.']
    report = '\n'.join(lines) + '\n'
    print(report)
    write_results('reproduce', rounds_record({name: command for name, (command, _) in commands.items()}, seconds,
                                             peak_mb, ratios | beside | reference, load), report)
    return 0


def _without_target(seconds: dict[str, list[float]], pairs: list[tuple[str, str]]) -> dict[str, dict]:
    """:func:`target_ratios` of the (command, command it is compared with) ``pairs``, reported with no target."""
    return {label: {**ratio, 'target': None}
            for label, ratio in target_ratios(seconds, [(name, base, math.inf) for name, base in pairs]).items()}


def _tools(python: str, package: str) -> str:
    """``package`` and pytrec_eval-terrier with their versions in the environment of the interpreter ``python``."""
    return f'{package} {_version(python, package)}, pytrec-eval-terrier {_version(python, "pytrec-eval-terrier")}'


def _reported(ratios: dict[str, dict], tools: str) -> list[str]:
    """A report line per ratio with no target (of :func:`target_ratios`), naming the reference ``tools``."""
    return [f'- {label} (reported): {ratio["of_medians"]:.2f}× on medians; within each round '
            f'{ratio["per_round"][0]:.2f}–{ratio["per_round"][-1]:.2f}× ({tools})' for label, ratio in ratios.items()]


def _version(python: str, package: str) -> str:
    """``package``'s version in the environment of the interpreter ``python``."""
    code = f'from importlib import metadata; print(metadata.version({package!r}))'
    return subprocess.run([python, '-c', code], capture_output=True, text=True, check=True).stdout.strip()


if __name__ == '__main__':
    sys.exit(main())
