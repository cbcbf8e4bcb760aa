"""``irmeasures-ext fuse RUN RUN... -o OUTPUT``: fuses runs into one (:func:`irmeasures_ext.fusion.fuse`: ranx's
methods and normalisations) and writes it, a TREC file or, for a name ending .parquet (.arrow), a columnar one
(:func:`irmeasures_ext.ir_metadata.write_run`), with the ir_metadata of ``--metadata FILE`` if given; trains a
supervised method (``--train-qrels``, ``--train-runs``) or tunes a method's parameters for a measure
(``--optimize MEASURE --qrels QRELS``, cross-validated with ``--folds K``).

``--method`` and ``--norm`` take ranx's names; ``--param NAME=VALUE`` a method's parameter (``k=60``, ``gamma=1``,
``phi=0.8``, ``sigma=0.01``; a supervised method's training: ``n_segments`` of probfuse, ``w`` of slidefuse),
``--weights W...`` one weight a run. An existing OUTPUT is replaced only with ``--overwrite``.

* **Training** (posfuse, probfuse, segfuse, slidefuse, mapfuse, bayesfuse: :func:`irmeasures_ext.fusion.train`):
  ``--train-runs`` are the same systems' runs on training queries, one per RUN in its order, ``--train-qrels`` their
  judgments; the training queries are those of ``--train-qrels``. A query to fuse that is a training query is a leak,
  refused unless ``--allow-train-test-overlap``.
* **Tuning** (:mod:`irmeasures_ext.fusion.tuning`): ``--optimize MEASURE --qrels QRELS`` searches the grid
  (``--grid NAME=V1,V2,...``, else :func:`~irmeasures_ext.fusion.default_grid`) on the queries of QRELS, a supervised
  method trained on them. With ``--folds K`` (and ``--seed S``): k-fold cross-validation over those queries; OUTPUT is
  the cross-validated run of the QRELS queries, and stdout the per-fold report, a blank line and ``compare``'s table
  of the fused run against each RUN (``--test``, ``--correction``). Without ``--folds``: the best setting on all the
  QRELS queries fuses the runs' *other* queries (never those tuned on; refused when there are none), and stdout is
  the score of each setting.
"""
from __future__ import annotations

import math
import os
import sys
from typing import TYPE_CHECKING, Any

from irmeasures_ext.cli.common import (
    PROG,
    STDIN,
    ArgumentParser,
    CliError,
    add_formats,
    add_places,
    load_qrels,
    load_run,
    positive_int,
    prepare_process,
)
from irmeasures_ext.comparison.choices import CORRECTIONS, TESTS

if TYPE_CHECKING:
    import argparse

    import pandas as pd

    from irmeasures_ext.readers.inputs import Input

#: ranx's fusion methods and normalisations by name (irmeasures_ext.fusion's METHODS, SUPERVISED and NORMS, which
#: load numpy: the command loads it after prepare_process; tests keep these equal to them).
METHODS = ('anz', 'bordafuse', 'condorcet', 'gmnz', 'isr', 'log_isr', 'logn_isr', 'max', 'med', 'min', 'mixed', 'mnz',
           'rbc', 'rrf', 'sum', 'w_bordafuse', 'w_condorcet', 'wmnz', 'wsum')
SUPERVISED = ('bayesfuse', 'mapfuse', 'posfuse', 'probfuse', 'segfuse', 'slidefuse')
NORMS = ('borda', 'max', 'min-max', 'min-max-inverted', 'rank', 'sum', 'zmuv', 'none')


def run(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    _check_files(args)
    params = dict(_param(text) for text in args.param or [])
    if args.weights is not None:
        if 'weights' in params:
            raise CliError('give the weights once: --weights or --param weights=...')
        params['weights'] = args.weights
    _check_options(args, params)
    grid = None if args.grid is None else _grid(args.grid)
    prepare_process()
    from irmeasures_ext.ir_metadata import check_run_target, load_metadata, write_run
    from irmeasures_ext.readers.inputs import read_input
    metadata = None if args.metadata is None else load_metadata(args.metadata)
    check_run_target(args.output, metadata, tag=args.tag, overwrite=args.overwrite)  # (before any work)
    runs = [load_run(path, args.format) for path in args.runs]
    if args.optimize is not None:
        fused = _tuned(args, [read_input(run, 'run') for run in runs], grid)
        write_run(fused, args.output, metadata, tag=args.tag, overwrite=args.overwrite)
        lines, queries = len(fused), fused['query_id'].nunique()
    else:  # (streamed: fused and written a range of queries at a time)
        from irmeasures_ext.fusion import fuse_to_file
        if args.method in SUPERVISED:
            params = _trained(args, runs, params)
        lines, queries = fuse_to_file(runs, args.output, args.method, _norm(args), params, metadata=metadata,
                                      tag=args.tag, overwrite=args.overwrite)
    print(f'{PROG}: {lines} lines of {queries} queries written to {args.output}', file=sys.stderr)
    return 0


def _check_files(args: argparse.Namespace) -> None:
    """Two runs or more, one training run each if any, the run files there, standard input read once at most, an
    output that is a file."""
    if len(args.runs) < 2:
        raise CliError(f'give two runs or more to fuse, got {len(args.runs)}')
    if args.output == STDIN:
        raise CliError(f'--output names the file the fused run is written to; "{STDIN}" (standard output) is not one')
    paths = args.runs + (args.train_runs or [])
    if paths.count(STDIN) > 1:
        raise CliError(f'only one run may be "{STDIN}" (standard input)')
    for path in paths:
        if path != STDIN and not os.path.exists(path):
            raise CliError(f'{path}: no such run file')


def _check_options(args: argparse.Namespace, params: dict[str, Any]) -> None:
    """The options taken together: training only for a supervised method and with all it needs, tuning options
    only with --optimize, cross-validation options only with --folds."""
    training = args.train_qrels is not None or args.train_runs is not None
    if args.optimize is None:
        for option, value in (('--qrels', args.qrels), ('--grid', args.grid), ('--folds', args.folds)):
            if value is not None:
                raise CliError(f'{option} is for tuning: give --optimize MEASURE too')
    else:
        if args.qrels is None:
            raise CliError('--optimize tunes on judged queries: give --qrels QRELS')
        if params:
            raise CliError('--optimize searches the parameters: give their values as --grid NAME=V1,V2,... '
                           'instead of --param or --weights')
        if training:
            raise CliError('--optimize trains a supervised method itself, on the --qrels queries of the runs: '
                           'give no --train-qrels or --train-runs')
    if args.folds is None:
        for option, value in (('--seed', args.seed), ('--test', args.test), ('--correction', args.correction)):
            if value is not None:
                raise CliError(f'{option} is for the cross-validation: give --folds K too')
    if args.seed is not None and args.seed < 0:
        raise CliError(f'--seed must be a whole number ≥ 0, got {args.seed}')
    if training:
        if args.method not in SUPERVISED:
            raise CliError(f'{args.method} is not trained: --train-qrels and --train-runs are for the supervised '
                           f'methods ({", ".join(SUPERVISED)})')
        if args.train_qrels is None or args.train_runs is None:
            raise CliError("training needs both --train-qrels QRELS and --train-runs RUN... (the same systems' runs "
                           'on the training queries)')
        if len(args.train_runs) != len(args.runs):
            raise CliError(f'give one training run per run to fuse, in their order: got {len(args.train_runs)} '
                           f'--train-runs for {len(args.runs)} runs')
    elif args.method in SUPERVISED and args.optimize is None:
        raise CliError(f'{args.method} is a supervised method: train it with --train-qrels QRELS --train-runs RUN... '
                       "(the same systems' runs on training queries), or tune it with --optimize MEASURE --qrels "
                       'QRELS')
    if args.allow_train_test_overlap and args.train_qrels is None:
        raise CliError('--allow-train-test-overlap lets the queries to fuse be training queries of --train-qrels: '
                       'give --train-qrels too')


def _norm(args: argparse.Namespace) -> str | None:
    """The normalisation's name for :mod:`irmeasures_ext.fusion` (None for ``none``)."""
    return None if args.norm == 'none' else args.norm


def _query_ids(*read: Input) -> set[str]:
    """The distinct query ids of read runs or qrels."""
    import pyarrow.compute as pc
    return {query for data in read for query in pc.unique(data.table['query_id']).to_pylist()}


def _trained(args: argparse.Namespace, runs: list[Any], params: dict[str, Any]) -> dict[str, Any]:
    """The parameters of the supervised method trained on --train-runs and --train-qrels with the training parameters
    ``params``; CliError when a query of ``runs`` is a training query, unless --allow-train-test-overlap."""
    from irmeasures_ext.evaluation import listed
    from irmeasures_ext.fusion import train
    from irmeasures_ext.readers.inputs import read_input
    labels = read_input(load_qrels(args.train_qrels, args.qrels_format or args.format), 'qrels')
    fused_queries = _query_ids(*(read_input(run, 'run') for run in runs))
    if (overlap := sorted(_query_ids(labels) & fused_queries)) and not args.allow_train_test_overlap:
        raise CliError(f'{len(overlap)} of the queries to fuse are training queries of --train-qrels '
                       f'{args.train_qrels} ({listed(overlap)}), so their fusion would be trained on their own '
                       'judgments: fuse other queries, or give --allow-train-test-overlap')
    training_runs = [read_input(load_run(path, args.format), 'run') for path in args.train_runs]
    return train(labels, training_runs, args.method, _norm(args), params)


def _tuned(args: argparse.Namespace, runs: list[Input], grid: dict[str, list[Any]] | None) -> pd.DataFrame:
    """The runs fused with the setting of ``grid`` best for --optimize on --qrels: cross-validated over the qrels'
    queries with --folds, else tuned on them all and applied to the runs' other queries. Writes the report (and,
    cross-validated, the comparison) to stdout."""
    from irmeasures_ext.fusion import cross_validate, optimize
    from irmeasures_ext.readers.inputs import read_input
    labels = read_input(load_qrels(args.qrels, args.qrels_format or args.format), 'qrels')
    if args.folds is None:
        if not _query_ids(*runs) - _query_ids(labels):
            raise CliError(f'every query of the runs is in --qrels {args.qrels}, which --optimize tunes on, and tuned '
                           'parameters fuse other queries only: give --folds K to cross-validate over them')
        best = optimize(labels, runs, args.method, args.optimize, grid, _norm(args))
        _write_report(best.report, args.places)
        setting = ' '.join(f'{name}={_cell(value, -1)}' for name, value in best.params.items()) or 'no parameters'
        print(f'{PROG}: best setting {setting}: {best.measure} {best.score:.4f} on the {len(best.queries)} queries of '
              f'{args.qrels}; it fuses the other queries', file=sys.stderr)
        return best.fuse()
    from irmeasures_ext.comparison.output import write_tsv
    from irmeasures_ext.comparison.table import default_run_name
    from irmeasures_ext.fusion.tuning import FUSED
    names = ['stdin' if path == STDIN else default_run_name(path, i) for i, path in enumerate(args.runs)]
    if len(set(names)) < len(names) or FUSED in names:
        raise CliError(f'--folds compares the fused run ("{FUSED}") with each run by its file name, so these must '
                       f'differ and none be "{FUSED}"; got {", ".join(names)}')
    validated = cross_validate(labels, dict(zip(names, runs, strict=True)), args.method, args.optimize, grid,
                               args.folds, 0 if args.seed is None else args.seed, _norm(args))
    _write_report(validated.report, args.places)
    print()
    write_tsv(sys.stdout, validated.comparison(test=args.test or 't', correction=args.correction or 'holm'),
              args.places)
    return validated.run


def _write_report(report: pd.DataFrame, places: int) -> None:
    """A tuning's report as tab-separated lines, a header first: weights as W:W:..., scores with ``places``
    decimals (-1: all digits)."""
    print('\t'.join(map(str, report.columns)))
    for row in report.itertuples(index=False):
        print('\t'.join(_cell(value, places) for value in row))


def _cell(value: Any, places: int) -> str:
    """A value of a report: a whole number as it is, a vector as V:V:..., another number with ``places`` decimals
    (-1: all digits)."""
    import numpy as np
    if isinstance(value, (tuple, list, np.ndarray)):
        return ':'.join(_cell(item, -1) for item in value)
    if isinstance(value, (int, np.integer)):
        return str(value)
    return repr(float(value)) if places == -1 else format(float(value), f'.{places}f')


def _number(text: str) -> int | float:
    """``text`` as a number: an int when written as a whole number without a point; ValueError if not a number."""
    number = float(text)
    if math.isnan(number):
        raise ValueError(f'not a number: {text!r}')
    return int(number) if number.is_integer() and '.' not in text else number


def _param(text: str) -> tuple[str, int | float]:
    """``NAME=VALUE`` as (name, number)."""
    name, equals, value = text.partition('=')
    try:
        if equals and name:
            return name, _number(value)
    except ValueError:
        pass
    raise CliError(f'--param {text!r}: give NAME=NUMBER, e.g. k=60')


def _grid(texts: list[str]) -> dict[str, list[Any]]:
    """``--grid NAME=V1,V2,...`` options as a grid: each parameter's values (``weights``: vectors W:W:...)."""
    grid: dict[str, list[Any]] = {}
    for text in texts:
        name, equals, values = text.partition('=')
        if name in grid:
            raise CliError(f'--grid {name}=...: given twice; give all its values in one, comma-separated')
        try:
            if not (equals and name):
                raise ValueError(text)
            grid[name] = [tuple(float(_number(weight)) for weight in value.split(':')) if name == 'weights'
                          else _number(value) for value in values.split(',')]
        except ValueError:
            raise CliError(f'--grid {text!r}: give NAME=V1,V2,... (numbers; weights: one vector W:W:... a run each, '
                           'e.g. weights=0.3:0.7,0.5:0.5), e.g. k=10,20,60') from None
    return grid


def parser() -> ArgumentParser:
    """The command's argument parser (also read by the documentation's command-line reference)."""
    parser = ArgumentParser(prog=f'{PROG} fuse', description=__doc__.split('\n\n')[0].replace('\n', ' '))
    parser.add_argument('runs', nargs='+', metavar='RUN',
                        help='the runs to fuse (TREC, Parquet or Arrow; "-": standard input)')
    parser.add_argument('--output', '-o', required=True, metavar='OUTPUT',
                        help='the fused run: a TREC file, or Parquet (.parquet) or Arrow (.arrow, .feather) by its '
                             'name; .gz, .bz2, .xz compress a TREC file')
    parser.add_argument('--method', '-m', choices=METHODS + SUPERVISED, default='rrf',
                        help=f'the fusion method (default rrf); the supervised ones ({", ".join(SUPERVISED)}) are '
                             'trained: by --train-qrels and --train-runs, or by --optimize')
    parser.add_argument('--norm', '-n', choices=NORMS, default='min-max',
                        help="each run's normalisation before fusing (default min-max, ranx's; none: the scores "
                             'as they are), of the training runs too')
    parser.add_argument('--param', action='append', metavar='NAME=VALUE',
                        help='a parameter of the method: k (rrf), gamma (gmnz), phi (rbc), sigma (logn_isr); of the '
                             'training: n_segments (probfuse), w (slidefuse)')
    parser.add_argument('--weights', nargs='+', type=float, metavar='W',
                        help='one weight a run, in the order of the runs (wsum, wmnz, mixed, w_bordafuse, '
                             'w_condorcet)')
    training = parser.add_argument_group('training a supervised method')
    training.add_argument('--train-qrels', metavar='QRELS',
                          help='the judgments of the training queries (a qrels file, or an ir_datasets id)')
    training.add_argument('--train-runs', nargs='+', metavar='RUN',
                          help="the same systems' runs on the training queries: one per RUN to fuse, in its order")
    training.add_argument('--allow-train-test-overlap', action='store_true',
                          help='fuse queries that are training queries of --train-qrels too (refused by default: '
                               'their fusion is trained on their own judgments, a leak)')
    tuning = parser.add_argument_group('tuning the parameters for a measure')
    tuning.add_argument('--optimize', metavar='MEASURE',
                        help='search the grid for the setting best for MEASURE (e.g. nDCG@10) on the queries of '
                             '--qrels; without --folds, that setting fuses the runs\' other queries only')
    tuning.add_argument('--qrels', metavar='QRELS', help='the judgments --optimize tunes on (a qrels file, or an '
                                                         'ir_datasets id)')
    tuning.add_argument('--grid', action='append', metavar='NAME=V1,V2,...',
                        help="a parameter's values to search (weights: vectors, e.g. weights=0.3:0.7,0.5:0.5); "
                             "default: ranx's optimize_fusion grid (every weight vector of tenths summing to 1, k "
                             '10..100, gamma, phi, sigma 0.01..1, n_segments and w 1..100)')
    tuning.add_argument('--folds', type=positive_int, metavar='K',
                        help='cross-validate over the queries of --qrels in K folds: each fold fused with the setting '
                             'best on the others; OUTPUT is that run, stdout the per-fold report and the comparison')
    tuning.add_argument('--seed', type=int, metavar='S', help='the seed of the folds (default 0; the same seed, the '
                                                              'same folds)')
    tuning.add_argument('--test', choices=TESTS,
                        help="the comparison's test of the fused run against each run (default t)")
    tuning.add_argument('--correction', choices=CORRECTIONS,
                        help="the comparison's correction over the runs (default holm)")
    add_places(tuning, p_values=True)
    parser.add_argument('--metadata', metavar='FILE', help='write the ir_metadata of this YAML file with the run')
    parser.add_argument('--tag', help="the run tag of a TREC file's lines (default: the metadata's, else OUTPUT's "
                                      'name up to its first dot)')
    parser.add_argument('--overwrite', action='store_true', help='let OUTPUT replace an existing file')
    add_formats(parser)
    return parser
