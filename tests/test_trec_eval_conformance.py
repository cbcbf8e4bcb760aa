"""Per-query values of trec_eval 9.0.8 on this project's own adversarial qrels and runs
(tests/data/trec_eval_ours), reproduced by our provider asked by name and by the command line."""
import re

import ir_measures
import pytest
from conftest import TREC_EVAL
from public_paths import SUMMARY

import irmeasures_ext
from irmeasures_ext.cli import main

FIXED = {'map': 'AP', 'ndcg': 'nDCG', 'Rprec': 'Rprec', 'recip_rank': 'RR', 'num_rel': 'NumRel',
         'num_ret': 'NumRet', 'num_rel_ret': 'NumRet(rel=1)'}
WITH_CUTOFF = {'map_cut': 'AP', 'P': 'P', 'recall': 'R', 'ndcg_cut': 'nDCG', 'success': 'Success'}
#: Measures whose relevance threshold trec_eval's -l sets (nDCG uses the labels as gains whatever -l says).
HAS_REL = {'AP', 'P', 'R', 'RR', 'Rprec', 'Success', 'NumRel', 'NumRet(rel=1)'}


def measure_for(trec_name, max_rank=None, rel=1):
    """The ir_measures measure equal to a trec_eval output line (None if not one we compute)."""
    if trec_name in FIXED:
        text = FIXED[trec_name]
        if max_rank and text in ('AP', 'RR', 'nDCG'):
            text = f'{text}@{max_rank}'  # -M100 truncates the run before evaluating
        elif max_rank and text in ('Rprec', 'NumRet', 'NumRet(rel=1)'):
            return None
    else:
        match = re.fullmatch(r'([a-zA-Z_]+?)_(\d+)', trec_name)
        if not match or match.group(1) not in WITH_CUTOFF or (max_rank and int(match.group(2)) > max_rank):
            return None
        text = f'{WITH_CUTOFF[match.group(1)]}@{match.group(2)}'
    name = re.match(r'\w+', text).group(0)
    if rel != 1 and (FIXED.get(trec_name) in HAS_REL or name in HAS_REL):
        text = text.replace('(rel=1)', '').replace(name, f'{name}(rel={rel})', 1)
    return ir_measures.parse_measure(text)


def expected_values(output_file, max_rank=None, rel=1, summary=False):
    """{(measure, query id): value} of a trec_eval output, or its summary row's {measure: value}."""
    expected = {}
    for line in (TREC_EVAL / output_file).read_text().splitlines():
        name, qid, value = line.split()
        measure = measure_for(name, max_rank, rel)
        if measure is not None and (qid == SUMMARY) == summary:
            expected[measure if summary else (measure, qid)] = float(value)
    return expected


CASES = {  # trec_eval output: (qrels, run, -M, -l)
    'out.all_trec.q': ('qrels.txt', 'run.txt', None, 1),
    'out.all_trec.q.c': ('qrels.txt', 'run.trunc.txt', None, 1),
    'out.all_trec.q.c.M100': ('qrels.txt', 'run.trunc.txt', 100, 1),
    'out.all_trec.q.l2': ('qrels.txt', 'run.txt', None, 2),
}
#: The outputs of `trec_eval -c`, whose summary row averages over every qrels query, as ours does.
EVERY_QRELS_QUERY = ('out.all_trec.q.c', 'out.all_trec.q.c.M100')


def query_ids(file_name):
    return {line.split()[0] for line in (TREC_EVAL / file_name).read_text().splitlines()}


def printed_queries(qrels, run):
    """The queries trec_eval prints a row for (-c or not): those of both files. Ours: every qrels query."""
    return query_ids(qrels) & query_ids(run)


@pytest.mark.parametrize('output_file', CASES)
def test_provider_reproduces_trec_eval_output(output_file):
    qrels, run, max_rank, rel = CASES[output_file]
    expected = expected_values(output_file, max_rank, rel)
    measures = sorted({measure for measure, _ in expected}, key=str)
    assert len(measures) >= (15 if max_rank else 40)
    provider = ir_measures.providers.registry['irmeasures_ext']
    got = {(m.measure, m.query_id): m.value for m in provider.iter_calc(measures, TREC_EVAL / qrels, TREC_EVAL / run)}
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, abs=5e-5 + 1e-12), key  # trec_eval prints 4 decimals
    assert {qid for _, qid in expected} == printed_queries(qrels, run)
    assert {qid for _, qid in got} == query_ids(qrels)


@pytest.mark.parametrize('output_file', CASES)
def test_command_line_reproduces_trec_eval_output(output_file, capsys):
    qrels, run, max_rank, rel = CASES[output_file]
    expected = {(str(m), qid): v for (m, qid), v in expected_values(output_file, max_rank, rel).items()}
    measures = sorted({m for m, _ in expected})
    assert main([str(TREC_EVAL / qrels), str(TREC_EVAL / run), *measures, '-q', '-n', '-p', '4']) == 0
    got = {(m, qid): float(v) for qid, m, v in (line.split('\t') for line in capsys.readouterr().out.splitlines())}
    printed = printed_queries(qrels, run)
    assert {key for key in got if key[1] in printed} == expected.keys()
    assert {qid for _, qid in got} == query_ids(qrels)
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, abs=1.5e-4), key  # both rounded to 4 decimals


@pytest.mark.parametrize('output_file', EVERY_QRELS_QUERY)
def test_means_reproduce_trec_eval_c_summary(output_file):
    qrels, run, max_rank, rel = CASES[output_file]
    expected = expected_values(output_file, max_rank, rel, summary=True)
    got = irmeasures_ext.provider.calc_aggregate(list(expected), TREC_EVAL / qrels, TREC_EVAL / run)
    assert len(expected) >= 15
    for measure, value in expected.items():  # (NumRel and NumRet are sums in both)
        assert got[measure] == pytest.approx(value, abs=5e-5 + 1e-12), measure
