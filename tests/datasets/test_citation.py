"""Citation recommendation datasets read from small files in the upstream formats (Gu et al. 2022's
release and ArSyTa), under a temporary IR_DATASETS_HOME."""
import json
import tracemalloc
from pathlib import Path

import ir_datasets
import ir_measures
import pandas as pd
import pytest
from citation_fixtures import N_PAPERS, SPLITS, context, write_collection
from ir_datasets.formats import GenericQrel

from irmeasures_ext.datasets import first_positives, register, remove_citing_papers, stream_contexts
from irmeasures_ext.datasets.citation_rec import ArSyTaDoc, ArSyTaQuery, CitationDoc, CitationQuery
from irmeasures_ext.errors import InputError

# The fixture files stand in for the real ones: their checksums differ from the pinned ones by design.
pytestmark = pytest.mark.filterwarnings('ignore:.*using it as it is')


@pytest.fixture(autouse=True)
def registered():
    register()


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    monkeypatch.setenv('IR_DATASETS_HOME', str(tmp_path))
    return tmp_path


@pytest.fixture
def acl(home) -> Path:
    return write_collection(home, 'acl-200')


@pytest.fixture
def arsyta(home) -> Path:
    return write_collection(home, 'arsyta', arsyta=True)


def test_gu_counts_and_records(acl):
    for split, rows in SPLITS.items():
        ds = ir_datasets.load(f'citation-rec/acl-200/{split}')
        assert sorted(q.query_id for q in ds.queries_iter()) == [f'C{i:02d}' for i in rows]
    ds = ir_datasets.load('citation-rec/acl-200/test')
    assert ds.docs_count() == N_PAPERS
    queries = {q.query_id: q for q in ds.queries_iter()}
    assert list(queries) == ['C29', 'C28', 'C27', 'C26', 'C25']  # contexts.json order
    assert queries['C27'] == CitationQuery('C27', 'as shown by TARGETCIT in context 27', 'P2')  # gold in qrels only
    assert queries['C27'].default_text() == 'as shown by TARGETCIT in context 27'
    assert list(ds.qrels_iter()) == [GenericQrel('C25', 'P15', 1), GenericQrel('C26', 'P16', 1),
                                     GenericQrel('C27', 'P17', 1), GenericQrel('C27', 'P3', 1),
                                     GenericQrel('C28', 'P18', 1), GenericQrel('C29', 'P19', 1)]
    store = ds.docs_store()
    assert store.get(queries['C27'].citing_id) == CitationDoc('P2', 'Title 2', 'Abstract 2')
    assert store.get('P5') == CitationDoc('P5', 'Title 5', '')
    assert next(ds.docs_iter()).default_text() == 'Title 0 Abstract 0'


def test_arsyta_counts_and_records(arsyta):
    ds = ir_datasets.load('citation-rec/arsyta/val')
    queries = {q.query_id: q for q in ds.queries_iter()}
    assert sorted(queries) == ['C20', 'C21', 'C22', 'C23', 'C24']
    assert queries['C22'] == ArSyTaQuery('C22', 'as shown by TARGETCIT in context 22', 'P2', 'Section 1')
    assert [(q.query_id, q.doc_id) for q in ds.qrels_iter()] == [(f'C{i}', f'P{i - 10}') for i in range(20, 25)]
    assert ds.docs_store().get('P7') == ArSyTaDoc('P7', 'Title 7', 'Abstract 7', ('cs.CL', 'cs.LG'))
    assert ds.docs_store().get('P1').categories == ('cs.IR',)
    assert sum(1 for _ in ir_datasets.load('citation-rec/arsyta/train').queries_iter()) == 20


def test_qrels_feed_ir_measures(acl):
    ds = ir_datasets.load('citation-rec/acl-200/test')
    run = pd.DataFrame({'query_id': ['C25', 'C25', 'C26', 'C27'], 'doc_id': ['P0', 'P15', 'P16', 'P3'],
                        'score': [2.0, 1.0, 5.0, 1.0]})
    result = ir_measures.calc_aggregate([ir_measures.RR @ 100], ds.qrels_iter(), run)
    assert result[ir_measures.RR @ 100] == pytest.approx((0.5 + 1 + 1 + 0 + 0) / 5, abs=1e-12)


def test_first_positives_give_the_mrr_of_a_script_that_ranks_only_the_first_listed_positive(acl):
    # test.json lists C27's positives as P17, P3 (P3 twice); the others have one each (C25: P15 ... C29: P19).
    run = pd.DataFrame([('C25', 'P0', 3.0), ('C25', 'P15', 2.0), ('C26', 'P16', 1.0),
                        ('C27', 'P3', 3.0), ('C27', 'P9', 2.0), ('C27', 'P17', 1.0),
                        ('C28', 'P1', 1.0), ('C29', 'P19', 1.0)], columns=['query_id', 'doc_id', 'score'])
    first = first_positives('citation-rec/acl-200/test')
    assert first.values.tolist() == [['C25', 'P15', 1], ['C26', 'P16', 1], ['C27', 'P17', 1], ['C28', 'P18', 1],
                                     ['C29', 'P19', 1]]
    # Reciprocal rank of the first-listed positive: 1/2, 1, 1/3 (P17 is third), 0 (P18 not retrieved), 1.
    mrr_first = ir_measures.calc_aggregate([ir_measures.RR], first, run)[ir_measures.RR]
    assert mrr_first == pytest.approx((1 / 2 + 1 + 1 / 3 + 0 + 1) / 5)
    # RR (the citation suite) takes the best-ranked positive: C27's P3 is first.
    qrels = ir_datasets.load('citation-rec/acl-200/test').qrels_iter()
    assert ir_measures.calc_aggregate([ir_measures.RR], qrels, run)[ir_measures.RR] == pytest.approx(
        (1 / 2 + 1 + 1 + 0 + 1) / 5)


def test_the_citing_paper_stays_when_it_is_a_positive(acl):
    """Gu et al.'s prefetch rule: test context C27 (citing paper P2) has positives P17 and P3; C28
    (citing P3) has P18: with C28's citing paper among its positives it would be kept."""
    run = pd.DataFrame({'query_id': ['C27', 'C27', 'C28', 'C28'], 'doc_id': ['P2', 'P3', 'P3', 'P18'],
                        'score': [2.0, 1.0, 2.0, 1.0]})
    kept = remove_citing_papers(run, 'citation-rec/acl-200/test')
    assert kept[['query_id', 'doc_id']].values.tolist() == [['C27', 'P3'], ['C28', 'P18']]
    positives = {('C28', 'P3')}
    kept = remove_citing_papers(run, {'C27': 'P2', 'C28': 'P3'}, positives)
    assert kept[['query_id', 'doc_id']].values.tolist() == [['C27', 'P3'], ['C28', 'P3'], ['C28', 'P18']]


def test_remove_citing_papers_with_both_column_conventions(acl):
    mapping = {'C25': 'P0', 'C26': 'P1'}
    run = pd.DataFrame({'query_id': ['C25', 'C25', 'C26', 'C26', 'X'], 'doc_id': ['P0', 'P15', 'P16', 'P1', 'P0'],
                        'score': [3.0, 2.0, 1.0, 0.5, 9.0]})
    kept = remove_citing_papers(run, mapping)
    assert kept[['query_id', 'doc_id']].values.tolist() == [['C25', 'P15'], ['C26', 'P16'], ['X', 'P0']]
    pt_run = run.rename(columns={'query_id': 'qid', 'doc_id': 'docno'}).astype({'docno': 'string'})
    assert remove_citing_papers(pt_run, mapping)['docno'].tolist() == ['P15', 'P16', 'P0']
    from_dataset = remove_citing_papers(run, ir_datasets.load('citation-rec/acl-200/test'))
    assert from_dataset.equals(kept)
    assert remove_citing_papers(run, 'citation-rec/acl-200/test').equals(kept)
    with pytest.raises(InputError, match='neither query_id/doc_id nor qid/docno'):
        remove_citing_papers(run.rename(columns={'doc_id': 'doc'}), mapping)


def test_citing_paper_filter_is_a_pyterrier_transformer_that_reranks():
    import pyterrier as pt

    from irmeasures_ext.datasets import citing_paper_filter
    results = pd.DataFrame({'qid': ['C25'] * 3 + ['C26'] * 2, 'query': ['x'] * 5,
                            'docno': ['P0', 'P15', 'P16', 'P1', 'P2'], 'score': [3.0, 2.0, 1.0, 0.5, 0.1],
                            'rank': [0, 1, 2, 0, 1]})
    pipeline = pt.Transformer.from_df(results) >> citing_paper_filter({'C25': 'P0', 'C26': 'P1'})
    out = pipeline.transform(pd.DataFrame({'qid': ['C25', 'C26'], 'query': ['x', 'x']}))
    assert out[['qid', 'docno', 'rank']].values.tolist() == [['C25', 'P15', 0], ['C25', 'P16', 1], ['C26', 'P2', 0]]


@pytest.mark.parametrize('dataset_id, source, missing', [
    ('citation-rec/refseer/val', 'github.com/nianlonggu/Local-Citation-Recommendation', 'refseer/val.json'),
    ('citation-rec/arsyta/test', 'goyalkaraniit/ArSyTa', 'arsyta/test_data.json'),
])
def test_missing_files_raise_the_manual_placement_error(home, dataset_id, source, missing):
    with pytest.raises(OSError) as raised:
        list(ir_datasets.load(dataset_id).qrels_iter())
    message = str(raised.value)
    assert source in message and str(home / 'citation-rec' / missing) in message
    assert ('CC BY-NC-ND 4.0' in message) == ('arsyta' in dataset_id)
    with pytest.raises(OSError, match=r'papers(_cat)?\.json does not exist'):
        ir_datasets.load(dataset_id).docs_count()


@pytest.mark.parametrize('file_name, content, message', [
    ('contexts.json', '{"C25": {"masked_text": "x", "citing_id": "P0", "refid": "P1"}, "C26": {"mask',
     r"contexts\.json: invalid JSON after record 'C25'"),
    ('contexts.json', '{"C25": {"masked_text": "x", "citing_id": "P0"}}',
     r"contexts\.json: record 'C25' lacks field 'refid'"),
    ('contexts.json', '{"C25": ["x"]}', r"contexts\.json: record 'C25' is not a JSON object"),
    ('contexts.json', '{}', r"contexts\.json lacks 5 context ids of the split, e\.g\. \['C25', 'C26', 'C27'\]"),
    ('test.json', '[{"context_id": "C25", "positive_ids": ["P15"]}, {"context_id": "C26"}]',
     r'test\.json: record 1 is not \{"context_id": str, "positive_ids": \[str, \.\.\.\]\}'),
    ('test.json', '{"context_id": "C25"}', r"test\.json: expected a JSON array starting with '\['"),
])
def test_malformed_files_are_input_errors(acl, file_name, content, message):
    (acl / file_name).write_text(content)
    with pytest.raises(InputError, match=message) as raised:
        list(ir_datasets.load('citation-rec/acl-200/test').queries_iter())
    assert len(str(raised.value).splitlines()) == 1  # one line, naming the file (and the position)


def test_truncated_json_names_file_and_byte(acl):
    (acl / 'test.json').write_text('[{"context_id": "C25", "positive_ids": ["P15"]}, {"context_id": "C2')
    with pytest.raises(InputError) as raised:
        list(ir_datasets.load('citation-rec/acl-200/test').qrels_iter())
    assert str(raised.value).startswith(f"{acl / 'test.json'}: invalid JSON after record 0, near byte ")
    assert len(str(raised.value).splitlines()) == 1


def test_malformed_papers_are_input_errors(acl):
    (acl / 'papers.json').write_text('[{"title": "a list, not an object"}]')
    with pytest.raises(InputError, match=r"papers\.json: expected a JSON object starting with '\{', found '\['"):
        ir_datasets.load('citation-rec/acl-200').docs_count()


def test_stream_contexts_peak_memory_does_not_grow_with_file_size(tmp_path):
    peaks = []
    for n in (2_000, 16_000):
        path = tmp_path / f'contexts_{n}.json'
        path.write_text(json.dumps({f'C{i}': context(i, arsyta=True) for i in range(n)}))
        tracemalloc.start()
        assert sum(1 for _ in stream_contexts(path)) == n
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
    assert peaks[1] < 1.5 * peaks[0]


def test_stream_contexts_keeps_only_the_given_ids(arsyta):
    kept = list(stream_contexts(arsyta / 'contexts.json', {'C03', 'C01'}))
    assert [q.query_id for q in kept] == ['C03', 'C01']
    assert kept[1] == ArSyTaQuery('C01', 'as shown by TARGETCIT in context 1', 'P1', 'Section 1')


def test_register_twice_is_harmless_and_documentation_is_reachable():
    register()
    register()
    doc = ir_datasets.load('citation-rec/arsyta/test').documentation()
    assert doc['license'].startswith('CC BY-NC-ND 4.0') and doc['split'].endswith('test_data.json')
    assert 'remove_citing_papers' in ir_datasets.load('citation-rec/arxiv').documentation()['protocol']
