"""The benchmark suites compute each paper's table: checked on a hand-worked example (QuoteR) and
against pytrec_eval (NCI, citation) on the bundled sample, through our provider and the command line."""
import ir_measures
import pytest
import pytrec_eval
import reference

from irmeasures_ext.cli import main
from irmeasures_ext.sample import QRELS, RUN
from irmeasures_ext.suites import SUITES

OURS = ir_measures.providers.registry['irmeasures_ext']


def test_quoter_suite_on_a_hand_worked_example():
    # One gold quote per context. Gold ranks: c1 → 1, c2 → 3 (ties d9 > d10 > d1 byte-wise), c3 → not
    # retrieved among 3 candidates, so rank 4; c4 → absent from the run: 1 + the run's depth (3) = 4.
    qrels = {'c1': {'d1': 1}, 'c2': {'d1': 1}, 'c3': {'d7': 1}, 'c4': {'d1': 1}}
    run = {'c1': {'d1': 0.9, 'd2': 0.5}, 'c2': {'d9': 0.3, 'd10': 0.3, 'd1': 0.3}, 'c3': {'d1': 3.0, 'd2': 2.0,
                                                                                        'd3': 1.0}}
    values = {str(m): v for m, v in OURS.calc_aggregate(SUITES['quoter'], qrels, run).items()}
    assert values == {
        'RR': pytest.approx((1 + 1 / 3) / 4),
        'nDCG_Z1@5': pytest.approx((1 + 1 / 2) / 4),  # 1/log2(1+1) and 1/log2(3+1)
        'Success@1': 0.25, 'Success@10': 0.5, 'Success@100': 0.5,
        'MedianRank': 3.5, 'MeanRank': (1 + 3 + 4 + 4) / 4,
    }


TREC_NAMES = {'R': 'recall', 'nDCG': 'ndcg_cut', 'RR': 'recip_rank', 'Rprec': 'Rprec', 'Success': 'success'}


def pytrec_eval_aggregate(measure) -> float:
    """The mean of pytrec_eval's per-query values over the sample's qrels queries (RR@k: run cut at k)."""
    qrels, run = reference.read_trec_qrels(QRELS), reference.read_trec_run(RUN)
    if 'cutoff' in measure.params and measure.NAME == 'RR':
        run = {q: {d: docs[d] for d in reference.trec_ranking(docs)[:measure['cutoff']]} for q, docs in run.items()}
    name = TREC_NAMES[measure.NAME]
    key = f'{name}_{measure["cutoff"]}' if 'cutoff' in measure.params and measure.NAME != 'RR' else name
    request = f'{name}.{measure["cutoff"]}' if key != name else name
    values = pytrec_eval.RelevanceEvaluator(qrels, {request}).evaluate(run)
    return sum(values[q][key] if q in values else 0.0 for q in qrels) / len(qrels)


@pytest.mark.parametrize('name', ['nci', 'nci-paper', 'citation'])
def test_trec_eval_suites_equal_pytrec_eval(name, capsys):
    expected = {str(m): pytest.approx(pytrec_eval_aggregate(m), abs=1e-9) for m in SUITES[name]}
    assert {str(m): v for m, v in OURS.calc_aggregate(SUITES[name], QRELS, RUN).items()} == expected
    assert main([str(QRELS), str(RUN), '--suite', name, '-p', '-1']) == 0
    lines = capsys.readouterr().out.splitlines()
    assert {m: float(v) for m, v in (line.split('\t') for line in lines)} == expected


def test_nci_paper_suite_has_every_cutoff_of_ncis_scripts():
    # NCI_model/main.py: --recall_num default [1, 5, 10, 20, 50, 100], each printed as "recall@N" (a hit
    # rate: Success@N); MRR100 is RR@100.
    assert [str(m) for m in SUITES['nci-paper']] == ['Success@1', 'Success@5', 'Success@10', 'Success@20',
                                                     'Success@50', 'Success@100', 'RR@100']
