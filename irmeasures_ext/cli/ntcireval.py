"""``irmeasures-ext ntcireval QRELS RUN -g GAINS``: NTCIREVAL's ad hoc ``label`` and ``compute`` in
one command, on TREC files, with this package's measures.

It prints what NTCIREVAL 190111's ``compute`` prints, under its names and in its order (``RR``,
``O-measure``, ..., then per cutoff ``AP@0010``, ``Q@0010``, ..., ``Hit@0010``, then the bpref family
with ``-bpref``), per topic (``-q``) and as means over the qrels topics as its ``NEV2mean`` script
computes them. Text output is the lines of NTCIREVAL's per-topic ``.nev`` files, ``QID NAME=  VALUE``
(without their ``#`` header lines); ``-o tsv`` prints rows ``QID<TAB>NAME<TAB>VALUE``. Each NTCIREVAL
name is one row of :data:`ROWS`, mapping it to our measure for the options given. The modes of
``label`` are those of our provider and measures: ``-j`` is ``judged_only=True`` on every measure,
``-truncate N`` the provider's depth cut, ``-ec`` its equivalence classes (``classes=True`` for every
measure, ir_measures' RR, AP, P and Success among them).
"""
from __future__ import annotations

import argparse
import math
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple, TextIO

from ir_measures import AP, RR, P, Success
from ir_measures.measures import Measure

from irmeasures_ext import measures as ext_measures
from irmeasures_ext.cli.common import (
    PROG,
    SUMMARY_QID,
    ArgumentParser,
    CliError,
    add_inputs,
    add_ranking,
    add_renormalise,
    load,
    places,
    positive_int,
    prepare_process,
)
from irmeasures_ext.errors import InvalidClassError, MeasureParamError, RowError

#: NTCIREVAL's ``-cutoffs`` default and limit ("Too many cutoffs" beyond), and its ``-p``-less 4 decimals.
DEFAULT_CUTOFFS = (1000,)
MAX_CUTOFFS = 9
DEFAULT_PLACES = 4
#: The most levels NTCIREVAL's ``compute`` takes (its MAXRL_MAX: "maxrl overflow" beyond), and the highest level its
#: diversity scripts read (``DIN-splitqrels``: L9).
MAX_LEVELS = 15
MAX_DIVERSITY_LEVEL = 9
#: The width NTCIREVAL pads ``NAME=`` to before the value (``printf("%s RR=                  %.4f")``).
NAME_WIDTH = 21
#: What NTCIREVAL's ``compute`` prints, in its order: the measures without a cutoff, those printed at
#: each cutoff (``@k`` stands for ``@%04d`` of the cutoff), then the bpref family (with ``compute -j``).
#: GAP and GAP@k are printed only with ``-gap``, iRBU@k only with ``-rbup``.
BEFORE_CUTOFFS = ('RR', 'O-measure', 'P-measure', 'P-plus', 'AP', 'Q-measure', 'NCUgu,P', 'NCUgu,BR', 'NCUrb,P',
                  'NCUrb,BR', 'GAP', 'RBP', 'ERR', 'EBR')
AT_EACH_CUTOFF = ('AP@k', 'Q@k', 'GAP@k', 'nDCG@k', 'MSnDCG@k', 'P@k', 'RBP@k', 'ERR@k', 'nERR@k', 'EBR@k',
                  'iRBU@k', 'Hit@k')
AFTER_CUTOFFS = ('bpref', 'bpref_R', 'bpref_N', 'bpref_relative', 'rpref_N', 'rpref_relative', 'rpref_relative2')
#: What gcompute prints per intent in NTCIREVAL's IA and P+Q scripts (``--per-intent``): the lines above that
#: it computes without its options (no graded-uniform NCU, GAP, iRBU or bpref family).
PER_INTENT_BEFORE_CUTOFFS = ('RR', 'O-measure', 'P-measure', 'P-plus', 'AP', 'Q-measure', 'NCUrb,P', 'NCUrb,BR',
                             'RBP', 'ERR', 'EBR')
PER_INTENT_AT_EACH_CUTOFF = ('AP@k', 'Q@k', 'nDCG@k', 'MSnDCG@k', 'P@k', 'RBP@k', 'ERR@k', 'nERR@k', 'EBR@k',
                             'Hit@k')


@dataclass(frozen=True)
class Settings:
    """The options of one command as our measures take them: ``gains`` ``{level: gain}`` from ``-g``
    (which declares the highest level, ``max_level``), ``beta``, and the options a measure reads only
    when given (None: NTCIREVAL's default, which is the measure's own)."""

    gains: dict[int, float]
    max_level: int
    beta: float
    logb: float | None = None
    rbp: float | None = None
    gamma: float | None = None
    stops: dict[int, float] | None = None
    rbup: float | None = None

    def given(self, **options: str) -> dict[str, Any]:
        """``{parameter: value}`` of the options given on the command line, named ``{parameter: option}``
        (to pass to a measure: ``given(p='rbp')``)."""
        return {param: getattr(self, option) for param, option in options.items()
                if getattr(self, option) is not None}

    def blended(self) -> dict[str, Any]:
        """β and the gains, as the blended-ratio measures (Q, O-measure, ...) take them."""
        return {'beta': self.beta, 'gains': self.gains}

    def graded(self) -> dict[str, Any]:
        """The gains and the top level, as the measures normalised by g_max (RBP, ERR, ...) take them."""
        return {'gains': self.gains, 'max_level': self.max_level}


class Row(NamedTuple):
    """How one NTCIREVAL output name is computed: ``build`` gives our measure for the settings (for a name
    of :data:`AT_EACH_CUTOFF`, the measure without its cutoff); ``shown_with`` the flag without which
    NTCIREVAL does not print it (``gap``, ``rbup``, ``bpref``)."""

    build: Callable[[Settings], Measure]
    shown_with: str | None = None


#: NTCIREVAL's output names, each computed by one measure of ours (``ext_measures.``) or of ir_measures (which our
#: provider computes). NCU's ``P`` utility takes no beta; NCUrb,P reads no gains (NTCIREVAL's neither).
ROWS: dict[str, Row] = {
    'RR': Row(lambda s: RR),
    'O-measure': Row(lambda s: ext_measures.O_measure(**s.blended())),
    'P-measure': Row(lambda s: ext_measures.P_measure(**s.blended())),
    'P-plus': Row(lambda s: ext_measures.P_plus(**s.blended())),
    'AP': Row(lambda s: AP),
    'Q-measure': Row(lambda s: ext_measures.Q(**s.blended())),
    'NCUgu,P': Row(lambda s: ext_measures.NCU(stopping='gu', utility='P', gains=s.gains, **s.given(stops='stops'))),
    'NCUgu,BR': Row(lambda s: ext_measures.NCU(stopping='gu', utility='BR', **s.blended(), **s.given(stops='stops'))),
    'NCUrb,P': Row(lambda s: ext_measures.NCU(stopping='rb', utility='P', **s.given(gamma='gamma'))),
    'NCUrb,BR': Row(lambda s: ext_measures.NCU(stopping='rb', utility='BR', **s.blended(), **s.given(gamma='gamma'))),
    'GAP': Row(lambda s: ext_measures.GAP, shown_with='gap'),
    'RBP': Row(lambda s: ext_measures.RBP_NTCIR(**s.graded(), **s.given(p='rbp'))),
    'ERR': Row(lambda s: ext_measures.ERR_NTCIR(**s.graded())),
    'EBR': Row(lambda s: ext_measures.EBR(beta=s.beta, **s.graded())),
    'AP@k': Row(lambda s: ext_measures.Q(beta=0.0)),  # NTCIREVAL's AP@k divides by min(k, R), as Q@k does
    'Q@k': Row(lambda s: ext_measures.Q(**s.blended())),
    'GAP@k': Row(lambda s: ext_measures.GAP, shown_with='gap'),
    'nDCG@k': Row(lambda s: ext_measures.nDCG_JK(gains=s.gains, **s.given(logb='logb'))),
    'MSnDCG@k': Row(lambda s: ext_measures.MSnDCG(gains=s.gains)),
    'P@k': Row(lambda s: P),
    'RBP@k': Row(lambda s: ext_measures.RBP_NTCIR(**s.graded(), **s.given(p='rbp'))),
    'ERR@k': Row(lambda s: ext_measures.ERR_NTCIR(**s.graded())),
    'nERR@k': Row(lambda s: ext_measures.nERR(**s.graded())),
    'EBR@k': Row(lambda s: ext_measures.EBR(beta=s.beta, **s.graded())),
    'iRBU@k': Row(lambda s: ext_measures.iRBU(u=s.rbup, **s.graded()), shown_with='rbup'),
    'Hit@k': Row(lambda s: Success),
    'bpref': Row(lambda s: ext_measures.bpref_NTCIR, shown_with='bpref'),
    'bpref_R': Row(lambda s: ext_measures.bpref_R, shown_with='bpref'),
    'bpref_N': Row(lambda s: ext_measures.bpref_N, shown_with='bpref'),
    'bpref_relative': Row(lambda s: ext_measures.bpref_relative, shown_with='bpref'),
    'rpref_N': Row(lambda s: ext_measures.rpref_N(**s.graded()), shown_with='bpref'),
    'rpref_relative': Row(lambda s: ext_measures.rpref_relative(**s.graded()), shown_with='bpref'),
    'rpref_relative2': Row(lambda s: ext_measures.rpref_relative2(**s.graded()), shown_with='bpref'),
}


#: The diversity mode's lines (``-I``) printed once, before the cutoffs: (NTCIREVAL's name, our measure's name, its
#: fixed parameters): gcompute's lines without ``@k``, on the list cut at ``-truncate`` (the scripts' K), and
#: I-rec@n, which NTCIREVAL's irec reads from the whole run (past ``-truncate`` too); SUMp, which its IA and P+Q
#: scripts print with each cutoff's lines (it depends on no cutoff: once here); then DIN-NTCIR-eval's gcompute
#: lines without ``@k`` (the same with DIN's gains, prefixed ``DIN-``). D-GAP only with ``-gap``.
DIVERSITY_BEFORE_CUTOFFS: tuple[tuple[str, str, dict[str, Any]], ...] = (
    ('D-RR', 'D_RR', {}), ('D-O-measure', 'D_O_measure', {}), ('D-P-measure', 'D_P_measure', {}),
    ('D-P-plus', 'D_P_plus', {}), ('D-AP', 'D_AP', {}), ('D-Q-measure', 'D_Q', {}),
    ('D-NCUrb,P', 'D_NCU', {'utility': 'P'}), ('D-NCUrb,BR', 'D_NCU', {}), ('D-GAP', 'D_GAP', {}),
    ('D-RBP', 'D_RBP', {}), ('D-ERR', 'D_ERR', {}), ('D-EBR', 'D_EBR', {}), ('I-rec@n', 'I_rec_n', {}),
    ('SUMp', 'SUMp', {}),
    ('DIN-RR', 'DIN_RR', {}), ('DIN-O-measure', 'DIN_O_measure', {}), ('DIN-P-measure', 'DIN_P_measure', {}),
    ('DIN-P-plus', 'DIN_P_plus', {}), ('DIN-AP', 'DIN_AP', {}), ('DIN-Q-measure', 'DIN_Q', {}),
    ('DIN-NCUrb,P', 'DIN_NCU', {'utility': 'P'}), ('DIN-NCUrb,BR', 'DIN_NCU', {}), ('DIN-RBP', 'DIN_RBP', {}),
    ('DIN-ERR', 'DIN_ERR', {}), ('DIN-EBR', 'DIN_EBR', {}))
#: The diversity mode's lines per cutoff: (NTCIREVAL's name, our measure's name); D-GAP@k only with ``-gap``.
DIVERSITY_ROWS = (('I-rec@k', 'I_rec'), ('D-nDCG@k', 'D_nDCG'), ('D-Q@k', 'D_Q'), ('D-nERR@k', 'D_nERR'),
                  ('D-ERR@k', 'D_ERR'), ('D-RBP@k', 'D_RBP'), ('D-EBR@k', 'D_EBR'), ('D-AP@k', 'D_AP'),
                  ('D-GAP@k', 'D_GAP'), ('D-P@k', 'D_P'), ('D-Hit@k', 'D_Hit'), ('D-nDCG_JK@k', 'D_nDCG_JK'),
                  ('D#-nDCG@k', 'D_sharp_nDCG'), ('D#-Q@k', 'D_sharp_Q'), ('D#-ERR@k', 'D_sharp_ERR'),
                  ('D#-RBP@k', 'D_sharp_RBP'), ('D#-EBR@k', 'D_sharp_EBR'), ('DIN-nDCG@k', 'DIN_nDCG'),
                  ('DIN-Q@k', 'DIN_Q'), ('DIN-nERR@k', 'DIN_nERR'), ('DIN-ERR@k', 'DIN_ERR'), ('DIN-RBP@k', 'DIN_RBP'),
                  ('DIN-EBR@k', 'DIN_EBR'), ('DIN-AP@k', 'DIN_AP'), ('DIN-P@k', 'DIN_P'), ('DIN-Hit@k', 'DIN_Hit'),
                  ('DIN-nDCG_JK@k', 'DIN_nDCG_JK'), ('DIN#-nDCG@k', 'DIN_sharp_nDCG'), ('DIN#-Q@k', 'DIN_sharp_Q'),
                  ('IA-MSnDCG@k', 'IA_MSnDCG'), ('IA-nERR@k', 'IA_nERR'), ('IA-Q@k', 'IA_Q'), ('IA-ERR@k', 'IA_ERR'),
                  ('IA-RBP@k', 'IA_RBP'), ('IA-EBR@k', 'IA_EBR'), ('PplusQ@k', 'PplusQ'),
                  ('PplusQ#@k', 'PplusQ_sharp'))
#: The options of the ad hoc evaluation that the diversity mode does not take (its gains are the levels).
AD_HOC_ONLY = ('g', 'bpref', 'ec', 'rbup', 's', 'logb')


def run(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    try:
        check_diversity_options(args)
        if args.I:
            printed = diversity_measures(args)
        else:
            if args.g is None:
                raise CliError('-g GAINS is required (or -I FILE: the diversity measures)')
            check_combinations(args)
            printed = printed_measures(settings_of(args), args.cutoffs, {
                name for name in ('gap', 'rbup', 'bpref') if getattr(args, name) not in (None, False)}, args.j)
    except MeasureParamError as error:
        raise CliError(f'{error} (from the command line options)') from None
    prepare_process()
    from irmeasures_ext._arrow import compute as ac
    from irmeasures_ext._arrow.arrays import from_numpy, to_numpy
    from irmeasures_ext.evaluation import evaluate
    from irmeasures_ext.plugin import provider as ext_provider
    from irmeasures_ext.readers.inputs import read_input
    qrels_input, run_input = load(args)
    if args.I:
        from irmeasures_ext.readers.intent_probabilities import IntentQrels
        qrels_input = IntentQrels(qrels_input, args.I, args.renormalise_intents)
    qrels = read_input(qrels_input, 'qrels', with_intents=bool(args.I))
    with qrels.located():
        if not args.I:
            check_levels(qrels.table, len(_levels('-g', args.g)), args.g, args.j)
        else:
            check_diversity_levels(qrels.table)
        if args.ec:
            check_class_ids(qrels.table)
    configured = ext_provider.configured(args.ties, args.score_precision, depth=args.truncate, classes=args.ec)
    measures = list(dict.fromkeys(measure for _, measure in printed))
    whole_run = [measure for measure in measures if args.truncate and measure.NAME == 'I_rec_n']
    if whole_run or args.per_intent:  # (evaluated more than once: read once, whole)
        run_input = read_input(run_input, 'run', with_rank=args.ties == 'rank')
    results = evaluate([measure for measure in measures if measure not in whole_run], qrels, run_input, configured)
    if whole_run:  # (NTCIREVAL's irec reads the whole run, not the list its scripts cut at K)
        whole = ext_provider.configured(args.ties, args.score_precision, classes=args.ec)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')  # (the same inputs: their warnings are printed once, above)
            results.values.update(evaluate(whole_run, qrels, run_input, whole).values)
    if args.per_intent:
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')  # (the same inputs: their warnings are printed once, above)
            write_per_intent(args, qrels, run_input, configured)
    relevance = qrels.table['relevance']

    def queries_with(labels: Any) -> Any:
        """Whether each of the results' queries has a qrels line that ``labels`` (a mask over the lines) picks,
        as a numpy array."""
        query_ids = ac.take(qrels.table['query_id'], ac.indices_nonzero(labels))
        return to_numpy(ac.is_in(results.query_ids, ac.unique(query_ids)))

    defined = queries_with(ac.greater_equal(relevance, 1))
    if args.bpref:  # compute -j: nothing for a topic without judged non-relevant docs either
        defined &= queries_with(ac.less(relevance, 1))
    columns = [(name, results.values[measure]) for name, measure in printed]
    write = _write_tsv if args.o == 'tsv' else _write_text
    if args.q:
        defined_ids = ac.take(results.query_ids, from_numpy(defined.nonzero()[0]))
        write(sys.stdout, defined_ids, [(name, values[defined]) for name, values in columns],
              args.p)
    topics = len(set(qrels_input.probabilities.query_id)) if args.ntcireval_means else len(results.query_ids)
    means = [(name, values[defined].sum(keepdims=True) / topics) for name, values in columns]  # NEV2mean
    write(sys.stdout, _summary_ids() if args.q else None, means, args.p)
    return 0


def write_per_intent(args: argparse.Namespace, qrels: Any, run_input: Any, configured: Any) -> None:
    """``--per-intent``: gcompute's lines of each intent with a relevant doc (:data:`PER_INTENT_BEFORE_CUTOFFS`,
    then :data:`PER_INTENT_AT_EACH_CUTOFF` per cutoff), its levels its gains and its top level H, as NTCIREVAL's
    IA and P+Q scripts print them; each line ``QID INTENT TYPE PROB NAME=  VALUE`` (``-o tsv``: tab-separated)."""
    from irmeasures_ext.per_intent import group_values, intent_groups
    spec = '' if args.p == -1 else f'.{args.p}f'
    separator = '\t' if args.o == 'tsv' else ' '
    written = []
    for group in intent_groups(qrels, run_input, with_rank=args.ties == 'rank'):
        top = int(group.top)
        settings = Settings(gains={level: float(level) for level in range(1, top + 1)}, max_level=top,
                            beta=checked_beta(args), rbp=args.rbp, gamma=args.gamma)
        printed = printed_measures(settings, args.cutoffs, set(), args.j,
                                   (PER_INTENT_BEFORE_CUTOFFS, PER_INTENT_AT_EACH_CUTOFF))
        values = group_values(list(dict.fromkeys(measure for _, measure in printed)), group, configured)
        for position, key in enumerate(group.keys.itertuples()):
            prefix = separator.join((key.query_id, key.intent, key.type, repr(key.probability), ''))
            written.append((key.row, ''.join(
                f'{prefix}{_label(name, args.o)}{format(values[measure][position], spec)}\n'
                for name, measure in printed)))
    sys.stdout.write(''.join(text for _, text in sorted(written)))


def _label(name: str, output: str) -> str:
    """``NAME=`` padded as NTCIREVAL pads it, or ``NAME<TAB>`` for ``-o tsv``."""
    return f'{name}\t' if output == 'tsv' else f'{name + "=":<{NAME_WIDTH}}'


def settings_of(args: argparse.Namespace) -> Settings:
    """The measures' settings from the parsed command line (CliError for bad values, and for the gains and stop
    values NTCIREVAL's compute refuses: more than MAX_LEVELS levels, as many stop values as levels but not, a gain
    above a higher level's; our measures take any gains)."""
    gains = _levels('-g', args.g)
    if any(gain == 0 for gain in gains.values()):
        raise CliError(f'-g {args.g}: a gain of 0 is not supported (NTCIREVAL then leaves that level out of AP and '
                       'Q but counts it in R, RR and P@k; our measures do not reproduce that)')
    stops = None if args.s is None else _stop_values(args.s)
    if stops is not None and len(stops) != len(gains):
        raise CliError(f'-s {args.s}: {len(stops)} stop values for the {len(gains)} levels of -g {args.g}, which '
                       'NTCIREVAL\'s compute refuses ("gain/stop rel levels mismatch"): give one stop value per level')
    for level in range(1, len(gains)):
        if gains[level] > gains[level + 1]:
            raise CliError(f'-g {args.g}: the gain of L{level} ({gains[level]:g}) is above that of L{level + 1} '
                           f'({gains[level + 1]:g}), which NTCIREVAL\'s compute refuses ("Bad gain/stop values"): give '
                           'gains that do not decrease from L1 up')
    return Settings(gains=gains, max_level=len(gains), beta=checked_beta(args), logb=args.logb, rbp=args.rbp,
                    gamma=args.gamma, stops=stops, rbup=args.rbup)


def checked_beta(args: argparse.Namespace) -> float:
    """``-beta``, a finite number >= 0, in both modes (CliError otherwise)."""
    if not math.isfinite(args.beta) or args.beta < 0:
        raise CliError(f'-beta must be a finite number >= 0, got {args.beta:g}')
    return float(args.beta)


def diversity_measures(args: argparse.Namespace) -> list[tuple[str, Measure]]:
    """(name, our measure) of every line of the diversity mode: DIVERSITY_BEFORE_CUTOFFS, then per cutoff
    DIVERSITY_ROWS (CliError for an ad hoc option or a bad ``-beta``). ``-beta`` goes to every measure that takes
    it, those whose value holds a blended ratio (D- and DIN-NCUrb,P's utility is precision: they take none)."""
    given = [f'-{name}' for name in AD_HOC_ONLY if getattr(args, name) not in (None, False)]
    if given:
        raise CliError(f'{" ".join(given)}: not taken with -I (the diversity measures: their gains are the levels)')
    beta = checked_beta(args)

    def built(ours: str, fixed: dict[str, Any]) -> Measure:
        declared = ext_measures.DECLARED[ours]
        options = {'p': args.rbp, 'gamma': args.gamma if ours in ('D_NCU', 'DIN_NCU') else args.Igamma,
                   'beta': None if fixed.get('utility') == 'P' else beta, **fixed}
        measure = declared(**{param: value for param, value in options.items()
                              if value is not None and param in declared.SUPPORTED_PARAMS})
        return measure(judged_only=True) if args.j else measure

    def shown(ours: str) -> bool:
        return ours != 'D_GAP' or args.gap
    printed = [(name, built(ours, fixed)) for name, ours, fixed in DIVERSITY_BEFORE_CUTOFFS if shown(ours)]
    for cutoff in args.cutoffs:
        printed += [(name.replace('@k', f'@{cutoff:04d}'), built(ours, {}) @ cutoff)
                    for name, ours in DIVERSITY_ROWS if shown(ours)]
    return printed


def check_combinations(args: argparse.Namespace) -> None:
    """CliError for options NTCIREVAL does not compute together."""
    if args.bpref and not args.j:
        raise CliError('-bpref computes the bpref family on condensed lists, as NTCIREVAL\'s "compute -j" after '
                       '"label -j": give -j too')
    if args.bpref and args.ec:
        raise CliError('-bpref cannot be combined with -ec: with equivalence classes NTCIREVAL counts no judged '
                       'non-relevant docs (N = 0), so "compute -ec -j" computes no bpref family')


def printed_measures(settings: Settings, cutoffs: list[int], flags: set[str], judged_only: bool = False,
                     names: tuple[tuple[str, ...], ...] = (BEFORE_CUTOFFS, AT_EACH_CUTOFF, AFTER_CUTOFFS),
                     ) -> list[tuple[str, Measure]]:
    """(NTCIREVAL name, our measure) of every line ``compute`` prints per topic, in its order (``names``: those
    printed before the cutoffs, at each, after them); with ``judged_only``, each on the condensed list (``label
    -j``)."""
    def rows(names: tuple[str, ...]) -> list[tuple[str, Measure]]:
        built = [(name, ROWS[name].build(settings)) for name in names
                 if ROWS[name].shown_with is None or ROWS[name].shown_with in flags]
        return [(name, measure(judged_only=True) if judged_only else measure) for name, measure in built]
    before, at_each, *after = names
    printed = rows(before)
    for cutoff in cutoffs:
        printed += [(name.replace('@k', f'@{cutoff:04d}'), measure @ cutoff) for name, measure in rows(at_each)]
    return printed + [line for more in after for line in rows(more)]


def check_levels(qrels: Any, max_level: int, gains_text: str, judged_only: bool = False) -> None:
    """RowError for the first qrels line whose label is not an integer (a real-valued label: NTCIREVAL's levels
    are L0, L1, ...) or is above the highest level ``-g`` declares, where NTCIREVAL's compute stops with "max
    rel level mismatch"; with ``judged_only``, also for a negative label (NTCIREVAL cannot read one; a condensed
    list would keep its doc for our measures and drop it for ir_measures' AP, RR, P and Success, as trec_eval -J
    does)."""
    import numpy as np

    from irmeasures_ext._arrow.arrays import to_numpy
    labels = to_numpy(qrels['relevance'])
    checks = [(labels != np.floor(labels), 'is not a level: NTCIREVAL reads integer levels L0, L1, ... (the measures '
               'take real-valued labels: irmeasures-ext QRELS RUN "Q@10")'),
              (labels > max_level, f'is above L{max_level}, the highest level "-g {gains_text}" declares (give one '
                                   'gain per level, L1 to the highest)')]
    if judged_only:
        checks.append((labels < 0, 'is negative, which -j cannot take (NTCIREVAL reads no negative labels; label '
                                   'such docs 0 or leave them out)'))
    for bad, problem in checks:
        if bad.any():
            row = int(np.argmax(bad))
            query_id, doc_id, label = (qrels[column][row].as_py() for column in ('query_id', 'doc_id', 'relevance'))
            raise RowError(f'label {label} of doc {doc_id!r} in query {query_id!r} {problem}', 'qrels', query_id,
                           doc_id)


def check_diversity_options(args: argparse.Namespace) -> None:
    """CliError for the options of the diversity mode given without ``-I``."""
    if args.I is None and args.renormalise_intents:
        raise CliError('--renormalise-intents renormalises the intent probabilities of -I FILE: give -I too')
    if args.I is None and args.per_intent:
        raise CliError('--per-intent prints the values of each intent of -I FILE: give -I too')
    if args.I is None and args.ntcireval_means:
        raise CliError("--ntcireval-means: only with -I (the ad hoc means are NEV2mean's already: over the qrels "
                       "topics, NTCIREVAL's topic list)")


def check_diversity_levels(qrels: Any) -> None:
    """RowError (naming the intent, for the line) for the first line of diversity qrels whose label is not a level
    L0 to L9, the labels NTCIREVAL's DIN-splitqrels reads: it leaves another label out of the global gains (D- and
    DIN-measures) and writes it in its intent's file (IA-measures, P+Q) with the gain of the line before; our
    measures take any label, a level's gain the level."""
    import numpy as np

    from irmeasures_ext._arrow.arrays import to_numpy
    from irmeasures_ext.readers.schemas import INTENT_COLUMN
    labels = to_numpy(qrels['relevance'])
    for bad, problem in ((labels > MAX_DIVERSITY_LEVEL, f'is above L{MAX_DIVERSITY_LEVEL}'),
                         ((labels != np.floor(labels)) | (labels < 0), 'is not a level')):
        if bad.any():
            row = int(np.argmax(bad))
            query_id, doc_id, intent = (qrels[column][row].as_py() for column in ('query_id', 'doc_id', INTENT_COLUMN))
            label = float(labels[row])
            error = RowError(f'label {int(label) if label.is_integer() else label} of doc {doc_id!r} in query '
                             f"{query_id!r} {problem}: NTCIREVAL's DIN-splitqrels reads levels L0 to L9 only (it "
                             "leaves another label out of the D- and DIN-measures' gains, and gives it another line's "
                             "gain in the IA-measures' and P+Q's): write levels L0 to L9 (our measures take any "
                             'label: irmeasures-ext QRELS RUN D_nDCG@10 --intents FILE)', 'qrels', query_id, doc_id)
            error.intent = intent
            raise error


def check_class_ids(qrels: Any) -> None:
    """InvalidClassError for the first qrels line whose equivalence class id is 0 or below, which NTCIREVAL's
    ``-ec`` refuses (its class ids start at 1; the provider takes any non-negative one)."""
    import numpy as np

    from irmeasures_ext._arrow.arrays import to_numpy
    from irmeasures_ext.readers.schemas import CLASS_COLUMN
    if CLASS_COLUMN not in qrels.column_names:
        return  # (the provider refuses qrels without classes under -ec, naming them)
    classes = to_numpy(qrels[CLASS_COLUMN])
    if classes.min(initial=1) <= 0:
        row = int(np.argmax(classes <= 0))
        query_id, doc_id = (qrels[column][row].as_py() for column in ('query_id', 'doc_id'))
        raise InvalidClassError(f'class id {int(classes[row])} of doc {doc_id!r} in query {query_id!r} is not a '
                                "positive integer: NTCIREVAL's -ec numbers classes from 1", 'qrels', query_id, doc_id,
                                int(classes[row]))


def _levels(flag: str, text: str) -> dict[int, float]:
    """``{level: value}`` of a colon-separated list such as ``1:2:3`` (levels L1, L2, ...)."""
    try:
        values = [float(part) for part in text.split(':')]
    except ValueError:
        raise CliError(f'{flag} {text}: expected numbers separated by ":" (one per level from L1), e.g. 1:2:3') \
            from None
    if len(values) > MAX_LEVELS:
        raise CliError(f'{flag} {text}: {len(values)} levels, which NTCIREVAL\'s compute refuses ("'
                       f'{"maxrl" if flag == "-g" else "maxrl_stop"} overflow": it takes at most {MAX_LEVELS})')
    if not all(math.isfinite(value) and value >= 0 for value in values):
        raise CliError(f'{flag} {text}: every value must be a finite number >= 0')
    return {level: value for level, value in enumerate(values, start=1)}


def _stop_values(text: str) -> dict[int, float]:
    """The ``-s`` stop values per level: positive and non-decreasing, as NTCIREVAL requires (a stop value of 0
    everywhere would make NCUgu 0/0)."""
    stops = _levels('-s', text)
    values = list(stops.values())
    if min(values) <= 0 or any(later < earlier for earlier, later in zip(values, values[1:], strict=False)):
        raise CliError(f'-s {text}: stop values must be positive and non-decreasing from L1 (as NTCIREVAL requires)')
    return stops


def _cutoffs(text: str) -> list[int]:
    """The ``-cutoffs`` list: distinct positive integers, at most MAX_CUTOFFS."""
    parts = text.split(',')
    if not all(part.isascii() and part.isdigit() and int(part) > 0 for part in parts):  # ('²'.isdigit() too)
        raise argparse.ArgumentTypeError(f'{text!r}: expected positive integers separated by ",", e.g. 10,1000')
    cutoffs = [int(part) for part in parts]
    if len(cutoffs) > MAX_CUTOFFS:
        raise argparse.ArgumentTypeError(f'{len(cutoffs)} cutoffs; NTCIREVAL takes at most {MAX_CUTOFFS}')
    if len(set(cutoffs)) < len(cutoffs):
        raise argparse.ArgumentTypeError(f'{text!r}: a cutoff is given twice')
    return cutoffs


def _summary_ids() -> Any:
    from irmeasures_ext._arrow.arrays import string_array
    return string_array([SUMMARY_QID])


def _write_lines(out: TextIO, query_ids: Any, columns: list[tuple[str, Any]], places: int,
                 label: Callable[[str], str], prefix: str) -> None:
    """One line per query and measure, the queries' lines together: ``QID`` + label(name) + value, or,
    without ``query_ids``, label(name) + value (``prefix`` separates the query id from the label);
    ``places`` decimals (-1: Python's shortest repr)."""
    spec = '' if places == -1 else f'.{places}f'
    if query_ids is None:
        out.write(''.join(f'{label(name)}{format(value, spec)}\n' for name, values in columns
                          for value in values.tolist()))
    elif columns and len(query_ids):
        from irmeasures_ext.cli.output import query_lines
        out.write(bytes(query_lines(query_ids, [(prefix + label(name), values) for name, values in columns],
                                    places)).decode())


def _write_text(out: TextIO, query_ids: Any, columns: list[tuple[str, Any]], places: int) -> None:
    """NTCIREVAL's lines, ``NAME=`` padded as it pads them, after the query id (``-q``)."""
    _write_lines(out, query_ids, columns, places, lambda name: _label(name, 'text'), ' ')


def _write_tsv(out: TextIO, query_ids: Any, columns: list[tuple[str, Any]], places: int) -> None:
    """``QID<TAB>NAME<TAB>VALUE`` rows (``NAME<TAB>VALUE`` for the means without ``-q``)."""
    _write_lines(out, query_ids, columns, places, lambda name: _label(name, 'tsv'), '\t')


def parser() -> ArgumentParser:
    """The command's argument parser (also read by the documentation's command-line reference)."""
    parser = ArgumentParser(
        prog=f'{PROG} ntcireval',
        description="NTCIREVAL's ad hoc evaluation (label, then compute) of a TREC run, with the measures of "
                    "irmeasures_ext: NTCIREVAL's names and order, per topic (-q) and as means over the qrels "
                    'topics (NEV2mean: a topic without relevant docs, which NTCIREVAL prints nothing for, counts '
                    '0). The run is ranked by score with trec_eval\'s tie rule (see --ties).')
    add_inputs(parser)
    parser.add_argument('-g', metavar='GAINS',
                        help='gain of each relevance level from L1, e.g. 1:2:3 (required, as in NTCIREVAL, unless -I: '
                             'it also declares the highest level; a qrels label above it is an error); at most '
                             f"{MAX_LEVELS} levels, not decreasing from L1 up, as NTCIREVAL's compute takes them")
    parser.add_argument('-I', metavar='FILE',
                        help="diversity mode: NTCIREVAL's intent-aware measures (its D-NTCIR-eval, DIN-NTCIR-eval, "
                             'D-NTCIR-IAeval and DIN-NTCIR-PQeval scripts: I-rec, D-, D#-, DIN-, DIN#-, IA-measures, '
                             'P+Q, P+Q#) per cutoff, from FILE, the intent probabilities (Iprob: qid intent prob; '
                             'DINprob: qid intent prob inf|nav), and QRELS with the intent of each line (Dqrels: qid '
                             'intent docid Lk)')
    add_renormalise(parser, '-I FILE')
    parser.add_argument('--ntcireval-means', action='store_true',
                        help="with -I: the means as NTCIREVAL's NEV2mean computes them, over the topics of the intent "
                             'file (a topic without qrels lines counts 0), not over the qrels topics')
    parser.add_argument('--per-intent', action='store_true',
                        help="with -I: first, per topic and intent with a relevant doc, the lines gcompute prints in "
                             "NTCIREVAL's IA and P+Q scripts (RR, O-measure, ..., EBR, then per cutoff AP@k, Q@k, "
                             '..., Hit@k; the intent\'s levels its gains), as "QID INTENT TYPE PROB NAME=  VALUE"')
    parser.add_argument('-Igamma', type=float, metavar='G',
                        help='with -I: the weight of I-rec in the #-measures (default 0.5, as the scripts)')
    parser.add_argument('-beta', type=float, default=1.0, metavar='B',
                        help='patience of the blended ratio (O-measure, P-measure, P-plus, Q-measure, NCU*,BR, EBR, '
                             'Q@k, EBR@k; with -I, of D- and DIN-O-measure, -P-measure, -P-plus, -Q-measure, '
                             '-NCUrb,BR, -EBR and of D-, D#-, DIN-, DIN#-, IA-Q@k, D-, D#-, DIN-, IA-EBR@k, PplusQ@k '
                             'and PplusQ#@k; default 1)')
    parser.add_argument('-cutoffs', type=_cutoffs, default=list(DEFAULT_CUTOFFS), metavar='LIST',
                        help=f'comma-separated cutoffs of the @k measures, at most {MAX_CUTOFFS} (default 1000)')
    parser.add_argument('-q', action='store_true', help='per topic, before the means (query id "all")')
    parser.add_argument('-o', choices=['text', 'tsv'], default='text',
                        help='text: NTCIREVAL\'s "QID NAME=  VALUE" lines (default); tsv: QID<TAB>NAME<TAB>VALUE')
    parser.add_argument('-p', type=places, default=DEFAULT_PLACES, metavar='PLACES',
                        help=f'decimal places (default {DEFAULT_PLACES}, as NTCIREVAL; -1: all digits)')
    parser.add_argument('-j', action='store_true',
                        help='condensed lists: unjudged docs removed before computing (label -j; judged_only=True)')
    parser.add_argument('-bpref', action='store_true',
                        help='also the bpref family, with -j (compute -j); a topic without judged non-relevant docs '
                             'then prints nothing, as in NTCIREVAL')
    parser.add_argument('-truncate', type=positive_int, metavar='N',
                        help='only the first N ranked docs of each topic, judged or not (label -truncate N)')
    parser.add_argument('-ec', action='store_true',
                        help='equivalence classes: QRELS has a fifth field, the class id; only the first retrieved '
                             'member of a class counts (label -ec, compute -ec; not with -bpref)')
    parser.add_argument('-rbp', type=float, metavar='P', help='persistence of RBP and RBP@k (default 0.95; with -I, '
                                                              'of D-RBP, D#-RBP, DIN-RBP, IA-RBP)')
    parser.add_argument('-gamma', type=float, metavar='G', help='gamma of NCUrb,P and NCUrb,BR (default 0.95; with '
                                                                '-I, of D- and DIN-NCUrb,P and -NCUrb,BR)')
    parser.add_argument('-logb', type=float, metavar='B', help="log base of nDCG@k's discount (default 2; 0: "
                                                               'natural log)')
    parser.add_argument('-s', metavar='STOPS', help='stop values of NCUgu,P and NCUgu,BR per level, e.g. 1:1:4 '
                                                    '(default: the gains)')
    parser.add_argument('-gap', action='store_true', help='also GAP and GAP@k (with -I: D-GAP and D-GAP@k)')
    parser.add_argument('-rbup', type=float, metavar='U', help='also iRBU@k, with this patience u (0 <= u <= 1)')
    add_ranking(parser)
    return parser
