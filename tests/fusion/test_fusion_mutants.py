"""Tests found by mutation testing of the fusion kernels (`fusion/normalize.py`, `fusion/methods.py`,
`fusion/trained.py`, `fusion/pool.py`; tests/MUTANTS.md, "Issue 51's fusion kernels"): Condorcet's Copeland scores,
SegFuse's segments past the third, BayesFuse past the end of a table, the pools' ranges of queries. Each expected
value is worked out by hand from the definitions (:func:`irmeasures_ext.fusion.methods._condorcet`, docs/fusion.md;
comments), never by our code."""
import math

import numpy as np
import pytest

from irmeasures_ext.fusion import fuse


def fused(runs, method, weights=None, **params):
    """{doc: fused score} of query 'q', the runs given as {doc: score} lists of that query (no normalisation)."""
    frame = fuse([{'q': run} for run in runs], method, None, params | ({'weights': weights} if weights else {}))
    return dict(zip(frame.doc_id, frame.score, strict=True))


def test_a_draw_counts_half_a_win():
    """Run 1 ranks b > d, run 2 c > b (a run ranking one of two docs places it above the other): b beats d 2-0,
    b-c and c-d draw 1-1. Copeland (wins + draws/2): b 1.5, c 1.0, d 0.5, so b, c, d get 3, 2, 1; a draw counted
    −1/2 or 3/2, or the draws ignored, gives another order."""
    assert fused([{'b': 2.0, 'd': 1.0}, {'c': 2.0, 'b': 1.0}], 'condorcet') == {'b': 3.0, 'c': 2.0, 'd': 1.0}


#: t = 1e-12 (t + t + 1) in floats: with weights (t, t, 1) the draw bound 1e-12 Σ|wᵢ| is t itself.
T_OF_THREE = 1.0000000000019999e-12
#: t = 1e-12 (t + 1) in floats: the bound for weights (t, 1).
T_OF_TWO = 1.000000000001e-12


def test_a_margin_of_exactly_the_draw_bound_is_a_draw():
    """Weights (t, t, 1), the bound t: run 1 ranks x > y, run 2 u, run 3 v. x-y: margin t, a draw (at the bound,
    which is inclusive); x-u and y-u: t − t = 0, draws; v beats x, y and u (1 − t). Copeland: v 3, x, y and u 1.0
    each: v 4, the others 3. A bound excluded, or a margin at it counted a win, or a bound not in proportion to the
    weights, separates x, y and u."""
    assert T_OF_THREE == 1e-12 * (T_OF_THREE + T_OF_THREE + 1.0)
    runs = [{'x': 2.0, 'y': 1.0}, {'u': 1.0}, {'v': 1.0}]
    assert fused(runs, 'w_condorcet', [T_OF_THREE, T_OF_THREE, 1.0]) == {'v': 4.0, 'x': 3.0, 'y': 3.0, 'u': 3.0}


def test_a_run_ranking_neither_doc_adds_nothing_to_either_side():
    """Weights (t, 1), the bound t: run 1 ranks x > y, run 2 only z, so it abstains on x-y, whose margin is t, a
    draw; z beats both (1 − t). Copeland: z 2, x and y 0.5: z 3, x and y 2. Had run 2 added its weight 1 to both
    sides, (1 + t) − 1 rounds away from t."""
    assert T_OF_TWO == 1e-12 * (T_OF_TWO + 1.0)
    assert fused([{'x': 2.0, 'y': 1.0}, {'z': 1.0}], 'w_condorcet', [T_OF_TWO, 1.0]) == {'z': 3.0, 'x': 2.0, 'y': 2.0}


# -- the supervised methods ---------------------------------------------------------------------------------------


def segfuse_segment(rank: int) -> int:
    """SegFuse's segment of a rank: ranks 1-5, 6-15, 16-35, 36-75, ... (sizes 5, 10, 20, 40, ...)."""
    segment, first, size = 0, 1, 5
    while rank >= first + size:
        segment, first, size = segment + 1, first + size, 2 * size
    return segment


def test_segfuse_segments_double_past_the_third_and_a_segment_past_the_table_scores_0():
    """Run 1 ranks 40 docs, d00 first, with scores 40 down to 1, its table 3 segments long (ranks 1-35); run 2 ranks
    e. SegFuse: p[segment] × (score + 1), 0 from rank 36 on (past the table)."""
    probs = [[0.5, 0.25, 0.125], [1.0]]
    run = {f'd{i:02}': float(40 - i) for i in range(40)}
    expected = {f'd{i:02}': (probs[0][segfuse_segment(i + 1)] if segfuse_segment(i + 1) < 3 else 0.0) * (41 - i)
                for i in range(40)}
    assert [segfuse_segment(rank) for rank in (5, 6, 15, 16, 35, 36)] == [0, 1, 1, 2, 2, 3]
    assert fused([run, {'e': 0.0}], 'segfuse', probs=probs) == pytest.approx(expected | {'e': 1.0}, rel=1e-15)


def test_bayesfuse_past_the_end_of_a_table_takes_the_unranked_log_odds():
    """Tables (1.0) and (2.0, 3.0); run 1 ranks a, b, run 2 b, c. a: 1 + U (run 2 misses it), b: U (rank 2, past
    run 1's table) + 2, c: U + 3, with U = ln(0.001/0.999)."""
    unranked = math.log(0.001 / 0.999)
    got = fused([{'a': 2.0, 'b': 1.0}, {'b': 2.0, 'c': 1.0}], 'bayesfuse', log_odds=[[1.0], [2.0, 3.0]])
    assert got == pytest.approx({'a': 1 + unranked, 'b': unranked + 2, 'c': unranked + 3}, rel=1e-15)


def test_range_starts_cuts_as_many_items_as_fit():
    # (rows 2 2 2 3, at most 4 a range: [2 2] [2] [3]; at most 6: [2 2 2] [3]; an item above the most: alone)
    from irmeasures_ext.fusion.pool import range_starts
    assert range_starts(np.array([2, 2, 2, 3]), 4).tolist() == [0, 2, 3]
    assert range_starts(np.array([2, 2, 2, 3]), 6).tolist() == [0, 3]
    assert range_starts(np.array([5, 1, 1]), 4).tolist() == [0, 1]


def test_a_list_out_of_score_order_after_the_highest_score_is_ranked_by_score():
    # (run 1 lists q2's docs by ascending score after q1's higher score; each run ranks c above b in q2. RRF, k = 60:
    # c 1/61 + 1/61, b 1/62 + 1/62; q1's a 1/61)
    import pandas as pd
    first = pd.DataFrame({'query_id': ['q1', 'q2', 'q2'], 'doc_id': ['a', 'b', 'c'], 'score': [10.0, 1.0, 2.0]})
    second = pd.DataFrame({'query_id': ['q2', 'q2'], 'doc_id': ['c', 'b'], 'score': [5.0, 4.0]})
    fused = fuse([first, second], 'rrf', None, {'k': 60})
    assert list(fused.itertuples(index=False, name=None)) == [('q1', 'a', 1 / 61), ('q2', 'c', 2 / 61),
                                                             ('q2', 'b', 2 / 62)]


def test_ties_are_ordered_by_doc_within_their_own_list_only():
    # (q1's a c and q2's b d all score 1 and q1's list ends where q2's begins: each list's tie ordered by descending
    # doc id, c a and d b, never the four together (d c b a would mix the lists); RRF, k = 60, the run twice:
    # the first of a list 2/61, the second 2/62)
    import pandas as pd
    run = pd.DataFrame({'query_id': ['q1', 'q1', 'q2', 'q2'], 'doc_id': ['a', 'c', 'b', 'd'], 'score': [1.0] * 4})
    fused = fuse([run, run.copy()], 'rrf', None, {'k': 60})
    assert list(fused.itertuples(index=False, name=None)) == [('q1', 'c', 2 / 61), ('q1', 'a', 2 / 62),
                                                             ('q2', 'd', 2 / 61), ('q2', 'b', 2 / 62)]


def test_a_tie_after_the_first_row_and_a_pool_of_two_rows_are_ordered():
    # (x above a tie of a and b listed a first: b ranks 2, a 3 (RRF 1/62, 1/63); two tied rows and a run with none:
    # b 1/61, a 1/62)
    import pandas as pd
    run = pd.DataFrame({'query_id': ['q1'] * 3, 'doc_id': ['x', 'a', 'b'], 'score': [3.0, 1.0, 1.0]})
    fused = fuse([run, run.iloc[:0]], 'rrf', None, {'k': 60})
    assert list(fused.itertuples(index=False, name=None)) == [('q1', 'x', 1 / 61), ('q1', 'b', 1 / 62),
                                                             ('q1', 'a', 1 / 63)]
    fused = fuse([run.iloc[1:], run.iloc[:0]], 'rrf', None, {'k': 60})
    assert list(fused.itertuples(index=False, name=None)) == [('q1', 'b', 1 / 61), ('q1', 'a', 1 / 62)]


def test_bayesfuse_training_of_a_segment_all_relevant_a_segment_part_filled_and_one_beyond_the_list():
    """Run 1 retrieves 3 of the 5 relevant docs, run 2 the 5 and 5 unjudged ones. Ranks 1-5 (a segment of 5): run 1
    p = 3/5 (a segment's precision is over its width, not over the docs the list has there), ln(0.6/0.4); run 2
    p = 1 (1 − p = 0 read as 0.001), ln(1/0.001). Ranks 6-10: p = 0 for both (run 1 has none there, run 2 no relevant
    one), read as 0.001: ln(0.001/0.999); and 0 beyond."""
    from irmeasures_ext.fusion import train
    qrels = {'q': {f'd{i}': 1 for i in range(1, 6)}}
    runs = [{'q': {f'd{i}': 20.0 - i for i in range(1, 4)}}, {'q': {f'd{i}': 20.0 - i for i in range(1, 11)}}]
    log_odds = train(qrels, runs, 'bayesfuse', None)['log_odds']
    floor = math.log(0.001 / 0.999)
    assert [len(table) for table in log_odds] == [1000, 1000]
    assert log_odds[0][:5] == pytest.approx([math.log(1.5)] * 5, rel=1e-15)
    assert log_odds[1][:5] == [math.log(1 / 0.001)] * 5
    assert log_odds[0][5:] == log_odds[1][5:] == [floor] * 995
