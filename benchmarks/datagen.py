"""Seeded synthetic TREC qrels and runs for the benchmarks (written under benchmarks/data/).

Three shapes, each 1,000 retrieved docs per query, with rounded scores so ties are common:

- ``1m``: 1,000 queries, graded qrels (~100 judged docs per query, labels 0-3, ~80 of them retrieved);
- ``5m``: QuoteR-shaped, 5,000 queries ranking 1,000 of 20,000 candidate quotes, one relevant each;
- ``7m``: MS MARCO-dev-shaped, 7,000 queries over an 8.8M-passage pool, ~1.06 relevant each.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

DATA_DIR = Path(__file__).resolve().parent / 'data'
DEPTH = 1000


@dataclass(frozen=True)
class Shape:
    """How one synthetic collection is drawn."""

    name: str
    n_queries: int
    pool: int                # candidate documents to draw from
    doc_prefix: str
    score_decimals: int      # scores are rounded to this many decimals (ties)
    graded: bool             # 1m: ~100 graded judgments per query; else ~1 relevant doc
    extra_relevant: float    # probability of a second relevant doc (non-graded shapes)
    retrieved_relevant: float  # probability that a relevant doc is in the run


SHAPES = {
    '1m': Shape('1m', 1_000, 2_000_000, 'D', 2, True, 0.0, 0.8),
    '5m': Shape('5m', 5_000, 20_000, '', 1, False, 0.0, 0.95),
    '7m': Shape('7m', 7_000, 8_841_823, '', 3, False, 0.06, 0.85),
}


def paths(size: str) -> tuple[Path, Path]:
    """(qrels, run) paths of a size, generated on first use."""
    directory = DATA_DIR / size
    qrels, run = directory / 'qrels.txt', directory / 'run.txt'
    if not (qrels.exists() and run.exists()):
        generate(SHAPES[size], qrels, run)
    return qrels, run


def generate(shape: Shape, qrels_path: Path, run_path: Path) -> None:
    """Draws the collection with a fixed seed and writes both files."""
    rng = np.random.default_rng(20240501)
    qids = np.sort(rng.choice(1_200_000, shape.n_queries, replace=False)) if shape.name == '7m' \
        else np.arange(1, shape.n_queries + 1)
    run_q, run_doc, run_score, qrel_q, qrel_doc, qrel_label = [], [], [], [], [], []
    for qid in qids:
        n_judged_outside = 20 if shape.graded else 0
        docs = rng.choice(shape.pool, DEPTH + n_judged_outside + 2, replace=False)
        retrieved, outside = docs[:DEPTH], docs[DEPTH:]
        if shape.graded:
            judged_in = rng.choice(DEPTH, 80, replace=False)
            judged = np.concatenate((retrieved[judged_in], outside[:n_judged_outside]))
            labels = rng.choice(4, len(judged), p=[0.5, 0.25, 0.15, 0.1])
            boost = np.zeros(DEPTH)
            boost[judged_in] = labels[:80] * 0.8
        else:
            n_rel = 1 + int(rng.random() < shape.extra_relevant)
            in_run = rng.random(n_rel) < shape.retrieved_relevant
            positions = rng.choice(DEPTH, n_rel, replace=False)
            judged = np.where(in_run, retrieved[positions], outside[:n_rel])
            labels = np.ones(n_rel, dtype=np.int64)
            boost = np.zeros(DEPTH)
            boost[positions[in_run]] = 2.0
        score = np.round(rng.normal(size=DEPTH) + boost, shape.score_decimals)
        run_q.append(np.full(DEPTH, qid))
        run_doc.append(retrieved)
        run_score.append(score)
        qrel_q.append(np.full(len(judged), qid))
        qrel_doc.append(judged)
        qrel_label.append(labels)
    _write_run(shape, np.concatenate(run_q), np.concatenate(run_doc), np.concatenate(run_score), run_path)
    _write_qrels(shape, np.concatenate(qrel_q), np.concatenate(qrel_doc), np.concatenate(qrel_label), qrels_path)


def _ids(values: np.ndarray, prefix: str = '') -> pa.Array:
    text = pc.cast(pa.array(values), pa.string())
    return pc.binary_join_element_wise(prefix, text, '') if prefix else text


def _write(columns: dict[str, pa.Array], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix('.tmp')
    pacsv.write_csv(pa.table(columns), tmp,
                    pacsv.WriteOptions(include_header=False, delimiter=' ', quoting_style='none'))
    tmp.replace(path)


def _write_run(shape: Shape, qids: np.ndarray, docs: np.ndarray, scores: np.ndarray, path: Path) -> None:
    # Lines of a query in score order with ranks 1..1000, as retrieval systems write them.
    order = np.lexsort((-scores, qids))
    rank = np.tile(np.arange(1, DEPTH + 1), len(qids) // DEPTH)
    _write({'qid': _ids(qids[order]), 'q0': pa.array(np.full(len(qids), 'Q0')),
            'docid': _ids(docs[order], shape.doc_prefix), 'rank': pa.array(rank), 'score': pa.array(scores[order]),
            'tag': pa.array(np.full(len(qids), 'synthetic'))}, path)


def _write_qrels(shape: Shape, qids: np.ndarray, docs: np.ndarray, labels: np.ndarray, path: Path) -> None:
    _write({'qid': _ids(qids), 'iteration': pa.array(np.zeros(len(qids), dtype=np.int64)),
            'docid': _ids(docs, shape.doc_prefix), 'relevance': pa.array(labels.astype(np.int64))}, path)
