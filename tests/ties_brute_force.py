"""Runs full of ties and every ordering of their tie groups: the brute force the tie-policy tests compare with
(tests/engine/test_ties.py, and the measure tests of tests/measures/)."""
from __future__ import annotations

import itertools

from hypothesis import strategies as st

LABELS = {'a': 3, 'b': 1, 'c': 0, 'd': 2, 'e': 1, 'f': -1}  # docs x, y, z are unjudged
#: Real-valued labels (whose order by label differs from their order by the gains maps of CASES).
REAL_LABELS = {'a': 3, 'b': 1, 'c': 0, 'd': 2.5, 'e': 0.35, 'f': -1.5}


@st.composite
def tied_runs(draw, labels=None):
    """Runs of 2-3 queries over a few docs, scores from {1, 2, 3}: many ties; the docs' ``labels`` (default:
    LABELS, or REAL_LABELS for half of the examples)."""
    labels = labels or draw(st.sampled_from([LABELS, REAL_LABELS]))
    qrels, run = {}, {}
    for query_id in draw(st.lists(st.sampled_from(['q1', 'q2', 'q3']), min_size=1, max_size=3, unique=True)):
        judged = draw(st.lists(st.sampled_from(sorted(labels)), min_size=1, max_size=5, unique=True))
        qrels[query_id] = {doc: labels[doc] for doc in judged}
        docs = draw(st.lists(st.sampled_from([*labels, 'x', 'y', 'z']), max_size=6, unique=True))
        run[query_id] = {doc: draw(st.sampled_from([1.0, 2.0, 3.0])) for doc in docs}
    return qrels, run


def orderings(scores: dict[str, float]):
    """Every ranking of the docs, score descending, any order within equal scores."""
    groups = [sorted(doc for doc in scores if scores[doc] == score) for score in sorted(set(scores.values()),
                                                                                        reverse=True)]
    for choice in itertools.product(*(itertools.permutations(group) for group in groups)):
        yield [doc for group in choice for doc in group]

