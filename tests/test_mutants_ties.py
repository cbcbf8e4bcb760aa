"""Tie policies at the edges the brute-force property tests of test_ties.py do not reach: labels near the
int64 limits under optimistic/pessimistic, the exact EqualRankError of the rank policy for a table run, and
the contracts of the helpers that find the order of tied docs a measure needs."""
from __future__ import annotations

import itertools
import warnings

import ir_measures
import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import reference

import irmeasures_ext
from irmeasures_ext import InputError, nDCG_Z1
from irmeasures_ext.engine.judgments import Judgments
from irmeasures_ext.engine.transforms import qrels_labels, rank_labels_by_credit
from irmeasures_ext.errors import EqualRankError

BIG = 2 ** 62 + 1  # 2 * BIG > 2**63 - 1: a label past which any doubled label would wrap around in int64
JUDGED = {'a': BIG, 'b': 1, 'c': 0, 'd': -BIG}  # every int64 label is valid input
RUN = {'q': {doc: 1.0 for doc in JUDGED} | {'x': 1.0}}  # one tie group of five docs (x unjudged)


@pytest.mark.parametrize('policy', ['optimistic', 'pessimistic'])
def test_optimistic_and_pessimistic_order_extreme_labels(policy):
    """Against every ordering of the tie group: the best (optimistic) or worst (pessimistic) RR and
    P@1 for each threshold, which holds only if labels near ±2**62 are compared without overflow."""
    rels = [BIG, 1, 0]  # rel must be >= 0; d (label -BIG) is never relevant
    measures = [m for rel in rels for m in (ir_measures.RR(rel=rel), ir_measures.P(rel=rel) @ 1)]
    got = {str(m.measure): m.value
           for m in irmeasures_ext.provider.configured(ties=policy).iter_calc(measures, {'q': JUDGED}, RUN)}
    choose = max if policy == 'optimistic' else min
    for rel in rels:
        rankings = list(itertools.permutations(RUN['q']))
        rr = choose(reference.reciprocal_rank(r, JUDGED, rel) for r in rankings)
        p1 = choose(reference.precision(r, JUDGED, 1, rel) for r in rankings)
        assert got[str(ir_measures.RR(rel=rel))] == pytest.approx(rr), rel
        assert got[str(ir_measures.P(rel=rel) @ 1)] == pytest.approx(p1), rel
    # by hand: optimistic ranks a (label 2**62 + 1) first, so RR(rel=2**62+1) = 1; pessimistic ranks
    # x (unjudged), d, c, b, a: a is 5th, RR = 1/5.
    assert got[str(ir_measures.RR(rel=BIG))] == (1.0 if policy == 'optimistic' else 0.2)


def test_rank_policy_equal_ranks_error_of_a_table_run():
    """A DataFrame run has no file to locate the error in: the EqualRankError itself reaches the user,
    its message prefixed by the input kind, naming the second doc of the repeated rank."""
    run = pd.DataFrame({'query_id': ['q', 'q', 'q', 'p'], 'doc_id': ['a', 'b', 'c', 'z'],
                        'score': [3.0, 2.0, 1.0, 1.0], 'rank': [1, 2, 2, 2]})
    with pytest.raises(EqualRankError) as caught:
        irmeasures_ext.provider.configured(ties='rank').calc_aggregate([ir_measures.RR], {'q': {'a': 1}}, run)
    error = caught.value
    assert str(error) == ("run: docs 'b' and 'c' of query 'q' have the same rank 2: tie policy \"rank\" needs "
                          'distinct ranks')
    assert (error.kind, error.query_id, error.doc_id) == ('run', 'q', 'c')


def test_qrels_labels_are_the_distinct_labels_ascending():
    judgments = Judgments(pa.table({'query_id': ['q', 'q', 'q', 'q', 'p'], 'doc_id': ['a', 'b', 'c', 'd', 'a'],
                                    'relevance': [0, 2, 2, 1, 1]}))
    assert qrels_labels(judgments).tolist() == [0, 1, 2]


def test_labels_are_ranked_by_credit_only_where_the_label_order_does_not_follow_it():
    """None (the label order, shared with every such measure) when the credit never decreases, equal
    neighbours included; else each label's dense rank by credit."""
    assert rank_labels_by_credit(np.array([-1.0, -1.0, 1.0, 3.0])) is None
    assert rank_labels_by_credit(np.array([-1.0, 5.0, 0.5, 5.0])) == (0, 2, 1, 2)


def test_an_overflowing_credit_is_the_kernels_error_without_numpy_warnings():
    """2^5000 - 1 overflows while optimistic finds nDCG_Z1's order of tied docs: numpy's warning is not
    shown; the kernel reports the overflow."""
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        with pytest.raises(InputError, match='values overflow'):
            irmeasures_ext.provider.configured(ties='optimistic').calc_aggregate(
                [nDCG_Z1 @ 3], {'q': {'a': 5000, 'b': 1}}, {'q': {'a': 1.0, 'b': 1.0}})
