"""What the tests of the measures defined by other tools (gdeval, Judged, Compat, trec_eval 10.0) share: data on
which another tool's ranking cannot differ from ours (every score of a query distinct, as float32 and float64,
so that neither tie rule nor score precision can change the ranking; query ids made numeric for tools that need
them, as gdeval), our provider's values, and the check of a public path against a reference."""
from __future__ import annotations

import statistics

import pytest
from hypothesis import strategies as st
from public_paths import via_cli, via_ir_measures, via_provider
from strategies import LABELS, qrels_and_run

import irmeasures_ext

#: The public paths (public_paths.py); ir_measures' pipeline gives only our own measures to our provider.
PATHS = {'ir_measures': via_ir_measures, 'provider': via_provider, 'cli': via_cli}

#: Numeric ids for strategies.QUERY_IDS (gdeval reads query ids as numbers).
NUMERIC_QUERY_IDS = {'1': '1', '2': '2', '10': '10', 'q': '3', 'Q': '4'}


@st.composite
def distinct_scores(draw, labels=LABELS, numeric_ids: bool = False, positive: bool = False) -> tuple[dict, dict]:
    """``strategies.qrels_and_run()`` with each query's scores replaced by distinct multiples of 0.25 (exact in
    float32), in a random order; negative ones too unless ``positive``; query ids numeric if ``numeric_ids``."""
    qrels, run = draw(qrels_and_run(labels))
    rename = NUMERIC_QUERY_IDS.get if numeric_ids else (lambda query_id: query_id)
    distinct = {}
    for query_id, docs in run.items():
        order = draw(st.permutations(range(len(docs))))
        offset = 1 if positive else draw(st.sampled_from([1, -len(docs) // 2]))
        distinct[rename(query_id)] = {doc: (rank + offset) * 0.25 for doc, rank in zip(docs, order, strict=True)}
    return {rename(query_id): judged for query_id, judged in qrels.items()}, distinct


def ours(measures: list, qrels, run, **configured) -> dict[tuple[str, str], float]:
    """Our provider's values, configured (ties, score_precision, depth, classes), per (measure string, query)."""
    provider = irmeasures_ext.provider.configured(**configured)
    return {(str(m.measure), m.query_id): m.value for m in provider.iter_calc(measures, qrels, run)}


def check_path(path: str, measures: list, qrels: dict, run: dict, want: dict[tuple[str, str], float]) -> None:
    """The values of ``measures`` through public path ``path`` (a key of PATHS) are ``want`` for every qrels query,
    to 1e-12, and their means are the means of ``want`` (a TREC file needs a line: the command is not run on a run
    without one, which the other paths cover)."""
    if path == 'cli' and not any(run.values()):
        return
    per_query, aggregates = PATHS[path](measures, qrels, run)
    assert per_query.keys() == want.keys()
    for key, value in want.items():
        assert per_query[key] == pytest.approx(value, rel=1e-12, abs=1e-12), (path, key)
    for measure in measures:
        mean = statistics.fmean(want[str(measure), qid] for qid in qrels)
        assert aggregates[str(measure)] == pytest.approx(mean, rel=1e-12, abs=1e-12), (path, measure)


def check_against_provider(provider, measures: list, qrels: dict, run: dict, tolerance: float = 1e-12) -> None:
    """Our values of ``measures`` are those of ir_measures' ``provider`` (the tool's own) for every qrels query, to
    ``tolerance``. The provider is given the run's non-empty queries (the judged and compat providers divide by
    zero on an empty ranking); ir_measures gives a qrels query a provider does not answer the default, 0, as ours
    does."""
    answered = {qid: docs for qid, docs in run.items() if docs}
    theirs = {(str(m.measure), m.query_id): m.value for m in provider.iter_calc(measures, qrels, answered)}
    got = ours(measures, qrels, run)
    assert got.keys() == theirs.keys()
    for key, value in got.items():
        assert value == pytest.approx(theirs[key], rel=1e-12, abs=tolerance), key
