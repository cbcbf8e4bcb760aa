"""Bad input in the API gives a clear ValueError subclass naming the query/doc/param."""
import math
import re

import ir_measures
import pandas as pd
import pytest

import irmeasures_ext  # noqa: F401
from irmeasures_ext import InputError, MeasureParamError, Q, nDCG_Z1

PROVIDER = ir_measures.providers.registry['irmeasures_ext']
QRELS = {'q1': {'a': 1, 'b': 2}}


@pytest.mark.parametrize('text,message', [
    ('Q(beta="x")', 'beta must be'),
    ('Q(gains={1:"x"})', 'gain for label 1'),
    ('Q(gains=5)', 'gains must be a dict'),
    ('Q(patience=2)', "unknown parameter(s) ['patience']"),
    ('Q@0', 'cutoff must be an integer from 1 to'),
    ('nDCG_Z1(rel=1.5)@5', 'rel must be an integer from 1 to'),
])
def test_invalid_params_fail_when_the_measure_is_built(text, message):
    with pytest.raises(MeasureParamError, match=message.replace('(', r'\(').replace(')', r'\)').replace('[', r'\[')):
        ir_measures.parse_measure(text)


def test_negative_values_fail_when_built_in_python():
    # ir_measures' measure-string parser rejects negative literals itself (a ValueError too).
    with pytest.raises(MeasureParamError, match='beta must be a finite number >= 0, got -1'):
        Q(beta=-1)
    with pytest.raises(MeasureParamError, match='gain for label 1 must be a finite number >= 0'):
        Q(gains={1: -3})
    with pytest.raises(ValueError):
        ir_measures.parse_measure('Q(beta=-1)')


def test_missing_required_cutoff_fails_on_evaluation_through_every_entry_point():
    with pytest.raises(MeasureParamError, match="nDCG_Z1: parameter 'cutoff' is required"):
        ir_measures.calc_aggregate([nDCG_Z1], QRELS, {'q1': {'a': 1.0}})
    with pytest.raises(MeasureParamError, match='required'):
        PROVIDER.evaluator([nDCG_Z1], QRELS)
    assert issubclass(MeasureParamError, ValueError)


def test_duplicate_doc_in_run_is_rejected():
    run = [ir_measures.ScoredDoc('q1', 'a', 1.0), ir_measures.ScoredDoc('q1', 'b', 0.5),
           ir_measures.ScoredDoc('q1', 'a', 0.2)]
    with pytest.raises(InputError, match=r"duplicate doc 'a' in query 'q1' \(2 times\)"):
        PROVIDER.calc_aggregate([Q], QRELS, run)


def test_conflicting_qrels_are_rejected_and_identical_repeats_accepted():
    conflicting = [ir_measures.Qrel('q1', 'a', 1), ir_measures.Qrel('q1', 'a', 2)]
    with pytest.raises(InputError, match=r"conflicting labels for doc 'a' in query 'q1' \(labels 1 and 2\)"):
        PROVIDER.evaluator([Q], conflicting)
    repeated = [ir_measures.Qrel('q1', 'a', 2), ir_measures.Qrel('q1', 'a', 2)]
    assert PROVIDER.calc_aggregate([ir_measures.NumRel], repeated, {'q1': {'a': 1.0}})[ir_measures.NumRel] == 1


@pytest.mark.parametrize('score', [math.nan, math.inf, -math.inf])
def test_non_finite_scores_are_rejected(score):
    with pytest.raises(InputError, match=r"for doc 'b' in query 'q1' is not a finite number"):
        PROVIDER.calc_aggregate([Q], QRELS, {'q1': {'a': 1.0, 'b': score}})


@pytest.mark.parametrize('run,message', [
    (42, 'unsupported run type int'),
    ([('q1', 'a', 1.0)], 'run records must have fields query_id, doc_id, score'),
    ({'q1': [('a', 1.0)]}, "value for query 'q1' is not a dict"),
    ({'q1': {'a': 'high'}}, "run column 'score': cannot read values as double"),
])
def test_malformed_run_objects_are_rejected(run, message):
    with pytest.raises(InputError, match=message):
        PROVIDER.calc_aggregate([Q], QRELS, run)


def test_non_integer_relevance_in_dataframe_is_rejected():
    import pandas as pd
    qrels = pd.DataFrame({'query_id': ['q1'], 'doc_id': ['a'], 'relevance': [1.5]})
    with pytest.raises(InputError, match='relevance must be an integer, got 1.5 at row 0'):
        PROVIDER.evaluator([Q], qrels)
    missing = pd.DataFrame({'query_id': ['q1'], 'doc_id': ['a']})
    with pytest.raises(InputError, match=r"missing column\(s\) \['relevance'\]"):
        PROVIDER.evaluator([Q], missing)


def test_unsupported_built_in_variant_is_refused_by_name():
    with pytest.raises(MeasureParamError, match='does not support measure'):
        PROVIDER.evaluator([ir_measures.AP(judged_only=True)], QRELS)


def test_nerr_max_level_defaults_and_rejects_labels_above_it():
    from irmeasures_ext import nERR
    qrels = {'q1': {'a': 1, 'b': 3}}
    run = {'q1': {'b': 1.0, 'a': 2.0}}
    default = PROVIDER.calc_aggregate([nERR @ 5], qrels, run)[nERR @ 5]
    assert default == PROVIDER.calc_aggregate([nERR(max_level=3) @ 5], qrels, run)[nERR(max_level=3) @ 5]
    with pytest.raises(InputError, match='qrels label 3 exceeds max_level 2'):
        PROVIDER.calc_aggregate([nERR(max_level=2) @ 5], qrels, run)
    with pytest.raises(MeasureParamError, match='max_level must be a positive integer'):
        nERR(max_level=0)


RANK_NEEDED = ('tie policy "rank" needs the run\'s ranks, which {form} does not carry: give the run as a TREC file '
               '(its path), or as a DataFrame or Arrow table with a rank column')


@pytest.mark.parametrize('run, form', [
    (lambda path: ir_measures.read_trec_run(str(path)), 'ScoredDoc records (no rank field)'),
    (lambda path: [ir_measures.ScoredDoc('q1', 'a', 1.0)], 'ScoredDoc records (no rank field)'),
    (lambda path: {'q1': {'a': 1.0}}, 'a dict-of-dict'),
    (lambda path: pd.DataFrame({'query_id': ['q1'], 'doc_id': ['a'], 'score': [1.0]}),
     "a table without a rank column (columns ['query_id', 'doc_id', 'score'])"),
    (lambda path: pd.DataFrame({'qid': ['q1'], 'docno': ['a'], 'score': [1.0]}),
     "a table without a rank column (columns ['qid', 'docno', 'score'])"),
])
def test_the_rank_policy_on_a_run_without_ranks_says_what_carries_them(tmp_path, run, form):
    """The README's case: ir_measures.read_trec_run's records have no rank, nor have dicts or rank-less frames."""
    path = tmp_path / 'run'
    path.write_text('q1 Q0 a 1 1.0 t\n')
    with pytest.raises(InputError, match=re.escape(RANK_NEEDED.format(form=form))):
        ir_measures.calc_aggregate([nDCG_Z1(ties='rank') @ 5], QRELS, run(path))
    with pytest.raises(InputError, match=re.escape(RANK_NEEDED.format(form=form))):
        PROVIDER.configured(ties='rank').calc_aggregate([ir_measures.RR], QRELS, run(path))
    ranked = pd.DataFrame({'query_id': ['q1', 'q1'], 'doc_id': ['a', 'b'], 'score': [1.0, 2.0], 'rank': [1, 2]})
    path.write_text('q1 Q0 a 1 1.0 t\nq1 Q0 b 2 2.0 t\n')
    for given in (path, ranked):  # what carries ranks: by rank 'a' (gain 2^1 - 1) first, by score 'b' (2^2 - 1)
        assert ir_measures.calc_aggregate([nDCG_Z1(ties='rank') @ 5, nDCG_Z1 @ 5], QRELS, given) == pytest.approx(
            {nDCG_Z1(ties='rank') @ 5: 1 + 3 / math.log2(3), nDCG_Z1 @ 5: 3 + 1 / math.log2(3)})
