"""The ``irmeasures-ext`` command (also ``python -m irmeasures_ext``).

``irmeasures-ext QRELS RUN [MEASURE...]`` works like the ``ir_measures`` command (``-q``, ``-n``,
``-p``, ``-o tsv|jsonl``, ``--provider``) plus ``--suite NAME``; ``irmeasures-ext crosscheck``
compares our provider with pytrec_eval; ``irmeasures-ext datasets`` is ir_datasets' command
line with this package's datasets registered. Bad input ends with one line on stderr naming
the file, line and problem, and exit status 2.
"""
from __future__ import annotations

import argparse
import ast
import contextlib
import importlib
import importlib.util
import json
import os
import shutil
import sys
import tempfile
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import ir_measures
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from ir_measures import Metric
from ir_measures.measures import Measure

from irmeasures_ext import trec_files
from irmeasures_ext.errors import InputError, IrMeasuresExtError
from irmeasures_ext.frames import iter_calc
from irmeasures_ext.provider import aggregate
from irmeasures_ext.provider import provider as ext_provider
from irmeasures_ext.suites import SUITES
from irmeasures_ext.tables import as_qrels_table, as_run_table

PROG = 'irmeasures-ext'
DEFAULT_PLACES = 4
SUMMARY_QID = 'all'
TOLERANCE = 1e-9
EXIT_DIFFER = 1
EXIT_ERROR = 2
STDIN = '-'
#: What ``crosscheck`` compares when no MEASURE is given: every measure both providers compute.
CROSSCHECK_MEASURES = 'AP AP@10 P@5 P@10 R@10 R@100 RR nDCG nDCG@10 Rprec Success@1 Success@10 NumRel NumRet'
#: Differing queries listed per measure by ``crosscheck``.
MAX_LISTED = 10

T = TypeVar('T')


class CliError(IrMeasuresExtError):
    """A problem with the command line's arguments (not with the data)."""


def main(argv: list[str] | None = None) -> int:
    """Runs the command with ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    commands: dict[str, Callable[[list[str]], int]] = {'crosscheck': _crosscheck, 'datasets': _datasets}
    command = commands.get(argv[0]) if argv else None
    try:
        return command(argv[1:]) if command else _evaluate(argv)
    except SystemExit as exit_:  # argparse (usage errors, --help) and ir_datasets' command line
        return exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else EXIT_ERROR)
    except BrokenPipeError:  # `irmeasures-ext ... | head`: stop quietly, as the Python docs advise
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except (ValueError, OSError) as error:  # IrMeasuresExtError is a ValueError
        print(f'{PROG}: error: {error}', file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except Exception as error:  # a failing third-party provider (e.g. ir_measures' gdeval for ERR)
        print(f'{PROG}: error: {type(error).__name__}: {error}', file=sys.stderr)
        return EXIT_ERROR


# --- the evaluation command ----------------------------------------------------------------------

def _evaluate(argv: list[str]) -> int:
    parser = _evaluate_parser()
    args = parser.parse_intermixed_args(argv)
    if args.no_summary and not args.by_query:
        parser.error('--no_summary (-n) only applies with --by_query (-q)')
    if args.places < -1:
        parser.error('--places must be >= 0, or -1 for all digits')
    measures = _parse_measures(args.measures) + [m for name in args.suite or [] for m in SUITES[name]]
    measures = list(dict.fromkeys(measures))
    if not measures:
        parser.error('give at least one MEASURE or --suite NAME')
    if args.output_format == 'jsonl' and args.places != DEFAULT_PLACES:
        print(f'{PROG}: --places is ignored with --output_format jsonl', file=sys.stderr)
    with contextlib.ExitStack() as stack:
        qrels, run, files = _load(args.qrels, args.run, stack)
        per_query = _checked(files, lambda: _per_query(iter_calc(measures, qrels, run, args.provider)))
    write = _writer(args.output_format, args.places, args.by_query)
    if args.by_query:
        for query_id in sorted({q for values in per_query.values() for q in values}):
            for measure in measures:
                write(Metric(query_id, measure, per_query[measure][query_id]))
    if not args.no_summary:
        for measure in measures:
            write(Metric(SUMMARY_QID, measure, aggregate(measure, per_query[measure].values())))
    return 0


def _evaluate_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG,
        description='Evaluate a TREC run, like the ir_measures command, with the measures of irmeasures_ext. '
                    'Other commands: "irmeasures-ext crosscheck QRELS RUN [MEASURE...]" compares irmeasures_ext '
                    'with pytrec_eval; "irmeasures-ext datasets ..." is ir_datasets\' command line with this '
                    'package\'s datasets (e.g. "irmeasures-ext datasets list").',
        epilog='Files may be gzipped. Measures use ir_measures syntax, e.g. "Q@10" "nDCG_Z1@5" '
               '"Q(beta=0.5)@10" RR@100 MedianRank; several may share one argument ("P@10 nDCG@10").')
    _add_inputs(parser)
    parser.add_argument('measures', nargs='*', metavar='MEASURE', help='measures to compute')
    parser.add_argument('--suite', action='append', choices=sorted(SUITES),
                        help='add the measures of a benchmark suite (repeatable): '
                             + '; '.join(f'{name}: {" ".join(map(str, ms))}' for name, ms in SUITES.items()))
    parser.add_argument('--places', '-p', type=int, default=DEFAULT_PLACES,
                        help=f'decimal places in tsv output (default {DEFAULT_PLACES}; -1: all)')
    parser.add_argument('--by_query', '-q', action='store_true',
                        help=f'one row per query and measure, then the summary rows (query id "{SUMMARY_QID}")')
    parser.add_argument('--no_summary', '-n', action='store_true', help='with -q: leave out the summary rows')
    parser.add_argument('--output_format', '-o', choices=['tsv', 'jsonl'], default='tsv')
    parser.add_argument('--provider', metavar='NAME', choices=sorted(ir_measures.providers.registry),
                        help='compute every measure with this ir_measures provider '
                             f'({", ".join(sorted(ir_measures.providers.registry))}). Default: the '
                             f'{ext_provider.NAME} provider for the measures it supports (the fast columnar path, '
                             "with trec_eval's tie rule), ir_measures' DefaultPipeline for the others. Either way "
                             f'the inputs are checked by {ext_provider.NAME} (duplicate docs, conflicting qrels, '
                             'non-finite scores)')
    return parser


def _add_inputs(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('qrels', metavar='QRELS', help='TREC qrels file, or an ir_datasets id with qrels')
    parser.add_argument('run', metavar='RUN', help=f'TREC run file ("{STDIN}": read it from standard input)')


def _parse_measures(texts: Iterable[str]) -> list[Measure]:
    """Parses each argument as one measure or, failing that, as whitespace-separated measures."""
    measures = []
    for text in texts:
        try:
            measures.append(_parse_measure(text))
        except _MeasureSyntaxError:
            if len(text.split()) < 2:
                raise
            measures.extend(_parse_measure(part) for part in text.split())
    return measures


class _MeasureSyntaxError(CliError):
    """A measure argument is not of the form ``Name(param=value, ...)@cutoff``."""


def _parse_measure(text: str) -> Measure:
    """Parses and validates ``Name``, ``Name@k`` or ``Name(param=value, ...)@k``.

    The syntax is ir_measures', but values may be any Python literal: ir_measures' parser
    rejects negative numbers, so ``Q(beta=-1)`` would never reach the measure's own check.
    """
    try:
        node = ast.parse(text.strip(), mode='eval').body
        params = {}
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
            params['@'] = ast.literal_eval(node.right)
            node = node.left
        if isinstance(node, ast.Call) and not node.args:
            params.update((keyword.arg, ast.literal_eval(keyword.value)) for keyword in node.keywords)
            node = node.func
    except (SyntaxError, ValueError):  # literal_eval: ValueError for anything but a literal
        node = None
    if not isinstance(node, ast.Name):
        raise _MeasureSyntaxError(f'bad measure {text!r}: expected Name, Name@cutoff or Name(param=value, ...)@cutoff')
    if node.id not in ir_measures.measures.registry:
        raise CliError(f'unknown measure {node.id!r} (names are case-sensitive, e.g. nDCG@10, Q@10, RR)')
    prototype = ir_measures.measures.registry[node.id]
    if '@' in params:
        params[prototype.AT_PARAM] = params.pop('@')
    try:
        measure = prototype(**params)
        measure.validate_params()
    except (ValueError, TypeError, AssertionError) as error:  # ir_measures' own checks assert
        raise CliError(f'bad measure {text!r}: {error}') from None
    return measure


def _per_query(metrics: Iterable[Metric]) -> dict[Measure, dict[str, float]]:
    """Per-query values by measure and query id."""
    values: dict[Measure, dict[str, float]] = defaultdict(dict)
    for metric in metrics:
        values[metric.measure][metric.query_id] = metric.value
    return values


def _writer(output_format: str, places: int, by_query: bool) -> Callable[[Metric], None]:
    """A function printing one result line as the ir_measures command does."""
    def write_jsonl(metric: Metric) -> None:
        record = {'query_id': metric.query_id, 'measure': str(metric.measure), 'value': metric.value}
        if not by_query:
            del record['query_id']
        sys.stdout.write(json.dumps(record) + '\n')

    spec = '' if places == -1 else f'.{places}f'

    def write_tsv(metric: Metric) -> None:
        fields = [metric.query_id] if by_query else []
        sys.stdout.write('\t'.join(fields + [str(metric.measure), format(metric.value, spec)]) + '\n')

    return write_jsonl if output_format == 'jsonl' else write_tsv


# --- inputs and their errors ---------------------------------------------------------------------

@dataclass(frozen=True)
class _File:
    """A run or qrels file of the command line (``path`` is a temporary copy for standard input)."""

    kind: str  # 'run' or 'qrels'
    name: str  # as shown in messages
    path: Path


def _load(qrels_arg: str, run_arg: str, stack: contextlib.ExitStack) -> tuple[Any, Any, list[_File]]:
    """The qrels and run to evaluate (file paths, or ir_datasets qrels records) and the files among them."""
    if qrels_arg == STDIN:
        raise CliError(f'only RUN may be "{STDIN}" (standard input)')
    run = _File('run', '<stdin>', _copy_stdin(stack)) if run_arg == STDIN else _File('run', run_arg, Path(run_arg))
    if os.path.exists(qrels_arg):  # a directory too: the reader names it as the problem
        qrels = _File('qrels', qrels_arg, Path(qrels_arg))
        return qrels.path, run.path, [qrels, run]
    return _ir_datasets_qrels(qrels_arg), run.path, [run]


def _copy_stdin(stack: contextlib.ExitStack) -> Path:
    path = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix='irmeasures-ext-'))) / 'stdin'
    with open(path, 'wb') as handle:
        shutil.copyfileobj(sys.stdin.buffer, handle)
    return path


def _ir_datasets_qrels(dataset_id: str) -> Any:
    import ir_datasets
    _register_datasets()
    try:
        dataset = ir_datasets.load(dataset_id)
    except KeyError:
        raise InputError(f'{dataset_id}: no such file, nor an ir_datasets id') from None
    if not dataset.has_qrels():
        raise InputError(f'ir_datasets id {dataset_id!r} has no qrels')
    return dataset.qrels_iter()


def _register_datasets() -> None:
    """Registers this package's datasets with ir_datasets (if this version has them)."""
    if importlib.util.find_spec('irmeasures_ext.datasets') is not None:
        importlib.import_module('irmeasures_ext.datasets').register()


def _checked(files: list[_File], compute: Callable[[], T]) -> T:
    """Runs ``compute``; an InputError from it is re-raised naming the file and line at fault.

    Errors found while reading already name them; errors found later (duplicate docs,
    conflicting qrels labels) name a query and doc, so the files are parsed again to find the line.
    """
    try:
        return compute()
    except InputError as error:
        located: Exception = error
        if not isinstance(error, trec_files.TrecFileError):
            for file in files:
                try:
                    trec_files.find_problem(file.path, file.kind)
                except trec_files.TrecFileError as problem:
                    located = problem
                    break
        message = str(located)
        for file in files:
            message = message.replace(str(file.path), file.name)
        raise InputError(message) from None


# --- crosscheck ----------------------------------------------------------------------------------

def _crosscheck(argv: list[str]) -> int:
    reference = 'pytrec_eval'
    parser = argparse.ArgumentParser(
        prog=f'{PROG} crosscheck',
        description=f'Compare {ext_provider.NAME} with {reference} on every measure both compute, per query '
                    f'and aggregated. Prints the largest absolute difference per measure and the queries that '
                    f'differ; exits with {EXIT_DIFFER} if any differ by more than {TOLERANCE:g}.')
    _add_inputs(parser)
    parser.add_argument('measures', nargs='*', metavar='MEASURE', help=f'default: {CROSSCHECK_MEASURES}')
    parser.add_argument('--explain-rr', type=int, metavar='K',
                        help="also compare RR@K with ir_measures' default provider for it (msmarco, which breaks "
                             'score ties by doc_id ascending; trec_eval and irmeasures_ext: descending) and show '
                             'a query where they differ')
    args = parser.parse_intermixed_args(argv)
    if args.explain_rr is not None and args.explain_rr < 1:
        parser.error('--explain-rr K needs K >= 1')
    measures = list(dict.fromkeys(_parse_measures(args.measures or [CROSSCHECK_MEASURES])))
    other = ir_measures.providers.registry[reference]
    unshared = [str(m) for m in measures if not (ext_provider.supports(m) and other.supports(m))]
    if unshared:
        raise CliError(f'not computed by both {ext_provider.NAME} and {reference}: {" ".join(unshared)}')
    with contextlib.ExitStack() as stack:
        qrels, run, files = _load(args.qrels, args.run, stack)
        qrels, run = _checked(files, lambda: (as_qrels_table(qrels), as_run_table(run)))
        ours, theirs = (_checked(files, lambda name=name: _per_query(iter_calc(measures, qrels, run, name)))
                        for name in (ext_provider.NAME, reference))
    _fill_num_rel_of_absent_queries(measures, ours, theirs, run)
    differ = _report_differences(measures, ours, theirs, reference)
    if args.explain_rr is not None:
        _explain_rr(ir_measures.RR @ args.explain_rr, qrels, run)
    return EXIT_DIFFER if differ else 0


def _fill_num_rel_of_absent_queries(measures: list[Measure], ours: dict, theirs: dict, run: pa.Table) -> None:
    """pytrec_eval never sees qrels queries absent from the run, so ir_measures fills 0 for them; we
    report R there, as ``trec_eval -c`` does. Those NumRel values have no reference: not compared."""
    retrieved = set(pc.unique(run['query_id']).to_pylist())
    for measure in measures:
        absent = [q for q in ours[measure] if q not in retrieved]
        if measure.NAME == 'NumRel' and absent:
            theirs[measure].update((q, ours[measure][q]) for q in absent)
            print(f'note: {measure} of the {len(absent)} qrels queries absent from the run is R (trec_eval -c), '
                  f"where ir_measures' pytrec_eval wrapper gives 0; those are not compared", file=sys.stderr)


def _differences(ours: dict[str, float], theirs: dict[str, float]) -> dict[str, tuple[float, float]]:
    """The queries whose values differ by more than TOLERANCE, with both values."""
    return {q: (ours[q], theirs[q]) for q in sorted(ours) if abs(ours[q] - theirs[q]) > TOLERANCE}


def _report_differences(measures: list[Measure], ours: dict, theirs: dict, reference: str) -> bool:
    """Prints the comparison table and the differing queries; returns whether any measure differs."""
    print(f'measure\tmax_abs_diff\tqueries_differing\t{ext_provider.NAME}\t{reference}')
    listings = []
    for measure in measures:
        ours_mean, theirs_mean = (aggregate(measure, v[measure].values()) for v in (ours, theirs))
        gaps = [abs(ours[measure][q] - theirs[measure][q]) for q in ours[measure]] + [abs(ours_mean - theirs_mean)]
        differing = _differences(ours[measure], theirs[measure])
        print(f'{measure}\t{max(gaps):.3g}\t{len(differing)}/{len(ours[measure])}\t{ours_mean:.6g}\t{theirs_mean:.6g}')
        if differing or max(gaps) > TOLERANCE:
            listings.append(f'{measure} differs on: ' + _list_queries(differing))
    print('\n'.join(listings) if listings else
          f'all {len(measures)} measures agree with {reference} within {TOLERANCE:g}')
    return bool(listings)


def _list_queries(differing: dict[str, tuple[float, float]]) -> str:
    shown = [f'{q} ({a:.6g} vs {b:.6g})' for q, (a, b) in list(differing.items())[:MAX_LISTED]]
    more = len(differing) - len(shown)
    return ', '.join(shown + ([f'and {more} more'] if more else [])) or 'the aggregate only'


def _explain_rr(measure: Measure, qrels: pa.Table, run: pa.Table) -> None:
    """Compares our RR@k with ir_measures' default provider for it and shows one differing query."""
    default = next(p for p in ir_measures.DefaultPipeline.providers if p.is_available() and p.supports(measure))
    ours, theirs = (_per_query(iter_calc([measure], qrels, run, name))[measure]
                    for name in (ext_provider.NAME, default.NAME))
    differing = _differences(ours, theirs)
    print(f"\n{measure}: {ext_provider.NAME} (ties: doc_id descending, as trec_eval) vs ir_measures' default "
          f'provider {default.NAME}: {len(differing)} of {len(ours)} queries differ; mean '
          f'{aggregate(measure, ours.values()):.6g} vs {aggregate(measure, theirs.values()):.6g}')
    if differing:
        query_id = next(iter(differing))
        print(f'example: query {query_id}: ' + _rank_story(query_id, measure, qrels, run, default.NAME))


def _rank_story(query_id: str, measure: Measure, qrels: pa.Table, run: pa.Table, other: str) -> str:
    """Where each tie rule puts the first relevant doc of one query, and the docs tied with it."""
    judged = qrels.filter(pc.equal(qrels['query_id'], query_id))
    relevant = set(judged.filter(pc.greater_equal(judged['relevance'], measure['rel']))['doc_id'].to_pylist())
    rows = run.filter(pc.equal(run['query_id'], query_id))
    docs = list(zip(rows['doc_id'].to_pylist(), rows['score'].to_pylist(), strict=True))
    # trec_eval compares scores as 32-bit floats (see irmeasures_ext.ranking); msmarco as given.
    trec_order = sorted(docs, key=lambda d: (np.float32(d[1]), d[0]), reverse=True)
    msmarco_order = sorted(docs, key=lambda d: (-d[1], d[0]))
    return '; '.join(f'{name} {_first_relevant(order, relevant, measure)}'
                     for name, order in ((ext_provider.NAME, trec_order), (other, msmarco_order)))


def _first_relevant(order: list[tuple[str, float]], relevant: set[str], measure: Measure) -> str:
    for rank, (doc, score) in enumerate(order, start=1):
        if doc in relevant:
            value = 1 / rank if rank <= measure['cutoff'] else 0.0
            tied = sorted(d for d, s in order if s == score)
            ties = f' ({len(tied)} docs tie at that score: {" ".join(tied[:MAX_LISTED])})' if len(tied) > 1 else ''
            return f'ranks relevant doc {doc!r} (score {score:g}) at {rank}{ties}, so {measure} = {value:.4g}'
    return f'retrieves no relevant doc, so {measure} = 0'


# --- datasets ------------------------------------------------------------------------------------

def _datasets(argv: list[str]) -> int:
    """ir_datasets' own command line, with this package's datasets registered."""
    import ir_datasets
    _register_datasets()
    ir_datasets.main(argv)
    return 0
