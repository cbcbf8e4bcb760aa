"""The stage of ranked-list transforms between ranking a run and running the kernels: which transforms a
measure's list takes, each distinct transformed run computed once, and each transform against a plain
loop over one ranked list."""
from __future__ import annotations

from dataclasses import replace

import ir_measures
import pytest

import irmeasures_ext
from irmeasures_ext import Q
from irmeasures_ext.engine.judgments import Judgments
from irmeasures_ext.engine.ranking import RankedRun, rank_run
from irmeasures_ext.engine.transforms import Transform, apply_all, reorder
from irmeasures_ext.measures.base import DEFAULT_RANKING, Ranking
from irmeasures_ext.readers.inputs import read_input

QRELS = {'q': {'a': 1, 'b': 2, 'c': 0}, 'p': {'a': 1}}
RUN = {'q': {'a': 1.0, 'b': 1.0, 'x': 2.0, 'c': 0.5}, 'p': {'y': 1.0, 'a': 1.0}}


def ranked_of(qrels: dict, run: dict, precision: str = 'float32') -> RankedRun:
    return rank_run(read_input(run, 'run').table, Judgments(read_input(qrels, 'qrels').table), precision)


def test_each_distinct_list_is_computed_once_and_no_transform_gives_the_ranked_run_itself():
    """Prefixes shared by several lists are computed once per ranked run, each step on the result of the
    steps before it; a list without transforms is the ranked run, not a copy."""
    calls = []

    def marked(ranked: RankedRun, name: str) -> RankedRun:
        calls.append((name, ranked))
        return replace(ranked)

    first, second = ranked_of(QRELS, RUN), ranked_of(QRELS, RUN, 'float64')
    a, b = Transform(marked, ('a',)), Transform(marked, ('b',))
    assert a == Transform(marked, ('a',)) and hash(a) == hash(Transform(marked, ('a',))) and a != b
    runs = apply_all({'first': first, 'second': second},
                     [('first', ()), ('first', (a,)), ('first', (a, b)), ('first', (a, b)), ('first', (b,)),
                      ('second', (a,))])
    assert [name for name, _ in calls] == ['a', 'b', 'b', 'a']
    assert calls[1][1] is runs['first', (a,)] and calls[2][1] is first and calls[3][1] is second
    assert runs['first', ()] is first and runs['second', ()] is second
    assert sorted(runs, key=str) == sorted([('first', ()), ('first', (a,)), ('first', (a, b)), ('first', (b,)),
                                            ('second', ()), ('second', (a,))], key=str)


def test_measures_under_the_default_ranking_share_the_ranked_run_without_a_transform():
    measures = [ir_measures.AP, ir_measures.P @ 5, ir_measures.nDCG(gains={1: 3, 2: 1}), Q, Q(ties='optimistic')]
    lists = irmeasures_ext.provider.evaluator(measures, QRELS).lists
    assert [lists[m] for m in measures[:4]] == [(DEFAULT_RANKING, ())] * 4
    assert lists[Q(ties='optimistic')] == (Ranking('optimistic'), (Transform(reorder, ('optimistic', None)),))


@pytest.mark.parametrize('policy', ['optimistic', 'pessimistic'])
def test_measures_whose_credit_orders_tied_docs_alike_share_one_reordered_run(policy):
    """AP and P@5 credit the label, Q's gains grow with it: one reordering; nDCG whose gains fall from label
    1 to label 2 needs its own (labels 0, 1, 2 ranked 0, 2, 1 by gain); the trec_eval and expected policies
    reorder nothing."""
    by_label = (Ranking(policy), (Transform(reorder, (policy, None)),))
    measures = [ir_measures.AP, ir_measures.P @ 5, Q, ir_measures.nDCG(gains={1: 3, 2: 1})]
    lists = irmeasures_ext.provider.configured(ties=policy).evaluator(measures, QRELS).lists
    by_gain = (Ranking(policy), (Transform(reorder, (policy, (0, 2, 1))),))
    assert [lists[m] for m in measures] == [by_label, by_label, by_label, by_gain]
    for unordered in ('trec_eval', 'expected'):
        lists = irmeasures_ext.provider.configured(ties=unordered).evaluator(measures, QRELS).lists
        assert set(lists.values()) == {(Ranking(unordered), ())}
