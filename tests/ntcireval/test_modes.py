"""NTCIREVAL's modes that transform the ranked lists, against its golden per-topic values
(``tests/data/ntcireval_full``) through our provider: ``condensed`` (``label -j``) as each measure's
``judged_only=True``, ``truncate10`` (``label -truncate 10``) as the provider's depth cut, and the equivalence class
modes ``ec`` and ``ec_condensed`` (``eqrels.txt``, ``erun.txt``; ``label -ec``, ``compute -ec``) as
``classes=True``.

The golden run is ranked by score as doubles, then doc_id descending (its README's tie rule): score precision
float64. A new measure is one row of :data:`MEASURES` (the list modes: its NTCIREVAL name, as ``golden()`` keys it
without the cutoff, and a factory from (gains, beta, cutoff) to our measure) or of :data:`EC_MEASURES` (the EC modes:
every golden row of every name in it is compared, in every mode of :data:`EC_MODES`).
"""
from __future__ import annotations

from collections.abc import Callable

import ir_measures
import pytest
from ntcireval_golden import EC_QRELS, EC_RUN, GAINS, QRELS, RUN, Setting, golden, settings, undefined

import irmeasures_ext
from irmeasures_ext import MSnDCG, Q, nDCG_JK, nERR
from irmeasures_ext.errors import InputError, MeasureParamError
from irmeasures_ext.evaluation import evaluate
from irmeasures_ext.frames import iter_calc
from irmeasures_ext.plugin import IrMeasuresExtProvider

# --- condensed and truncate10 -------------------------------------------------------------------------------------

Factory = Callable[[dict[int, int], float, 'int | None'], ir_measures.Measure]


def _at(measure: ir_measures.Measure, cutoff: int | None) -> ir_measures.Measure:
    return measure if cutoff is None else measure @ cutoff


#: NTCIREVAL's name -> our measure for (gains, beta, cutoff) of a golden setting.
MEASURES: dict[str, Factory] = {
    'Q-measure': lambda gains, beta, cutoff: Q(beta=beta, gains=gains),
    'Q': lambda gains, beta, cutoff: Q(beta=beta, gains=gains) @ cutoff,
    'AP': lambda gains, beta, cutoff: ir_measures.AP if cutoff is None else Q(beta=0) @ cutoff,  # AP@k: ÷ min(k, R)
    'nDCG': lambda gains, beta, cutoff: nDCG_JK(gains=gains) @ cutoff,
    'MSnDCG': lambda gains, beta, cutoff: MSnDCG(gains=gains) @ cutoff,
    'nERR': lambda gains, beta, cutoff: nERR(gains=gains, max_level=3) @ cutoff,  # g_max: the gain of L3 (-g)
    'RR': lambda gains, beta, cutoff: _at(ir_measures.RR, cutoff),
    'P': lambda gains, beta, cutoff: ir_measures.P @ cutoff,
    'Hit': lambda gains, beta, cutoff: ir_measures.Success @ cutoff,
}

#: Each golden mode: our provider and how a measure asks for the mode.
MODES: dict[str, tuple[IrMeasuresExtProvider, Callable[[ir_measures.Measure], ir_measures.Measure]]] = {
    'condensed': (irmeasures_ext.provider.configured(score_precision='float64'),
                  lambda measure: measure(judged_only=True)),
    'truncate10': (irmeasures_ext.provider.configured(score_precision='float64', depth=10), lambda measure: measure),
}


def measure_of(setting: Setting) -> ir_measures.Measure:
    """Our measure for a golden setting (a gains/beta of None: the setting does not matter; any will do)."""
    gains = GAINS[setting.gains or '1:2:3']
    beta = 1.0 if setting.beta is None else setting.beta
    return MODES[setting.mode][1](MEASURES[setting.measure](gains, beta, setting.cutoff))


@pytest.fixture(scope='module')
def qrels_and_run() -> tuple[list, list]:
    return list(ir_measures.read_trec_qrels(str(QRELS))), list(ir_measures.read_trec_run(str(RUN)))


@pytest.mark.parametrize('mode', sorted(MODES))
@pytest.mark.parametrize('name', sorted(MEASURES))
def test_mode_reproduces_every_golden_value(qrels_and_run, mode, name):
    """Every golden value of the measure in the mode to 1e-9; 0 for the topics NTCIREVAL leaves undefined."""
    rows = settings(mode, name)
    assert rows, (mode, name)
    measures = {setting: measure_of(setting) for setting in rows}
    provider = MODES[mode][0]
    assert all(provider.supports(measure) for measure in measures.values())  # (not another provider)
    qrels, run = qrels_and_run
    got = {(m.measure, m.query_id): m.value for m in provider.iter_calc(list(set(measures.values())), qrels, run)}
    compared = 0
    for setting, measure in measures.items():
        for qid, value in golden()[setting].items():
            assert got[measure, qid] == pytest.approx(value, abs=1e-9), (setting, qid)
            compared += 1
        assert all(got[measure, qid] == 0 for qid in undefined()[mode] if (measure, qid) in got)
    assert compared == sum(len(golden()[setting]) for setting in rows) > 100


def test_the_modes_change_the_values():
    """The golden values of a mode differ from the default mode's somewhere, for each measure (so that a mode
    ignored would fail the test above)."""
    for mode in MODES:
        for name in MEASURES:
            assert any(golden()[setting] != golden().get(setting._replace(mode='default'))
                       for setting in settings(mode, name)), (mode, name)


# --- equivalence classes: ec and ec_condensed ---------------------------------------------------------------------

def gains_of(setting: Setting) -> dict:
    return {} if setting.gains is None else {'gains': GAINS[setting.gains]}


#: NTCIREVAL's name (without the cutoff) -> our measure for a golden setting (None: a row of that name we
#: do not compute this way, e.g. uncut AP, which is ir_measures' AP).
EC_MEASURES: dict[str, Callable[[Setting], object]] = {
    'Q-measure': lambda s: Q(beta=s.beta, **gains_of(s)),
    'Q': lambda s: Q(beta=s.beta, **gains_of(s)) @ s.cutoff,
    'AP': lambda s: None if s.cutoff is None else Q(beta=0) @ s.cutoff,  # AP@k divides by min(k, R)
    'nDCG': lambda s: nDCG_JK(**gains_of(s)) @ s.cutoff,
    'MSnDCG': lambda s: MSnDCG(**gains_of(s)) @ s.cutoff,
    'nERR': lambda s: nERR(max_level=3, **gains_of(s)) @ s.cutoff,  # g_max: the declared level 3's gain
}

#: The EC modes: the golden data's mode -> the parameters that ask for its list, beside classes=True.
EC_MODES = {
    'ec': {},
    'ec_condensed': {'judged_only': True},  # label -ec -j: unjudged docs dropped, redundant members kept
}


def with_params(measure, params: dict):
    """``measure`` with ``params`` added (keeping its cutoff)."""
    return type(measure)(**{**measure.params, **params})


@pytest.mark.parametrize('mode', ['ec', 'ec_condensed'])
def test_every_ec_row_matches_ntcireval(mode):
    expected: dict[object, dict[str, float]] = {}
    for setting, per_topic in golden().items():
        if setting.mode == mode and setting.measure in EC_MEASURES:
            measure = EC_MEASURES[setting.measure](setting)
            if measure is not None:
                expected[with_params(measure, {'classes': True, **EC_MODES[mode]})] = per_topic
    got: dict[tuple[object, str], float] = {
        (metric.measure, metric.query_id): metric.value
        for metric in iter_calc(list(expected), str(EC_QRELS), str(EC_RUN))}
    compared = 0
    for measure, per_topic in expected.items():
        assert {qid for m, qid in got if m == measure} == set(per_topic) | undefined()[mode], measure
        for qid, value in per_topic.items():
            assert got[measure, qid] == pytest.approx(value, abs=1e-9), (str(measure), qid)
            compared += 1
        assert all(got[measure, qid] == 0 for qid in undefined()[mode])  # R = 0 (only L0 classes): 0
    n_rows = sum(len(per_topic) for setting, per_topic in golden().items() if setting.mode == mode
                 and setting.measure in EC_MEASURES and (setting.measure != 'AP' or setting.cutoff is not None))
    assert compared == n_rows > 1000


def test_without_classes_the_ec_rows_differ():
    """The golden EC values are not those of the plain measures: the test above can tell."""
    setting = Setting('ec', 'Q-measure', '1:2:3', 1.0, None)
    per_topic = golden()[setting]
    got = {m.query_id: m.value for m in iter_calc([Q], str(EC_QRELS), str(EC_RUN))}
    assert sum(got[qid] != pytest.approx(value, abs=1e-9) for qid, value in per_topic.items()) > len(per_topic) / 2


#: ir_measures' own measures among NTCIREVAL's names: no classes parameter, so the provider's classes=True.
THEIRS = {
    'RR': lambda s: ir_measures.RR,
    'AP': lambda s: ir_measures.AP if s.cutoff is None else None,  # (AP@k is Q(beta=0)@k, above)
    'P': lambda s: ir_measures.P @ s.cutoff,
    'Hit': lambda s: ir_measures.Success @ s.cutoff,
}


@pytest.mark.parametrize('mode', ['ec', 'ec_condensed'])
def test_the_providers_classes_on_ir_measures_own_measures(mode):
    """provider.configured(classes=True): ir_measures' RR, AP, P@k and Success@k with equivalence classes
    (with judged_only=True, on the condensed list), NTCIREVAL's RR, AP, P@k and Hit@k in its EC modes."""
    provider = irmeasures_ext.provider.configured(classes=True)
    expected = {}
    for setting, per_topic in golden().items():
        if setting.mode == mode and setting.measure in THEIRS and (measure := THEIRS[setting.measure](setting)):
            expected[measure(**EC_MODES[mode])] = per_topic
    got = {(m.measure, m.query_id): m.value for m in provider.iter_calc(list(expected), str(EC_QRELS), str(EC_RUN))}
    for measure, per_topic in expected.items():
        assert all(got[measure, qid] == pytest.approx(value, abs=1e-9) for qid, value in per_topic.items()), measure
    assert len(expected) == 1 + 1 + 6 + 6
    plain = {(m.measure, m.query_id): m.value for m in irmeasures_ext.provider.iter_calc(
        list(expected), str(EC_QRELS), str(EC_RUN))}
    assert plain != got


def test_the_providers_classes_are_checked():
    with pytest.raises(MeasureParamError, match='classes must be True or False'):
        irmeasures_ext.provider.configured(classes=1)
    with pytest.raises(InputError, match='classes'):
        irmeasures_ext.provider.configured(classes=True).calc_aggregate([ir_measures.P @ 5], str(QRELS), str(RUN))
    with pytest.raises(MeasureParamError, match='classes=True needs ties=trec_eval or ties=rank'):
        irmeasures_ext.provider.configured(classes=True, ties='optimistic').evaluator([ir_measures.RR], str(EC_QRELS))
    with pytest.raises(MeasureParamError, match=r'equivalence classes \(classes=True\) apply to the measures the '
                                                r'irmeasures_ext provider computes; not to nDCG\(gains=\{1:2\},'
                                                r'judged_only=True\)@10'):
        evaluate([Q, ir_measures.nDCG(gains={1: 2}, judged_only=True) @ 10], str(EC_QRELS), str(EC_RUN),
                 irmeasures_ext.provider.configured(classes=True))
