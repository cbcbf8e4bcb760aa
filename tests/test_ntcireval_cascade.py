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
])
def test_bad_parameters_are_refused_by_name(build, message):
    with pytest.raises(irmeasures_ext.MeasureParamError) as refused:
        build()
    assert str(refused.value).startswith(message)


def test_irbu_requires_u_and_a_cutoff():
    for measure, missing in [(irmeasures_ext.iRBU @ 5, "'u'"), (irmeasures_ext.iRBU(u=0.9), "'cutoff'")]:
        with pytest.raises(irmeasures_ext.MeasureParamError, match=f'iRBU: parameter {missing} is required'):
            PROVIDER.calc_aggregate([measure], {'q': {'a': 1}}, {'q': {'a': 1.0}})
