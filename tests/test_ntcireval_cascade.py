"""NTCIREVAL's RBP, ERR, iRBU, GAP and bpref family, and the nERR, nDCG, MSnDCG, AP, RR, P and Hit rows,
against NTCIREVAL 190111's per-topic values (tests/data/ntcireval_full), through our provider.

The golden run is ranked by score as doubles (``score_precision='float64'``: its q068-q070 tie only in
float32). A topic NTCIREVAL leaves undefined (R = 0; in ``condensed_bpref`` also N = 0) has no golden row
and must score 0.
"""
from __future__ import annotations

from collections import defaultdict

import ir_measures
import pytest
from ntcireval_golden import GAINS, QRELS, RUN, Setting, golden, settings, undefined

import irmeasures_ext

PROVIDER = irmeasures_ext.provider.configured(score_precision='float64')

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
def test_every_golden_value_is_reproduced(mode, name):
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
