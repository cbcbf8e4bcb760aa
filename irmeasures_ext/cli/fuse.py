"""``irmeasures-ext fuse RUN RUN... -o OUTPUT``: fuses runs into one (:func:`irmeasures_ext.fusion.fuse`: ranx's
methods and normalisations) and writes it, a TREC file or, for a name ending .parquet (.arrow), a columnar one
(:func:`irmeasures_ext.ir_metadata.write_run`), with the ir_metadata of ``--metadata FILE`` if given.

``--method`` and ``--norm`` take ranx's names; ``--param NAME=VALUE`` a method's parameter (``k=60``, ``gamma=1``,
``phi=0.8``, ``sigma=0.01``), ``--weights W...`` one weight a run. An existing OUTPUT is replaced only with
``--overwrite``.
"""
from __future__ import annotations

import math
import os
import sys

from irmeasures_ext.cli.common import PROG, STDIN, ArgumentParser, CliError, add_formats, load_run, prepare_process

#: ranx's fusion methods and normalisations by name (irmeasures_ext.fusion's METHODS and NORMS, which load numpy:
#: the command loads it after prepare_process; a test keeps these equal to them).
METHODS = ('anz', 'bordafuse', 'condorcet', 'gmnz', 'isr', 'log_isr', 'logn_isr', 'max', 'med', 'min', 'mixed', 'mnz',
           'rbc', 'rrf', 'sum', 'w_bordafuse', 'w_condorcet', 'wmnz', 'wsum')
NORMS = ('borda', 'max', 'min-max', 'min-max-inverted', 'rank', 'sum', 'zmuv', 'none')


def run(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    if len(args.runs) < 2:
        raise CliError(f'give two runs or more to fuse, got {len(args.runs)}')
    if args.runs.count(STDIN) > 1:
        raise CliError(f'only one run may be "{STDIN}" (standard input)')
    for path in args.runs:
        if path != STDIN and not os.path.exists(path):
            raise CliError(f'{path}: no such run file')
    params = dict(_param(text) for text in args.param or [])
    if args.weights is not None:
        if 'weights' in params:
            raise CliError('give the weights once: --weights or --param weights=...')
        params['weights'] = args.weights
    output = os.path.abspath(args.output)
    if os.path.exists(output) and not args.overwrite:
        raise CliError(f'{args.output}: exists; give another file name, or --overwrite to replace it')
    prepare_process()
    from irmeasures_ext.fusion import fuse
    from irmeasures_ext.ir_metadata import write_run
    runs = [load_run(path, args.format) for path in args.runs]
    fused = fuse(runs, args.method, None if args.norm == 'none' else args.norm, params)
    write_run(fused, args.output, args.metadata, tag=args.tag, overwrite=args.overwrite)
    print(f'{PROG}: {len(fused)} lines of {fused["query_id"].nunique()} queries written to {args.output}',
          file=sys.stderr)
    return 0


def _param(text: str) -> tuple[str, float]:
    """``NAME=VALUE`` as (name, number)."""
    name, equals, value = text.partition('=')
    try:
        number = float(value) if equals and name else math.nan
    except ValueError:
        number = math.nan
    if math.isnan(number):
        raise CliError(f'--param {text!r}: give NAME=NUMBER, e.g. k=60')
    return name, int(number) if number.is_integer() and '.' not in value else number


def parser() -> ArgumentParser:
    """The command's argument parser (also read by the documentation's command-line reference)."""
    parser = ArgumentParser(prog=f'{PROG} fuse', description=__doc__.split('\n\n')[0].replace('\n', ' '))
    parser.add_argument('runs', nargs='+', metavar='RUN',
                        help='the runs to fuse (TREC, Parquet or Arrow; "-": standard input)')
    parser.add_argument('--output', '-o', required=True, metavar='OUTPUT',
                        help='the fused run: a TREC file, or Parquet (.parquet) or Arrow (.arrow, .feather) by its '
                             'name; .gz, .bz2, .xz compress a TREC file')
    parser.add_argument('--method', '-m', choices=METHODS, default='rrf', help='the fusion method (default rrf)')
    parser.add_argument('--norm', '-n', choices=NORMS, default='min-max',
                        help="each run's normalisation before fusing (default min-max, ranx's; none: the scores "
                             'as they are)')
    parser.add_argument('--param', action='append', metavar='NAME=VALUE',
                        help="a parameter of the method: k (rrf), gamma (gmnz), phi (rbc), sigma (logn_isr)")
    parser.add_argument('--weights', nargs='+', type=float, metavar='W',
                        help='one weight a run, in the order of the runs (wsum, wmnz, mixed, w_bordafuse, '
                             'w_condorcet)')
    parser.add_argument('--metadata', metavar='FILE', help='write the ir_metadata of this YAML file with the run')
    parser.add_argument('--tag', help="the run tag of a TREC file's lines (default: the metadata's, else OUTPUT's "
                                      'name up to its first dot)')
    parser.add_argument('--overwrite', action='store_true', help='let OUTPUT replace an existing file')
    add_formats(parser)
    return parser
