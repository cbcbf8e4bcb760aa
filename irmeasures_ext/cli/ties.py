"""``irmeasures-ext ties QRELS RUN [MEASURE...]``: how much score ties move each measure.

Per measure: its mean under trec_eval's tie rule and under the pessimistic, expected and optimistic
tie policies (the worst, average and best the run could be credited with), the range between the
extremes, how many queries have a tie group that holds a relevant doc, or that straddles the measure's
cutoff (docs of one score on both sides of rank k), and the policies it refuses (why: on stderr). A
measure's own ties parameter is set aside (said on stderr): the report ranks it under each policy.
"""
from __future__ import annotations

import sys

from irmeasures_ext.cli.common import (
    PROG,
    ArgumentParser,
    CliError,
    add_inputs,
    add_intents,
    add_places,
    add_threshold,
    load,
    prepare_process,
    with_intents,
)
from irmeasures_ext.measures.base import SCORE_PRECISIONS, Ranking
from irmeasures_ext.names import parse_measures
from irmeasures_ext.plugin import provider as ext_provider
from irmeasures_ext.suites import SUITES

DEFAULT_MEASURES = 'AP nDCG@10 P@10 R@100 RR RR@10'
POLICIES = ('trec_eval', 'pessimistic', 'expected', 'optimistic')


def parser() -> ArgumentParser:
    """The command's argument parser (also read by the documentation's command-line reference)."""
    parser = ArgumentParser(prog=f'{PROG} ties', description=__doc__.split('\n\n')[1].replace('\n', ' '))
    add_inputs(parser)
    parser.add_argument('measures', nargs='*', default=[], metavar='MEASURE', help=f'default: {DEFAULT_MEASURES}')
    parser.add_argument('--suite', action='append', choices=sorted(SUITES), help='add the measures of a suite')
    parser.add_argument('--score-precision', choices=SCORE_PRECISIONS, default='float32',
                        help='scores tie when equal as float32 (default) or float64')
    add_places(parser)
    add_intents(parser)
    add_threshold(parser)
    return parser


def run(argv: list[str]) -> int:
    args = parser().parse_intermixed_args(argv)
    measures = parse_measures(args.measures or ([] if args.suite else [DEFAULT_MEASURES]))
    measures = list(dict.fromkeys(measures + [m for name in args.suite or [] for m in SUITES[name]]))
    unsupported = [str(m) for m in measures if not ext_provider.supports(m)]
    if unsupported:
        raise CliError(f'not computed by {ext_provider.NAME}: {" ".join(unsupported)}')
    prepare_process()
    from irmeasures_ext.reports.tie_report import tie_report
    qrels, run_input = load(args)
    rows = tie_report(measures, with_intents(qrels, args.intents, args.renormalise_intents), run_input,
                      {policy: Ranking(policy, args.score_precision, rel=args.rel) for policy in POLICIES})
    spec = '' if args.places == -1 else f'.{args.places}f'

    def cell(value: float | None) -> str:
        return '—' if value is None else format(value, spec)
    for row in rows:
        if 'ties' in row.measure.params:
            print(f"{PROG} ties: {row.measure}: its own ties={row.measure['ties']!r} is set aside: the report ranks "
                  'it under each policy', file=sys.stderr)
        for reason in row.refused.values():
            print(f'{PROG} ties: {reason}', file=sys.stderr)
    print('\t'.join(['measure', *POLICIES, 'range', 'queries_tied_at_cutoff', 'queries_tied_relevant', 'refused']))
    for row in rows:
        sys.stdout.write('\t'.join([str(row.measure), *(cell(row.values.get(p)) for p in POLICIES), cell(row.range),
                                    '—' if row.tied_at_cutoff is None else str(row.tied_at_cutoff),
                                    str(row.tied_relevant), ','.join(row.refused) or '—']) + '\n')
    return 0
