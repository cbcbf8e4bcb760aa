"""ndeval's novelty and diversity measures on our provider (``irmeasures_ext.engine.kernels.diversity``).

Proven three ways, none by our own code: pyndeval 0.0.8's vendored values (``tests/data/diversity``, both of
its orders), the plain references of ``tests/reference_diversity.py`` on generated data (cutoffs beyond
ndeval's 20, α and β, ``rel``, ``judged_only``), and pyndeval itself through ir_measures' provider where it is
installed (the ``test`` extra installs it). Then every qrels form that carries intents, the command, and the
errors.
"""
from __future__ import annotations

import math
import random

import ir_measures
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import reference_diversity as ref
from conftest import DATA
from hypothesis import given, settings
from hypothesis import strategies as st
from ndeval_golden import GOLDEN, RUN
from public_paths import main

import irmeasures_ext
from irmeasures_ext.errors import ConflictingLabelsError, InputError, MeasureParamError

DIVERSITY = DATA / 'diversity'
QRELS_FILE = DIVERSITY / 'qrels.txt'
QRELS = list(ir_measures.read_trec_qrels(str(QRELS_FILE)))
TOLERANCE = 1e-12
ALL = ['alpha_nDCG@10', 'alpha_DCG@5', 'ERR_IA@20', 'nERR_IA@10', 'NRBP', 'nNRBP', 'AP_IA', 'P_IA@10',
       'StRecall@5']


def evaluate(measures: list[str], qrels, run, **configured) -> dict[tuple[str, str], float]:
    provider = irmeasures_ext.provider.configured(**configured) if configured else irmeasures_ext.provider
    evaluator = provider.evaluator([ir_measures.parse_measure(m) for m in measures], qrels)
    return {(str(m.measure), m.query_id): m.value for m in evaluator.iter_calc(run)}


def same(value: float, expected: float) -> bool:
    return math.isnan(value) if math.isnan(expected) else abs(value - expected) <= TOLERANCE


def without_ties(order: str) -> list[ir_measures.ScoredDoc]:
    """The vendored run re-scored in one of pyndeval's orders (``ORDERS`` of test_reference_diversity)."""
    scored = []
    for query_id, docs in RUN.items():
        ranking = ref.ndeval_ranking(docs) if order == 'pyndeval' else ref.tie_rule_ranking(docs)
        scored += [ir_measures.ScoredDoc(query_id, doc, float(len(ranking) - i)) for i, doc in enumerate(ranking)]
    return scored


@pytest.mark.parametrize('order', ['pyndeval', 'tie_rule'])
def test_every_vendored_pyndeval_value(order):
    """All 6,258 values of each order: 21 measures x 2 rel x 149 topics, NaN where pyndeval has NaN."""
    measures = sorted({measure for kind, measure in GOLDEN if kind == order})
    values = evaluate(measures, QRELS, without_ties(order))
    wrong = [(measure, topic, values[str(ir_measures.parse_measure(measure)), topic], expected)
             for measure in measures for topic, (expected, _) in GOLDEN[order, measure].items()
             if not same(values[str(ir_measures.parse_measure(measure)), topic], expected)]
    assert len(measures) * 149 == sum(len(GOLDEN[order, m]) for m in measures) == 6258
    assert not wrong, wrong[:5]


def test_our_tie_rule_is_ndeval_traditional_order():
    """The run as it is (with ties), under our default tie policy (trec_eval's: doc id descending), gives the
    ``tie_rule`` values (``ndeval -traditional``'s order), from the TREC files read by our readers."""
    measures = sorted({measure for kind, measure in GOLDEN if kind == 'tie_rule'})
    values = evaluate(measures, str(QRELS_FILE), str(DIVERSITY / 'run.txt'))
    assert all(same(values[str(ir_measures.parse_measure(measure)), topic], expected)
               for measure in measures for topic, (expected, _) in GOLDEN['tie_rule', measure].items())


def qrels_forms(tmp_path):
    """The vendored qrels in every form that carries intents."""
    rows = [(q.query_id, q.doc_id, q.relevance, q.iteration) for q in QRELS]
    columns = dict(zip(['query_id', 'doc_id', 'relevance', 'iteration'], map(list, zip(*rows, strict=True)),
                       strict=True))
    table = pa.table({**{name: columns[name] for name in ('query_id', 'doc_id', 'relevance')},
                      'intent': columns['iteration']})
    pq.write_table(table, tmp_path / 'qrels.parquet')
    pandas = pytest.importorskip('pandas')
    return {'records': QRELS, 'trec file': str(QRELS_FILE), 'DataFrame with iteration': pandas.DataFrame(columns),
            "PyTerrier's DataFrame": pandas.DataFrame(columns).rename(columns={'query_id': 'qid', 'doc_id': 'docno',
                                                                                'relevance': 'label'}),
            'Arrow table with intent': table, 'Parquet file': str(tmp_path / 'qrels.parquet')}


def test_every_qrels_form_gives_the_same_values(tmp_path):
    run = without_ties('pyndeval')
    expected = evaluate(ALL, QRELS, run)
    for form, qrels in qrels_forms(tmp_path).items():
        values = evaluate(ALL, qrels, run)
        assert values.keys() == expected.keys(), form
        assert all(same(values[key], expected[key]) for key in expected), form


# ---------------------------------------------------------------- generated data against the plain references

INTENTS = ['1', '2', '3', '10', 'a']
DOCS = [f'd{i}' for i in range(12)] + ['D1', 'é', 'x' * 12, 'x' * 11 + 'y']


@st.composite
def diversity_data(draw):
    """Qrels ``{query: {doc: {intent: level}}}`` (docs judged for several intents, intents with no relevant
    doc, queries with none, unjudged docs) and a run ``{query: {doc: score}}`` with distinct scores."""
    qrels, run = {}, {}
    for query_id in draw(st.lists(st.sampled_from(['q1', 'q2', 'q10', 'Q']), min_size=1, max_size=3,
                                  unique=True)):
        judged = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=10, unique=True))
        qrels[query_id] = {doc: draw(st.dictionaries(st.sampled_from(INTENTS), st.integers(0, 3), min_size=1,
                                                     max_size=3)) for doc in judged}
        retrieved = draw(st.lists(st.sampled_from(DOCS), max_size=len(DOCS), unique=True))
        if retrieved:
            run[query_id] = dict(zip(retrieved, draw(st.permutations(range(len(retrieved)))), strict=True))
    if not run:
        run['only in the run'] = {'d1': 1.0}
    return qrels, run


def reference_values(measure: ir_measures.Measure, qrels: dict, run: dict, judged_only: bool) -> dict:
    """The plain references' value per query of the qrels (an empty ranking for a query the run misses)."""
    values = {}
    for query_id, levels in qrels.items():
        judged = ref.relevant_subtopics(levels, measure['rel'])
        ranking = ref.tie_rule_ranking(run.get(query_id, {}))
        if judged_only:
            ranking = [doc for doc in ranking if doc in levels]
        name, cutoff = measure.NAME, measure['cutoff'] if 'cutoff' in measure.SUPPORTED_PARAMS else None
        alpha = measure['alpha'] if 'alpha' in measure.SUPPORTED_PARAMS else ref.ALPHA
        if name in ('NRBP', 'nNRBP'):
            values[query_id] = getattr(ref, name.lower())(ranking, judged, alpha, measure['beta'])
        elif name == 'AP_IA':
            values[query_id] = ref.ap_ia(ranking, judged)
        elif name in ('P_IA', 'StRecall'):
            values[query_id] = {'P_IA': ref.p_ia, 'StRecall': ref.subtopic_recall}[name](ranking, judged, cutoff)
        else:
            function = {'alpha_DCG': ref.alpha_dcg, 'alpha_nDCG': ref.alpha_ndcg, 'ERR_IA': ref.err_ia,
                        'nERR_IA': ref.nerr_ia}[name]
            values[query_id] = function(ranking, judged, cutoff, alpha)
    return values


def as_records(qrels: dict) -> list[ir_measures.Qrel]:
    return [ir_measures.Qrel(query_id, doc, level, intent) for query_id, docs in qrels.items()
            for doc, by_intent in docs.items() for intent, level in by_intent.items()]


MEASURE_CHOICES = st.sampled_from([
    'alpha_nDCG@{k}', 'alpha_nDCG(alpha=0.25)@{k}', 'alpha_nDCG(alpha=1.0)@{k}', 'alpha_DCG(alpha=0.0)@{k}',
    'alpha_DCG@{k}', 'ERR_IA@{k}', 'nERR_IA(rel=2)@{k}', 'P_IA@{k}', 'StRecall(rel=2)@{k}', 'NRBP',
    'NRBP(beta=0.8)', 'nNRBP(alpha=0.3,beta=0.9)', 'nNRBP(rel=3)', 'AP_IA', 'AP_IA(rel=2)'])


@settings(max_examples=150, deadline=None)
@given(diversity_data(), st.lists(MEASURE_CHOICES, min_size=1, max_size=4), st.sampled_from([1, 2, 3, 7, 25, 100]),
       st.booleans())
def test_generated_data_against_the_plain_references(data, templates, cutoff, judged_only):
    qrels, run = data
    measures = [ir_measures.parse_measure(template.format(k=cutoff)) for template in dict.fromkeys(templates)]
    if judged_only:
        measures = [m(judged_only=True) if 'judged_only' in m.SUPPORTED_PARAMS else m for m in measures]
    values = evaluate([str(m) for m in measures], as_records(qrels), run)
    for measure in measures:
        expected = reference_values(measure, qrels, run, measure.params.get('judged_only', False))
        for query_id, value in expected.items():
            assert same(values[str(measure), query_id], value), (measure, query_id, values[str(measure), query_id],
                                                                 value)


def test_pyndeval_itself_on_seeded_data_at_every_cutoff_to_20():
    """Our provider against pyndeval through ir_measures, on 60 seeded topics with a run without ties, at
    cutoffs 1 to 20 (pyndeval's limit), with three (rel, α) settings."""
    pytest.importorskip('pyndeval', reason='the test extra installs pyndeval')
    rng = random.Random(20261204)
    qrels, run = [], []
    for topic in range(60):
        query_id = f't{topic}'
        intents = [str(i) for i in range(rng.randint(1, 6))]
        docs = [f'doc{rng.randint(0, 400)}' for _ in range(rng.randint(1, 40))]
        for doc in dict.fromkeys(docs):
            for intent in rng.sample(intents, rng.randint(1, len(intents))):
                qrels.append(ir_measures.Qrel(query_id, doc, rng.choice([0, 0, 1, 2, 3]), intent))
        retrieved = list(dict.fromkeys(f'doc{rng.randint(0, 400)}' for _ in range(rng.randint(0, 60))))
        run += [ir_measures.ScoredDoc(query_id, doc, float(len(retrieved) - i)) for i, doc in enumerate(retrieved)]
    for rel, alpha in ((1, 0.5), (2, 0.2), (3, 0.9)):
        # One call per pyndeval setting (ir_measures 0.4.3 hands the run to the first setting of a call only);
        # judged_only=False only: with True its provider fails (it indexes the run's generator), so judged_only is
        # proven against the plain references above.
        judged_only = False
        settings_of_a_call = [
            [f'{name}(rel={rel},judged_only={judged_only})@{k}' for k in range(1, 21)
             for name in ('ERR_IA', 'nERR_IA', 'P_IA')] + [f'AP_IA(rel={rel},judged_only={judged_only})'],
            [f'{name}(rel={rel},alpha={alpha},judged_only={judged_only})@{k}' for k in range(1, 21)
             for name in ('alpha_DCG', 'alpha_nDCG')],
            [f'StRecall(rel={rel})@{k}' for k in range(1, 21)],
            [f'NRBP(rel={rel},alpha={alpha})', f'nNRBP(rel={rel},alpha={alpha})']]
        for names in settings_of_a_call:
            measures = [ir_measures.parse_measure(name) for name in names]
            theirs = {(str(m.measure), m.query_id): m.value for m in
                      ir_measures.providers.registry['pyndeval'].evaluator(measures, qrels).iter_calc(run)}
            ours = evaluate([str(m) for m in measures], qrels, run)
            assert len(theirs) > 50 * len(measures)
            wrong = [(key, value, ours[key]) for key, value in theirs.items() if not same(ours[key], value)]
            assert not wrong, wrong[:5]


# ---------------------------------------------------------------- the command, policies and errors

def test_the_command(capsys):
    assert main([str(QRELS_FILE), str(DIVERSITY / 'run.txt'), 'alpha_nDCG@10', 'nNRBP', 'StRecall@30', '-q']) == 0
    lines = capsys.readouterr().out.splitlines()
    expected = evaluate(['alpha_nDCG@10'], QRELS, str(DIVERSITY / 'run.txt'))
    assert f"q001\talpha_nDCG@10\t{expected['alpha_nDCG@10', 'q001']:.4f}" in lines
    assert 'q006\tnNRBP\tnan' in lines  # (no intent of q006 has a relevant doc)


def test_tie_policies():
    """trec_eval and rank order the run; the range and the expected value are refused by name."""
    run = str(DIVERSITY / 'run.txt')
    assert evaluate(['alpha_nDCG@10'], QRELS, run, ties='rank')
    for ties in ('optimistic', 'pessimistic', 'expected'):
        with pytest.raises(MeasureParamError, match=f'alpha_nDCG@10 is not supported under ties={ties}'):
            evaluate(['alpha_nDCG@10'], QRELS, run, ties=ties)


@pytest.mark.parametrize('measure, message', [
    ('alpha_nDCG', r'alpha_nDCG: ndeval computes alpha_nDCG at a cutoff: write alpha_nDCG@k'),
    ('P_IA', r'write P_IA@k'),
    ('alpha_DCG(alpha=1.5)@5', r'alpha must be a number from 0 to 1, got 1.5'),
    ('NRBP(beta=2.0)', r'beta must be a number from 0 to 1, got 2.0'),
])
def test_bad_parameters(measure, message):
    with pytest.raises(MeasureParamError, match=message):
        evaluate([measure], QRELS, str(DIVERSITY / 'run.txt'))


def test_qrels_without_intents_are_refused_clearly():
    with pytest.raises(InputError, match='the diversity measures need the intent .* dict-of-dict'):
        evaluate(['alpha_nDCG@10'], {'q': {'d': 1}}, {'q': {'d': 1.0}})


def test_conflicting_labels_of_one_intent_name_the_lines(tmp_path):
    qrels = tmp_path / 'qrels.txt'
    qrels.write_text('q 1 a 1\nq 2 a 0\nq 1 a 2\n', encoding='utf-8')
    with pytest.raises(InputError, match=r"qrels.txt:3: conflicting labels for doc 'a' in query 'q': 2 here, 1 at "
                                         r'line 1$'):
        evaluate(['alpha_nDCG@10'], str(qrels), {'q': {'a': 1.0}})
    records = [ir_measures.Qrel('q', 'a', 1, '1'), ir_measures.Qrel('q', 'a', 2, '1')]
    with pytest.raises(ConflictingLabelsError, match=r"for doc 'a' in query 'q' for intent '1' \(labels 1 and 2\)"):
        evaluate(['alpha_nDCG@10'], records, {'q': {'a': 1.0}})


def test_one_label_per_doc_names_the_first_doc_with_two():
    records = [ir_measures.Qrel('q', doc, label, intent) for doc, label, intent in (
        ('a', 1, '1'), ('a', 1, '2'), ('b', 2, '1'), ('b', 0, '2'), ('c', 1, '1'), ('c', 3, '2'))]
    with pytest.raises(ConflictingLabelsError) as conflict:
        evaluate(['alpha_nDCG@10', 'nDCG@10', 'P@5'], records, {'q': {'a': 1.0}})
    assert str(conflict.value) == (
        "qrels: conflicting labels for doc 'b' in query 'q' (labels 0 and 2, for two intents); the measures that "
        'ignore intents (nDCG@10, P@5) need one label per doc: evaluate them apart from the diversity measures, '
        'with qrels of one label per doc')


def test_measures_without_intents_beside_them_need_one_label_per_doc(tmp_path):
    """A doc judged 1 for one intent and 0 for another has no one label for nDCG: said, naming both lines."""
    qrels = tmp_path / 'qrels.txt'
    qrels.write_text('q 1 a 1\nq 2 a 0\nq 2 b 1\n', encoding='utf-8')
    with pytest.raises(InputError, match=r"qrels.txt:2: conflicting labels for doc 'a' in query 'q': 0 here, 1 at "
                                         r'line 1; the measures that ignore intents \(nDCG@10\) need one label'):
        evaluate(['alpha_nDCG@10', 'nDCG@10'], str(qrels), {'q': {'a': 1.0}})
    same_labels = evaluate(['alpha_nDCG@10', 'P@2'], [ir_measures.Qrel('q', 'a', 1, '1'),
                                                     ir_measures.Qrel('q', 'a', 1, '2')], {'q': {'a': 1.0, 'b': 0.5}})
    assert same_labels['P@2', 'q'] == 0.5 and same_labels['alpha_nDCG@10', 'q'] == 1.0


def test_repeated_lines_are_counted_once_with_a_warning(tmp_path):
    qrels = tmp_path / 'qrels.txt'
    qrels.write_text('q 1 a 1\nq 2 b 1\nq 1 a 1\n', encoding='utf-8')
    with pytest.warns(UserWarning, match=r"qrels.txt:3: doc 'a' in query 'q' for intent '1' is judged on 2 lines"):
        values = evaluate(['StRecall@1', 'P_IA@1'], str(qrels), {'q': {'a': 2.0, 'b': 1.0}})
    assert values['StRecall@1', 'q'] == 0.5 and values['P_IA@1', 'q'] == 0.5


# ------------------------------------------------- diversity qrels by path through every entry point (issue 45 §2)

DIVERSITY_MEASURES = ['alpha_nDCG@20', 'ERR_IA@20', 'StRecall@10', 'NRBP']


def test_a_diversity_qrels_path_through_ir_measures_gives_the_values_of_its_records():
    """ir_measures' converters read a qrels path as ad hoc qrels ("conflicting labels for doc ..." for a doc judged
    once per intent); the default pipeline and pyndeval read it knowing the measures, with its intents, and
    pyndeval gets them as it gets the iterations of the same file's records."""
    pytest.importorskip('pyndeval')
    measures = [ir_measures.parse_measure(m) for m in DIVERSITY_MEASURES]
    run = list(ir_measures.read_trec_run(str(DIVERSITY / 'run.txt')))
    want = ir_measures.calc_aggregate(measures, QRELS, run)
    want_per_query = {(str(m.measure), m.query_id): m.value for m in ir_measures.iter_calc(measures, QRELS, run)}
    for qrels in (str(QRELS_FILE), QRELS_FILE):
        assert ir_measures.calc_aggregate(measures, qrels, run) == want
        assert {(str(m.measure), m.query_id): m.value
                for m in ir_measures.iter_calc(measures, qrels, run)} == want_per_query
        assert ir_measures.evaluator(measures, qrels).calc_aggregate(run) == want
        assert ir_measures.pyndeval.calc_aggregate(measures, qrels, run) == want


def test_a_diversity_qrels_path_with_a_measure_ignoring_intents_is_our_error_everywhere():
    """Beside nDCG@10, a doc with two labels for two intents has no one label: the error our provider gives, from
    ir_measures' pipeline too (its pytrec_eval would have kept one of the labels)."""
    measures = [ir_measures.parse_measure('alpha_nDCG@20'), ir_measures.parse_measure('nDCG@10')]
    run = str(DIVERSITY / 'run.txt')
    with pytest.raises(InputError) as ours:
        irmeasures_ext.provider.calc_aggregate(measures, str(QRELS_FILE), run)
    with pytest.raises(InputError) as theirs:
        ir_measures.calc_aggregate(measures, str(QRELS_FILE), run)
    assert str(theirs.value) == str(ours.value)
    assert "qrels.txt:22: conflicting labels for doc 'DOC43189' in query 'q003'" in str(ours.value)


def test_ties_reads_the_intents_of_diversity_qrels(capsys):
    """``irmeasures-ext ties`` and its report read the qrels as our provider does for the measures."""
    from irmeasures_ext.measures.base import Ranking
    from irmeasures_ext.reports.tie_report import tie_report
    run = str(DIVERSITY / 'run.txt')
    measures = [ir_measures.parse_measure(m) for m in DIVERSITY_MEASURES]
    want = irmeasures_ext.provider.calc_aggregate(measures, str(QRELS_FILE), run)
    rows = tie_report(measures, str(QRELS_FILE), run, {'trec_eval': Ranking('trec_eval')})
    assert {row.measure: row.values['trec_eval'] for row in rows} == want
    assert main(['ties', str(QRELS_FILE), run, *DIVERSITY_MEASURES, '-p', '-1']) == 0
    printed = {line.split('\t')[0]: line.split('\t')[1] for line in capsys.readouterr().out.splitlines()[1:]}
    assert {name: float(value) for name, value in printed.items()} == {str(m): v for m, v in want.items()}


NTCIR_QRELS = 'q1 i1 a L2\nq1 i2 a L1\nq1 i1 b L1\nq1 i2 c L3\nq2 i1 a L1\nq2 i2 d L2\nq2 i2 e L0\n'
NTCIR_PROBABILITIES = 'q1 i1 0.7 inf\nq1 i2 0.3 nav\nq2 i1 0.5 inf\nq2 i2 0.5 inf\n'
NTCIR_RUNS = {'first': 'q1 Q0 a 1 3 r\nq1 Q0 c 2 2 r\nq1 Q0 b 3 1 r\nq2 Q0 d 1 2 r\nq2 Q0 a 2 1 r\n',
              'second': 'q1 Q0 b 1 3 r\nq1 Q0 x 2 2 r\nq1 Q0 a 3 1 r\nq2 Q0 e 1 2 r\nq2 Q0 d 2 1 r\n'}
NTCIR_MEASURES = ['D_nDCG@3', 'DIN_sharp_Q@3', 'IA_nERR@2']


def ntcir_files(tmp_path) -> tuple[str, str, dict[str, str]]:
    (tmp_path / 'Dqrels.txt').write_text(NTCIR_QRELS, encoding='utf-8')
    (tmp_path / 'DINprob.txt').write_text(NTCIR_PROBABILITIES, encoding='utf-8')
    runs = {}
    for name, text in NTCIR_RUNS.items():
        (tmp_path / f'{name}.txt').write_text(text, encoding='utf-8')
        runs[name] = str(tmp_path / f'{name}.txt')
    return str(tmp_path / 'Dqrels.txt'), str(tmp_path / 'DINprob.txt'), runs


def test_compare_and_ties_take_the_intents_probabilities(tmp_path, capsys):
    """NTCIREVAL's diversity measures ask for ``--intents FILE`` on the command line: ``compare`` and ``ties`` take
    it as the evaluation does, with the values of ``intent_qrels`` through our provider."""
    qrels, probabilities, runs = ntcir_files(tmp_path)
    measures = [ir_measures.parse_measure(m) for m in NTCIR_MEASURES]
    want = {name: irmeasures_ext.provider.calc_aggregate(measures, irmeasures_ext.intent_qrels(qrels, probabilities),
                                                         run) for name, run in runs.items()}
    assert main(['compare', qrels, *runs.values(), *NTCIR_MEASURES, '--intents', probabilities, '-p', '-1']) == 0
    lines = [line.split('\t') for line in capsys.readouterr().out.splitlines()]
    means = {(row[0], row[1]): float(row[2]) for row in lines[1:]}
    assert means == {(name, str(m)): value for name, values in want.items() for m, value in values.items()}
    assert main(['ties', qrels, runs['first'], *NTCIR_MEASURES, '--intents', probabilities, '-p', '-1']) == 0
    printed = {line.split('\t')[0]: float(line.split('\t')[1]) for line in capsys.readouterr().out.splitlines()[1:]}
    assert printed == {str(m): value for m, value in want['first'].items()}
    assert main(['ties', qrels, runs['first'], 'D_nDCG@3']) == 2  # (without --intents: the message names it)
    assert '--intents FILE' in capsys.readouterr().err


def test_intent_qrels_through_ir_measures_beside_pyndeval(tmp_path):
    """``irmeasures_ext.intent_qrels(...)`` with a measure of pyndeval beside ours gave "unknown qrels format"
    (ir_measures' converters read no such object): pyndeval gets the lines and their intents, as from the records."""
    pytest.importorskip('pyndeval')
    qrels, probabilities, runs = ntcir_files(tmp_path)
    records = [ir_measures.Qrel(q, d, int(level[1:]), intent) for q, intent, d, level in map(str.split,
                                                                                             NTCIR_QRELS.splitlines())]
    run = list(ir_measures.read_trec_run(runs['first']))
    alpha, ours = ir_measures.parse_measure('alpha_nDCG@3'), ir_measures.parse_measure('D_nDCG@3')
    got = ir_measures.calc_aggregate([alpha, ours], irmeasures_ext.intent_qrels(qrels, probabilities), run)
    assert got[alpha] == ir_measures.pyndeval.calc_aggregate([alpha], records, run)[alpha]
    assert got[ours] == pytest.approx(irmeasures_ext.provider.calc_aggregate(
        [ours], irmeasures_ext.intent_qrels(qrels, probabilities), run)[ours], abs=1e-15)


def test_pyndeval_by_name_reads_the_intents(tmp_path, capsys):
    """``--provider pyndeval`` (and ``frames``' ``provider='pyndeval'``) on diversity qrels whose doc has a label per
    intent refused them ("conflicting labels": they were read as ad hoc qrels, and pyndeval got no intents). Now
    pyndeval gets each line's intent: its values are pyndeval's own on the records."""
    pytest.importorskip('pyndeval')
    from irmeasures_ext.frames import evaluate_frame
    lines = ['1 1 a 1', '1 2 a 2', '1 2 b 1', '1 3 c 1', '2 1 x 1', '2 2 y 1']
    (tmp_path / 'qrels.txt').write_text(''.join(f'{line}\n' for line in lines), encoding='utf-8')
    (tmp_path / 'run.txt').write_text('1 Q0 b 1 3 t\n1 Q0 a 2 2 t\n1 Q0 c 3 1 t\n2 Q0 y 1 2 t\n2 Q0 x 2 1 t\n',
                                      encoding='utf-8')
    records = [ir_measures.Qrel(q, d, int(label), intent) for q, intent, d, label in map(str.split, lines)]
    run = list(ir_measures.read_trec_run(str(tmp_path / 'run.txt')))
    measures = [ir_measures.parse_measure(name) for name in ('alpha_nDCG@20', 'ERR_IA@20')]
    want = {(str(metric.measure), metric.query_id): metric.value
            for metric in ir_measures.pyndeval.iter_calc(measures, records, run)}
    assert len(want) == 4 and len(set(want.values())) > 1
    frame = evaluate_frame(measures, str(tmp_path / 'qrels.txt'), str(tmp_path / 'run.txt'), provider='pyndeval')
    assert dict(zip(zip(frame['measure'], frame['query_id'], strict=True), frame['value'], strict=True)) == want
    assert main([str(tmp_path / 'qrels.txt'), str(tmp_path / 'run.txt'), *map(str, measures), '-q', '-n', '-p', '-1',
                 '--provider', 'pyndeval']) == 0
    printed = {(row[1], row[0]): float(row[2]) for row in map(str.split, capsys.readouterr().out.splitlines())
               if row[0] != 'all'}
    assert printed == want


@pytest.mark.parametrize('qrels_form', ['path', 'records', 'generator', 'DataFrame'])
def test_pyndeval_refuses_real_labels_in_one_line(tmp_path, qrels_form):
    """pyndeval binarises each label at 1: an LLM judge's 0.5 counted for nothing through ir_measures' pipeline,
    where our provider counts it (every label above 0 is relevant by default). The pipeline still gives ndeval's
    measures to pyndeval, which now refuses such qrels in one line naming how to get them from ours."""
    pytest.importorskip('pyndeval')
    lines = ['1 1 a 0.5', '1 2 a 1', '1 2 b 0.35']
    (tmp_path / 'qrels.txt').write_text(''.join(f'{line}\n' for line in lines), encoding='utf-8')
    records = [ir_measures.Qrel(q, d, float(label), intent) for q, intent, d, label in map(str.split, lines)]
    qrels = {'path': str(tmp_path / 'qrels.txt'), 'records': records, 'generator': iter(records),
             'DataFrame': pd.DataFrame(records)}[qrels_form]
    run = [ir_measures.ScoredDoc('1', 'a', 2.0), ir_measures.ScoredDoc('1', 'b', 1.0)]
    measure = ir_measures.parse_measure('alpha_nDCG@10')
    with pytest.raises(InputError, match=r"^alpha_nDCG@10: ir_measures' pyndeval provider reads integer labels, a doc "
                                         r"relevant from label 1 \(label 0.5 of doc 'a' in query '1' is not one\); "
                                         r'the irmeasures_ext provider computes it'):
        ir_measures.calc_aggregate([measure], qrels, run)
    ours = irmeasures_ext.provider.calc_aggregate([measure], records, run)[measure]
    assert ours > 0  # (the doc of label 0.5, first, is relevant to ours)
    integers = [record._replace(relevance=1) for record in records]
    assert ir_measures.calc_aggregate([measure], integers, run)[measure] == pytest.approx(
        irmeasures_ext.provider.calc_aggregate([measure], integers, run)[measure], abs=1e-12)
