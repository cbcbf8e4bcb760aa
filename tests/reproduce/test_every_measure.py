"""Every ad hoc measure our provider computes, with real-valued labels, in the reproducibility statistics: the
per-topic scores are what our provider gives through ir_measures (``ir_measures.irmeasures_ext.iter_calc``;
ir_measures' default providers refuse real-valued labels), the measure's default for a topic a run does not answer,
and each statistic equals its definition computed here in plain Python from those scores."""
import math
import random
import warnings

import ir_measures
import pytest
from scipy import stats

import irmeasures_ext
from irmeasures_ext import reproduce
from irmeasures_ext.engine.kernels.common import kernel_of
from irmeasures_ext.errors import MeasureParamError, UnansweredTopicsWarning
from irmeasures_ext.plugin import provider

IR_MEASURES_OWN = [ir_measures.AP, ir_measures.nDCG @ 10, ir_measures.P @ 5, ir_measures.R @ 10, ir_measures.RR,
                   ir_measures.Rprec, ir_measures.Bpref, ir_measures.ERR @ 10, ir_measures.Judged @ 10,
                   ir_measures.SetP, ir_measures.NumRet(rel=1)]


def ad_hoc_measures():
    """Each measure this package declares, as it is or at cutoff 5, that our provider computes without intents."""
    found = []
    for measure in irmeasures_ext.DECLARED.values():
        for cutoff in (None, 5):
            try:
                made = measure if cutoff is None else measure @ cutoff
                supported = provider.supports(made)
            except MeasureParamError:
                continue
            if supported:
                if not kernel_of(made).needs_intents:
                    found.append(made)
                break
    return found + [m for m in IR_MEASURES_OWN if provider.supports(m)]


MEASURES = ad_hoc_measures()
TOPICS = sorted(f'q{i}' for i in range(12))  # (as the statistics order them: by id)


def draw_run(rng, qrels, skip=()):
    run = {}
    for topic in TOPICS:
        if topic in skip:
            continue
        docs = list(qrels.get(topic, {})) + [f'u{i}' for i in range(rng.randint(0, 6))]
        rng.shuffle(docs)
        run[topic] = {doc: float(rng.choice([1, 2, 2, 3, 4.5, 7])) for doc in docs[:rng.randint(1, len(docs))]}
    return run


@pytest.fixture(scope='module')
def study():
    rng = random.Random(50)
    qrels = {topic: {f'd{i}': rng.choice([0, 0.35, 1, 2.5, -0.5, 3]) for i in range(rng.randint(1, 8))}
             for topic in TOPICS}
    runs = {'ob': draw_run(rng, qrels), 'oa': draw_run(rng, qrels), 'rb': draw_run(rng, qrels, skip={'q3'}),
            'ra': draw_run(rng, qrels)}
    return qrels, runs


def per_topic(measure, qrels, run):
    values = {m.query_id: m.value for m in ir_measures.irmeasures_ext.iter_calc([measure], qrels, run)}
    return [values.get(topic, measure.DEFAULT) for topic in TOPICS]


def mean(values):
    return sum(values) / len(values)


def test_there_are_many_measures():
    assert len(MEASURES) >= 45 and {'Q', 'nDCG_Z1@5', 'MeanRank', 'AP', 'nDCG@10'} <= set(map(str, MEASURES))


@pytest.mark.parametrize('measure', MEASURES, ids=str)
def test_each_statistic_from_the_scores_ir_measures_gives(study, measure):
    qrels, runs = study
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', UnansweredTopicsWarning)
        frame = reproduce.reproducibility(qrels, runs['ob'], runs['oa'], runs['rb'], runs['ra'], [measure])
        scores = reproduce.topic_scores(qrels, runs, [measure])
    got = {(row.statistic, row.run): row.value for row in frame.itertuples()}
    s = {name: per_topic(measure, qrels, run) for name, run in runs.items()}
    for name in runs:
        assert scores[scores.run == name].value.tolist() == pytest.approx(s[name], abs=1e-12), name
    for run, o, r in (('baseline', s['ob'], s['rb']), ('advanced', s['oa'], s['ra'])):
        rmse = math.sqrt(mean([(a - b) ** 2 for a, b in zip(o, r, strict=True)]))
        assert got['rmse', run] == pytest.approx(rmse, abs=1e-9)
        p_value = stats.ttest_rel(o, r).pvalue
        assert got['p_value', run] == pytest.approx(p_value, abs=1e-9, nan_ok=True) or (o == r and
                                                                                          got['p_value', run] == 1.0)
    improvement = mean([a - b for a, b in zip(s['oa'], s['ob'], strict=True)])
    if improvement:
        er = mean([a - b for a, b in zip(s['ra'], s['rb'], strict=True)]) / improvement
        assert got['er', reproduce.BOTH] == pytest.approx(er, abs=1e-9)
    if mean(s['ob']) and mean(s['rb']):
        ri = (mean(s['oa']) - mean(s['ob'])) / mean(s['ob']) - (mean(s['ra']) - mean(s['rb'])) / mean(s['rb'])
        assert got['delta_ri', reproduce.BOTH] == pytest.approx(ri, abs=1e-9)
