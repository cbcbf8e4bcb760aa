"""ir_datasets wrappers for QuoteR and the local citation recommendation collections (SPEC §4).

``register()`` adds to ``ir_datasets.registry``:

- ``quoter/english``, ``quoter/modern-chinese``, ``quoter/classical-chinese`` (docs), each with
  ``/train``, ``/valid``, ``/test`` (docs, queries, qrels) — see ``irmeasures_ext.datasets.quoter``;
- ``citation-rec/acl-200``, ``/fulltextpeerread``, ``/refseer``, ``/arxiv``, ``/arsyta`` (docs),
  each with ``/train``, ``/val``, ``/test`` — see ``irmeasures_ext.datasets.citation_rec``;
- ``quoter`` and ``citation-rec``, which only carry the collections' documentation.

Every dataset's ``documentation()`` returns its description, protocol notes, licence, sizes and
citation (from ``docs/*.yaml``). Files live under ``$IR_DATASETS_HOME`` (read when a dataset is
used, not at import); importing this package reads and downloads nothing.
"""
import ir_datasets

from irmeasures_ext.datasets import citation_rec, quoter
from irmeasures_ext.datasets.citation_rec import citing_paper_filter, remove_citing_papers, stream_contexts


def register() -> None:
    """Register the datasets with ir_datasets; ids already registered are left alone (idempotent)."""
    registered = set(ir_datasets.registry)
    for dataset_id, dataset in {**quoter.datasets(), **citation_rec.datasets()}.items():
        if dataset_id not in registered:
            ir_datasets.registry.register(dataset_id, dataset)


__all__ = ['register', 'remove_citing_papers', 'citing_paper_filter', 'stream_contexts']
