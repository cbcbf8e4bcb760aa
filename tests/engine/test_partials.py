"""The engine's API for evaluating a run in pieces (``ExtEvaluator.partial``, ``merge``, ``finished``, which the
stream and ``irmeasures_ext.dask`` use) refuses what would give wrong numbers: a query whose rows are in two
pieces, a partial made by another evaluator (other qrels, measures or ranking), the same piece merged twice,
and anything that is not a partial; each with a ``PartialsError`` that says why."""
from __future__ import annotations

import pickle
import warnings

import ir_measures
import numpy as np
import pandas as pd
import pytest

from irmeasures_ext.engine import evaluator as evaluators
from irmeasures_ext.engine.evaluator import Partial
from irmeasures_ext.errors import IrMeasuresExtError, NoOverlapWarning, PartialsError
from irmeasures_ext.measures.base import Ranking
from irmeasures_ext.readers.pieces import RunStream
from irmeasures_ext.readers.trec import TrecSource

AP = ir_measures.parse_measure('AP')
QRELS = pd.DataFrame({'query_id': ['q1', 'q1', 'q1'], 'doc_id': ['d1', 'd2', 'd3'], 'relevance': [1, 0, 1]})
#: d2 > d1 > d3: relevant at ranks 2 and 3, AP = (1/2 + 2/3) / 2.
RUN = pd.DataFrame({'query_id': ['q1', 'q1', 'q1'], 'doc_id': ['d2', 'd1', 'd3'], 'score': [3.0, 2.0, 1.0]})
WHOLE_AP = (1 / 2 + 2 / 3) / 2


def built(qrels: pd.DataFrame = QRELS, measures: list | None = None,
          ranking: Ranking | None = None) -> evaluators.ExtEvaluator:
    return evaluators.evaluator([AP] if measures is None else measures, qrels,
                                *(() if ranking is None else (ranking,)))


def test_one_piece_gives_the_whole_runs_value():
    evaluator = built()
    assert evaluator.values(RUN)[AP].tolist() == pytest.approx([WHOLE_AP])
    assert evaluator.finished(evaluator.merge([evaluator.partial(RUN)]))[AP].tolist() == pytest.approx([0.583333])


def test_a_query_split_over_two_pieces_is_refused_naming_it():
    evaluator = built()
    first, rest = evaluator.partial(RUN.iloc[:1]), evaluator.partial(RUN.iloc[1:])
    with pytest.raises(PartialsError, match=r"query 'q1' is in two pieces") as raised:
        evaluator.merge([first, rest])
    assert raised.value.query_id == 'q1'
    assert pickle.loads(pickle.dumps(raised.value)).query_id == 'q1'  # (as a Dask worker's error travels)
    assert isinstance(raised.value, IrMeasuresExtError) and isinstance(raised.value, ValueError)
    with pytest.raises(PartialsError, match="'q1'"):  # (in any order, and among other pieces)
        evaluator.merge([evaluator.partial(RUN.iloc[:0]), rest, evaluator.partial(RUN.iloc[2:0]), first])


def test_a_query_split_where_one_piece_holds_only_unjudged_docs_is_refused():
    """The check is on the rows a piece holds, not only on the docs a measure's list keeps (judged_only)."""
    evaluator = built(measures=[ir_measures.parse_measure('AP(judged_only=True)')])
    unjudged = pd.DataFrame({'query_id': ['q1'], 'doc_id': ['d9'], 'score': [9.0]})
    with pytest.raises(PartialsError, match="'q1'"):
        evaluator.merge([evaluator.partial(unjudged), evaluator.partial(RUN)])


def test_a_query_in_two_merged_partials_is_refused_too():
    evaluator = built(pd.concat([QRELS, pd.DataFrame({'query_id': ['q2'], 'doc_id': ['d1'], 'relevance': [1]})]))
    q2 = evaluator.partial(pd.DataFrame({'query_id': ['q2'], 'doc_id': ['d1'], 'score': [1.0]}))
    merged = evaluator.merge([evaluator.partial(RUN.iloc[:1]), q2])
    with pytest.raises(PartialsError, match="'q1'"):
        evaluator.merge([merged, evaluator.partial(RUN.iloc[1:])])


@pytest.mark.parametrize('other', [
    pytest.param(lambda: built(QRELS.assign(relevance=[1, 1, 0])), id='other labels'),
    pytest.param(lambda: built(QRELS.assign(query_id=['q2'] * 3)), id='other query ids'),
    pytest.param(lambda: built(QRELS.assign(doc_id=['d1', 'd2', 'd4'])), id='other docs'),
    pytest.param(lambda: built(measures=[ir_measures.parse_measure('P@2')]), id='other measures'),
    pytest.param(lambda: built(measures=[ir_measures.parse_measure('AP@2')]), id='other cutoff'),
    pytest.param(lambda: built(measures=[AP, ir_measures.parse_measure('P@2')]), id='more measures'),
    pytest.param(lambda: built(ranking=Ranking(ties='optimistic')), id='other tie policy'),
    pytest.param(lambda: built(ranking=Ranking(score_precision='float64')), id='other score precision'),
    pytest.param(lambda: built(ranking=Ranking(depth=2)), id='other depth'),
])
def test_a_partial_of_another_evaluator_is_refused(other):
    evaluator, stranger = built(), other()
    theirs = stranger.partial(RUN)
    with pytest.raises(PartialsError, match='another evaluator') as raised:
        evaluator.merge([theirs])
    assert raised.value.query_id is None
    with pytest.raises(PartialsError, match='another evaluator'):
        evaluator.merge([evaluator.partial(RUN.iloc[:0]), theirs])
    with pytest.raises(PartialsError, match='another evaluator'):
        evaluator.finished(theirs)
    with pytest.raises(PartialsError, match='another evaluator'):
        evaluator.answered(theirs)
    with warnings.catch_warnings():  # (the run has no query of the qrels of q2)
        warnings.simplefilter('ignore', NoOverlapWarning)
        assert stranger.finished(stranger.merge([theirs]))  # (its own evaluator takes it)


def test_a_partial_of_an_evaluator_on_other_qrels_is_not_merged_onto_its_positions():
    """The original report: q2's partial under qrels (q1, q2) landed on q1's position under qrels (q2, q3)."""
    evaluator = built(pd.DataFrame({'query_id': ['q2', 'q3'], 'doc_id': ['d1', 'd1'], 'relevance': [1, 1]}))
    other = built(pd.DataFrame({'query_id': ['q1', 'q2'], 'doc_id': ['d1', 'd1'], 'relevance': [1, 1]}))
    theirs = other.partial(pd.DataFrame({'query_id': ['q1'], 'doc_id': ['d1'], 'score': [1.0]}))
    with pytest.raises(PartialsError, match='another evaluator'):
        evaluator.finished(evaluator.merge([theirs]))


def test_evaluators_of_the_same_qrels_measures_and_ranking_take_each_others_partials():
    """The fingerprint is of the evaluator's content: the same qrels in another order, an evaluator that
    travelled (pickled, as to a Dask worker) or built again, give partials that merge."""
    evaluator = built()
    again = built(QRELS.iloc[::-1])
    travelled = pickle.loads(pickle.dumps(evaluator))
    pieces = [again.partial(RUN), travelled.partial(RUN.iloc[:0])]
    assert evaluator.finished(evaluator.merge(pieces))[AP].tolist() == pytest.approx([WHOLE_AP])
    assert travelled.finished(travelled.merge(pieces))[AP].tolist() == pytest.approx([WHOLE_AP])


def test_a_piece_merged_twice_is_refused():
    evaluator = built()
    piece = evaluator.partial(RUN)
    with pytest.raises(PartialsError, match='merged twice'):
        evaluator.merge([piece, piece])
    with pytest.raises(PartialsError, match='merged twice'):
        evaluator.merge([piece, pickle.loads(pickle.dumps(piece))])  # (a copy is the same piece)
    with pytest.raises(PartialsError, match='merged twice'):
        evaluator.merge([evaluator.merge([piece]), piece])
    empty = evaluator.partial(RUN.iloc[:0])  # (no query: only its identity tells)
    with pytest.raises(PartialsError, match='merged twice'):
        evaluator.merge([empty, piece, empty])
    other_only = evaluator.partial(pd.DataFrame({'query_id': ['x'], 'doc_id': ['d1'], 'score': [1.0]}))
    with pytest.raises(PartialsError, match='merged twice'):
        evaluator.merge([evaluator.merge([other_only, piece]), other_only])


def test_pieces_of_the_same_rows_evaluated_twice_are_two_pieces():
    """Evaluating the same rows twice makes two pieces: their query is then in two pieces."""
    evaluator = built()
    with pytest.raises(PartialsError, match="query 'q1' is in two pieces"):
        evaluator.merge([evaluator.partial(RUN), evaluator.partial(RUN)])


@pytest.mark.parametrize('thing', [None, 0, 'partial', (), [], {}, tuple(Partial._fields)])
def test_anything_but_a_partial_is_refused(thing):
    evaluator = built()
    with pytest.raises(PartialsError, match='not a Partial'):
        evaluator.merge([thing])
    with pytest.raises(PartialsError, match='not a Partial'):
        evaluator.merge([evaluator.partial(RUN), thing])
    with pytest.raises(PartialsError, match='not a Partial'):
        evaluator.finished(thing)
    with pytest.raises(PartialsError, match='not a Partial'):
        evaluator.answered(thing)


def test_a_plain_tuple_of_a_partials_fields_is_not_a_partial():
    evaluator = built()
    with pytest.raises(PartialsError, match='not a Partial'):
        evaluator.merge([tuple(evaluator.partial(RUN))])


def test_a_partial_is_plain_picklable_data_and_merges_after_travelling():
    evaluator = built()
    pieces = [evaluator.partial(RUN), evaluator.partial(pd.DataFrame({'query_id': ['x'], 'doc_id': ['d'],
                                                                       'score': [1.0]}))]
    travelled = [pickle.loads(pickle.dumps(piece)) for piece in pieces]
    for field in Partial._fields:
        for value in (getattr(piece, field) for piece in travelled):
            items = value if isinstance(value, (list, tuple)) else [value]
            assert all(isinstance(item, (np.ndarray, int, str, bytes)) for item in items), field
    values = evaluator.finished(evaluator.merge(travelled))
    assert values[AP].tolist() == pytest.approx([WHOLE_AP])
    assert evaluator.merge(travelled).run_queries == 2


def test_merge_and_finished_of_no_piece_are_an_empty_runs_values():
    evaluator = built()
    with pytest.warns(NoOverlapWarning):
        assert evaluator.finished(evaluator.merge([]))[AP].tolist() == [0.0]


def test_finished_refuses_a_partial_whose_queries_repeat():
    """A partial put together by hand (not by merge) with a query twice is refused by finished too."""
    evaluator = built()
    first, rest = evaluator.partial(RUN.iloc[:1]), evaluator.partial(RUN.iloc[1:])
    lists = len(first.queries)
    joined = first._replace(**{field: [np.concatenate((getattr(first, field)[i], getattr(rest, field)[i]))
                                       for i in range(len(getattr(first, field)))]
                               for field in ('queries', 'retrieved', 'values')})
    assert len(joined.queries) == lists
    joined = joined._replace(**{field: np.concatenate((getattr(first, field), getattr(rest, field)))
                                for field in Partial._fields
                                if isinstance(getattr(first, field), np.ndarray)})
    with pytest.raises(PartialsError, match="'q1'"):
        evaluator.finished(joined)


@pytest.mark.parametrize('interleave', [False, True])
def test_the_streamed_path_still_merges_its_pieces(tmp_path, interleave):
    """The stream evaluates each batch of whole queries as a piece (queries straddling its blocks, or interleaved
    and partitioned by query): its values are the whole run's."""
    qrels, run = tmp_path / 'qrels', tmp_path / 'run'
    qrels.write_text(''.join(f'q{q} 0 d{d} {(q + d) % 3}\n' for q in range(30) for d in range(8)))
    lines = [f'q{q} Q0 d{d} {d + 1} {10 - d} r\n' for q in range(40) for d in range(9)]
    run.write_text(''.join(sorted(lines, key=lambda line: line.split()[2]) if interleave else lines))
    evaluator = built(str(qrels), measures=[AP, ir_measures.parse_measure('nDCG@5')])
    whole = evaluator.values(str(run))
    streamed = evaluator.values(RunStream(TrecSource(run), False, 64, 200))
    for measure in whole:
        np.testing.assert_array_equal(streamed[measure], whole[measure])
