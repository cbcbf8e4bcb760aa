"""Per-query values of trec_eval's own test outputs, reproduced by our provider asked by name."""
import re

import ir_measures
import pytest
from conftest import TREC_EVAL

import irmeasures_ext  # noqa: F401  (registers the provider)

FIXED = {'map': 'AP', 'ndcg': 'nDCG', 'Rprec': 'Rprec', 'recip_rank': 'RR', 'num_rel': 'NumRel',
         'num_ret': 'NumRet', 'num_rel_ret': 'NumRet(rel=1)'}
WITH_CUTOFF = {'map_cut': 'AP', 'P': 'P', 'recall': 'R', 'ndcg_cut': 'nDCG', 'success': 'Success'}


def measure_for(trec_name, max_rank=None):
    """The ir_measures measure equal to a trec_eval output line (None if not one we compute)."""
    if trec_name in FIXED:
        text = FIXED[trec_name]
        if max_rank and text in ('AP', 'RR', 'nDCG'):
            text = f'{text}@{max_rank}'  # -M100 truncates the run before evaluating
        elif max_rank and text in ('Rprec', 'NumRet', 'NumRet(rel=1)'):
            return None
        return ir_measures.parse_measure(text)
    match = re.fullmatch(r'([a-zA-Z_]+?)_(\d+)', trec_name)
    if match and match.group(1) in WITH_CUTOFF:
        cutoff = int(match.group(2))
        if max_rank and cutoff > max_rank:
            return None
        return ir_measures.parse_measure(f'{WITH_CUTOFF[match.group(1)]}@{cutoff}')
    return None


def expected_values(output_file, max_rank=None):
    expected = {}
    for line in (TREC_EVAL / output_file).read_text().splitlines():
        name, qid, value = line.split()
        measure = measure_for(name, max_rank)
        if measure is not None and qid != 'all':
            expected[measure, qid] = float(value)
    return expected


@pytest.mark.parametrize('output_file,run_file,max_rank', [
    ('out.test.aq', 'results.test', None),
    ('out.test.aqc', 'results.trunc', None),
    ('out.test.aqcM', 'results.trunc', 100),
])
def test_reproduces_trec_eval_output(shared_dir, output_file, run_file, max_rank):
    expected = expected_values(output_file, max_rank)
    measures = sorted({measure for measure, _ in expected}, key=str)
    assert len(measures) >= 40 if not max_rank else len(measures) >= 15
    provider = ir_measures.providers.registry['irmeasures_ext']
    qrels = str(TREC_EVAL / 'qrels.test')
    run = str(TREC_EVAL / run_file)
    got = {(m.measure, m.query_id): m.value for m in provider.iter_calc(measures, qrels, run)}
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, abs=5e-5 + 1e-12), key
    assert {qid for _, qid in expected} == {'301', '302', '303'}

