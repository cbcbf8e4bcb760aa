"""``irmeasures-ext compare QRELS RUN RUN... [MEASURE...]``: several runs against a baseline (or all
pairs), measure by measure, with significance tests, corrections, confidence intervals, effect
sizes and wins/losses, as tsv, jsonl or a paper's table (markdown, LaTeX); ``--plot`` draws the
per-query differences and the intervals; ``--measures-report`` compares the measures instead.
"""
from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator

from irmeasures_ext.cli.common import (
    PROG,
    STDIN,
    ArgumentParser,
    CliError,
    add_formats,
    add_intents,
    add_places,
    add_ranking,
    add_threshold,
    load_qrels,
    load_run,
    note_ignored_options,
    positive_int,
    prepare_process,
    with_intents,
)
from irmeasures_ext.comparison.choices import CORRECTIONS, INTERVALS, TESTS
from irmeasures_ext.names import MeasureSyntaxError, parse_measures
from irmeasures_ext.suites import SUITES

FORMATS = ('tsv', 'jsonl', 'markdown', 'latex')


def run(argv: list[str]) -> int:
    args = parser().parse_intermixed_args(argv)
    note_ignored_options(args)
    run_args, measures = split_runs_and_measures(args.inputs)
    measures = list(dict.fromkeys(measures + [m for name in args.suite or [] for m in SUITES[name]]))
    if not measures:
        raise CliError('give at least one MEASURE or --suite NAME')
    if len(run_args) < 2:
        raise CliError(f'compare needs at least 2 runs; got {len(run_args)}')
    if run_args.count(STDIN) > 1:
        raise CliError(f'only one RUN may be "{STDIN}" (standard input)')
    if args.workers < 1:
        raise CliError('--workers must be at least 1')
    if args.all_pairs and args.baseline is not None:
        raise CliError('give either --baseline or --all-pairs')
    names = args.names.split(',') if args.names else None
    prepare_process()
    from irmeasures_ext.cli.output import metadata_header
    from irmeasures_ext.comparison.output import WRITERS, write_report
    from irmeasures_ext.comparison.report import measures_report
    from irmeasures_ext.comparison.table import check_options, comparison_table, default_run_name, evaluate_runs
    check_options(args.test, args.correction, args.ci, args.alpha, args.samples)
    if args.measures_report and args.output_format == 'latex':
        raise CliError('the measures report is written as tsv, jsonl or markdown')
    if args.holes is not None and (args.measures_report or args.output_format in ('markdown', 'latex')):
        raise CliError("--holes adds columns to the comparison table's tsv and jsonl output")
    if args.measures_report and args.plot:
        raise CliError('--plot draws the comparison, not the measures report: give one of them')
    if args.plot:
        from irmeasures_ext.comparison.plot import check_plot_path
        check_plot_path(args.plot, args.overwrite)
    header = metadata_header(args.metadata, args.output_format)
    qrels = with_intents(load_qrels(args.qrels, args.qrels_format or args.format), args.intents,
                         args.renormalise_intents)
    runs = [load_run(path, args.format) for path in run_args]
    if names is None:
        names = ['stdin' if path == STDIN else default_run_name(path, i) for i, path in enumerate(run_args)]
    run_values = evaluate_runs(qrels, runs, measures, names, args.ties, args.score_precision, args.workers, args.rel)
    if args.measures_report:
        report = measures_report(run_values, args.test, args.correction, args.alpha, args.samples, args.seed)
        sys.stdout.write(header)
        write_report(sys.stdout, report, args.output_format, args.places)
        return 0
    table = comparison_table(run_values, args.baseline, args.all_pairs, args.test, args.correction, args.ci,
                             args.alpha, args.samples, args.seed)
    if args.holes is not None:
        from irmeasures_ext.comparison.holes import run_holes
        from irmeasures_ext.comparison.table import with_holes
        from irmeasures_ext.plugin import provider
        table = with_holes(table, run_holes(qrels, dict(zip(names, runs, strict=True)), run_values.measures,
                                            provider.configured(args.ties, args.score_precision, rel=args.rel),
                                            args.holes))
    sys.stdout.write(header)
    WRITERS[args.output_format](sys.stdout, table, args.places)
    if args.plot:
        from irmeasures_ext.comparison.plot import plot_comparison
        with _terminate_as_exit():
            path = plot_comparison(run_values, table, args.plot, args.baseline, args.overwrite)
        print(f'{PROG}: plot written to {path}', file=sys.stderr)
    return 0


@contextlib.contextmanager
def _terminate_as_exit() -> Iterator[None]:
    """SIGTERM raises SystemExit(143) meanwhile, instead of ending the process at once, so that the
    plot's half-written file is removed on the way out (the command's status is still 128 + 15). Only
    the main thread may set signal handlers: elsewhere (main() called from a thread) nothing changes."""
    def terminate(signal_number: int, frame: object) -> None:
        raise SystemExit(128 + signal_number)
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def split_runs_and_measures(inputs: list[str]) -> tuple[list[str], list]:
    """Arguments naming an existing file (or "-") are runs, the others measures; an argument that is
    neither is reported as both a missing file and an unknown measure."""
    runs, measures = [], []
    for text in inputs:
        if text == STDIN or os.path.exists(text):
            runs.append(text)
            continue
        try:
            measures.extend(parse_measures([text]))
        except MeasureSyntaxError as error:
            raise CliError(f'{text}: no such run file, and not a measure ({error})') from None
    return runs, measures


def parser() -> ArgumentParser:
    """The command's argument parser (also read by the documentation's command-line reference)."""
    parser = ArgumentParser(prog=f'{PROG} compare', description=__doc__.split('\n\n')[0].replace('\n', ' '))
    parser.add_argument('qrels', metavar='QRELS', help='qrels file (TREC, Parquet or Arrow), or an ir_datasets id '
                                                       'with qrels')
    parser.add_argument('inputs', nargs='+', metavar='RUN|MEASURE',
                        help='two or more run files (TREC, Parquet or Arrow: any existing path; "-": standard '
                             'input), and measures')
    parser.add_argument('--suite', action='append', choices=sorted(SUITES), help='add the measures of a suite')
    parser.add_argument('--names', help='comma-separated run names (default: the file names without suffixes)')
    parser.add_argument('--baseline', help='the run every other is compared with, by name or index (default: '
                                           'the first)')
    parser.add_argument('--all-pairs', action='store_true', help='compare every pair of runs instead')
    parser.add_argument('--test', choices=TESTS, default='t',
                        help=f'{_described(TESTS)} (default t; wilcoxon with scipy\'s defaults; randomization: sign '
                             'flips, exact when 2^queries <= --samples; tukey-hsd over all runs)')
    parser.add_argument('--correction', choices=CORRECTIONS, default='none',
                        help=f"multiple comparisons, within each measure's family: {_described(CORRECTIONS)} "
                             '(default none)')
    parser.add_argument('--ci', choices=INTERVALS, default='t',
                        help=f'confidence intervals of the means: {_described(INTERVALS)} (default t)')
    parser.add_argument('--alpha', type=float, default=0.05, help='significance level; intervals are 1 - alpha '
                                                                  '(default 0.05)')
    parser.add_argument('--samples', type=int, default=10_000,
                        help='sign flips, permutations or bootstrap resamples (default 10000)')
    parser.add_argument('--seed', type=int, default=42, help='seed of the randomised procedures (default 42)')
    parser.add_argument('--output_format', '-o', choices=FORMATS, default='tsv')
    parser.add_argument('--metadata', metavar='FILE',
                        help='put the ir_metadata of the YAML FILE at the top of the report: its "# '
                             'ir_metadata.start" ... "# ir_metadata.end" block (tsv; markdown: inside an HTML '
                             'comment; latex: as %% lines), or a first line {"ir_metadata": {...}} (jsonl)')
    add_places(parser, p_values=True)
    parser.add_argument('--plot', metavar='FILE', help='draw the differences and intervals into FILE (.png, .svg, '
                                                       '.pdf; needs matplotlib)')
    parser.add_argument('--overwrite', action='store_true', help='let --plot replace an existing FILE')
    parser.add_argument('--measures-report', action='store_true',
                        help="compare the measures instead: Kendall's tau between their run rankings, and each "
                             'one\'s discriminative power (share of run pairs significantly different)')
    parser.add_argument('--holes', type=positive_int, metavar='K',
                        help="add each run's holes (tsv, jsonl): the mean share of its top K the qrels do not judge "
                             '(unjudged), each measure on the condensed list, and the interval between the unjudged '
                             'docs all non-relevant and all at the highest label (low, high)')
    parser.add_argument('--workers', type=int, default=1,
                        help='runs evaluated at once (default 1: the reader already uses every core; each more '
                             'adds about one run\'s memory)')
    add_formats(parser)
    add_intents(parser)
    add_ranking(parser)
    add_threshold(parser)
    return parser


def _described(choices: dict[str, str]) -> str:
    """``name: description; ...`` of a registry of choices."""
    return '; '.join(f'{name}: {description}' for name, description in choices.items())
