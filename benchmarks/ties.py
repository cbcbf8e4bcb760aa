"""Cost of the tie policies: each policy against the default (``trec_eval``) on the same run.

    python benchmarks/ties.py [--size 1m] [--repeat 5]

Uses the data of benchmarks/run.py (datagen.py; its scores are rounded to 3 decimals, so most
queries have many tie groups). Every measurement is a fresh process, interleaved: ``timed`` is the
child's own clock around ``provider.configured(ties=POLICY).calc_aggregate(measures, qrels_path,
run_path)`` (after imports), ``process`` the whole ``irmeasures-ext --ties POLICY`` command.
Measures: those with a kernel for every policy (the QuoteR suite, Q@1000, nDCG@5, RR@100, R@100,
AP). Writes benchmarks/results/ties-<size>-<date>.md/.json. Target: ``expected`` ≤ 2× the default.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from common import child_environment, machine, run_measured, write_results  # noqa: E402

POLICIES = ('trec_eval', 'optimistic', 'pessimistic', 'expected')
MEASURES = ['RR', 'nDCG_Z1@5', 'Success@1', 'Success@10', 'Success@100', 'MedianRank', 'MeanRank',
            'Q@1000', 'nDCG@5', 'RR@100', 'R@100', 'AP']


def _child(policy: str, qrels: str, run: str) -> None:
    """Times one in-process evaluation under ``policy``; prints {"seconds", "values"}."""
    import ir_measures

    import irmeasures_ext
    import irmeasures_ext.engine.evaluator  # noqa: F401  (loaded by the provider on first use)
    provider = irmeasures_ext.provider.configured(ties=policy)
    measures = [ir_measures.parse_measure(text) for text in MEASURES]
    start = time.perf_counter()
    values = provider.calc_aggregate(measures, qrels, run)
    print(json.dumps({'seconds': time.perf_counter() - start, 'values': {str(m): v for m, v in values.items()}}))


def _measure(kind: str, policy: str, qrels: Path, run: Path) -> dict:
    if kind == 'timed':
        command = [sys.executable, str(Path(__file__).resolve()), '--child', policy, str(qrels), str(run)]
    else:
        command = [sys.executable, '-m', 'irmeasures_ext', str(qrels), str(run), '--ties', policy, *MEASURES]
    with tempfile.TemporaryFile() as out:
        seconds, peak_mb = run_measured(command, child_environment(), stdout=out, inputs=(qrels, run))
        out.seek(0)
        output = out.read().decode()
    result = {'process_seconds': seconds, 'peak_rss_mb': peak_mb}
    if kind == 'timed':
        result.update(json.loads(output.strip().splitlines()[-1]))
    return result


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--size', default='1m')
    parser.add_argument('--repeat', type=int, default=5)
    parser.add_argument('--child', nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(*args.child)
        return 0
    from datagen import paths
    qrels, run = paths(args.size)
    keys = [(kind, policy) for policy in POLICIES for kind in ('timed', 'process')]
    runs: dict[str, list[dict]] = {f'{kind} {policy}': [] for kind, policy in keys}
    load_before = os.getloadavg()
    for round_no in range(args.repeat):
        shift = round_no % len(keys)
        for kind, policy in keys[shift:] + keys[:shift]:
            runs[f'{kind} {policy}'].append(_measure(kind, policy, qrels, run))
            print(f'  [{round_no + 1}/{args.repeat}] {kind} {policy}: '
                  f'{runs[f"{kind} {policy}"][-1]["process_seconds"]:.2f} s', flush=True)
    median = {name: {field: statistics.median(r[field] for r in rows) for field in rows[0] if field != 'values'}
              for name, rows in runs.items()}
    lines = [f'# Tie policies, {args.size} — {time.strftime("%Y-%m-%d %H:%M")}', '',
             f'Medians of {args.repeat} interleaved fresh processes. Measures: `{" ".join(MEASURES)}`.',
             f'Machine: {json.dumps(machine())}.',
             f'Load average before/after: {load_before[0]:.2f} / {os.getloadavg()[0]:.2f}.', '',
             '| policy | timed s | × default | whole process s | × default | peak RSS MB |',
             '| --- | --- | --- | --- | --- | --- |']
    base_timed, base_process = median['timed trec_eval']['seconds'], median['process trec_eval']['process_seconds']
    for policy in POLICIES:
        timed, process = median[f'timed {policy}']['seconds'], median[f'process {policy}']['process_seconds']
        lines.append(f'| {policy} | {timed:.3f} | {timed / base_timed:.2f} | {process:.2f} | '
                     f'{process / base_process:.2f} | {median[f"process {policy}"]["peak_rss_mb"]:.0f} |')
    expected_ratio = median['timed expected']['seconds'] / base_timed
    lines += ['', f'Target `expected` ≤ 2× the default (timed): {"met" if expected_ratio <= 2 else "MISSED"} '
              f'({expected_ratio:.2f}×).', '', '## Values (first timed run of each policy)', '',
              '| measure | ' + ' | '.join(POLICIES) + ' |', '| --- |' + ' --- |' * len(POLICIES)]
    for measure in MEASURES:
        lines.append(f'| {measure} | ' + ' | '.join(f'{runs[f"timed {p}"][0]["values"][measure]:.6f}'
                                                    for p in POLICIES) + ' |')
    write_results(f'ties-{args.size}', {'runs': runs, 'median': median}, '\n'.join(lines) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
