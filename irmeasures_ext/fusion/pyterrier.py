"""Rank fusion in PyTerrier: :class:`FusionTransformer`, which :func:`~irmeasures_ext.fusion.fusion_transformer`
gives, fuses the results of pipelines.

Needs python-terrier (the ``pyterrier`` extra): importing this module without it is a ModuleNotFoundError naming
the install command; ``irmeasures_ext.fusion`` imports it only when a fusion transformer is asked for.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import pandas as pd

from irmeasures_ext.errors import extra_install

try:
    import pyterrier as pt
except ModuleNotFoundError as missing:
    raise ModuleNotFoundError(f'fusion_transformer needs python-terrier (no module {missing.name!r}): '
                              f'{extra_install("pyterrier")}', name=missing.name) from None


class FusionTransformer(pt.Transformer):
    """A transformer whose results for the topics are ``fusion`` (e.g. :func:`~irmeasures_ext.fusion.fuse` with its
    settings) of the results of ``pipelines`` for them, with PyTerrier's columns: qid, docno, score, rank (from 0,
    in the fused run's order) and the topics' query columns. It composes with PyTerrier's operators
    (``fused % 10``, ``rewrite >> fused``) and runs in ``pt.Experiment``."""

    def __init__(self, pipelines: Sequence[pt.Transformer],
                 fusion: Callable[[list[pd.DataFrame]], pd.DataFrame]) -> None:
        self.pipelines, self.fusion = tuple(pipelines), fusion

    def transform(self, inp: pd.DataFrame) -> pd.DataFrame:
        """The fused results of the pipelines for the topics ``inp`` (qid and query columns)."""
        fused = self.fusion([pipeline.transform(inp) for pipeline in self.pipelines])
        fused = fused.rename(columns={'query_id': 'qid', 'doc_id': 'docno'})
        fused['rank'] = fused.groupby('qid', sort=False).cumcount()
        queries = inp[pt.model.query_columns(inp)].drop_duplicates('qid')
        return fused.merge(queries.assign(qid=queries['qid'].astype(str)), on='qid', how='left')
