"""The plain ndeval references (tests/reference_diversity.py) equal pyndeval's per-topic values.

``tests/data/diversity/ndeval_per_topic.tsv`` holds pyndeval 0.0.8's values (ndeval 4.5's C code, through
ir_measures 0.4.3) for 149 topics, rel = 1 and rel = 2, and two orders of the same run (see
``tests/data/diversity/README.md``):

* ``pyndeval``: the run as given, which pyndeval orders by score descending, then doc id ascending;
* ``tie_rule``: the run re-scored so that it has no ties, in the order score descending, then doc id
  descending byte-wise (trec_eval's and ``ndeval -traditional``'s).

The values are Python ``repr``s of doubles (17 significant digits), so the comparison is tight: an absolute
tolerance of 1e-12 (10,044 of the 12,516 values are equal to the last bit, the largest difference is 3.3e-16,
from the order of the float operations; NaN must meet NaN). Topics
of the qrels absent from the run have ir_measures' default (0), which is also what the references give for
an empty ranking; run-only topics have no value (pyndeval skips them). Nothing here imports irmeasures_ext.
"""
from __future__ import annotations

import math

import pytest
import reference_diversity as ref
from ndeval_golden import DIVERSITY, GOLDEN, MEASURE_NAME, RUN

TOLERANCE = 1e-12

QRELS = ref.read_diversity_qrels(DIVERSITY / 'qrels.txt')
ORDERS = {'pyndeval': ref.ndeval_ranking, 'tie_rule': ref.tie_rule_ranking}


def reference_value(measure: str, ranking: list[str], levels: dict[str, dict[str, int]]) -> float:
    """The reference's value of ``measure`` (ir_measures' name, e.g. ``nERR_IA(rel=2)@10``) for one topic."""
    match = MEASURE_NAME.match(measure)
    name, cutoff = match['name'], int(match['cutoff']) if match['cutoff'] else None
    judged = ref.relevant_subtopics(levels, int(match['rel'] or 1))
    with_cutoff = {'alpha_DCG': ref.alpha_dcg, 'alpha_nDCG': ref.alpha_ndcg, 'ERR_IA': ref.err_ia,
                   'nERR_IA': ref.nerr_ia, 'P_IA': ref.p_ia, 'StRecall': ref.subtopic_recall}
    whole_run = {'NRBP': ref.nrbp, 'nNRBP': ref.nnrbp, 'AP_IA': ref.ap_ia}
    if name in with_cutoff:
        assert cutoff is not None, measure
        return with_cutoff[name](ranking, judged, cutoff)
    assert cutoff is None, measure
    return whole_run[name](ranking, judged)


def same(value: float, expected: float) -> bool:
    if math.isnan(expected):
        return math.isnan(value)
    return abs(value - expected) <= TOLERANCE


def mismatches(order: str, measure: str, rank_by=None) -> list[str]:
    rank_by = rank_by or ORDERS[order]
    wrong = []
    for topic, (expected, _) in sorted(GOLDEN[order, measure].items()):
        ranking = rank_by(RUN[topic]) if topic in RUN else []
        value = reference_value(measure, ranking, QRELS[topic])
        if not same(value, expected):
            wrong.append(f'{topic}: reference {value!r}, pyndeval {expected!r}')
    return wrong


@pytest.mark.parametrize(('order', 'measure'), sorted(GOLDEN))
def test_reference_equals_pyndeval_on_every_topic(order, measure):
    wrong = mismatches(order, measure)
    assert not wrong, f'{len(wrong)} topics differ:\n' + '\n'.join(wrong[:20])


def test_the_file_covers_every_measure_cutoff_rel_order_and_qrels_topic():
    """Every (order, measure) has a value for each of the 149 qrels topics, nothing else: the parametrised
    test above therefore checks all 12,516 rows."""
    measures = {f'{name}{rel}@{k}' for name in ('alpha_DCG', 'alpha_nDCG', 'ERR_IA', 'nERR_IA', 'P_IA', 'StRecall')
                for rel in ('', '(rel=2)') for k in (5, 10, 20)}
    measures |= {f'{name}{rel}' for name in ('NRBP', 'nNRBP', 'AP_IA') for rel in ('', '(rel=2)')}
    assert set(GOLDEN) == {(order, measure) for order in ORDERS for measure in measures}
    assert len(QRELS) == 149
    for by_topic in GOLDEN.values():
        assert set(by_topic) == set(QRELS)
    assert sum(len(by_topic) for by_topic in GOLDEN.values()) == 12516


def test_topics_without_values_or_run_lines_are_as_the_data_describes():
    """Run-only topics (q901, q902, and q007, which has no qrels line) get no value; a qrels topic absent
    from the run (q009) gets ir_measures' default 0; a topic without relevant docs (q006; at rel = 2 also q081,
    q083, q141) gets 0 and NaN for nNRBP."""
    run_only = set(RUN) - set(QRELS)
    assert run_only == {'q007', 'q901', 'q902'}  # q007 has intents in Iprob.txt but no qrels line
    not_run = set(QRELS) - set(RUN)
    assert not_run == {'q009'}
    for (order, measure), by_topic in GOLDEN.items():
        for topic, (value, source) in by_topic.items():
            assert (source == 'ir_measures_default') == (topic in not_run), (order, measure, topic)
            if topic in not_run:
                assert value == 0.0
    nan_rows = {(order, measure, topic) for (order, measure), by_topic in GOLDEN.items()
                for topic, (value, _) in by_topic.items() if math.isnan(value)}
    assert nan_rows == {(order, measure, topic) for order in ORDERS
                        for measure, topics in (('nNRBP', ['q006']), ('nNRBP(rel=2)', ['q006', 'q081', 'q083', 'q141']))
                        for topic in topics}
    for rel, topics in ((1, {'q006'}), (2, {'q006', 'q081', 'q083', 'q141'})):
        assert {t for t in QRELS if ref.subtopic_count(ref.relevant_subtopics(QRELS[t], rel)) == 0} == topics


def test_the_run_order_matters_on_this_data():
    """pyndeval's order (doc id ascending among equal scores) is not the tie rule's: ranking the run the
    other way makes the references disagree with pyndeval on some topics, so the data checks the order."""
    assert mismatches('pyndeval', 'alpha_nDCG@20', rank_by=ref.tie_rule_ranking)
    assert mismatches('tie_rule', 'alpha_nDCG@20', rank_by=ref.ndeval_ranking)


def test_qrels_have_one_level_per_doc_and_subtopic():
    """The reader keeps one level per (topic, doc, subtopic): the file must not repeat one."""
    with open(DIVERSITY / 'qrels.txt', encoding='utf-8') as lines:
        keys = [tuple(line.split()[:3]) for line in lines if line.strip()]
    assert len(keys) == len(set(keys)) == 3257


def test_small_example_by_hand():
    """Two subtopics; a covers both, b covers 1, c covers 2; ranking c, a, x (unjudged), b; α = 0.5.
    Gains: c 1, a 1 + 0.5 = 1.5, x 0, b 0.5. Greedy ideal: a (2), then b and c tie at 0.5: c (larger id), b (0.5)."""
    judged = {'a': frozenset({'1', '2'}), 'b': frozenset({'1'}), 'c': frozenset({'2'}), 'z': frozenset()}
    ranking = ['c', 'a', 'x', 'b']
    assert ref.novelty_gains(ranking, judged) == [1.0, 1.5, 0.0, 0.5]
    assert ref.ideal_ranking(judged) == ['a', 'c', 'b', 'z']
    dcg = 1.0 + 1.5 / math.log2(3) + 0.5 / math.log2(5)
    assert ref.alpha_ndcg(ranking, judged, 5) == pytest.approx(dcg / (2 + 0.5 / math.log2(3) + 0.5 / 2))
    assert ref.alpha_dcg(ranking, judged, 2) == pytest.approx((1 + 1.5 / math.log2(3)) / (2 + 1 / math.log2(3)))
    assert ref.err_ia(ranking, judged, 4) == pytest.approx((1 + 0.75 + 0.125) / (2 + 0.5 + 1 / 6 + 0.0625))
    assert ref.nerr_ia(ranking, judged, 4) == pytest.approx((1 + 0.75 + 0.125) / (2 + 0.25 + 0.5 / 3))
    assert ref.nrbp(ranking, judged) == pytest.approx(0.75 / 2 * (1 + 0.75 + 0.5 / 8))
    assert ref.nnrbp(ranking, judged) == pytest.approx((1 + 0.75 + 0.5 / 8) / (2 + 0.25 + 0.5 / 4))
    assert ref.ap_ia(ranking, judged) == pytest.approx(((1 / 2 + 2 / 4) / 2 + (1 + 2 / 2) / 2) / 2)
    assert ref.p_ia(ranking, judged, 5) == pytest.approx(4 / (5 * 2))
    assert ref.subtopic_recall(ranking, judged, 1) == 0.5
    assert math.isnan(ref.nnrbp(ranking, {'a': frozenset()}))
    assert ref.alpha_ndcg([], judged, 5) == ref.err_ia([], judged, 5) == ref.nnrbp([], judged) == 0.0
