"""Generated qrels with an equivalence class per doc (tests/engine/test_equivalence_classes.py, and the trec_eval
measure tests of tests/measures/)."""
from __future__ import annotations

from hypothesis import strategies as st
from strategies import qrels_and_run


@st.composite
def qrels_with_classes(draw) -> tuple[dict, dict]:
    """Generated qrels whose values are (label, class), few classes per query so that they share members."""
    qrels, run = draw(qrels_and_run())
    return {query_id: {doc: (label, draw(st.integers(0, 4))) for doc, label in judged.items()}
            for query_id, judged in qrels.items()}, run


def split(qrels: dict) -> tuple[dict, dict]:
    """The ``{qid: {doc: label}}`` and ``{qid: {doc: class}}`` of qrels with classes."""
    return ({q: {d: value[0] for d, value in docs.items()} for q, docs in qrels.items()},
            {q: {d: value[1] for d, value in docs.items()} for q, docs in qrels.items()})

