"""NTCIREVAL's modes against its golden per-topic values (tests/data/ntcireval_full): ``condensed`` (``label -j``)
as each measure's ``judged_only=True``, ``truncate10`` (``label -truncate 10``) as the provider's depth cut.

The golden run is ranked by score as doubles, then doc_id descending (its README's tie rule): score precision
float64. A new measure is one row of MEASURES: its NTCIREVAL name (as ``golden()`` keys it, without the cutoff)
and a factory from (gains, beta, cutoff) to our measure.
"""
from __future__ import annotations

from collections.abc import Callable

import ir_measures
import pytest
from ntcireval_golden import GAINS, QRELS, RUN, Setting, golden, settings, undefined

import irmeasures_ext
from irmeasures_ext import MSnDCG, Q, nDCG_JK, nERR
from irmeasures_ext.plugin import IrMeasuresExtProvider

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
