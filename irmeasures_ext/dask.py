"""Runs of any size on Dask (``pip install '.[dask]'`` in a clone): :func:`calc_aggregate` and
:func:`per_query`, each partition of the run evaluated by our provider's engine on a worker.

The run is a dask DataFrame, or the path of Parquet file(s) (a file, a folder, a glob) read with
``dask.dataframe.read_parquet``, with ir_measures' column names (``query_id, doc_id, score``) or
PyTerrier's (``qid, docno, score``); only those columns are read (and ``rank`` for tie policy
``rank``). The qrels are any form our provider accepts: read here, once, into the evaluator that each
worker receives once.

A partition is evaluated on its own, so each query's rows must be in one partition. A run indexed by
the query id with known divisions (``run.set_index('query_id')``, or Parquet read with its sorted index
and ``calculate_divisions=True``) has them so, and is evaluated as it is. Otherwise the run is read once:
each partition's queries are evaluated but its first and last, whose rows (the partition's *edges*) come
back to the client with the ids of the queries evaluated. If no query was evaluated in two partitions
nor is at an edge of one and inside another (a run written query by query: split between queries, or at
row counts so that a query straddles a boundary), each edge query has all its rows among the edges,
which the client evaluates together. Otherwise (interleaved queries) the whole run is shuffled on the
query id and evaluated again.

A worker returns its partition's evaluation as the engine's :class:`~irmeasures_ext.engine.evaluator.Partial`
(``ExtEvaluator.partial``: the values of the qrels queries it answers, and the docs it retrieves per query),
as a streamed run's pieces are evaluated; the client merges them (``merge``) and gives the qrels queries the
run does not answer their values as the whole run gives them in one process (``finished``: e.g. MeanRank's
1 + the largest candidate count). The aggregates are computed from the per-query values of every qrels
query, as one process computes them.
"""
from __future__ import annotations

import glob
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from irmeasures_ext.errors import extra_install

try:
    import dask
    import dask.dataframe as dd
    from dask.utils import natural_sort_key
except ModuleNotFoundError as missing:
    raise ModuleNotFoundError(f'irmeasures_ext.dask needs {missing.name}: {extra_install("dask")}',
                              name=missing.name) from None
import numpy as np
import pandas as pd
import pyarrow as pa
from ir_measures.measures import Measure

from irmeasures_ext.engine.aggregates import aggregate
from irmeasures_ext.engine.evaluator import ExtEvaluator, Partial
from irmeasures_ext.errors import InputError, MeasureParamError
from irmeasures_ext.frames import long_frame
from irmeasures_ext.plugin import IrMeasuresExtProvider
from irmeasures_ext.plugin import provider as default_provider
from irmeasures_ext.readers.columnar import ColumnarSource, hive_partitioning_as_text
from irmeasures_ext.readers.conversion import read_columns

if TYPE_CHECKING:
    from irmeasures_ext.readers.forms import QrelsLike

#: The runs this module evaluates: a dask DataFrame, or the path of Parquet file(s) (a file, a folder, a glob).
DaskRunLike = dd.DataFrame | str | os.PathLike[str]


def calc_aggregate(measures: Iterable[Measure], qrels: QrelsLike, run: DaskRunLike,
                   provider: IrMeasuresExtProvider | None = None) -> dict[Measure, float]:
    """Each measure's aggregate over the qrels queries (as ``ir_measures.calc_aggregate``), the run
    evaluated on the Dask scheduler in use (a ``distributed.Client``'s cluster, else Dask's default);
    ``provider``: our provider as configured (``irmeasures_ext.provider.configured(ties=...)``)."""
    built, pieces = _evaluated(measures, qrels, run, provider)
    return {measure: aggregate(measure, column) for measure, column in _all_values(built, pieces).items()}


def per_query(measures: Iterable[Measure], qrels: QrelsLike, run: DaskRunLike,
              provider: IrMeasuresExtProvider | None = None) -> dd.DataFrame:
    """The per-query values as a dask DataFrame with columns ``query_id``, ``measure`` (its name) and
    ``value``: one row per (measure, qrels query), in no particular order. The run is evaluated when this
    is called (as by :func:`calc_aggregate`); the frame holds the values, one partition per partition of
    the run evaluated, and one for the queries the run does not answer."""
    built, pieces = _evaluated(measures, qrels, run, provider)
    frames = [_frame(built, built.answered(piece.partial)) for piece in pieces]
    frames.append(_unanswered_frame(built, pieces))
    return dd.from_pandas(pd.concat(frames, ignore_index=True), npartitions=len(frames), sort=False)


@dataclass(frozen=True)
class _Piece:
    """One partition's evaluation (on a worker)."""

    partial: Partial  # the evaluator's, of the partition's whole queries (ExtEvaluator.partial)
    queries: pd.Series  # the distinct ids of the queries evaluated (as the run has them), run-only ones too
    edges: pd.DataFrame  # the rows left out: those of the partition's first and last queries (or none)


def _evaluated(measures: Iterable[Measure], qrels: QrelsLike, run: DaskRunLike,
               provider: IrMeasuresExtProvider | None) -> tuple[ExtEvaluator, list[_Piece]]:
    """The evaluator, and the evaluations of disjoint sets of whole queries that together hold the run:
    one per partition and one of the partitions' edges, or (interleaved queries) one per partition of the
    run shuffled on the query id. See the module docstring."""
    ours = default_provider if provider is None else provider
    if not isinstance(ours, IrMeasuresExtProvider):
        raise MeasureParamError(f'provider must be the {default_provider.NAME} provider (configured as you wish), '
                                f'got {ours!r}')
    built = cast(ExtEvaluator, ours.evaluator(measures, qrels))
    frame, whole_queries = _run_frame(run, built.reads_rank)
    _ = built.fingerprint  # (computed here, once: it travels with the evaluator, else each worker hashes the qrels)
    shipped = dask.delayed(built, traverse=False)

    def evaluated(parts: dd.DataFrame, edges_apart: bool) -> list[_Piece]:
        return list(dask.compute(*[dask.delayed(_evaluate_partition)(shipped, part, edges_apart)
                                   for part in parts.to_delayed()]))

    if whole_queries:
        return built, evaluated(frame, False)
    pieces = evaluated(frame, True)
    edges = pd.concat([piece.edges for piece in pieces])
    inside = pd.concat([piece.queries for piece in pieces])
    if inside.duplicated().any() or edges.iloc[:, 0].isin(inside).any():
        return built, evaluated(frame.shuffle(frame.columns[0]), False)
    return built, [*pieces, _evaluate_partition(built, edges, False)]


def _run_frame(run: DaskRunLike, with_rank: bool) -> tuple[dd.DataFrame, bool]:
    """The run as a dask DataFrame of the columns read (the query id first), and whether each query's rows
    are known to be in one partition (indexed by the query id, with known divisions)."""
    if isinstance(run, (str, os.PathLike)):
        options = {}
        if os.path.isdir(run):  # (its files checked to have the same columns, as one process checks them)
            ColumnarSource.of_path(run, 'parquet')
            options['partitioning'] = hive_partitioning_as_text(run)
        path = os.fspath(run)
        if '://' not in path and not (os.path.exists(path) or glob.glob(path)):
            raise InputError(f'run {path}: no such file or folder')
        try:
            frame = dd.read_parquet(path, dataset=options)
        except pa.ArrowInvalid:
            raise InputError(f'run {path}: not Parquet (irmeasures_ext.dask reads Parquet runs; a TREC run '
                             'file is streamed by ir_measures.calc_aggregate and the irmeasures-ext command)') from None
        # (the ir_metadata checked, as one process checks it: a file's, or a glob's first file's in dask's order)
        if '://' not in path and not os.path.isdir(path):
            first = path if os.path.exists(path) else min(glob.glob(path), key=natural_sort_key)
            ColumnarSource.of_path(first, 'parquet')
    else:
        frame = run
    if not isinstance(frame, dd.DataFrame):
        raise InputError(f'run: expected a dask DataFrame or the path of Parquet file(s), got {type(frame).__name__} '
                         '(a pandas DataFrame: dask.dataframe.from_pandas(run, npartitions=...), or evaluate it '
                         'with ir_measures.calc_aggregate)')
    names = [str(name) for name in frame.columns]
    index = frame.index.name
    in_index = index is not None and index not in names
    columns = read_columns([*names, index] if in_index else names, 'run', with_rank)
    whole_queries = in_index and columns[0] == index and frame.known_divisions
    if in_index and index in columns:
        frame = frame.reset_index()
    return frame[columns], whole_queries


def _evaluate_partition(built: ExtEvaluator, partition: pd.DataFrame, edges_apart: bool) -> _Piece:
    """Evaluates one partition (on a worker) whose queries each have all their rows in it, or, with
    ``edges_apart``, all but the first and last query, whose rows it returns instead."""
    edges = partition.iloc[:0]
    if edges_apart and len(partition):
        ids = partition.iloc[:, 0]
        at_edge = (ids == ids.iloc[0]) | (ids == ids.iloc[-1])
        partition, edges = partition[~at_edge], partition[at_edge]
    return _Piece(built.partial(partition), partition.iloc[:, 0].drop_duplicates(), edges)


def _all_values(built: ExtEvaluator, pieces: Sequence[_Piece]) -> dict[Measure, np.ndarray]:
    """Every measure's values of every qrels query (aligned with the sorted qrels query ids)."""
    return built.finished(built.merge(piece.partial for piece in pieces))


def _unanswered_frame(built: ExtEvaluator, pieces: Sequence[_Piece]) -> pd.DataFrame:
    """The values of the (measure, qrels query) pairs no partition answers."""
    merged = built.merge(piece.partial for piece in pieces)
    values = built.finished(merged)
    unanswered = {}
    for measure, (queries, _) in built.answered(merged).items():
        mask = np.ones(built.judgments.n_queries, dtype=bool)
        mask[queries] = False
        unanswered[measure] = (np.flatnonzero(mask), values[measure][mask])
    return _frame(built, unanswered)


def _frame(built: ExtEvaluator, answers: dict[Measure, tuple[np.ndarray, np.ndarray]]) -> pd.DataFrame:
    """A :func:`~irmeasures_ext.frames.long_frame` of each measure's values of its qrels queries (positions in the
    sorted query ids)."""
    return pd.concat([long_frame(built.judgments.query_ids.take(pa.array(queries, pa.int64())), {measure: values})
                      for measure, (queries, values) in answers.items()]
                     or [long_frame(pa.array([], pa.string()), {})], ignore_index=True)
