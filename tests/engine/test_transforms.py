"""The stage of ranked-list transforms between ranking a run and running the kernels: which transforms a
measure's list takes, each distinct transformed run computed once, and each transform against a plain
loop over one ranked list."""
from __future__ import annotations

from dataclasses import fields, replace

import ir_measures
import numpy as np
import pytest
import reference
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import qrels_and_run

import irmeasures_ext
from irmeasures_ext import Q
from irmeasures_ext.engine.judgments import Judgments
from irmeasures_ext.engine.ranking import RankedRun, rank_run
from irmeasures_ext.engine.transforms import Transform, apply_all, condensed, reorder, truncated
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
    lists = irmeasures_ext.provider.evaluator(measures, QRELS).plan.lists
    assert [lists[m] for m in measures[:4]] == [(DEFAULT_RANKING, ())] * 4
    assert lists[Q(ties='optimistic')] == (Ranking('optimistic'), (Transform(reorder, ('optimistic', None)),))


@pytest.mark.parametrize('policy', ['optimistic', 'pessimistic'])
def test_measures_whose_credit_orders_tied_docs_alike_share_one_reordered_run(policy):
    """AP and P@5 credit the label, Q's gains grow with it: one reordering; nDCG whose gains fall from label
    1 to label 2 needs its own (labels 0, 1, 2 ranked 0, 2, 1 by gain); the trec_eval and expected policies
    reorder nothing."""
    by_label = (Ranking(policy), (Transform(reorder, (policy, None)),))
    measures = [ir_measures.AP, ir_measures.P @ 5, Q, ir_measures.nDCG(gains={1: 3, 2: 1})]
    lists = irmeasures_ext.provider.configured(ties=policy).evaluator(measures, QRELS).plan.lists
    by_gain = (Ranking(policy), (Transform(reorder, (policy, (0, 2, 1))),))
    assert [lists[m] for m in measures] == [by_label, by_label, by_label, by_gain]
    for unordered in ('trec_eval', 'expected'):
        lists = irmeasures_ext.provider.configured(ties=unordered).evaluator(measures, QRELS).plan.lists
        assert set(lists.values()) == {(Ranking(unordered), ())}


Row = tuple[int, int, int, int]  # (rank, label, tie group's first rank, tie group's size)


def rows_by_query(ranked: RankedRun) -> dict[str, list[Row]]:
    """The rows of ``ranked`` per query id, and a check of its per-query offsets and counts."""
    query_ids = ranked.judgments.query_ids.to_pylist()
    rows: dict[str, list[Row]] = {query_id: [] for query_id in query_ids}
    for query, *row in zip(*(getattr(ranked, name).tolist() for name in ('query', 'rank', 'label', 'tie_start',
                                                                            'tie_size')), strict=True):
        rows[query_ids[query]].append(tuple(row))
    assert ranked.starts.tolist() == np.cumsum([0] + [len(rows[q]) for q in query_ids[:-1]]).tolist()
    return rows


def condensed_rows(scores: dict[str, float], judged: dict[str, int], lowest_judged: int | None) -> list[Row]:
    """One query's condensed list by a loop: its docs in trec_eval's order, the unjudged ones (and those
    labelled below ``lowest_judged``) left out, the others numbered from 1; a tie group is the kept docs of
    one score (as float32)."""
    kept = reference.condensed(reference.trec_ranking(scores), judged, lowest_judged)
    rows = []
    for rank, doc in enumerate(kept, 1):
        tied = [at for at, other in enumerate(kept, 1)
                if reference.float32(scores[other]) == reference.float32(scores[doc])]
        rows.append((rank, judged[doc], tied[0], len(tied)))
    return rows


def test_condensed_list_by_hand():
    """x is unjudged and d labelled -1; trec_eval's order is x, then d, b, a (tied, doc_id descending), then c.
    trec_eval's -J (0) keeps b, a, c; NTCIREVAL's -j (None) keeps d too."""
    qrels = {'q': {'a': 1, 'b': 2, 'c': 0, 'd': -1}, 'p': {'a': 1}}
    run = {'q': {'x': 2.0, 'a': 1.0, 'b': 1.0, 'd': 1.0, 'c': 0.5}, 'p': {'y': 1.0}, 'r': {'a': 1.0}}
    ranked = ranked_of(qrels, run)
    trec = condensed(ranked, 0)
    assert rows_by_query(trec) == {'p': [], 'q': [(1, 2, 1, 2), (2, 1, 1, 2), (3, 0, 3, 1)]}
    assert trec.n_retrieved.tolist() == [0, 3] and trec.run_queries == 3 and trec.judgments is ranked.judgments
    every_judged = condensed(ranked, None)
    assert rows_by_query(every_judged) == {'p': [], 'q': [(1, -1, 1, 3), (2, 2, 1, 3), (3, 1, 1, 3), (4, 0, 4, 1)]}
    assert every_judged.n_retrieved.tolist() == [0, 4]
    assert rows_by_query(condensed(ranked, 2)) == {'p': [], 'q': [(1, 2, 1, 1)]}


@settings(max_examples=300, deadline=None)
@given(qrels_and_run(), st.sampled_from([None, 0, 1, 3]))
def test_condensed_list_equals_a_loop_over_each_ranked_list(data, lowest_judged):
    qrels, run = data
    ranked = ranked_of(qrels, run)
    got = condensed(ranked, lowest_judged)
    rows = rows_by_query(got)
    assert set(rows) == set(qrels)
    for query_id, judged in qrels.items():
        want = condensed_rows(run.get(query_id, {}), judged, lowest_judged)
        assert rows[query_id] == want, query_id
    assert got.n_retrieved.tolist() == [len(rows[query_id]) for query_id in sorted(qrels)]
    assert got.run_queries == ranked.run_queries


@settings(max_examples=200, deadline=None)
@given(qrels_and_run(), st.sampled_from(['optimistic', 'pessimistic']), st.sampled_from([None, 0, 2]))
def test_condensing_and_reordering_tied_docs_commute(data, policy, lowest_judged):
    """Reordering a tie group moves its documents only within the group, and condensing keeps the order:
    either way round gives the same list (the stage reorders first)."""
    qrels, run = data
    ranked = ranked_of(qrels, run)
    first, second = condensed(reorder(ranked, policy), lowest_judged), reorder(condensed(ranked, lowest_judged), policy)
    for field in fields(RankedRun):
        if isinstance(getattr(first, field.name), np.ndarray):
            assert np.array_equal(getattr(first, field.name), getattr(second, field.name)), field.name


def truncated_rows(scores: dict[str, float], judged: dict[str, int], depth: int) -> list[Row]:
    """One query's judged rows within the depth cut, by a loop: its first ``depth`` docs in trec_eval's order
    (unjudged ones counted), their ranks kept; a tie group is the docs of one score (as float32) above the cut."""
    kept = reference.trec_ranking(scores)[:depth]
    rows = []
    for rank, doc in enumerate(kept, 1):
        tied = [at for at, other in enumerate(kept, 1)
                if reference.float32(scores[other]) == reference.float32(scores[doc])]
        if doc in judged:
            rows.append((rank, judged[doc], tied[0], len(tied)))
    return rows


@settings(max_examples=300, deadline=None)
@given(qrels_and_run(), st.sampled_from([1, 2, 5, 30]))
def test_depth_cut_equals_a_loop_over_each_ranked_list(data, depth):
    qrels, run = data
    got = truncated(ranked_of(qrels, run), depth)
    rows = rows_by_query(got)
    for query_id, judged in qrels.items():
        assert rows[query_id] == truncated_rows(run.get(query_id, {}), judged, depth), query_id
    assert got.n_retrieved.tolist() == [min(len(run.get(query_id, {})), depth) for query_id in sorted(qrels)]
