"""Generated data on which another tool's ranking cannot differ from ours: every score of a query distinct
(as float32 and float64, so that neither tie rule nor score precision can change the ranking), and query ids
made numeric for tools that need them (gdeval)."""
from __future__ import annotations

from hypothesis import strategies as st
from strategies import LABELS, qrels_and_run

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
