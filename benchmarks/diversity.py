"""ndeval's diversity measures on our command, against our five-measure command and pyndeval (issue 37, §5).

    python benchmarks/diversity.py [--repeat 5]

On the 1M-line benchmark run (benchmarks/data/1m, see datagen.py) and diversity qrels made from its qrels
(``qrels.diversity.txt`` beside them, written on first use: each judged doc of the 1m qrels judged for 1 to 3 of
its query's 5 intents, with its label or one less; seeded), each round runs, in a rotating order, each in a fresh
process (common.run_measured):

- ``five``: ``python -m irmeasures_ext QRELS RUN --suite quoter Q@1000 nDCG@5 RR@100 R@100 AP`` (the 1m qrels);
- ``diversity``: ``python -m irmeasures_ext QRELS.diversity RUN`` with ndeval's 21 measures (``MEASURES``:
  alpha_nDCG, alpha_DCG, ERR_IA, nERR_IA, P_IA and StRecall at 5, 10 and 20, NRBP, nNRBP and AP_IA);
- ``pyndeval``: a Python process reading the same files with ``ir_measures.read_trec_qrels``/``read_trec_run``
  and computing the same 21 measures with ir_measures' pyndeval provider (one setting: one pyndeval pass);
- ``ntcireval -I``: ``python -m irmeasures_ext ntcireval QRELS.diversity RUN -I DINPROB -cutoffs 10,20``, every line
  of NTCIREVAL's diversity mode (36 at each cutoff, 24 without one since issue 47: DIN-NTCIR-eval's every line and
  SUMp), with ``DINprob.diversity.txt`` beside the qrels (each query's 5 intents, probabilities of 4 decimals summing
  to 1, one or two navigational; seeded).

A warm-up round is not counted. Reports medians and the issues' targets: ``diversity`` ≤ 3× ``five``, ``ntcireval
-I`` ≤ 2× (issue 47, with every line; 3× before), and ``diversity`` faster than ``pyndeval``; as ratios of the
medians and per round. Writes benchmarks/results/diversity-<date>.md and .json.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np
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

MEASURES = [f'{name}@{k}' for k in (5, 10, 20) for name in ('alpha_nDCG', 'alpha_DCG', 'ERR_IA', 'nERR_IA', 'P_IA',
                                                          'StRecall')] + ['NRBP', 'nNRBP', 'AP_IA']
INTENTS = 5
#: The issue's targets: (command, the command it is compared with, the largest ratio allowed).
TARGETS = [('diversity', 'five', 3.0), ('ntcireval -I', 'five', 2.0), ('diversity', 'pyndeval', 1.0)]
PYNDEVAL = '''
import sys, ir_measures
qrels = list(ir_measures.read_trec_qrels(sys.argv[1]))
run = list(ir_measures.read_trec_run(sys.argv[2]))
measures = [ir_measures.parse_measure(m) for m in sys.argv[3:]]
values = list(ir_measures.providers.registry['pyndeval'].evaluator(measures, qrels).iter_calc(run))
print(len(values))
'''


def diversity_qrels(qrels: Path) -> Path:
    """``qrels.diversity.txt`` beside ``qrels``: each judged doc judged for 1 to 3 of ``INTENTS`` intents, with
    its label or one less (not below 0); written once, seeded."""
    target = qrels.with_name('qrels.diversity.txt')
    if not target.exists():
        rng = np.random.default_rng(20261204)
        with open(qrels) as lines, open(f'{target}.part', 'w') as out:
            for line in lines:
                query_id, _, doc_id, label = line.split()
                for intent in rng.choice(INTENTS, rng.integers(1, 4), replace=False) + 1:
                    out.write(f'{query_id} {intent} {doc_id} {max(0, int(label) - int(rng.integers(0, 2)))}\n')
        os.replace(f'{target}.part', target)
    return target


def intent_probabilities(dqrels: Path) -> Path:
    """``DINprob.diversity.txt`` beside ``dqrels``: P(i|q) of each query's ``INTENTS`` intents (4 decimals summing
    to 1) and their types (one or two navigational); written once, seeded."""
    target = dqrels.with_name('DINprob.diversity.txt')
    if not target.exists():
        rng = np.random.default_rng(20261205)
        with open(dqrels) as lines:
            queries = list(dict.fromkeys(line.split(maxsplit=1)[0] for line in lines))
        with open(f'{target}.part', 'w') as out:
            for query_id in queries:
                weights = np.round(rng.dirichlet(np.ones(INTENTS)) * 10_000).astype(int)
                weights[np.argmax(weights)] += 10_000 - weights.sum()  # (4 decimals that sum to 1 exactly)
                navigational = set(rng.choice(INTENTS, rng.integers(1, 3), replace=False) + 1)
                for intent, weight in enumerate(weights, start=1):
                    kind = 'nav' if intent in navigational else 'inf'
                    out.write(f'{query_id} {intent} {weight / 10_000:.4f} {kind}\n')
        os.replace(f'{target}.part', target)
    return target


def commands(qrels: Path, run: Path, dqrels: Path) -> dict[str, tuple[list[str], tuple[Path, ...]]]:
    """name -> (the command, its input files)."""
    ours = [sys.executable, '-m', 'irmeasures_ext']
    return {
        'five': ([*ours, str(qrels), str(run), '--suite', 'quoter', 'Q@1000', 'nDCG@5', 'RR@100', 'R@100', 'AP'],
                 (qrels, run)),
        'diversity': ([*ours, str(dqrels), str(run), *MEASURES], (dqrels, run)),
        'pyndeval': ([sys.executable, '-c', PYNDEVAL, str(dqrels), str(run), *MEASURES], (dqrels, run)),
        'ntcireval -I': ([*ours, 'ntcireval', str(dqrels), str(run), '-I', str(intent_probabilities(dqrels)),
                          '-cutoffs', '10,20'], (dqrels, run)),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--repeat', type=int, default=5)
    args = parser.parse_args()
    if install_kind() != 'regular':
        sys.exit(f'irmeasures_ext is {install_kind()} here: benchmark a regular install (benchmarks/README.md)')
    qrels, run = paths('1m')
    measured = commands(qrels, run, diversity_qrels(qrels))
    drop_cached_libraries()
    load_before = os.getloadavg()
    seconds, peak_mb = interleaved_rounds(measured, args.repeat)
    load_after = os.getloadavg()
    ratios = target_ratios(seconds, TARGETS)
    lines = [f'# ndeval\'s measures: our command against the five-measure command and pyndeval — '
             f'{time.strftime("%Y-%m-%d %H:%M")}', '',
             f'Whole processes on `benchmarks/data/1m` (1,000 queries, 1M run lines; diversity qrels of {INTENTS} '
             f'intents a query); medians of {args.repeat} interleaved rounds after a warm-up round. Machine: '
             f'{machine()}.', f'Load average before/after: {load_before[0]:.2f} / {load_after[0]:.2f}.', '',
             f'Measures (diversity, pyndeval): {" ".join(MEASURES)}.', '',
             '| command | process s (median) | min–max | peak RSS MB |', '| --- | --- | --- | --- |']
    lines += [f'| {name} | {timing_cells(seconds, peak_mb, name)} |' for name in measured]
    lines += ['', '## Targets (issue 37, §5)', '']
    lines += target_lines(ratios)
    write_results('diversity', rounds_record({name: command for name, (command, _) in measured.items()}, seconds,
                                             peak_mb, ratios, [load_before, load_after]), '\n'.join(lines) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
