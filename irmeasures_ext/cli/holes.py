"""``irmeasures-ext holes QRELS RUN|FOLDER... MEASURE...`` (or ``--qrels NAME=QRELS`` for each of several judgement
sets): for every run, the share of its top K that the qrels do not judge, and each measure with the unjudged docs
non-relevant (the usual value), all at the highest label, and on the condensed list (the run without them).
"""
from __future__ import annotations

import sys

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
from irmeasures_ext.cli.judges import FORMATS, named_qrels, runs_and_measures, write_frame
from irmeasures_ext.suites import SUITES


def run(argv: list[str]) -> int:
    args = parser().parse_intermixed_args(argv)
    note_ignored_options(args)
    inputs = list(args.inputs)
    sets = named_qrels(args.qrels or ([inputs.pop(0)] if inputs else []))
    run_paths, measures = runs_and_measures(inputs)
    measures = list(dict.fromkeys(measures + [m for name in args.suite or [] for m in SUITES[name]]))
    if not measures:
        raise CliError('give at least one MEASURE or --suite NAME')
    prepare_process()
    from irmeasures_ext.judges.holes import holes
    table = holes({name: load_qrels(path, args.qrels_format or args.format) for name, path in sets.items()},
                  {name: load_run(path, args.format) for name, path in run_paths.items()}, measures, k=args.k,
                  highest=args.highest, ties=args.ties, score_precision=args.score_precision, rel=args.rel)
    write_frame(sys.stdout, table, args.output_format, args.places)
    return 0


def parser() -> ArgumentParser:
    parser = ArgumentParser(prog=f'{PROG} holes', description=__doc__.split('\n\n')[0].replace('\n', ' '))
    parser.add_argument('inputs', nargs='+', metavar='QRELS|RUN|FOLDER|MEASURE',
                        help='the qrels (unless --qrels), then run files (a folder gives its files) and measures')
    parser.add_argument('--qrels', action='append', metavar='NAME=QRELS',
                        help='a judgement set, named (repeat it for several); then every argument is a run or measure')
    parser.add_argument('--suite', action='append', choices=sorted(SUITES), help='add the measures of a suite')
    parser.add_argument('-k', type=positive_int, default=10, help='the depth of the unjudged share (default 10)')
    parser.add_argument('--highest', type=float, metavar='LABEL',
                        help="the label given to every unjudged doc for the 'if_relevant' column (default: the "
                             "set's highest label)")
    parser.add_argument('--output_format', '-o', choices=FORMATS, default='tsv')
    add_places(parser)
    add_formats(parser)
    add_ranking(parser)
    add_threshold(parser)
    return parser
