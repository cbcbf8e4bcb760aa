"""O_measure, P_measure, P_plus, NCU and EBR (and the existing Q, Q@k and Q(beta=0)@k) against NTCIREVAL
190111's per-topic values (tests/data/ntcireval_full) in the modes that need no list transform: ``default``,
``gamma0.5`` (``-gamma 0.5``) and ``stop1:1:4`` (``-s 1:1:4``), every gains/β setting and cutoff.

The golden lists are ranked by score compared as doubles (the data's tie rule: q068–q070 hold scores equal
only in float32), so our provider runs with ``score_precision='float64'``.
"""
from __future__ import annotations

import ir_measures
import pytest
from ntcireval_golden import GAINS, QRELS, RUN, Setting, golden, undefined

import irmeasures_ext
from irmeasures_ext import EBR, NCU, O_measure, P_measure, P_plus, Q

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
def test_every_golden_value_is_reproduced(mode, qrels_and_run):
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
