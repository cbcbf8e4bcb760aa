"""Equivalence classes (``classes=True``) against NTCIREVAL 190111's per-topic values in its EC modes
(``tests/data/ntcireval_full``: ``eqrels.txt``, ``erun.txt``; ``label -ec``, ``compute -ec``).

:data:`MEASURES` maps each NTCIREVAL name to the measure of ours for a golden setting: a new measure is one
line there, and every golden row of every name in it is compared, in every mode of :data:`MODES`.
"""
from __future__ import annotations

from collections.abc import Callable

import ir_measures
import pytest
from ntcireval_golden import EC_QRELS, EC_RUN, GAINS, QRELS, RUN, Setting, golden, undefined

import irmeasures_ext
from irmeasures_ext import MSnDCG, Q, nDCG_JK, nERR
from irmeasures_ext.errors import InputError, MeasureParamError
from irmeasures_ext.evaluation import evaluate
from irmeasures_ext.frames import iter_calc


def gains_of(setting: Setting) -> dict:
    return {} if setting.gains is None else {'gains': GAINS[setting.gains]}


#: NTCIREVAL's name (without the cutoff) -> our measure for a golden setting (None: a row of that name we
#: do not compute this way, e.g. uncut AP, which is ir_measures' AP).
MEASURES: dict[str, Callable[[Setting], object]] = {
    'Q-measure': lambda s: Q(beta=s.beta, **gains_of(s)),
    'Q': lambda s: Q(beta=s.beta, **gains_of(s)) @ s.cutoff,
    'AP': lambda s: None if s.cutoff is None else Q(beta=0) @ s.cutoff,  # AP@k divides by min(k, R)
    'nDCG': lambda s: nDCG_JK(**gains_of(s)) @ s.cutoff,
    'MSnDCG': lambda s: MSnDCG(**gains_of(s)) @ s.cutoff,
    'nERR': lambda s: nERR(max_level=3, **gains_of(s)) @ s.cutoff,  # g_max: the declared level 3's gain
}

#: The EC modes: the golden data's mode -> the parameters that ask for its list, beside classes=True.
MODES = {
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
        if setting.mode == mode and setting.measure in MEASURES:
            measure = MEASURES[setting.measure](setting)
            if measure is not None:
                expected[with_params(measure, {'classes': True, **MODES[mode]})] = per_topic
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
                 and setting.measure in MEASURES and (setting.measure != 'AP' or setting.cutoff is not None))
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
            expected[measure(**MODES[mode])] = per_topic
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
