"""Every ad hoc measure against NTCIREVAL 190111's per-topic values, through our provider (and the command line
for the first golden set).

* ``tests/data/ntcireval``: Q-measure in every β, gains and cutoff, and the nERR, MSnDCG, nDCG (as nDCG_JK), P@k,
  RR and AP@k (as Q(beta=0)@k) rows.
* ``tests/data/ntcireval_full``, the modes that need no list transform (the others: test_modes.py):
  O_measure, P_measure, P_plus, NCU and EBR (and Q, Q@k and Q(beta=0)@k) in ``default``, ``gamma0.5``
  (``-gamma 0.5``) and ``stop1:1:4`` (``-s 1:1:4``), every gains/β setting and cutoff; RBP, ERR, iRBU, GAP and the
  bpref family (``condensed_bpref``), and the nERR, nDCG, MSnDCG, AP, RR, P and Hit rows.

The golden lists of ``ntcireval_full`` are ranked by score compared as doubles (the data's tie rule: q068–q070 hold
scores equal only in float32), so our provider runs with ``score_precision='float64'``. A topic NTCIREVAL leaves
undefined (R = 0; in ``condensed_bpref`` also N = 0) has no golden row and must score 0.
"""
from __future__ import annotations

import csv
from collections import defaultdict

import ir_measures
import pytest
from conftest import NTCIREVAL
from ntcireval_golden import GAINS, QRELS, RUN, Setting, golden, settings, undefined

import irmeasures_ext
from irmeasures_ext import EBR, NCU, O_measure, P_measure, P_plus, Q
from irmeasures_ext.cli import main

# --- tests/data/ntcireval: Q-measure and the NTCIREVAL family -----------------------------------------------------

GAIN_PARAMS = {'1:2:3': '', '1:3:7': ',gains={1:1,2:3,3:7}'}


def golden_rows(measure_name):
    with open(NTCIREVAL / 'golden_per_topic.tsv') as handle:
        return [row for row in csv.DictReader(handle, delimiter='\t') if row['measure'] == measure_name]


def q_measure_string(row):
    cutoff = '' if row['cutoff'] == 'none' else f"@{row['cutoff']}"
    return f"Q(beta={row['beta']}{GAIN_PARAMS[row['gains']]}){cutoff}"


@pytest.fixture(scope='module')
def golden_q():
    expected = defaultdict(dict)
    for row in golden_rows('Q'):
        expected[q_measure_string(row)][row['qid']] = float(row['value'])
    return expected


def test_every_q_row_matches_ntcireval(golden_q):
    measures = {text: ir_measures.parse_measure(text) for text in golden_q}
    qrels = ir_measures.read_trec_qrels(str(NTCIREVAL / 'qrels.txt'))
    run = ir_measures.read_trec_run(str(NTCIREVAL / 'run.txt'))
    got = defaultdict(dict)
    for metric in ir_measures.iter_calc(list(measures.values()), qrels, run):
        got[metric.measure][metric.query_id] = metric.value

    undefined = {line.split('\t')[0] for line in (NTCIREVAL / 'undefined_topics.tsv').read_text().splitlines()[1:]}
    compared = 0
    for text, per_topic in golden_q.items():
        values = got[measures[text]]
        assert set(values) == set(per_topic) | undefined, text  # every qrels topic, no run-only topic
        for qid, value in per_topic.items():
            assert values[qid] == pytest.approx(value, abs=1e-9), (text, qid)
            compared += 1
        assert all(values[qid] == 0 for qid in undefined)
    assert compared == len(golden_rows('Q')) == 10640


def measure_string(row):
    """The measure string of a golden row (NTCIREVAL family, P and RR)."""
    cutoff = '' if row['cutoff'] == 'none' else f"@{row['cutoff']}"
    gains = GAIN_PARAMS.get(row['gains'], '').lstrip(',')
    params = {'Q': f"beta={row['beta']},{gains}".rstrip(','), 'nERR': gains or 'max_level=3',
              'nDCG': gains, 'MSnDCG': gains, 'AP': 'beta=0'}.get(row['measure'], '')
    name = {'nDCG': 'nDCG_JK', 'AP': 'Q'}.get(row['measure'], row['measure'])
    return f'{name}({params}){cutoff}' if params else f'{name}{cutoff}'


@pytest.mark.parametrize('family', ['nERR', 'MSnDCG', 'nDCG', 'P', 'RR', 'AP'])
def test_ntcireval_family_rows_match(family):
    """nERR, MSnDCG, nDCG (as nDCG_JK), P@k, RR and AP@k (as Q(beta=0)@k) against NTCIREVAL."""
    rows = golden_rows(family)
    expected = defaultdict(dict)
    for row in rows:
        expected[measure_string(row)][row['qid']] = float(row['value'])
    measures = {text: ir_measures.parse_measure(text) for text in expected}
    qrels = ir_measures.read_trec_qrels(str(NTCIREVAL / 'qrels.txt'))
    run = ir_measures.read_trec_run(str(NTCIREVAL / 'run.txt'))
    got = {(m.measure, m.query_id): m.value for m in ir_measures.iter_calc(list(measures.values()), qrels, run)}
    for text, per_topic in expected.items():
        for qid, value in per_topic.items():
            assert got[measures[text], qid] == pytest.approx(value, abs=1e-9), (text, qid)
    assert sum(len(v) for v in expected.values()) == len(rows) > 0


def test_beta_zero_is_ap_on_golden_topics():
    qrels = list(ir_measures.read_trec_qrels(str(NTCIREVAL / 'qrels.txt')))
    run = list(ir_measures.read_trec_run(str(NTCIREVAL / 'run.txt')))
    q0 = ir_measures.parse_measure('Q(beta=0)')
    ap = ir_measures.AP
    results = ir_measures.providers.registry['irmeasures_ext'].calc_aggregate([q0, ap], qrels, run)
    assert results[q0] == pytest.approx(results[ap], abs=1e-12)
    assert results[ap] > 0.1


def test_command_line_reproduces_every_golden_row(capsys):
    """Every row of every family, through ``irmeasures-ext QRELS RUN MEASURE... -q -n -p -1``."""
    rows = [(q_measure_string(row) if family == 'Q' else measure_string(row), row)
            for family in ['Q', 'nERR', 'MSnDCG', 'nDCG', 'P', 'RR', 'AP'] for row in golden_rows(family)]
    measures = sorted({str(ir_measures.parse_measure(text)) for text, _ in rows})
    assert main([str(NTCIREVAL / 'qrels.txt'), str(NTCIREVAL / 'run.txt'), *measures, '-q', '-n', '-p', '-1']) == 0
    got = {(m, qid): float(v) for qid, m, v in (line.split('\t') for line in capsys.readouterr().out.splitlines())}
    for text, row in rows:
        key = str(ir_measures.parse_measure(text)), row['qid']
        assert got[key] == pytest.approx(float(row['value']), abs=1e-9), key
    assert len(rows) == 20140


# --- tests/data/ntcireval_full: the blended-ratio measures and NCU ------------------------------------------------

PROVIDER = irmeasures_ext.provider.configured(score_precision='float64')
#: NTCIREVAL's name (without the cutoff) -> our measure, for names with no parameters in the name itself.
PLAIN = {'O-measure': O_measure, 'P-measure': P_measure, 'P-plus': P_plus, 'EBR': EBR, 'Q-measure': Q, 'Q': Q}
NCU_NAMES = ('NCUgu,P', 'NCUgu,BR', 'NCUrb,P', 'NCUrb,BR')
#: The measures each mode checks, and the NCU parameters its option sets.
MODES = {'default': (*PLAIN, *NCU_NAMES, 'AP'), 'gamma0.5': ('NCUrb,P', 'NCUrb,BR'),
         'stop1:1:4': ('NCUgu,P', 'NCUgu,BR')}
MODE_PARAMS = {'gamma0.5': {'gamma': 0.5}, 'stop1:1:4': {'stops': {1: 1, 2: 1, 3: 4}}}
#: Golden rows per mode for these measures (AP only with a cutoff: AP@k), counted independently of the loader.
ROWS = {'default': 31234, 'gamma0.5': 1746, 'stop1:1:4': 1746}


def our_measure(setting: Setting) -> ir_measures.measures.Measure:
    """Our measure for one golden setting: ``gains`` and ``beta`` where the row fixes them; NCU's stopping and
    utility from its name and the mode's option; NTCIREVAL's AP@k is Q(beta=0)@k."""
    params = {'gains': GAINS[setting.gains]} if setting.gains else {}
    if setting.beta is not None:
        params['beta'] = setting.beta
    if setting.measure == 'AP':
        measure = Q(beta=0.0)
    elif setting.measure in NCU_NAMES:
        stopping, utility = setting.measure[3:].split(',')
        measure = NCU(stopping=stopping, utility=utility, **params, **MODE_PARAMS.get(setting.mode, {}))
    else:
        measure = PLAIN[setting.measure](**params)
    return measure if setting.cutoff is None else measure @ setting.cutoff


def mode_settings(mode: str) -> list[Setting]:
    return [s for s in golden() if s.mode == mode and s.measure in MODES[mode]
            and (s.measure != 'AP' or s.cutoff is not None)]


@pytest.fixture(scope='module')
def qrels_and_run():
    return list(ir_measures.read_trec_qrels(str(QRELS))), list(ir_measures.read_trec_run(str(RUN)))


@pytest.mark.parametrize('mode', sorted(MODES))
def test_blended_ratio_measures_reproduce_every_golden_value(mode, qrels_and_run):
    """Every golden row to 1e-9; every qrels topic gets a value, and those NTCIREVAL leaves undefined get 0."""
    qrels, run = qrels_and_run
    measures = {setting: our_measure(setting) for setting in mode_settings(mode)}
    got: dict[str, dict[str, float]] = {}
    for metric in PROVIDER.iter_calc(list(set(measures.values())), qrels, run):
        got.setdefault(str(metric.measure), {})[metric.query_id] = metric.value
    qrels_topics = {row.query_id for row in qrels}
    compared = 0
    for setting, measure in measures.items():
        values = got[str(measure)]
        assert set(values) == qrels_topics, setting
        for qid, want in golden()[setting].items():
            assert values[qid] == pytest.approx(want, abs=1e-9), (setting, qid)
            compared += 1
        undefined_here = undefined()[mode] & qrels_topics
        assert undefined_here and all(values[qid] == 0 for qid in undefined_here), setting
        assert set(golden()[setting]) == qrels_topics - undefined_here, setting
    assert compared == ROWS[mode]


def test_the_golden_settings_cover_every_measure_gains_beta_and_cutoff():
    """The settings compared above are all of them: the four betas and two gain mappings for the BR measures,
    NCUgu,P by gains only (by neither under -s 1:1:4), NCUrb,P by neither, and EBR (also uncut), Q and AP at
    six cutoffs."""
    default = mode_settings('default')
    assert {(s.beta, s.gains) for s in default if s.measure == 'P-plus'} == {
        (beta, gains) for beta in (0, 0.5, 1, 2) for gains in GAINS}
    assert {s.gains for s in default if s.measure == 'NCUgu,P'} == set(GAINS)
    assert [(s.gains, s.beta) for s in mode_settings('stop1:1:4') if s.measure == 'NCUgu,P'] == [(None, None)]
    assert [(s.gains, s.beta) for s in default if s.measure == 'NCUrb,P'] == [(None, None)]
    for name, uncut in (('EBR', {None}), ('Q', set()), ('AP', set())):
        assert {s.cutoff for s in default if s.measure == name} == {1, 5, 10, 20, 100, 1000} | uncut
    assert {s.cutoff for s in default if s.measure in ('O-measure', 'Q-measure')} == {None}


# --- tests/data/ntcireval_full: RBP, ERR, iRBU, GAP, the bpref family and the trec-style rows ---------------------

#: (mode, NTCIREVAL's measure name) -> our measure string for a golden setting, without the cutoff.
OPTION = {'rbp0.8': 'p=0.8', 'logb10': 'logb=10', 'logb0': 'logb=0', 'rbup0.9': 'u=0.9'}


def graded(name: str, setting: Setting, *extra: str) -> str:
    params = [*extra, f'gains={GAINS[setting.gains]}'.replace(' ', ''), 'max_level=3']
    return f'{name}({",".join(params)})'


MEASURES = {
    ('default', 'RBP'): lambda s: graded('RBP_NTCIR', s),
    ('rbp0.8', 'RBP'): lambda s: graded('RBP_NTCIR', s, OPTION['rbp0.8']),
    ('default', 'ERR'): lambda s: graded('ERR_NTCIR', s),
    ('rbup0.9', 'iRBU'): lambda s: graded('iRBU', s, OPTION['rbup0.9']),
    ('gap', 'GAP'): lambda s: 'GAP',
    ('default', 'nERR'): lambda s: graded('nERR', s),
    ('default', 'MSnDCG'): lambda s: f'MSnDCG(gains={GAINS[s.gains]})'.replace(' ', ''),
    **{(mode, 'nDCG'): (lambda s, mode=mode: f'nDCG_JK({OPTION.get(mode, "logb=2")},gains={GAINS[s.gains]})'.replace(
        ' ', '')) for mode in ['default', 'logb10', 'logb0']},
    ('default', 'AP'): lambda s: 'AP' if s.cutoff is None else 'Q(beta=0)',  # AP@k: ÷ min(k, R)
    ('default', 'RR'): lambda s: 'RR',
    ('default', 'P'): lambda s: 'P',
    ('default', 'Hit'): lambda s: 'Success',
    **{('condensed_bpref', name): (lambda s, name=name: f'{name}_NTCIR' if name == 'bpref' else name)
       for name in ['bpref', 'bpref_R', 'bpref_N', 'bpref_relative']},
    **{('condensed_bpref', name): (lambda s, name=name: graded(name, s))
       for name in ['rpref_N', 'rpref_relative', 'rpref_relative2']},
}


def measure_of(setting: Setting) -> ir_measures.measures.Measure:
    text = MEASURES[setting.mode, setting.measure](setting)
    return ir_measures.parse_measure(text if setting.cutoff is None else f'{text}@{setting.cutoff}')


def values(measures: list, mode: str) -> dict:
    qrels, run = ir_measures.read_trec_qrels(str(QRELS)), ir_measures.read_trec_run(str(RUN))
    return {(m.measure, m.query_id): m.value for m in PROVIDER.iter_calc(measures, qrels, run)}


def check_mode_measures(mode: str, names: list[str]) -> int:
    """Every golden value of ``names`` in ``mode`` to 1e-9, and 0 for every undefined qrels topic;
    returns how many golden values were compared."""
    wanted = {setting: measure_of(setting) for name in names for setting in settings(mode, name)}
    assert wanted, (mode, names)
    got = values(sorted(set(wanted.values()), key=str), mode)
    qrels_topics = {qid for _, qid in got}
    compared = 0
    for setting, measure in wanted.items():
        for qid, value in golden()[setting].items():
            assert got[measure, qid] == pytest.approx(value, abs=1e-9), (setting, str(measure), qid)
            compared += 1
        assert qrels_topics == set(golden()[setting]) | (undefined()[mode] & qrels_topics), setting
        for qid in undefined()[mode] & qrels_topics:
            assert got[measure, qid] == 0, (setting, str(measure), qid)
    return compared


ROW_COUNTS = defaultdict(int)
for _setting, _per_topic in golden().items():
    if (_setting.mode, _setting.measure) in MEASURES:
        ROW_COUNTS[_setting.mode, _setting.measure] += len(_per_topic)


@pytest.mark.parametrize('mode, name', sorted(MEASURES))
def test_cascade_bpref_and_trec_style_rows_reproduce_every_golden_value(mode, name):
    assert check_mode_measures(mode, [name]) == ROW_COUNTS[mode, name] > 0


@pytest.mark.parametrize('build, message', [
    (lambda: irmeasures_ext.RBP_NTCIR(p=1.0), 'RBP_NTCIR: p must be a number with 0 <= p < 1, got 1.0'),
    (lambda: irmeasures_ext.RBP_NTCIR(p=-0.1), 'RBP_NTCIR: p must be a number with 0 <= p < 1, got -0.1'),
    (lambda: irmeasures_ext.iRBU(u=1.5), 'iRBU: u must be a number with 0 <= u <= 1, got 1.5'),
    (lambda: irmeasures_ext.iRBU(u='0.9'), "iRBU: u must be a number with 0 <= u <= 1, got '0.9'"),
    (lambda: irmeasures_ext.ERR_NTCIR(max_level=0), 'ERR_NTCIR: max_level must be an integer from 1 to'),
    (lambda: irmeasures_ext.nDCG_JK(logb=1), 'nDCG_JK: logb must be 0 (natural log) or a finite number > 1, got 1'),
    (lambda: irmeasures_ext.nDCG_JK(logb=0.5), 'nDCG_JK: logb must be 0 (natural log) or a finite number > 1'),
    (lambda: irmeasures_ext.nDCG_JK(logb=True), 'nDCG_JK: logb must be 0 (natural log) or a finite number > 1'),
])
def test_bad_parameters_are_refused_by_name(build, message):
    with pytest.raises(irmeasures_ext.MeasureParamError) as refused:
        build()
    assert str(refused.value).startswith(message)


def test_irbu_requires_u_and_a_cutoff():
    for measure, missing in [(irmeasures_ext.iRBU @ 5, "'u'"), (irmeasures_ext.iRBU(u=0.9), "'cutoff'")]:
        with pytest.raises(irmeasures_ext.MeasureParamError, match=f'iRBU: parameter {missing} is required'):
            PROVIDER.calc_aggregate([measure], {'q': {'a': 1}}, {'q': {'a': 1.0}})


def pytrec_eval_and_ours(theirs: list, ours: list) -> tuple[dict, dict]:
    """Per (measure, topic) values of ``theirs`` by ir_measures' pytrec_eval provider and of ``ours`` by our
    provider, both ranking as trec_eval (float32 scores) on the golden data."""
    qrels, run = list(ir_measures.read_trec_qrels(str(QRELS))), list(ir_measures.read_trec_run(str(RUN)))

    def calc(provider, measures):
        return {(m.measure, m.query_id): m.value for m in provider.iter_calc(measures, qrels, run)}
    return calc(ir_measures.pytrec_eval, theirs), calc(irmeasures_ext.provider, ours)


def test_ir_measures_namesakes_equal_pytrec_eval_on_the_golden_data():
    """AP, RR, P@k and Success@k, whose golden rows our provider reproduces, are pytrec_eval's values too."""
    measures = [ir_measures.AP, ir_measures.RR, *(m @ k for m in (ir_measures.P, ir_measures.Success)
                                                  for k in (1, 5, 10, 20, 100, 1000))]
    theirs, ours = pytrec_eval_and_ours(measures, measures)
    assert theirs.keys() <= ours.keys() and len(ours) == 14 * 200  # pytrec_eval omits the topics without a run line
    assert all(ours[key] == pytest.approx(theirs.get(key, 0.0), abs=1e-12) for key in ours)


def test_ntcireval_bpref_is_trec_eval_bpref_on_every_defined_golden_topic():
    """NTCIREVAL's bpref equals ir_measures' Bpref (pytrec_eval) on every topic it defines, when both rank the
    run alike: pytrec_eval ties q068/q069's scores in float32 (there the golden values need float64)."""
    [setting] = settings('condensed_bpref', 'bpref')
    theirs, ours = pytrec_eval_and_ours([ir_measures.Bpref], [irmeasures_ext.bpref_NTCIR])
    for qid in golden()[setting]:
        assert ours[irmeasures_ext.bpref_NTCIR, qid] == pytest.approx(theirs[ir_measures.Bpref, qid], abs=1e-12), qid
    differ = {qid for qid, value in golden()[setting].items() if abs(theirs[ir_measures.Bpref, qid] - value) > 1e-9}
    assert differ == {'q068', 'q069'}


@pytest.mark.parametrize('measure', ['nERR@5', 'ERR_NTCIR@5', 'RBP_NTCIR', 'iRBU(u=0.9)@5', 'EBR', 'rpref_N'])
def test_cascade_measures_of_qrels_without_entries_are_refused_by_the_reader(measure):
    """g_max of qrels without a judgment would be max_level's gain alone (the largest label of no labels is
    undefined): such qrels are refused before any kernel sees them, as on every entry point."""
    measure = ir_measures.parse_measure(measure)
    with pytest.raises(irmeasures_ext.InputError, match=r'^qrels: no records \(an empty iterable'):
        list(PROVIDER.iter_calc([measure], [], {'q': {'a': 1.0}}))
