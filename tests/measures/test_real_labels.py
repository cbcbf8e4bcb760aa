"""Real-valued relevance labels (LLM judgments such as 0.35 or 2.5; issue 35 §4): read from every input form
as they are (never truncated), computed with by every measure of our provider (tests/measures/test_reference_measures.py
and tests/engine/test_ties.py draw them too), refused by name where a tool reads integer levels only.

trec_eval truncates such labels silently (its issue #49), pytrec_eval refuses them; scikit-learn's
``ndcg_score`` takes real relevance: with every judged doc retrieved and ties averaged, it is trec_eval's
nDCG@k under tie policy ``expected``.
"""
import gzip
import math

import ir_measures
import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.feather as feather
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.metrics import ndcg_score

import irmeasures_ext
from irmeasures_ext import InputError, Q, nDCG_Z1
from irmeasures_ext.cli import main
from irmeasures_ext.readers.inputs import read_input

pytestmark = pytest.mark.filterwarnings('ignore::irmeasures_ext.errors.NoOverlapWarning')

QRELS = {'q1': {'a': 0.35, 'b': 2.5, 'c': 1, 'd': 0}, 'q2': {'x': 1.25, 'y': -0.5}}
RUN = {'q1': {'a': 3.0, 'b': 2.0, 'c': 1.0, 'd': 4.0, 'e': 0.5}, 'q2': {'y': 2.0, 'x': 1.0}}
ROWS = [(q, d, label) for q, docs in QRELS.items() for d, label in docs.items()]
TREC_QRELS = ''.join(f'{q} 0 {d} {label}\n' for q, d, label in ROWS)


def qrels_forms(tmp_path):
    """The qrels of QRELS in every input form ir_measures and our provider take."""
    frame = pd.DataFrame(ROWS, columns=['query_id', 'doc_id', 'relevance'])
    table = pa.Table.from_pandas(frame, preserve_index=False)
    (tmp_path / 'qrels.txt').write_text(TREC_QRELS)
    with gzip.open(tmp_path / 'qrels.txt.gz', 'wt') as handle:
        handle.write(TREC_QRELS.replace(' ', '\t'))  # (the normalising path too)
    pq.write_table(table, tmp_path / 'qrels.parquet')
    feather.write_feather(table, tmp_path / 'qrels.feather')
    return {'dict-of-dict': QRELS, 'records': [ir_measures.Qrel(*row) for row in ROWS], 'DataFrame': frame,
            'PyTerrier DataFrame': frame.rename(columns={'query_id': 'qid', 'doc_id': 'docno', 'relevance': 'label'}),
            'Arrow': table, 'TREC': str(tmp_path / 'qrels.txt'), 'gzipped TREC, tabs': str(tmp_path / 'qrels.txt.gz'),
            'Parquet': str(tmp_path / 'qrels.parquet'), 'Feather': str(tmp_path / 'qrels.feather')}


def test_every_input_form_reads_the_labels_as_they_are(tmp_path):
    for form, qrels in qrels_forms(tmp_path).items():
        table = read_input(qrels, 'qrels').table
        assert table.schema.field('relevance').type == pa.float64(), form
        got = {(q, d): label for q, d, label in zip(*(table[c].to_pylist() for c in table.column_names), strict=True)}
        assert got == {(q, d): label for q, d, label in ROWS}, form


def test_every_input_form_gives_the_same_values(tmp_path):
    measures = [ir_measures.nDCG @ 3, ir_measures.AP, Q @ 3, nDCG_Z1 @ 2, ir_measures.P(rel=2) @ 2]
    values = {form: irmeasures_ext.provider.calc_aggregate(measures, qrels, RUN)
              for form, qrels in qrels_forms(tmp_path).items()}
    assert all(value == values['dict-of-dict'] for value in values.values())
    # by hand: q1 ranks d a b c e; trec_eval's nDCG@3 gains 0, 0.35, 2.5 against the ideal 2.5, 1, 0.35;
    # q2 ranks y x: gain 0 (a negative label counts 0), then 1.25
    ideal = 2.5 + 1 / math.log2(3) + 0.35 / 2
    want_q1 = (0.35 / math.log2(3) + 2.5 / 2) / ideal
    assert values['TREC'][ir_measures.nDCG @ 3] == pytest.approx((want_q1 + 1 / math.log2(3)) / 2, abs=1e-12)
    assert values['TREC'][ir_measures.P(rel=2) @ 2] == 0.0  # 2.5 >= 2 is ranked third


def test_whole_labels_written_as_reals_are_integers(tmp_path):
    (tmp_path / 'qrels.txt').write_text('q 0 a 2.0\nq 0 b 1\nq 0 c -1.0\n')
    for qrels in (str(tmp_path / 'qrels.txt'), {'q': {'a': 2.0, 'b': 1.0, 'c': -1.0}},
                  pd.DataFrame({'query_id': ['q'] * 2, 'doc_id': ['a', 'b'], 'relevance': [2.0, 1.0]})):
        assert read_input(qrels, 'qrels').table.schema.field('relevance').type == pa.int64()


@pytest.mark.parametrize('label', ['inf', '-inf', 'nan', 'NaN', 'Infinity'])
def test_a_label_that_is_not_finite_is_refused_naming_the_line(tmp_path, label):
    (tmp_path / 'qrels.txt').write_text(f'q 0 a 1\nq 0 b {label}\n')
    with pytest.raises(InputError, match=f"qrels.txt:2: relevance '{label}' is not finite"):
        read_input(str(tmp_path / 'qrels.txt'), 'qrels')


@pytest.mark.parametrize('label', ['0x1F', '1_000', '1,5', 'one', '١'])
def test_a_label_that_is_not_a_number_is_refused_naming_the_line(tmp_path, label):
    (tmp_path / 'qrels.txt').write_text(f'q 0 a 0.5\nq 0 b {label}\n')
    with pytest.raises(InputError, match=f"qrels.txt:2: relevance '{label}' is not a number"):
        read_input(str(tmp_path / 'qrels.txt'), 'qrels')


@pytest.mark.parametrize('label', [math.inf, -math.inf])
def test_a_table_label_that_is_not_finite_is_refused_naming_the_row(label):
    frame = pd.DataFrame({'query_id': ['q'] * 3, 'doc_id': ['a', 'b', 'c'], 'relevance': [0.5, 1.0, label]})
    for qrels in (frame, pa.Table.from_pandas(frame, preserve_index=False)):
        with pytest.raises(InputError, match=f"label {label} at row 2 is not finite"):
            read_input(qrels, 'qrels')


def test_conflicting_real_labels_name_both_lines(tmp_path):
    (tmp_path / 'qrels.txt').write_text('q 0 a 0.35\nq 0 b 1\nq 0 a 0.5\n')
    (tmp_path / 'run.txt').write_text('q Q0 a 1 1.0 r\n')
    with pytest.raises(InputError, match=r"qrels.txt:3: conflicting labels for doc 'a' in query 'q': 0.5 here, "
                                         r"0.35 at line 1"):
        irmeasures_ext.provider.calc_aggregate([Q], str(tmp_path / 'qrels.txt'), str(tmp_path / 'run.txt'))


def test_measures_of_other_providers_are_refused_by_name(tmp_path, capsys):
    """ir_measures' providers read integer labels (pytrec_eval refuses reals, trec_eval truncates them): a
    measure our provider cannot answer, or every measure under --provider, is refused naming it."""
    (tmp_path / 'qrels.txt').write_text(TREC_QRELS)
    (tmp_path / 'run.txt').write_text('q1 Q0 a 1 3 r\nq1 Q0 b 2 2 r\n')
    files = [str(tmp_path / 'qrels.txt'), str(tmp_path / 'run.txt')]
    assert main([*files, 'AP', 'nDCG@10', '--provider', 'pytrec_eval']) == 2
    message = capsys.readouterr().err
    assert "real-valued labels (e.g. 0.35 for doc 'a' in query 'q1')" in message
    assert 'AP would go to pytrec_eval; nDCG@10 would go to pytrec_eval, which reads integer labels' in message
    frame_qrels = pd.DataFrame(ROWS, columns=['query_id', 'doc_id', 'relevance'])
    with pytest.raises(InputError, match='AP would go to pytrec_eval'):
        irmeasures_ext.frames.evaluate_frame([ir_measures.AP], frame_qrels, RUN, provider='pytrec_eval')


def test_ntcireval_refuses_real_labels_naming_the_line(tmp_path, capsys):
    (tmp_path / 'qrels.txt').write_text('q 0 a 1\nq 0 b 2.5\n')
    (tmp_path / 'run.txt').write_text('q Q0 a 1 3 r\n')
    assert main(['ntcireval', str(tmp_path / 'qrels.txt'), str(tmp_path / 'run.txt'), '-g', '1:2:3']) == 2
    assert capsys.readouterr().err.startswith(f"irmeasures-ext: error: {tmp_path / 'qrels.txt'}:2: label 2.5 of doc "
                                              "'b' in query 'q' is not a level: NTCIREVAL reads integer levels")


@st.composite
def fully_judged_queries(draw):
    """Queries whose docs are all judged and all retrieved, with real labels >= 0 and tied scores."""
    qrels, run = {}, {}
    for query in range(draw(st.integers(1, 4))):
        docs = [f'd{i}' for i in range(draw(st.integers(2, 12)))]
        qrels[f'q{query}'] = {doc: draw(st.sampled_from([0, 0.35, 1, 1.5, 2.5, 3.75])) for doc in docs}
        run[f'q{query}'] = {doc: draw(st.sampled_from([0.5, 1.0, 2.0, 4.0])) for doc in docs}
    return qrels, run


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(fully_judged_queries(), st.sampled_from([1, 2, 3, 5, 10]))
def test_ndcg_under_expected_equals_scikit_learns_ndcg_score(data, k):
    """scikit-learn's ndcg_score: linear gains (the labels), discount 1/log2(r + 1), tied docs' gains averaged
    over their positions (the mean over their orderings: McSherry & Najork), the ideal list from the same docs."""
    qrels, run = data
    provider = irmeasures_ext.provider.configured(ties='expected')
    ours = {m.query_id: m.value for m in provider.iter_calc([ir_measures.nDCG @ k], qrels, run)}
    for query, judged in qrels.items():
        docs = sorted(judged)
        if not any(judged.values()):
            continue  # (scikit-learn's nDCG of an all-zero query is 0 too, with a warning)
        want = ndcg_score(np.array([[judged[d] for d in docs]]), np.array([[run[query][d] for d in docs]]), k=k)
        assert ours[query] == pytest.approx(want, abs=1e-12), (query, k)

