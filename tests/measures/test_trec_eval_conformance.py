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


# --- trec_eval's other measures (bpref, infAP, gm_map, Rndcg, 11pt_avg, ... every line of -m all_trec) ----------

#: trec_eval name -> our measure for relevance level rel (None: a name of the form name_value, below).
OTHER = {
    'num_q': lambda rel: ir_measures.NumQ,
    'gm_map': lambda rel: irmeasures_ext.gm_map(rel=rel),
    'bpref': lambda rel: ir_measures.Bpref(rel=rel),
    'infAP': lambda rel: ir_measures.infAP(rel=rel),
    'gm_bpref': lambda rel: irmeasures_ext.gm_bpref(rel=rel),
    'utility': lambda rel: irmeasures_ext.utility(rel=rel),
    '11pt_avg': lambda rel: irmeasures_ext.eleven_pt_avg(rel=rel),
    'binG': lambda rel: irmeasures_ext.binG(rel=rel),
    'G': lambda rel: irmeasures_ext.G,  # (no relevance level: gains only)
    'ndcg_rel': lambda rel: irmeasures_ext.ndcg_rel,
    'Rndcg': lambda rel: irmeasures_ext.Rndcg(rel=rel),
    'set_P': lambda rel: ir_measures.SetP(rel=rel),
    'set_relative_P': lambda rel: ir_measures.SetP(rel=rel, relative=True),
    'set_recall': lambda rel: ir_measures.SetR(rel=rel),
    'set_map': lambda rel: ir_measures.SetAP(rel=rel),
    'set_F': lambda rel: ir_measures.SetF(rel=rel),
    'num_nonrel_judged_ret': lambda rel: irmeasures_ext.num_nonrel_judged_ret(rel=rel),
}
WITH_VALUE = {'iprec_at_recall': lambda rel, value: ir_measures.IPrec(rel=rel) @ float(value),
              'Rprec_mult': lambda rel, value: irmeasures_ext.Rprec_mult(rel=rel) @ float(value),
              'relative_P': lambda rel, value: irmeasures_ext.relative_P(rel=rel) @ int(value)}
#: The lines of -m all_trec that are no measures.
NOT_MEASURES = ('runid', 'relstring')


def other_measure(trec_name, rel):
    """Our measure for a trec_eval output line of the measures OTHER and WITH_VALUE name (else None)."""
    if trec_name in OTHER:
        return OTHER[trec_name](rel)
    name, _, value = trec_name.rpartition('_')
    return WITH_VALUE[name](rel, value) if name in WITH_VALUE else None


def other_values(output_file, rel):
    """{(measure, query id or 'all'): value} of trec_eval's lines of the other measures."""
    values = {}
    for line in (TREC_EVAL / output_file).read_text().splitlines():
        name, qid, value = line.split()
        measure = other_measure(name, rel)
        if measure is not None:
            values[measure, qid] = float(value)
    return values


def test_every_line_of_all_trec_is_a_measure_we_reproduce():
    """Every measure trec_eval 9.0.8 prints for -m all_trec but runid and relstring is one of the measures
    this file compares, the earlier tests' or these."""
    for output_file, (_, _, _, rel) in CASES.items():
        names = {line.split()[0] for line in (TREC_EVAL / output_file).read_text().splitlines()}
        left = {name for name in names if name not in NOT_MEASURES and other_measure(name, rel) is None
                and measure_for(name, None, rel) is None}
        assert not left, (output_file, left)


@pytest.mark.parametrize('output_file', CASES)
def test_provider_reproduces_trec_eval_other_measures(output_file):
    """Per query; and for trec_eval -c the summary row too (gm_map and gm_bpref: geometric means, NumQ and
    num_nonrel_judged_ret: sums). -M100 is our provider's depth cut."""
    qrels, run, max_rank, rel = CASES[output_file]
    expected = other_values(output_file, rel)
    measures = sorted({measure for measure, _ in expected}, key=str)
    assert len(measures) == 47  # 17 plain, 11 iprec_at_recall, 10 Rprec_mult, 9 relative_P
    provider = irmeasures_ext.provider.configured(depth=max_rank)
    got = {(m.measure, m.query_id): m.value for m in provider.iter_calc(measures, TREC_EVAL / qrels, TREC_EVAL / run)}
    summary = provider.calc_aggregate(measures, TREC_EVAL / qrels, TREC_EVAL / run)
    compared = 0
    for (measure, qid), value in expected.items():
        if qid == SUMMARY:
            if output_file not in EVERY_QRELS_QUERY:
                continue  # trec_eval without -c averages over the queries of both files
            assert summary[measure] == pytest.approx(value, abs=5e-5 + 1e-12), measure
        else:
            assert got[measure, qid] == pytest.approx(value, abs=5e-5 + 1e-12), (measure, qid)
        compared += 1
    assert compared > 1000
    assert {qid for _, qid in got} == query_ids(qrels)


@pytest.mark.parametrize('output_file', ['out.all_trec.q.c', 'out.all_trec.q.c.M100', 'out.all_trec.q'])
def test_command_line_all_trec_reproduces_trec_eval(output_file, capsys):
    """``irmeasures-ext QRELS RUN all_trec -q`` (with --depth for -M): every line trec_eval prints for the same
    measure set, per query and (trec_eval -c) in the summary row."""
    qrels, run, max_rank, rel = CASES[output_file]
    depth = ['--depth', str(max_rank)] if max_rank else []
    assert main([str(TREC_EVAL / qrels), str(TREC_EVAL / run), 'all_trec', '-q', '-p', '4', *depth]) == 0
    got = {(m, qid): float(v) for qid, m, v in (line.split('\t') for line in capsys.readouterr().out.splitlines())}
    compared = 0
    for line in (TREC_EVAL / output_file).read_text().splitlines():
        name, qid, value = line.split()
        if name in NOT_MEASURES or (qid == SUMMARY and output_file not in EVERY_QRELS_QUERY):
            continue
        measure = other_measure(name, rel) or measure_for(name, None, rel)
        assert got[str(measure), qid] == pytest.approx(float(value), abs=1.5e-4), (name, qid)
        compared += 1
    assert compared > 2000


GAINS = {1: 3.0, 2: 9.0, 3: 1.0}  # (not growing with the label)
#: The measures of out.params.q.c (trec_eval -N 5000), by trec_eval's printed name.
WITH_PARAMS = {
    'G_1=3,2=9,3=1': irmeasures_ext.G(gains=GAINS),
    'Rndcg_1=3,2=9,3=1': irmeasures_ext.Rndcg(gains=GAINS),
    'ndcg_rel_1=3,2=9,3=1': irmeasures_ext.ndcg_rel(gains=GAINS),
    'utility_2,-1,0.5,0.25': irmeasures_ext.utility(rel_ret=2.0, nonrel_ret=-1.0, rel_missed=0.5, nonrel_missed=0.25,
                                                    num_docs=5000),
    'set_F_0.5': ir_measures.SetF(beta=0.5),
}


def test_parameters_pytrec_eval_cannot_pass_reproduce_trec_eval():
    """Gains pairs, utility's four weights with -N, set_F's parameter and other recall levels, multiples and
    cutoffs, per query and in trec_eval -c's summary row. utility's summary differs by design: trec_eval -c
    counts a query absent from the run as 0, ours as its value on an empty ranking (0.5·R + 0.25·(5000 − R))."""
    per_query, summary = {}, {}
    for line in (TREC_EVAL / 'out.params.q.c').read_text().splitlines():
        name, qid, value = line.split()
        measure = WITH_PARAMS.get(name) or other_measure(name, 1)
        (summary if qid == SUMMARY else per_query)[measure, qid] = float(value)
    measures = sorted({measure for measure, _ in summary}, key=str)
    assert len(measures) == 16
    qrels, run = TREC_EVAL / 'qrels.txt', TREC_EVAL / 'run.trunc.txt'
    got = {(m.measure, m.query_id): m.value for m in irmeasures_ext.provider.iter_calc(measures, qrels, run)}
    for key, value in per_query.items():
        assert got[key] == pytest.approx(value, abs=5e-5 + 1e-12), key
    ours = irmeasures_ext.provider.calc_aggregate(measures, qrels, run)
    printed = printed_queries('qrels.txt', 'run.trunc.txt')
    for (measure, _), value in summary.items():
        if measure.NAME == 'utility':  # trec_eval: the run's queries summed, over every qrels query
            values = [v for (m, qid), v in got.items() if m == measure and qid in printed]
            assert sum(values) / len(query_ids('qrels.txt')) == pytest.approx(value, abs=5e-5 + 1e-12)
            assert ours[measure] != pytest.approx(value, abs=1)
        else:
            assert ours[measure] == pytest.approx(value, abs=5e-5 + 1e-12), measure
