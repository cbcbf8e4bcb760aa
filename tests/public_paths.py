"""The paths a user takes to our numbers, as functions returning ``{(measure string, query id): value}``.

Property tests compare each of them with an independent reference, so that a wrong number
anywhere a user can see it fails a test: ``ir_measures.iter_calc`` (the default pipeline, which
gives our measures to our provider), our provider asked by name, and the ``irmeasures-ext``
command (run in-process on TREC files written from the same data, ``-q`` with the summary rows).
"""
from __future__ import annotations

import contextlib
import io
import json
import tempfile
from collections.abc import Mapping
from pathlib import Path

import ir_measures

from irmeasures_ext.cli import main

SUMMARY = 'all'
Values = dict[tuple[str, str], float]


class CommandError(Exception):
    """The command exited with a non-zero status; the message is what it printed on stderr."""


def via_ir_measures(measures: list, qrels: Mapping, run: Mapping) -> tuple[Values, dict[str, float]]:
    """Per-query values from ``ir_measures.iter_calc`` and aggregates from ``ir_measures.calc_aggregate``."""
    per_query = {(str(m.measure), m.query_id): m.value for m in ir_measures.iter_calc(measures, qrels, run)}
    aggregates = {str(m): v for m, v in ir_measures.calc_aggregate(measures, qrels, run).items()}
    return per_query, aggregates


def via_provider(measures: list, qrels: Mapping, run: Mapping) -> tuple[Values, dict[str, float]]:
    """Our provider by name: an evaluator's ``iter_calc`` and the provider's ``calc_aggregate``."""
    provider = ir_measures.providers.registry['irmeasures_ext']
    per_query = {(str(m.measure), m.query_id): m.value for m in provider.evaluator(measures, qrels).iter_calc(run)}
    aggregates = {str(m): v for m, v in provider.calc_aggregate(measures, qrels, run).items()}
    return per_query, aggregates


def write_trec_files(directory: Path, qrels: Mapping, run: Mapping) -> tuple[str, str]:
    """Writes dict-of-dict qrels and run as TREC files (the run's rank column is the line number; qrels values
    ``(label, class)`` give five-field lines)."""
    qrels_path, run_path = directory / 'qrels.txt', directory / 'run.txt'
    qrels_path.write_text(''.join(f'{q} 0 {d} {" ".join(map(str, value)) if isinstance(value, tuple) else value}\n'
                                  for q, docs in qrels.items() for d, value in docs.items()), encoding='utf-8')
    lines = [f'{q} Q0 {d} {i} {score!r} tag\n'
             for i, (q, d, score) in enumerate(((q, d, s) for q, docs in run.items() for d, s in docs.items()), 1)]
    run_path.write_text(''.join(lines), encoding='utf-8')
    return str(qrels_path), str(run_path)


def via_cli(measures: list, qrels: Mapping, run: Mapping) -> tuple[Values, dict[str, float]]:
    """``irmeasures-ext QRELS RUN MEASURE... -q -o jsonl`` on TREC files of the data (the run needs a line)."""
    with tempfile.TemporaryDirectory() as directory:
        files = write_trec_files(Path(directory), qrels, run)
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main([*files, *map(str, measures), '-q', '-o', 'jsonl'])
    if status:
        raise CommandError(f'exit status {status}: {err.getvalue()}')
    per_query, aggregates = {}, {}
    for line in out.getvalue().splitlines():
        record = json.loads(line)
        if record['query_id'] == SUMMARY:
            aggregates[record['measure']] = record['value']
        else:
            per_query[record['measure'], record['query_id']] = record['value']
    return per_query, aggregates
