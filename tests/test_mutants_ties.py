"""Tie policies at the edges the brute-force property tests of test_ties.py do not reach: labels near the
int64 limits under optimistic/pessimistic, and the exact EqualRankError of the rank policy for a table run."""
from __future__ import annotations

import itertools

import ir_measures
import pandas as pd
import pytest
import reference

import irmeasures_ext
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
