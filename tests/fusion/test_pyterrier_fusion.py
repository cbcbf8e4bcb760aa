"""Fusion wherever a run is (issue 51): fusion_transformer in PyTerrier pipelines and pt.Experiment, and fuse's
DataFrame through ir_measures and our provider; the expected fusions computed here from their definitions."""
import sys
from collections import defaultdict

import ir_measures
import pandas as pd
import pyterrier as pt
import pytest
from ir_measures import AP, RR, nDCG

import irmeasures_ext
from irmeasures_ext import Q
from irmeasures_ext.fusion import fuse, fusion_transformer

TOPICS = pd.DataFrame({'qid': ['q1', 'q2', 'q3'], 'query': ['first', 'second', 'third']})
QRELS = pd.DataFrame({'qid': ['q1', 'q1', 'q1', 'q2', 'q2', 'q3'], 'docno': ['d1', 'd2', 'd5', 'd4', 'd6', 'd2'],
                      'label': [1, 2, 0, 1, 2, 1]})
# Two systems' results (qid, docno, score; as_results lists them as a retriever does); d2 and d3 tie in A's q1.
RES_A = pd.DataFrame({'qid': ['q1'] * 4 + ['q2'] * 3 + ['q3'] * 2,
                      'docno': ['d1', 'd3', 'd2', 'd4', 'd4', 'd5', 'd6', 'd1', 'd2'],
                      'score': [4.0, 2.0, 2.0, 1.0, 3.0, 9.0, 1.5, 0.5, 0.25]})
RES_B = pd.DataFrame({'qid': ['q1'] * 3 + ['q2'] * 4,
                      'docno': ['d2', 'd5', 'd1', 'd6', 'd4', 'd7', 'd8'],
                      'score': [10.0, 7.0, 1.0, 8.0, 6.0, 5.0, 4.0]})
COLUMNS = ['qid', 'docno', 'score', 'rank', 'query']


def as_results(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` as a retriever gives it: with the query, listed by PyTerrier's ranks (it is fused by its scores)."""
    listed = frame.merge(TOPICS, on='qid').sort_values(['qid', 'score'], ascending=[True, False], kind='stable')
    return listed.assign(rank=listed.groupby('qid').cumcount())


def ranks(frame: pd.DataFrame) -> dict[tuple[str, str], int]:
    """The rank (from 1) of each (qid, docno): by descending score, tied docs by descending docno."""
    ordered = frame.sort_values(['qid', 'score', 'docno'], ascending=[True, False, False])
    return dict(zip(zip(ordered.qid, ordered.docno, strict=True), ordered.groupby('qid').cumcount() + 1, strict=True))


def rrf(frames: list[pd.DataFrame], k: float) -> dict[tuple[str, str], float]:
    """Σ 1/(k + rank) over the frames retrieving each doc."""
    fused: dict[tuple[str, str], float] = defaultdict(float)
    for frame in frames:
        for key, rank in ranks(frame).items():
            fused[key] += 1 / (k + rank)
    return fused


def wsum(frames: list[pd.DataFrame], weights: list[float]) -> dict[tuple[str, str], float]:
    """Σ wᵢ (s − min) / (max − min) over the frames retrieving each doc, min and max of the frame's query."""
    fused: dict[tuple[str, str], float] = defaultdict(float)
    for frame, weight in zip(frames, weights, strict=True):
        low, high = (frame.groupby('qid').score.transform(extreme) for extreme in ('min', 'max'))
        for qid, docno, score in zip(frame.qid, frame.docno, (frame.score - low) / (high - low), strict=True):
            fused[qid, docno] += weight * score
    return fused


def expected_results(fused: dict[tuple[str, str], float]) -> pd.DataFrame:
    """The fused scores as PyTerrier results: by qid, descending score, tied docs by descending docno; ranks from 0."""
    frame = pd.DataFrame([(qid, docno, score) for (qid, docno), score in fused.items()],
                         columns=['qid', 'docno', 'score'])
    frame = frame.sort_values(['qid', 'score', 'docno'], ascending=[True, False, False], ignore_index=True)
    return frame.assign(rank=frame.groupby('qid').cumcount()).merge(TOPICS, on='qid', how='left')


def pipelines() -> list:
    return [pt.Transformer.from_df(as_results(RES_A)), pt.Transformer.from_df(as_results(RES_B))]


@pytest.mark.parametrize('method, params, expected', [
    ('rrf', {'k': 60}, rrf([RES_A, RES_B], 60)),
    ('rrf', {'k': 1}, rrf([RES_A, RES_B], 1)),
    ('wsum', {'weights': [0.3, 0.7]}, wsum([RES_A, RES_B], [0.3, 0.7])),
])
def test_the_transformer_gives_the_fusion_of_its_pipelines_results(method, params, expected):
    results = fusion_transformer(*pipelines(), method=method, params=params)(TOPICS)
    want = expected_results(expected)
    pd.testing.assert_frame_equal(results[COLUMNS], want[COLUMNS], check_exact=False, rtol=1e-12)
    assert results.groupby('qid').score.is_monotonic_decreasing.all()  # (ranks follow the scores)


def test_equal_fused_scores_are_ranked_by_descending_docno():
    """a and b swap places between the runs: equal RRF scores, b ranked first; within run A, tied d2 and d3 take
    ranks 2 and 3 in descending docno order, so their fused scores differ."""
    swapped = [pt.Transformer.from_df(pd.DataFrame({'qid': 'q1', 'docno': docs, 'score': [2.0, 1.0]}))
               for docs in (['a', 'b'], ['b', 'a'])]
    results = fusion_transformer(*swapped)(TOPICS)
    assert list(results.docno) == ['b', 'a'] and list(results['rank']) == [0, 1]
    assert results.score[0] == results.score[1] == pytest.approx(1 / 61 + 1 / 62, abs=1e-15)
    same = pt.Transformer.from_df(as_results(RES_A))
    q1 = fusion_transformer(same, same)(TOPICS).query('qid == "q1"')
    assert list(q1.docno) == ['d1', 'd3', 'd2', 'd4'] and list(q1.score) == pytest.approx(
        [2 / (60 + rank) for rank in (1, 2, 3, 4)], abs=1e-15)


def test_it_composes_with_pyterrier_operators():
    fused = fusion_transformer(*pipelines(), params={'k': 60})
    whole = fused(TOPICS)
    cut = (fused % 3)(TOPICS)
    assert cut.groupby('qid').size().to_dict() == {'q1': 3, 'q2': 3, 'q3': 2}
    pd.testing.assert_frame_equal(cut[COLUMNS].reset_index(drop=True),
                                  whole[whole['rank'] < 3][COLUMNS].reset_index(drop=True))
    rewritten = (pt.apply.query(lambda row: row['query'].upper()) >> fused)(TOPICS)
    assert dict(zip(rewritten.qid, rewritten['query'], strict=True)) == {'q1': 'FIRST', 'q2': 'SECOND', 'q3': 'THIRD'}
    assert list(rewritten.docno) == list(whole.docno)
    reranked = (fused >> pt.apply.doc_score(lambda row: -row['rank']))(TOPICS)
    assert set(zip(reranked.qid, reranked.docno, strict=True)) == set(zip(whole.qid, whole.docno, strict=True))


def test_integer_query_ids_carry_their_query():
    """The fused qids are strings (as our readers read ids); the topics' query is matched to them."""
    results = pd.DataFrame({'qid': ['1', '2'], 'docno': ['a', 'b'], 'score': [1.0, 2.0]})
    run = pt.apply.generic(lambda topics: results)
    fused = fusion_transformer(run, run)(pd.DataFrame({'qid': [1, 2], 'query': ['one', 'two']}))
    assert list(zip(fused.qid, fused['query'], strict=True)) == [('1', 'one'), ('2', 'two')]


def test_pt_experiment_scores_the_fused_system_as_our_provider_does():
    fused = fusion_transformer(*pipelines(), params={'k': 60})
    component = pipelines()[0]
    table = pt.Experiment([fused, component], TOPICS, QRELS, eval_metrics=[nDCG @ 10, Q @ 10], names=['fused', 'a'])
    rows = table.set_index('name')
    qrels = QRELS.rename(columns={'qid': 'query_id', 'docno': 'doc_id', 'label': 'relevance'})
    for name, frame in (('fused', fuse([RES_A, RES_B], params={'k': 60})), ('a', RES_A)):
        ours = irmeasures_ext.provider.calc_aggregate([nDCG @ 10, Q @ 10], qrels, frame)
        assert rows.loc[name, 'nDCG@10'] == pytest.approx(ours[nDCG @ 10], abs=1e-12)
        assert rows.loc[name, 'Q@10'] == pytest.approx(ours[Q @ 10], abs=1e-12)


def test_every_entry_point_gives_the_fused_frame_the_same_numbers():
    measures = [nDCG @ 10, AP, RR, Q @ 10]
    fused = fuse({'a': RES_A, 'b': RES_B}, method='wsum', params={'weights': [0.3, 0.7]})
    ours = irmeasures_ext.provider.calc_aggregate(measures, QRELS, fused)
    assert ir_measures.calc_aggregate(measures, QRELS, fused) == pytest.approx(ours, abs=1e-12)
    results = fusion_transformer(*pipelines(), method='wsum', params={'weights': [0.3, 0.7]})(TOPICS)
    assert irmeasures_ext.provider.calc_aggregate(measures, QRELS, results) == pytest.approx(ours, abs=1e-12)


def test_without_pyterrier_the_error_names_the_extra(monkeypatch):
    """The package imports without PyTerrier (checked in a fresh process); asking for the transformer names the
    extra that installs it."""
    import subprocess
    hidden = "import sys; sys.modules['pyterrier'] = None; import irmeasures_ext.fusion; print('imported')"
    assert subprocess.run([sys.executable, '-c', hidden], capture_output=True, text=True, timeout=120,
                          check=True).stdout == 'imported\n'
    monkeypatch.setitem(sys.modules, 'pyterrier', None)
    monkeypatch.delitem(sys.modules, 'irmeasures_ext.fusion.pyterrier')
    with pytest.raises(ModuleNotFoundError) as raised:
        fusion_transformer(*pipelines())
    assert str(raised.value) == ("fusion_transformer needs python-terrier (no module 'pyterrier'): pip install "
                                 "'.[pyterrier]' in a clone of irmeasures_ext (the package is not on a package index)")
    assert raised.value.name == 'pyterrier' and raised.value.__suppress_context__
