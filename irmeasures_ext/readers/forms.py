"""The forms of input the public functions take, named for type checkers (ir_measures names its own ``TYPE_QREL``
and ``TYPE_RUN``; these add ours). Only annotations use them (under ``TYPE_CHECKING``): at run time the module is
empty.

- :data:`QrelsLike`: a TREC qrels file (or Parquet, Arrow IPC) by path, a DataFrame (``query_id, doc_id,
  relevance`` or PyTerrier's ``qid, docno, label``), an Arrow table, ``{qid: {docid: label}}``, an iterable of
  ir_measures' ``Qrel`` (an ir_datasets dataset's ``qrels_iter()``: the commands take its id, Python its records,
  as ir_measures does), or a :class:`~irmeasures_ext.readers.source.Source` (e.g. ``irmeasures_ext.intent_qrels(...)``).
- :data:`RunLike`: the same forms for a run (``score``; ``ScoredDoc``s).
- :data:`RunsLike`: several runs, as a list (named by file stem or ``run1``, ...) or a dict name → run.
- :data:`ProbabilitiesLike`: intent probabilities: an Iprob or DINprob file, a table, or ``{qid: {intent: p}}``.
- :data:`JudgementsLike`: several judgement sets: a dict name → qrels, or a long table with a ``judge`` column.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import os
    from collections.abc import Iterable, Mapping
    from typing import TypeAlias

    import pandas as pd
    import pyarrow as pa
    from ir_measures import Qrel, ScoredDoc

    from irmeasures_ext.readers.source import Source

    Path: TypeAlias = str | os.PathLike[str]
    Table: TypeAlias = pd.DataFrame | pa.Table
    QrelsLike: TypeAlias = Path | Table | Mapping[str, Mapping[str, float]] | Iterable[Qrel] | Source
    RunLike: TypeAlias = Path | Table | Mapping[str, Mapping[str, float]] | Iterable[ScoredDoc] | Source
    RunsLike: TypeAlias = Iterable[RunLike] | Mapping[str, RunLike]
    ProbabilitiesLike: TypeAlias = Path | Table | Mapping[str, Mapping[str, object]]
    JudgementsLike: TypeAlias = Mapping[str, QrelsLike] | pd.DataFrame
