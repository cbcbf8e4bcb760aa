"""``irmeasures-ext QRELS RUN [MEASURE...]``: evaluate a run, like the ``ir_measures`` command."""
from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Mapping

import ir_measures

from irmeasures_ext.cli.common import (
    PROG,
    STDIN,
    SUMMARY_QID,
    ArgumentParser,
    CliError,
    add_depth,
    add_inputs,
    add_intents,
    add_places,
    add_ranking,
    add_threshold,
    load,
    note_ignored_options,
    prepare_process,
    with_intents,
)
from irmeasures_ext.measures.base import DEFAULT_RANKING, Ranking
from irmeasures_ext.names import parse_measure, parse_measures
from irmeasures_ext.plugin import provider as ext_provider
from irmeasures_ext.reports import PROTOCOLS
from irmeasures_ext.suites import SUITES


def run(argv: list[str]) -> int:
    command_parser = parser()
    args = command_parser.parse_intermixed_args(argv)
    if args.no_summary and not args.by_query:
        command_parser.error('--no_summary (-n) only applies with --by_query (-q)')
    if _is_a_measure_not_a_file(args.run):  # `irmeasures-ext qrels.txt AP`: RUN forgotten
        command_parser.error(f'RUN is missing: {args.run!r} is a measure, not a file (give QRELS RUN MEASURE...)')
    measures = parse_measures(args.measures) + [m for name in args.suite or [] for m in SUITES[name]]
    measures = list(dict.fromkeys(measures))
    if args.protocol:
        return _protocol(args, measures)
    if not measures:
        command_parser.error('give at least one MEASURE, --suite NAME or --protocol NAME')
    configured = ext_provider.for_provider(args.provider, args.ties, args.score_precision, args.depth, args.rel)
    note_ignored_options(args)
    prepare_process()
    from irmeasures_ext.cli import output
    from irmeasures_ext.evaluation import evaluate
    header = output.metadata_header(args.metadata, args.output_format)
    qrels, run_input = load(args)
    qrels = with_intents(qrels, args.intents, args.renormalise_intents)
    results = evaluate(measures, qrels, run_input, configured, args.provider)
    write = output.write_jsonl if args.output_format == 'jsonl' else output.write_tsv
    sys.stdout.write(header)
    write(sys.stdout, results, args.places, by_query=args.by_query, summary=not args.no_summary)
    return 0


def _is_a_measure_not_a_file(run_arg: str) -> bool:
    """Whether the RUN argument is no file (nor standard input) but a measure: the run was forgotten."""
    if run_arg == STDIN or os.path.exists(run_arg):
        return False
    try:
        parse_measure(run_arg)
    except ValueError:  # (CliError: no measure either)
        return False
    return True


def _protocol(args: argparse.Namespace, measures: list) -> int:
    """Prints one line per quantity of a paper's official script."""
    if measures:
        raise CliError('--protocol replaces MEASURE and --suite: give none')
    if Ranking(args.ties, args.score_precision, args.depth, rel=args.rel) != DEFAULT_RANKING:
        raise CliError('--protocol ranks as its script does; --ties, --score-precision, --depth and --rel do not '
                       'apply')
    if args.output_format != 'tsv' or args.by_query:
        raise CliError("--protocol prints its script's lines, name and value; --output_format jsonl and --by_query "
                       '(-q) do not apply')
    from irmeasures_ext.cli.output import metadata_header
    from irmeasures_ext.readers.inputs import read_input
    from irmeasures_ext.reports.protocols import compute
    header = metadata_header(args.metadata, 'tsv')
    qrels, run = load(args)
    citing: Mapping[str, str] = {}
    if PROTOCOLS[args.protocol].needs_citing:
        from irmeasures_ext.datasets.citation_rec import citing_ids
        try:
            citing = citing_ids(args.qrels)
        except (KeyError, AttributeError):
            raise CliError(f'--protocol {args.protocol} needs QRELS to be a citation-rec ir_datasets id (for the '
                           'citing papers)') from None
    values = compute(args.protocol, read_input(qrels, 'qrels').table, read_input(run, 'run').table, citing)
    spec = '' if args.places == -1 else f'.{args.places}f'
    sys.stdout.write(header + ''.join(f'{name}\t{format(value, spec)}\n' for name, value in values.items()))
    return 0


def parser() -> ArgumentParser:
    """The command's argument parser (also read by the documentation's command-line reference)."""
    from irmeasures_ext import __version__
    parser = ArgumentParser(
        prog=PROG,
        description='Evaluate a run, like the ir_measures command, with the measures of irmeasures_ext. '
                    'Other commands: "irmeasures-ext crosscheck QRELS RUN [MEASURE...]" compares irmeasures_ext '
                    'with pytrec_eval; "irmeasures-ext compare QRELS RUN RUN... [MEASURE...]" compares runs with '
                    'significance tests; "irmeasures-ext ties QRELS RUN [MEASURE...]" shows how much score ties '
                    'move each measure; "irmeasures-ext ntcireval QRELS RUN -g GAINS" is NTCIREVAL\'s ad hoc '
                    'evaluation, with its names; "irmeasures-ext datasets ..." is ir_datasets\' command line with this '
                    'package\'s datasets (e.g. "irmeasures-ext datasets list").',
        epilog='TREC files may be compressed (gzip, bzip2, xz); Parquet and Arrow files are read too (see '
               '--format). Measures use '
               'ir_measures syntax, e.g. "Q@10" "nDCG_Z1@5" "Q(beta=0.5)@10" RR@100 MedianRank, or trec_eval '
               'names (map, ndcg_cut.10, P.5,10); several may share one argument ("P@10 nDCG@10").')
    add_inputs(parser)
    parser.add_argument('measures', nargs='*', default=[], metavar='MEASURE', help='measures to compute')
    parser.add_argument('--suite', action='append', choices=sorted(SUITES),
                        help='add the measures of a benchmark suite (repeatable): '
                             + '; '.join(f'{name}: {" ".join(map(str, ms))}' for name, ms in SUITES.items()))
    add_places(parser)
    parser.add_argument('--by_query', '-q', action='store_true',
                        help=f'one row per query and measure, then the summary rows (query id "{SUMMARY_QID}")')
    parser.add_argument('--no_summary', '-n', action='store_true', help='with -q: leave out the summary rows')
    parser.add_argument('--output_format', '-o', choices=['tsv', 'jsonl'], default='tsv')
    parser.add_argument('--metadata', metavar='FILE',
                        help='put the ir_metadata of the YAML FILE at the top of the output: its "# '
                             'ir_metadata.start" ... "# ir_metadata.end" block (tsv, --protocol), or a first line '
                             '{"ir_metadata": {...}} (jsonl)')
    parser.add_argument('--provider', metavar='NAME', choices=sorted(ir_measures.providers.registry),
                        help='compute every measure with this ir_measures provider '
                             f'({", ".join(sorted(ir_measures.providers.registry))}). Default: the '
                             f'{ext_provider.NAME} provider for the measures it supports (the fast columnar path, '
                             "with trec_eval's tie rule), ir_measures' DefaultPipeline for the others. Either way "
                             f'the inputs are checked by {ext_provider.NAME} (duplicate docs, conflicting qrels, '
                             'non-finite scores)')
    add_intents(parser)
    add_ranking(parser)
    add_depth(parser)
    add_threshold(parser)
    parser.add_argument('--protocol', choices=PROTOCOLS,
                        help="print what a paper's official script prints instead (no MEASURE): " + ', '.join(
                            f'{name} ({protocol.prints})' for name, protocol in PROTOCOLS.items()))
    parser.add_argument('--version', action='version', version=f'%(prog)s {__version__} '
                                                               f'(ir_measures {ir_measures.__version__})')
    return parser
