"""ir_datasets wrappers for QuoteR, the local citation recommendation collections and NCI's NQ320k and
TriviaQA (docs/datasets.md).

``register()`` adds to ``ir_datasets.registry``:

- ``quoter/english``, ``quoter/modern-chinese``, ``quoter/classical-chinese`` (docs), each with
  ``/train``, ``/valid``, ``/test`` (docs, queries, qrels) — see ``irmeasures_ext.datasets.quoter``;
- ``citation-rec/acl-200``, ``/fulltextpeerread``, ``/refseer``, ``/arxiv``, ``/arsyta`` (docs),
  each with ``/train``, ``/val``, ``/test`` — see ``irmeasures_ext.datasets.citation_rec``;
- ``nci/nq320k`` and ``nci/trivia-qa`` (docs, queries, qrels), each with ``/train`` and ``/dev``,
  built once from their sources — see ``irmeasures_ext.datasets.nci_nq320k`` and ``.nci_trivia_qa``;
- ``quoter`` and ``citation-rec``, which only carry the collections' documentation.

Every dataset's ``documentation()`` returns its description, protocol notes, licence, sizes and
citation (from ``docs/*.yaml``), and ``metadata()`` its counts (``metadata.py``). Files live
under ``$IR_DATASETS_HOME`` (read when a dataset is used, not at import); importing this package
reads and downloads nothing.
"""
# ir_datasets first: importing it registers our datasets (see irmeasures_ext.guest.register), which
# imports the dataset modules below; importing it from inside one of them, half-initialised, cannot.
import ir_datasets  # noqa: F401, I001

from irmeasures_ext.datasets.citation_rec import (
    citing_paper_filter,
    first_positives,
    remove_citing_papers,
    stream_contexts,
)
from irmeasures_ext.datasets.registry import register

__all__ = ['register', 'remove_citing_papers', 'citing_paper_filter', 'first_positives', 'stream_contexts']
