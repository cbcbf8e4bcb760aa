"""pyndeval 0.0.8's per-topic values on ``tests/data/diversity`` (``ndeval_per_topic.tsv``, see its README), and
the run they were computed on (tests/measures/test_ndeval_references.py, tests/measures/test_ndeval_diversity.py).
Nothing here imports irmeasures_ext."""
from __future__ import annotations

import re

import reference_diversity as ref
from conftest import DATA

DIVERSITY = DATA / 'diversity'
RUN = ref.read_trec_run(DIVERSITY / 'run.txt')
MEASURE_NAME = re.compile(r'^(?P<name>[A-Za-z_]+)(?:\(rel=(?P<rel>\d+)\))?(?:@(?P<cutoff>\d+))?$')


def read_golden() -> dict[tuple[str, str], dict[str, tuple[float, str]]]:
    """``{(order, measure): {topic_id: (value, source)}}`` of ndeval_per_topic.tsv (``nan`` is NaN)."""
    golden: dict = {}
    with open(DIVERSITY / 'ndeval_per_topic.tsv', encoding='utf-8') as lines:
        assert next(lines).split() == ['order', 'rel', 'measure', 'qid', 'value', 'source']
        for line in lines:
            order, rel, measure, topic, value, source = line.rstrip('\n').split('\t')
            match = MEASURE_NAME.match(measure)
            assert match and int(match['rel'] or 1) == int(rel), line
            by_topic = golden.setdefault((order, measure), {})
            assert topic not in by_topic, line
            by_topic[topic] = (float(value), source)
    return golden


GOLDEN = read_golden()

