"""Rank fusion: :func:`fuse` combines runs into one, with the methods and normalisations of ranx 0.3.21 (Bassani &
Romelli, "ranx.fuse: A Python library for metasearch", CIKM 2022) and its values, without its defects.

Semantics (issue 51; tests/fusion, against tests/data/ranx_fusion):

* **Input.** Runs in any form :func:`~irmeasures_ext.readers.inputs.read_input` reads (paths, DataFrames,
  dict-of-dict, Arrow tables, ...), as a list or a dict name -> run (weights then follow its order). A
  non-finite score or a doc twice in a query is an InputError, as for evaluation.
* **Queries.** The fused run answers the union of the runs' queries; a run that does not answer a query takes no
  part in its fusion (ranx refuses runs with different query sets; this is what it gives after its remedy,
  ``Run.make_comparable``, for every method but the ones below). An empty list cannot be told from no list: both
  are "does not answer". So, unlike ranx after ``make_comparable``, such a run gives BordaFuse no points (ranx
  gives every candidate (``|C|`` + 1)/2: a shift of the query's scores) and BayesFuse no log-odds (ranx: ln(0.001/0.999)
  to every doc), gets no Borda-normalised list (ranx gives it one, which makes it count in CombMNZ's n(d) and the
  like) and abstains in Condorcet.
* **Supervised methods** (PosFuse, ProbFuse, SegFuse, SlideFuse, MAPFuse, BayesFuse: :mod:`.trained`) take their
  trained parameters in ``params`` (``probs``/``log_odds``: one table a run; ``map_scores``; ``w``), as
  :func:`train` gives them from training runs and qrels (:mod:`~irmeasures_ext.fusion.training`: ranx's training,
  pairing queries by id where ranx pairs them by position). ``optimize_fusion``'s grid searches are not built.
* **Normalisation** (:mod:`.normalize`) is per (run, query) list: one run's empty query never affects another
  query (ranx's zmuv loses a run's later queries after an empty one, depending on numba's threads).
* **Ranks.** Rank-based methods rank each list by descending score as given, tied docs by descending doc id (as
  trec_eval; ranx takes its quicksort's order beyond 15 docs). Normalisations keep these ranks (where rounding makes
  two scores equal too); ``min-max-inverted`` reverses them (tied docs still by descending doc id), ``borda`` ranks
  the list's docs, then the candidates it misses by descending doc id (ranx: its set order, seed-dependent).
* **Output.** A pandas DataFrame (query_id, doc_id, score) ordered by query id, descending fused score, and
  descending doc id among tied scores (trec_eval's rule, so the order is reproducible and
  :func:`~irmeasures_ext.ir_metadata.write_run` writes it as it would be evaluated); ranx orders ties by an
  unstable sort.
* **Condorcet** is Copeland's rule (:func:`.methods.condorcet`): independent of hash seeds and set order; it
  equals ranx wherever ranx's output does not depend on ``PYTHONHASHSEED`` (a total majority order).
* **CombMIN/CombMAX** take the extreme of the scores present; ranx counts a missing doc as +1e9/−1e9, which wins
  when the present scores are beyond ±1e9 (``max`` norm of negative runs).
"""
from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

import pandas as pd

from irmeasures_ext.fusion.normalize import NORMS, normalize
from irmeasures_ext.fusion.pool import FusionError, Pool, pools
from irmeasures_ext.fusion.registry import METHODS, as_frame, checked_fusion
from irmeasures_ext.fusion.stream import fuse_to_file
from irmeasures_ext.fusion.trained import SUPERVISED
from irmeasures_ext.fusion.training import train
from irmeasures_ext.fusion.tuning import (
    CrossValidated,
    Optimized,
    cross_validate,
    default_grid,
    optimize,
    weight_grid,
)

__all__ = ['METHODS', 'NORMS', 'SUPERVISED', 'CrossValidated', 'FusionError', 'Optimized', 'cross_validate',
           'default_grid', 'fuse', 'fuse_to_file', 'fusion_transformer', 'normalized', 'optimize', 'train',
           'weight_grid']

def fuse(runs: list[Any] | Mapping[str, Any], method: str = 'rrf', norm: str | None = 'min-max',
         params: Mapping[str, Any] | None = None) -> pd.DataFrame:
    """The fusion of ``runs`` (two or more) by ``method`` (a key of :data:`~irmeasures_ext.fusion.registry.METHODS` or
    :data:`~irmeasures_ext.fusion.trained.SUPERVISED`) after normalising each by ``norm`` (a key of
    :data:`~irmeasures_ext.fusion.normalize.NORMS`, or None; ranx's default ``'min-max'``), with the method's
    ``params`` (``weights``: one a run; ``gamma``, ``phi``, ``k``, ``sigma``; the supervised methods' trained
    ``probs``, ``log_odds``, ``map_scores`` and ``w``): see the package's docstring."""
    runs = list(runs.values()) if isinstance(runs, Mapping) else list(runs)
    function, arguments = checked_fusion(method, params, len(runs))
    frames = [as_frame(pool.rows, pool.rows.candidate_query, pool.rows.candidate_doc, function(pool, **arguments))
              for pool in (normalize(part, norm) for part in pools(runs))]
    return frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)


def fusion_transformer(*pipelines: Any, method: str = 'rrf', norm: str | None = 'min-max',
                       params: Mapping[str, Any] | None = None) -> Any:
    """A PyTerrier transformer (:class:`~irmeasures_ext.fusion.pyterrier.FusionTransformer`) whose results are
    :func:`fuse` of the results of ``pipelines`` by ``method``, ``norm`` and ``params``; needs PyTerrier, imported
    now (the settings are checked when it first fuses)."""
    from irmeasures_ext.fusion.pyterrier import FusionTransformer
    return FusionTransformer(pipelines, functools.partial(fuse, method=method, norm=norm, params=params))


def normalized(runs: list[Any] | Mapping[str, Any], norm: str | None = 'min-max') -> list[pd.DataFrame]:
    """Each of ``runs`` normalised as :func:`fuse` normalises it (``borda`` reads them all), as a DataFrame in
    the order :func:`fuse` gives."""
    runs = list(runs.values()) if isinstance(runs, Mapping) else list(runs)
    pool = normalize(Pool.read(runs), norm)
    rows = pool.rows
    return [as_frame(rows, rows.query[mine], rows.doc[mine], pool.score[mine])
            for mine in (rows.run == i for i in range(len(runs)))]
