"""Q-measure against NTCIREVAL's per-topic values (tests/data/ntcireval)."""
import csv
from collections import defaultdict

import ir_measures
import pytest
from conftest import NTCIREVAL

import irmeasures_ext  # noqa: F401  (registers Q)
from irmeasures_ext.cli import main

GAIN_PARAMS = {'1:2:3': '', '1:3:7': ',gains={1:1,2:3,3:7}'}


def golden_rows(measure_name):
    with open(NTCIREVAL / 'golden_per_topic.tsv') as handle:
        return [row for row in csv.DictReader(handle, delimiter='\t') if row['measure'] == measure_name]


def q_measure_string(row):
    cutoff = '' if row['cutoff'] == 'none' else f"@{row['cutoff']}"
    return f"Q(beta={row['beta']}{GAIN_PARAMS[row['gains']]}){cutoff}"


@pytest.fixture(scope='module')
def golden_q():
    expected = defaultdict(dict)
    for row in golden_rows('Q'):
        expected[q_measure_string(row)][row['qid']] = float(row['value'])
    return expected


def test_every_q_row_matches_ntcireval(golden_q):
    measures = {text: ir_measures.parse_measure(text) for text in golden_q}
    qrels = ir_measures.read_trec_qrels(str(NTCIREVAL / 'qrels.txt'))
    run = ir_measures.read_trec_run(str(NTCIREVAL / 'run.txt'))
    got = defaultdict(dict)
    for metric in ir_measures.iter_calc(list(measures.values()), qrels, run):
        got[metric.measure][metric.query_id] = metric.value

    undefined = {line.split('\t')[0] for line in (NTCIREVAL / 'undefined_topics.tsv').read_text().splitlines()[1:]}
    compared = 0
    for text, per_topic in golden_q.items():
        values = got[measures[text]]
        assert set(values) == set(per_topic) | undefined, text  # every qrels topic, no run-only topic
        for qid, value in per_topic.items():
            assert values[qid] == pytest.approx(value, abs=1e-9), (text, qid)
            compared += 1
        assert all(values[qid] == 0 for qid in undefined)
    assert compared == len(golden_rows('Q')) == 10640


def measure_string(row):
    """The measure string of a golden row (NTCIREVAL family, P and RR)."""
    cutoff = '' if row['cutoff'] == 'none' else f"@{row['cutoff']}"
    gains = GAIN_PARAMS.get(row['gains'], '').lstrip(',')
    params = {'Q': f"beta={row['beta']},{gains}".rstrip(','), 'nERR': gains or 'max_level=3',
              'nDCG': gains, 'MSnDCG': gains, 'AP': 'beta=0'}.get(row['measure'], '')
    name = {'nDCG': 'nDCG_JK', 'AP': 'Q'}.get(row['measure'], row['measure'])
    return f'{name}({params}){cutoff}' if params else f'{name}{cutoff}'


@pytest.mark.parametrize('family', ['nERR', 'MSnDCG', 'nDCG', 'P', 'RR', 'AP'])
def test_ntcireval_family_rows_match(family):
    """nERR, MSnDCG, nDCG (as nDCG_JK), P@k, RR and AP@k (as Q(beta=0)@k) against NTCIREVAL."""
    rows = golden_rows(family)
    expected = defaultdict(dict)
    for row in rows:
        expected[measure_string(row)][row['qid']] = float(row['value'])
    measures = {text: ir_measures.parse_measure(text) for text in expected}
    qrels = ir_measures.read_trec_qrels(str(NTCIREVAL / 'qrels.txt'))
    run = ir_measures.read_trec_run(str(NTCIREVAL / 'run.txt'))
    got = {(m.measure, m.query_id): m.value for m in ir_measures.iter_calc(list(measures.values()), qrels, run)}
    for text, per_topic in expected.items():
        for qid, value in per_topic.items():
            assert got[measures[text], qid] == pytest.approx(value, abs=1e-9), (text, qid)
    assert sum(len(v) for v in expected.values()) == len(rows) > 0


def test_beta_zero_is_ap_on_golden_topics():
    qrels = list(ir_measures.read_trec_qrels(str(NTCIREVAL / 'qrels.txt')))
    run = list(ir_measures.read_trec_run(str(NTCIREVAL / 'run.txt')))
    q0 = ir_measures.parse_measure('Q(beta=0)')
    ap = ir_measures.AP
    results = ir_measures.providers.registry['irmeasures_ext'].calc_aggregate([q0, ap], qrels, run)
    assert results[q0] == pytest.approx(results[ap], abs=1e-12)
    assert results[ap] > 0.1


def test_command_line_reproduces_every_golden_row(capsys):
    """Every row of every family, through ``irmeasures-ext QRELS RUN MEASURE... -q -n -p -1``."""
    rows = [(q_measure_string(row) if family == 'Q' else measure_string(row), row)
            for family in ['Q', 'nERR', 'MSnDCG', 'nDCG', 'P', 'RR', 'AP'] for row in golden_rows(family)]
    measures = sorted({str(ir_measures.parse_measure(text)) for text, _ in rows})
    assert main([str(NTCIREVAL / 'qrels.txt'), str(NTCIREVAL / 'run.txt'), *measures, '-q', '-n', '-p', '-1']) == 0
    got = {(m, qid): float(v) for qid, m, v in (line.split('\t') for line in capsys.readouterr().out.splitlines())}
    for text, row in rows:
        key = str(ir_measures.parse_measure(text)), row['qid']
        assert got[key] == pytest.approx(float(row['value']), abs=1e-9), key
    assert len(rows) == 20140
