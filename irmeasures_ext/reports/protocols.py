"""The papers' own evaluation protocols, reproducing what their official scripts print (beside this
package's definitions, which rank with trec_eval's rule and average over queries).

- ``quoter-official``: the ``test()`` of QuoteR's ``*_train_test.py`` (thunlp/QuoteR at e585fab).
  A query's rank is the number of candidates scoring strictly higher than the gold quote (ties
  in the gold's favour, 0-based); MRR and NDCG (1/log2(rank+2) for ranks below 5) are averaged
  within batches of 64 queries in file order (query ids ascending as numbers), then over batches;
  Recall@K counts the gold among the first K of ``np.argsort(-scores)`` over the candidates in
  label order (doc ids ascending as numbers), so among tied scores numpy's own (unstable) order
  decides, as in the script; Mean Rank is the mean of the 0-based ranks, Median Rank their median
  plus one, and "Variance" their standard deviation (``np.std``, as the script prints).
- ``gu-prefetch``: Gu et al.'s ``src/prefetch/test.py``: the citing paper is removed from the
  candidates unless it is a positive, and Recall@K = |positives in the top K| / |positives| for
  K = 10 … 2000, averaged over queries.
- ``symtax``: SymTax's ``per.py``: a context's rank is the position (from 1) of its cited paper
  among the candidates, 100 if absent; Recall@K = share of contexts ranked K or better (K = 5, 10,
  20, 50), NDCG@10 the mean of 1/log2(rank+1) and MRR@10 the mean of 1/rank for ranks up to 10.
  Several positives: the best-ranked one counts.

Candidates are the run's documents of each query, in our ranking (score descending, then doc_id
descending) for the citation protocols.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from irmeasures_ext.engine.segments import run_starts
from irmeasures_ext.errors import InputError
from irmeasures_ext.reports import PROTOCOLS

QUOTER_RECALL_AT = (1, 3, 5, 10, 20, 30, 100, 300, 500, 1000)
QUOTER_BATCH = 64
GU_RECALL_AT = (10, 20, 50, 100, 200, 500, 1000, 2000)
SYMTAX_RECALL_AT = (5, 10, 20, 50)
SYMTAX_MISS_RANK = 100


def quoter_official(qrels: pa.Table, run: pa.Table) -> dict[str, float]:
    """What QuoteR's official test() prints (see the module docstring), by the names it prints."""
    gold = _one_gold_per_query(qrels)
    run = run.filter(pc.is_in(run['query_id'], value_set=pa.array(list(gold), pa.string())))
    numeric = _all_numeric(run['doc_id']) and _all_numeric(run['query_id'])
    label = pc.cast(run['doc_id'], pa.int64()) if numeric else run['doc_id']
    run = run.append_column('label', label).sort_by([('query_id', 'ascending'), ('label', 'ascending')])
    query_ids, doc_ids = run['query_id'].to_numpy(zero_copy_only=False), run['doc_id'].to_numpy(zero_copy_only=False)
    scores = run['score'].to_numpy()
    starts = np.flatnonzero(run_starts(query_ids))
    bounds = dict(zip(query_ids[starts], zip(starts, np.append(starts[1:], len(query_ids)), strict=True),
                      strict=True))
    ranks, positions = [], []
    for query_id in sorted(gold, key=_number):  # file order
        start, end = bounds.get(query_id, (0, 0))
        gold_rows = np.flatnonzero(doc_ids[start:end] == gold[query_id])
        if not len(gold_rows):
            raise InputError(f'quoter-official: the run does not score the gold quote {gold[query_id]!r} of query '
                             f'{query_id!r} (the official script scores every quote)')
        predict = scores[start:end]
        ranks.append(np.count_nonzero(predict > predict[gold_rows[0]]))
        positions.append(int(np.flatnonzero(np.argsort(-predict) == gold_rows[0])[0]))
    rank, position = np.array(ranks, dtype=np.float64), np.array(positions)
    batches = [rank[start:start + QUOTER_BATCH] for start in range(0, len(rank), QUOTER_BATCH)]
    result = {
        'MRR': sum(np.average(1.0 / (batch + 1)) for batch in batches) / len(batches),
        'NDCG': sum(np.sum(np.where(batch < 5, 1.0 / np.log2(batch + 2), 0.0)) / len(batch)
                    for batch in batches) / len(batches),
        'Mean Rank': float(np.mean(rank)),
        'Median Rank': float(np.median(rank) + 1),
        'Variance': float(np.std(rank)),
    }
    result.update((f'Recall@{k}', float(np.mean(position < k))) for k in QUOTER_RECALL_AT)
    return result


def gu_prefetch(qrels: pa.Table, run: pa.Table, citing: Mapping[str, str]) -> dict[str, float]:
    """Gu et al.'s prefetch recall (see the module docstring)."""
    candidates = _ranked_candidates(qrels, run)
    citing_ids = pc.cast(pa.array([citing.get(q, '') for q in candidates.query_ids], pa.string()), pa.string())
    is_citing = (candidates.doc_ids == citing_ids.to_numpy(zero_copy_only=False)[candidates.query]) & \
        ~candidates.positive
    rank = _rank_among(candidates.query, ~is_citing)
    recalls = [np.bincount(candidates.query, weights=candidates.positive & ~is_citing & (rank <= k),
                           minlength=len(candidates.query_ids)) / candidates.n_positive for k in GU_RECALL_AT]
    return {f'Recall@{k}': float(np.mean(values)) for k, values in zip(GU_RECALL_AT, recalls, strict=True)}


def symtax(qrels: pa.Table, run: pa.Table) -> dict[str, float]:
    """SymTax's per.py figures (see the module docstring)."""
    candidates = _ranked_candidates(qrels, run)
    rank_of_row = _rank_among(candidates.query, np.ones(len(candidates.query), dtype=bool)).astype(np.float64)
    rank = np.full(len(candidates.query_ids), float(SYMTAX_MISS_RANK))
    found = candidates.positive
    np.minimum.at(rank, candidates.query[found], rank_of_row[found])
    result = {f'Recall@{k}': float(np.mean(rank <= k)) for k in SYMTAX_RECALL_AT}
    result['NDCG@10'] = float(np.mean(np.where(rank <= 10, 1 / np.log2(rank + 1), 0.0)))
    result['MRR@10'] = float(np.mean(np.where(rank <= 10, 1 / rank, 0.0)))
    return result


def compute(name: str, qrels: pa.Table, run: pa.Table, citing: Mapping[str, str]) -> dict[str, float]:
    """What the protocol ``name`` (of :data:`irmeasures_ext.reports.PROTOCOLS`) prints for ``run``."""
    protocol = PROTOCOLS[name]
    function = globals()[protocol.function]
    return function(qrels, run, citing) if protocol.needs_citing else function(qrels, run)


def _number(text: str) -> tuple:
    """Sort key: numbers as numbers (QuoteR's ids are line indices and quote labels), then the rest as text."""
    return (0, int(text), '') if text.lstrip('-').isdigit() else (1, 0, text)


def _all_numeric(strings: pa.ChunkedArray) -> bool:
    return bool(pc.all(pc.match_substring_regex(strings, r'^-?[0-9]{1,18}$')).as_py())


def _one_gold_per_query(qrels: pa.Table) -> dict[str, str]:
    relevant = qrels.filter(pc.greater(qrels['relevance'], 0))
    gold: dict[str, str] = {}
    for query_id, doc_id in zip(relevant['query_id'].to_pylist(), relevant['doc_id'].to_pylist(), strict=True):
        if gold.setdefault(query_id, doc_id) != doc_id:
            raise InputError(f'quoter-official: query {query_id!r} has several relevant docs; the protocol needs one')
    return gold


@dataclass(frozen=True)
class _Candidates:
    """The run's rows for the qrels queries with positives, ranked (score descending, doc_id descending)."""

    query_ids: list[str]      # the queries with positives, sorted
    n_positive: np.ndarray    # distinct positives per query
    query: np.ndarray         # per row: index into query_ids
    doc_ids: np.ndarray       # per row
    positive: np.ndarray      # per row: whether the doc is a positive of its query


def _ranked_candidates(qrels: pa.Table, run: pa.Table) -> _Candidates:
    relevant = qrels.filter(pc.greater(qrels['relevance'], 0)).group_by(['query_id', 'doc_id']).aggregate([])
    keys = pc.binary_join_element_wise(relevant['query_id'], relevant['doc_id'], '\x1f')
    query_ids = pc.unique(relevant['query_id']).sort()
    run = run.filter(pc.is_in(run['query_id'], value_set=query_ids))
    run = run.sort_by([('query_id', 'ascending'), ('score', 'descending'), ('doc_id', 'descending')])
    query = pc.index_in(run['query_id'], value_set=query_ids).to_numpy()
    positive = pc.is_in(pc.binary_join_element_wise(run['query_id'], run['doc_id'], '\x1f'), value_set=keys)
    n_positive = np.bincount(pc.index_in(relevant['query_id'], value_set=query_ids).to_numpy(),
                             minlength=len(query_ids))
    return _Candidates(query_ids.to_pylist(), n_positive, query, run['doc_id'].to_numpy(zero_copy_only=False),
                       positive.to_numpy(zero_copy_only=False))


def _rank_among(query: np.ndarray, kept: np.ndarray) -> np.ndarray:
    """Per row (rows grouped by query, in rank order), its rank from 1 among its query's ``kept`` rows."""
    running = np.cumsum(kept)
    starts = np.flatnonzero(run_starts(query))
    before = np.repeat(running[starts] - kept[starts], np.diff(np.append(starts, len(query))))
    return running - before
