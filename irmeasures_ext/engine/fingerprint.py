"""The fingerprint of an evaluator: what its partial evaluations (``ExtEvaluator.partial``) carry, so that
``merge`` and ``finished`` take only those made by an evaluator of the same qrels, measures and rankings.

It is computed from the evaluator's content, not its identity: the same evaluator on a Dask worker (a
pickled copy) or built again from the same qrels (in any row order) has the same fingerprint, and one of
other qrels, measures, tie policy, score precision, depth or transforms another. The qrels are hashed
entry by entry to 128 bits and summed (a multiset hash: no sort, a few numpy passes over the judgments).
"""
from __future__ import annotations

import functools
import hashlib
from collections.abc import Iterable
from typing import Any

import numpy as np
import pyarrow as pa
from ir_measures.measures import Measure

from irmeasures_ext.engine.doc_ids import DocIds, pair_keys
from irmeasures_ext.engine.judgments import Judgments
from irmeasures_ext.engine.transforms import Transforms
from irmeasures_ext.measures.base import Ranking

#: Changed when what the fingerprint covers changes (partials of another version are then refused too).
VERSION = b'irmeasures_ext partial 2\0'
#: The constant that makes the second 64-bit lane of an entry's hash another function of it.
_SECOND_LANE = np.uint64(0x2545_F491_4F6C_DD1D)


def evaluator_fingerprint(plan: Iterable[tuple[Measure, tuple[Ranking, Transforms], Judgments]],
                          judgments: Judgments) -> str:
    """The fingerprint (32 hex digits) of an evaluator of ``judgments`` computing, in order, each measure of
    ``plan`` on its list (its ranking and the transforms of its ranked run) with its judgments."""
    digest = hashlib.blake2b(VERSION, digest_size=16)
    digests = {id(judgments): judgments_digest(judgments)}
    digest.update(digests[id(judgments)])  # (whose sorted query ids a partial's positions refer to)
    for measure, (ranking, transforms), measure_judgments in plan:
        digest.update(f'{measure!r}\0{ranking!r}\0{described(transforms)}\0'.encode())
        if id(measure_judgments) not in digests:
            digests[id(measure_judgments)] = judgments_digest(measure_judgments)
        digest.update(digests[id(measure_judgments)])
    return digest.hexdigest()


def judgments_digest(judgments: Judgments) -> bytes:
    """A digest of the judgments' content whatever the order of the qrels rows: the sorted query ids, and the
    sum of a 128-bit hash of each entry (query id, doc id, label, the other columns); with intents, theirs."""
    digest = hashlib.blake2b(digest_size=16)
    query_ids = DocIds.of(_chunked(judgments.query_ids))
    digest.update(np.int64(judgments.n_queries).tobytes() + query_ids.hash.tobytes() + query_ids.length.tobytes())
    docs = judgments._docs  # (the index's own hashes of the doc ids: no second pass over the strings)
    entry = pair_keys(query_ids.hash[judgments.query], docs.hash)
    entry = pair_keys(docs.length, entry)
    for name, column in [('relevance', judgments.label), *sorted(judgments.columns.items())]:
        digest.update(f'{name}:{column.dtype.kind}\0'.encode())
        entry = pair_keys(_bits(column), entry)
    for lane in (entry, pair_keys(entry, _SECOND_LANE)):
        digest.update(np.add.reduce(lane, dtype=np.uint64).tobytes())  # (wraps modulo 2**64: a sum of hashes)
    digest.update(np.int64(len(entry)).tobytes())
    if judgments.intents is not None:
        for name, value in judgments.intents._asdict().items():
            digest.update(f'{name}\0'.encode())
            digest.update(np.ascontiguousarray(value).tobytes() if isinstance(value, np.ndarray) else
                          repr(value).encode())
    return digest.digest()


def described(value: Any) -> str:
    """``value`` (transforms: functions and their arguments) as text that is the same in every process: a
    function by its module and name, not its address."""
    if isinstance(value, functools.partial):
        return f'partial({described(value.func)}, {described(value.args)}, {described(value.keywords)})'
    if callable(value) and hasattr(value, '__qualname__'):
        return f'{value.__module__}.{value.__qualname__}'
    if isinstance(value, tuple) and hasattr(value, '_fields'):  # (a named tuple, e.g. a Ranking)
        return repr(value)
    if isinstance(value, (tuple, list)):
        return '(' + ', '.join(described(item) for item in value) + ')'
    if isinstance(value, dict):
        return '{' + ', '.join(f'{described(key)}: {described(item)}' for key, item in value.items()) + '}'
    if hasattr(value, '__dataclass_fields__'):  # (a Transform)
        return f'{type(value).__qualname__}(' + ', '.join(
            described(getattr(value, name)) for name in value.__dataclass_fields__) + ')'
    return repr(value)


def _bits(column: np.ndarray) -> np.ndarray:
    """The values of ``column`` as 64-bit words: floats as float64, the rest (integers, booleans) as int64."""
    return (column.astype(np.float64) if column.dtype.kind == 'f' else column.astype(np.int64)).view(np.uint64)


def _chunked(values: pa.Array | pa.ChunkedArray) -> pa.ChunkedArray:
    return values if isinstance(values, pa.ChunkedArray) else pa.chunked_array([values], type=values.type)
