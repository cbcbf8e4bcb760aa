"""``irmeasures-ext judges --qrels NAME=QRELS --qrels NAME=QRELS RUN|FOLDER... MEASURE...``: two or more judgement
sets of one collection compared on runs: how far they agree label by label (Cohen's, Fleiss' κ, Krippendorff's α,
correlations), how far the system rankings they give agree per measure (Kendall's τ, τ_AP, RBO...), and every run's
scores under every set; ``--holes K`` adds the holes table, ``--plot FILE`` the systems' scores under two sets.

The tables are written one after another, each under a ``# name`` line (``--table NAME``: that table alone).
"""
from __future__ import annotations

import json
import math
import sys
from typing import IO, Any

from irmeasures_ext.cli.common import (
    PROG,
    ArgumentParser,
    CliError,
    add_formats,
    add_places,
    add_ranking,
    add_threshold,
    load_qrels,
    load_run,
    note_ignored_options,
    positive_int,
    prepare_process,
)
from irmeasures_ext.names import MeasureSyntaxError, parse_measures
from irmeasures_ext.suites import SUITES

TABLES = ('agreement', 'leaderboard', 'scores', 'holes')
FORMATS = ('tsv', 'jsonl', 'markdown')


def run(argv: list[str]) -> int:
    args = parser().parse_intermixed_args(argv)
    note_ignored_options(args)
    sets = named_qrels(args.qrels)
    if len(sets) < 2:
        raise CliError('give two or more judgement sets: --qrels NAME=QRELS --qrels NAME=QRELS')
    run_paths, measures = runs_and_measures(args.inputs)
    measures = list(dict.fromkeys(measures + [m for name in args.suite or [] for m in SUITES[name]]))
    if not measures:
        raise CliError('give at least one MEASURE or --suite NAME')
    if args.table == 'holes' and args.holes is None:
        raise CliError('--table holes needs --holes K')
    if args.plot:
        from irmeasures_ext.comparison.plot import check_plot_path
        check_plot_path(args.plot, args.overwrite)
    prepare_process()
    from irmeasures_ext.judges.report import judges
    report = judges({name: load_qrels(path, args.qrels_format or args.format) for name, path in sets.items()},
                    {name: load_run(path, args.format) for name, path in run_paths.items()}, measures,
                    reference=args.reference, binning=binning(args.binning), decimals=args.decimals,
                    tolerance=args.tolerance, holes_at=args.holes, ties=args.ties,
                    score_precision=args.score_precision, rel=args.rel)
    tables = {'agreement': report.agreement, 'leaderboard': report.leaderboard, 'scores': report.scores,
              'holes': report.holes}
    chosen = [args.table] if args.table else [name for name in TABLES if tables[name] is not None]
    for i, name in enumerate(chosen):
        if not args.table:
            sys.stdout.write(('\n' if i else '') + f'# {name}\n')
        write_frame(sys.stdout, tables[name], args.output_format, args.places)
    if args.plot:
        plotted = args.plot_judges.split(',') if args.plot_judges else None
        if plotted is not None and len(plotted) != 2:
            raise CliError(f'--plot-judges takes two set names, comma-separated; got {args.plot_judges!r}')
        path = report.plot(args.plot, args.plot_measure, plotted, args.overwrite)
        print(f'{PROG}: plot written to {path}', file=sys.stderr)
    return 0


def named_qrels(given: list[str] | None) -> dict[str, str]:
    """name → path of the ``--qrels NAME=PATH`` arguments (a path alone is named by its file stem)."""
    from pathlib import Path
    sets: dict[str, str] = {}
    for text in given or []:
        name, separator, path = text.partition('=')
        if not separator:
            name, path = Path(text).stem, text
        if not name or not path:
            raise CliError(f'--qrels {text!r}: expected NAME=QRELS')
        if name in sets:
            raise CliError(f'--qrels: the name {name!r} is given twice (name each set once: NAME=QRELS)')
        sets[name] = path
    return sets


def runs_and_measures(inputs: list[str]) -> tuple[dict[str, str], list[Any]]:
    """(run name → path, measures) of the positional arguments: an existing file is a run, named by its file stem;
    a folder gives its files (not hidden, sorted); anything else is a measure."""
    import os
    from pathlib import Path

    from irmeasures_ext.comparison.table import default_run_name
    from irmeasures_ext.judges.sets import files_in
    paths: list[str] = []
    measures: list[Any] = []
    for text in inputs:
        if os.path.isdir(text):
            paths += files_in(Path(text))
        elif os.path.exists(text):
            paths.append(text)
        else:
            try:
                measures.extend(parse_measures([text]))
            except MeasureSyntaxError as error:
                raise CliError(f'{text}: no such run file or folder, and not a measure ({error})') from None
    runs: dict[str, str] = {}
    for i, path in enumerate(paths):
        name = default_run_name(path, i)
        if name in runs:
            raise CliError(f'two runs are named {name!r} ({runs[name]}, {path}): give them distinct file names')
        runs[name] = path
    if not runs:
        raise CliError('give at least one RUN (a file, or a folder of run files)')
    return runs, measures


def binning(text: str | None) -> float | list[float] | None:
    """``--binning``: a threshold (``0.5``) or cut points (``0.25,0.5,0.75``)."""
    if text is None:
        return None
    try:
        cuts = [float(part) for part in text.split(',')]
    except ValueError:
        raise CliError(f'--binning {text!r}: expected a threshold (0.5) or comma-separated cut points') from None
    if not all(math.isfinite(cut) for cut in cuts):
        raise CliError(f'--binning {text!r}: the cut points must be finite numbers')
    return cuts[0] if len(cuts) == 1 else cuts


def write_frame(out: IO[str], frame: Any, output_format: str, places: int) -> None:
    """``frame`` as tsv (a header line, then a line per row; numbers with ``places`` decimals, -1: all), jsonl
    (one object per row, numbers in full; missing values null) or a markdown table."""
    columns = [str(column) for column in frame.columns]
    if output_format == 'jsonl':
        for record in frame.to_dict('records'):
            out.write(json.dumps({key: _json_value(value) for key, value in record.items()}) + '\n')
        return
    rows = [[_cell(value, places) for value in row] for row in frame.itertuples(index=False)]
    if output_format == 'tsv':
        out.write('\t'.join(columns) + '\n')
        out.writelines('\t'.join(row) + '\n' for row in rows)
        return
    from irmeasures_ext.comparison.output import markdown_escape
    out.write('| ' + ' | '.join(map(markdown_escape, columns)) + ' |\n')
    out.write('|' + '|'.join('---' for _ in columns) + '|\n')
    out.writelines('| ' + ' | '.join(map(markdown_escape, row)) + ' |\n' for row in rows)


def _cell(value: Any, places: int) -> str:
    value = _json_value(value)
    if value is None:
        return ''
    if isinstance(value, float):
        return repr(value) if places == -1 else format(value, f'.{places}f')
    return str(value)


def _json_value(value: Any) -> Any:
    """A cell as a plain Python value: None where it is missing (NaN, pandas' NA)."""
    value = value.item() if hasattr(value, 'item') else value
    missing = value is None or value is getattr(sys.modules.get('pandas'), 'NA', None)
    return None if missing or isinstance(value, float) and math.isnan(value) else value


def parser() -> ArgumentParser:
    parser = ArgumentParser(prog=f'{PROG} judges', description=__doc__.split('\n\n')[0].replace('\n', ' '))
    parser.add_argument('--qrels', action='append', metavar='NAME=QRELS', required=True,
                        help='a judgement set: its name and qrels file (TREC, Parquet or Arrow), or an ir_datasets '
                             'id with qrels; give two or more')
    parser.add_argument('inputs', nargs='+', metavar='RUN|FOLDER|MEASURE',
                        help='run files (any existing path; a folder gives its files) and measures')
    parser.add_argument('--suite', action='append', choices=sorted(SUITES), help='add the measures of a suite')
    parser.add_argument('--reference', metavar='NAME',
                        help='compare each set with this one (default: every pair of sets)')
    parser.add_argument('--binning', metavar='T|C1,C2,...',
                        help="how real-valued labels become categories for Cohen's and Fleiss' κ: a threshold "
                             '(label >= T is 1, else 0) or cut points (levels)')
    parser.add_argument('--decimals', type=int, metavar='N',
                        help='systems whose scores are equal at N decimals tie in the leaderboards')
    parser.add_argument('--tolerance', type=float, metavar='T',
                        help="systems tie in the leaderboards when their scores are within T of their group's "
                             'best (groups formed from the highest score down)')
    parser.add_argument('--holes', type=positive_int, metavar='K',
                        help='add the holes table: the share of each top K unjudged under each set, and each '
                             'measure with the unjudged docs non-relevant, at the highest label, and condensed')
    parser.add_argument('--table', choices=TABLES, help='write this table alone')
    parser.add_argument('--output_format', '-o', choices=FORMATS, default='tsv')
    add_places(parser)
    parser.add_argument('--plot', metavar='FILE',
                        help="draw the systems' scores under two sets into FILE (.png, .svg, .pdf; needs matplotlib)")
    parser.add_argument('--plot-measure', metavar='MEASURE', help='the measure plotted (default: the first)')
    parser.add_argument('--plot-judges', metavar='A,B', help='the two sets plotted (default: the first two)')
    parser.add_argument('--overwrite', action='store_true', help='let --plot replace an existing FILE')
    add_formats(parser)
    add_ranking(parser)
    add_threshold(parser)
    return parser
