"""``irmeasures-ext reproduce QRELS --original BASELINE ADVANCED --reproduced BASELINE ADVANCED MEASURE...``: how
far a reproduction of a baseline and an advanced run gives the original's results (Breuer et al., SIGIR 2020, as
repro_eval computes them): per measure, the RMSE, nRMSE and paired t-test p-value of each run, the effect ratio
and ΔRI, and the rankings' agreement (KTU, RBO); with ``--qrels-b QRELS_B`` a replication, the reproduced runs
judged on other qrels (the unpaired p-values, ER and ΔRI). ``--per-topic`` gives each topic's scores, original
beside reproduced, and its rankings' agreement; ``--plot`` draws the per-topic scores, original against reproduced.

The table has a row per measure and statistic, its columns baseline, advanced and advanced_vs_baseline (ER, ΔRI);
the rankings' agreement rows are those of measure ``ranked lists``. As jsonl it is the long table (measure,
statistic, run, value) that :func:`irmeasures_ext.reproduce.reproducibility` returns with ``ranked_lists=True``.
The tables of ``--per-topic`` are written one after another, each under a ``# name`` line (jsonl: in a ``table``
field).
"""
from __future__ import annotations

import os
import sys
import warnings
from typing import IO, TYPE_CHECKING, Any

from irmeasures_ext.cli.common import (
    PROG,
    STDIN,
    ArgumentParser,
    CliError,
    add_formats,
    add_places,
    add_threshold,
    load_qrels,
    load_run,
    note_ignored_options,
    prepare_process,
)
from irmeasures_ext.cli.compare import FORMATS
from irmeasures_ext.cli.judges import write_frame
from irmeasures_ext.errors import UnansweredTopicsWarning
from irmeasures_ext.names import parse_measure, parse_measures
from irmeasures_ext.suites import SUITES

if TYPE_CHECKING:
    import pandas as pd
    from ir_measures.measures import Measure

#: The columns of the table's values: each run's statistics, then those comparing them (ER, ΔRI).
VALUE_COLUMNS = ('baseline', 'advanced', 'advanced_vs_baseline')
#: The columns that name a row rather than hold a value.
KEYS = ('measure', 'statistic', 'run', 'query_id')
#: The choices of --topics and --order: irmeasures_ext.reproduce's TOPIC_SETS and ORDERS, which load pyarrow (the
#: command loads it after :func:`~irmeasures_ext.cli.common.prepare_process`).
TOPIC_SETS = ('original', 'repro_eval')
ORDERS = ('trec_eval', 'file')


def run(argv: list[str]) -> int:
    args = parser().parse_intermixed_args(argv)
    note_ignored_options(args)
    paths = [*args.original, *args.reproduced]
    for path in paths:
        if path != STDIN and not os.path.exists(path):
            raise CliError(f'{path}: no such run file (--original and --reproduced take two runs each: BASELINE '
                           'ADVANCED)')
    measures = _measures(args.measures, args.suite)
    replication = args.qrels_b is not None
    if not measures and (replication or args.plot):  # (a reproduction has its rankings' agreement without them)
        raise CliError(f'{"a replication (--qrels-b)" if replication else "--plot"} compares the scores of measures: '
                       'give at least one MEASURE or --suite NAME')
    if replication:
        for given, option in ((args.per_topic, '--per-topic'), (args.plot, '--plot'), (args.topics, '--topics'),
                              (args.order, '--order')):
            if given:
                raise CliError(f'{option} compares a reproduction topic by topic; in a replication (--qrels-b) the '
                               'reproduced runs answer other topics')
    if paths.count(STDIN) > 1:
        raise CliError(f'only one run may be "{STDIN}" (standard input)')
    if args.plot:
        from irmeasures_ext.comparison.plot import check_plot_path
        check_plot_path(args.plot, args.overwrite)
    from irmeasures_ext.cli.output import metadata_header
    header = metadata_header(args.metadata, args.output_format)  # (its errors before any run is read)
    prepare_process()
    from irmeasures_ext.readers.inputs import read_input
    file_format, qrels_format = args.format, args.qrels_format or args.format
    qrels = read_input(load_qrels(args.qrels, qrels_format), 'qrels')  # (each input read once, used by all)
    original_b, original_a, reproduced_b, reproduced_a = (read_input(load_run(path, file_format), 'run')
                                                          for path in paths)
    if replication:
        from irmeasures_ext.reproduce import replicability
        qrels_b = read_input(load_qrels(args.qrels_b, qrels_format), 'qrels')
        long = replicability(qrels, original_b, original_a, qrels_b, reproduced_b, reproduced_a, measures, args.rel)
        sys.stdout.write(header)
        _write_summary(sys.stdout, long, args.output_format, args.places)
        return 0
    from irmeasures_ext.reproduce import Experiment
    from irmeasures_ext.reproduce.plot import plot_topic_scores
    experiment = Experiment(qrels, original_b, original_a, measures, args.rel)
    lists = {'topics': args.topics or 'original', 'order': args.order or 'trec_eval'}
    scores = None
    if args.per_topic:
        tables = experiment.per_topic(reproduced_b, reproduced_a, **lists)
        scores = tables['scores']
        sys.stdout.write(header)
        _write_tables(sys.stdout, tables, args.output_format, args.places)
    else:
        long = experiment.reproducibility(reproduced_b, reproduced_a, ranked_lists=True, **lists)
        sys.stdout.write(header)
        _write_summary(sys.stdout, long, args.output_format, args.places)
    if args.plot:
        if scores is None:
            with warnings.catch_warnings():  # (the same runs' unanswered topics: said above)
                warnings.simplefilter('ignore', UnansweredTopicsWarning)
                scores = experiment.paired_topic_scores(reproduced_b, reproduced_a)  # (scored above: not again)
        plot_topic_scores(scores, args.plot, args.overwrite)
        print(f'{PROG}: plot written to {args.plot}', file=sys.stderr)
    return 0


def _measures(texts: list[str], suites: list[str] | None) -> list[Measure]:
    """The measures of the MEASURE arguments and ``--suite``s, each once; a file among them that names no measure is
    a run too many."""
    for text in texts:
        if text == STDIN or (os.path.exists(text) and not _names_a_measure(text)):
            raise CliError(f'{text}: a run among the measures; --original and --reproduced take two runs each '
                           '(BASELINE ADVANCED)')
    return list(dict.fromkeys(parse_measures(texts) + [m for name in suites or [] for m in SUITES[name]]))


def _names_a_measure(text: str) -> bool:
    """Whether ``text`` names a measure (a file of that name beside it notwithstanding)."""
    try:
        parse_measure(text)
    except ValueError:  # (MeasureSyntaxError, MeasureParamError)
        return False
    return True


def _write_summary(out: IO[str], long: pd.DataFrame, output_format: str, places: int) -> None:
    """The long table as jsonl, else its wide form: a row per (measure, statistic), by measure in the order given,
    the agreement rows last, a column per run (missing where a statistic has none)."""
    import pandas as pd
    order = {measure: i for i, measure in enumerate(dict.fromkeys(long['measure']))}
    long = long.sort_values('measure', key=lambda column: column.map(order), kind='stable', ignore_index=True)
    if output_format == 'jsonl':
        write_frame(out, long, output_format, places)
        return
    cells: dict[tuple[str, str], dict[str, float]] = {}
    for measure, statistic, run, value in long.itertuples(index=False):
        cells.setdefault((measure, statistic), {})[run] = value
    wide = pd.DataFrame([(measure, statistic, *(row.get(run) for run in VALUE_COLUMNS))
                         for (measure, statistic), row in cells.items()],
                        columns=['measure', 'statistic', *VALUE_COLUMNS], dtype=object)
    _write_text(out, wide, output_format, places)


def _write_tables(out: IO[str], tables: dict[str, pd.DataFrame], output_format: str, places: int) -> None:
    """Several tables, one after another, each under a ``# name`` line (LaTeX: ``% name``); as jsonl, their
    records one after another, each naming its table first."""
    for i, (name, frame) in enumerate(tables.items()):
        if output_format == 'jsonl':
            write_frame(out, frame.assign(table=name)[['table', *frame.columns]], output_format, places)
            continue
        out.write(('\n' if i else '') + ('%' if output_format == 'latex' else '#') + f' {name}\n')
        _write_text(out, frame, output_format, places)


def _write_text(out: IO[str], frame: pd.DataFrame, output_format: str, places: int) -> None:
    """``frame`` as tsv, markdown or a LaTeX tabular: numbers with ``places`` decimals (-1: all digits; p-values:
    ``places`` significant digits), NaN and infinities as Python writes them, a missing value empty."""
    p_values = frame['statistic'] == 'p_value' if 'statistic' in frame.columns else [False] * len(frame)
    text = frame.copy()
    for column in frame.columns:
        if column not in KEYS:
            text[column] = [_number(value, places, p_value)
                            for value, p_value in zip(frame[column], p_values, strict=True)]
    text = text.astype(object).where(text.notna(), '')
    if output_format != 'latex':
        write_frame(out, text, output_format, places)
        return
    from irmeasures_ext.comparison.output import latex_escape
    align = ''.join('l' if column in KEYS else 'r' for column in frame.columns)
    out.write(f'\\begin{{tabular}}{{{align}}}\n\\toprule\n')
    out.write(' & '.join(latex_escape(str(column)) for column in frame.columns) + ' \\\\\n\\midrule\n')
    for row in text.itertuples(index=False):
        out.write(' & '.join(latex_escape(str(cell)) for cell in row) + ' \\\\\n')
    out.write('\\bottomrule\n\\end{tabular}\n')


def _number(value: Any, places: int, p_value: bool) -> str:
    """A value as the text tables write it ('' where missing)."""
    if value is None:
        return ''
    if places == -1:
        return repr(float(value))
    return format(float(value), f'.{max(places, 1)}g' if p_value else f'.{places}f')


def parser() -> ArgumentParser:
    """The command's argument parser (also read by the documentation's command-line reference)."""
    parser = ArgumentParser(prog=f'{PROG} reproduce', description=__doc__.split('\n\n')[0].replace('\n', ' '))
    parser.add_argument('qrels', metavar='QRELS', help='qrels file (TREC, Parquet or Arrow), or an ir_datasets id '
                                                       'with qrels: those of the original runs')
    parser.add_argument('--original', nargs=2, required=True, metavar=('BASELINE', 'ADVANCED'),
                        help='the original baseline and advanced run files (TREC, Parquet or Arrow; "-": standard '
                             'input)')
    parser.add_argument('--reproduced', nargs=2, required=True, metavar=('BASELINE', 'ADVANCED'),
                        help='the reproduced (with --qrels-b: replicated) baseline and advanced run files')
    parser.add_argument('measures', nargs='*', default=[], metavar='MEASURE',
                        help="measures, by ir_measures' or trec_eval's names (AP, nDCG@10, ndcg_cut.10); none: a "
                             "reproduction's rankings' agreement alone")
    parser.add_argument('--suite', action='append', choices=sorted(SUITES), help='add the measures of a suite')
    parser.add_argument('--qrels-b', metavar='QRELS_B',
                        help='a replication: the reproduced runs are judged on these qrels (another collection), and '
                             "the table gives replicability's statistics (unpaired p-values, ER, ΔRI)")
    parser.add_argument('--topics', choices=TOPIC_SETS,
                        help="the topics of KTU and RBO: the original run's (default; a topic the reproduced run "
                             "does not answer counts 0) or repro_eval's (the reproduced run's)")
    parser.add_argument('--order', choices=ORDERS,
                        help="how KTU and RBO order each topic's docs: as the scores rank them (trec_eval, the "
                             "default: score descending, then doc id descending) or as repro_eval reads them (file: "
                             'the order given, adjacent equal scores by doc id descending)')
    parser.add_argument('--per-topic', action='store_true',
                        help="instead of the table: each topic's scores, original beside reproduced (table scores), "
                             "and each topic's rankings' agreement, with their means (query_id all; table agreement)")
    parser.add_argument('--output_format', '-o', choices=FORMATS, default='tsv')
    add_places(parser, p_values=True)
    parser.add_argument('--plot', metavar='FILE',
                        help='draw the per-topic scores, original against reproduced, into FILE (.png, .svg, .pdf; '
                             'needs matplotlib)')
    parser.add_argument('--overwrite', action='store_true', help='let --plot replace an existing FILE')
    parser.add_argument('--metadata', metavar='FILE',
                        help='put the ir_metadata of the YAML FILE at the top of the report: its "# '
                             'ir_metadata.start" ... "# ir_metadata.end" block (tsv; markdown: inside an HTML '
                             'comment; latex: as %% lines), or a first line {"ir_metadata": {...}} (jsonl)')
    add_formats(parser)
    add_threshold(parser)
    return parser
