"""The benchmark suites of SPEC §2: exact contents, names, and one fast pass of our provider."""
import ir_measures
import pytest

from irmeasures_ext import MeanRank, MedianRank, nDCG_Z1
from irmeasures_ext.sample import QRELS, RUN
from irmeasures_ext.suites import CITATION, NCI, QUOTER, SUITES

OURS = ir_measures.providers.registry['irmeasures_ext']


def test_suite_contents_follow_the_spec():
    assert QUOTER == [ir_measures.RR, nDCG_Z1 @ 5, ir_measures.Success @ 1, ir_measures.Success @ 10,
                      ir_measures.Success @ 100, MedianRank, MeanRank]
    assert [str(m) for m in NCI] == ['R@1', 'R@10', 'R@100', 'RR@100', 'Rprec']
    assert [str(m) for m in CITATION] == ['RR', 'R@5', 'R@10', 'R@20', 'R@50', 'R@300', 'nDCG@5', 'nDCG@10',
                                          'nDCG@20', 'nDCG@50', 'nDCG@300']


def test_suites_by_name():
    assert SUITES == {'quoter': QUOTER, 'nci': NCI, 'citation': CITATION}


@pytest.mark.parametrize('name', SUITES)
def test_our_provider_computes_each_suite(name):
    measures = SUITES[name]
    assert all(OURS.supports(m) for m in measures)
    values = OURS.calc_aggregate(measures, QRELS, RUN)
    assert list(values) == measures
    by_default = ir_measures.calc_aggregate(measures, ir_measures.read_trec_qrels(str(QRELS)),
                                            ir_measures.read_trec_run(str(RUN)))
    assert values == pytest.approx(by_default, abs=1e-9)  # the sample run has no ties
