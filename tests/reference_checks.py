"""What the property tests against the plain references share (tests/measures/test_reference_measures.py,
tests/engine/test_equivalence_classes.py): their settings, gains maps and cutoffs, and the comparison of a path's
values with the references'."""
from __future__ import annotations

import math
import statistics

import reference
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

CUTOFFS = [1, 2, 3, 5, 10, 50]
GAIN_VALUES = [0, 0.5, 1, 2, 3, 7, 10]
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def gains_maps(draw) -> dict[int, float] | None:
    """None (gain = label), or gains for some labels (any order: not always increasing)."""
    if draw(st.booleans()):
        return None
    labels = draw(st.lists(st.integers(1, 4), min_size=1, max_size=4, unique=True))
    return {label: draw(st.sampled_from(GAIN_VALUES)) for label in labels}


def rankings(run: dict) -> dict[str, list[str]]:
    return {query_id: reference.trec_ranking(scores) for query_id, scores in run.items()}


def with_gains(gains: dict | None) -> dict:
    return {} if gains is None else {'gains': gains}


def aggregate(measure, values: dict[str, float]) -> float:
    if measure.NAME == 'MedianRank':
        return reference.median(values.values())
    if measure.NAME == 'RankVariance':
        return statistics.pvariance(values.values()) if values else math.nan
    return sum(values.values()) / len(values)


def assert_matches(expected: dict, per_query: dict, aggregates: dict, path: str) -> None:
    for measure, values in expected.items():
        for qid, value in values.items():
            got = per_query[str(measure), qid]
            assert same(got, value), (path, str(measure), qid, got, value)
        assert same(aggregates[str(measure)], aggregate(measure, values)), (path, str(measure))
    assert {qid for _, qid in per_query} == {qid for values in expected.values() for qid in values}, path


def same(got: float, want: float) -> bool:
    return (math.isnan(got) and math.isnan(want)) or math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-12)

