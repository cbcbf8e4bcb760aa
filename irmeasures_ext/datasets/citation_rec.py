"""Local citation recommendation: ``citation-rec/acl-200``, ``citation-rec/fulltextpeerread``,
``citation-rec/refseer``, ``citation-rec/arxiv`` (Gu et al. 2022's processed release) and
``citation-rec/arsyta`` (Goyal et al. 2024, SymTax), each with ``/train``, ``/val`` and ``/test``
(docs/datasets.md; ``docs/citation-rec.yaml``).

Docs are the papers of ``papers.json``; queries are the citation contexts of the split
(query_id = context_id, text = masked_text, with the citing paper's id: its title and abstract are
``ds.docs_store().get(query.citing_id)``); qrels are the split's ``positive_ids`` (relevance 1).
No file is downloaded: a missing one raises ir_datasets' manual-placement error naming the source
and the target path. Every JSON file is streamed with ijson; ``contexts.json`` (18.5 GB for ArSyTa)
is never held in memory (``stream_contexts``). Protocol: the citing paper is removed from its own
candidate list, see ``remove_citing_papers``. Full description:
``ir_datasets.load('citation-rec/acl-200').documentation()`` (``docs/citation-rec.yaml``).
"""
# (No ``from __future__ import annotations`` in this module: ir_datasets' export reads the record
# classes' annotations as types, and recognises typing.Tuple, not tuple.)
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple, Tuple, TypeAlias  # noqa: UP035

import ir_datasets
from ir_datasets.datasets.base import Dataset
from ir_datasets.formats import BaseQrels, BaseQueries, GenericQrel

from irmeasures_ext.datasets.common import (
    DictDocs,
    Documentation,
    Source,
    StreamedQueryStore,
    in_place,
    iter_json,
    load_once,
)
from irmeasures_ext.datasets.common import (
    downloads as _downloads,
)
from irmeasures_ext.datasets.metadata import cached_count, count_records
from irmeasures_ext.errors import InputError, extra_install

if TYPE_CHECKING:
    import pandas as pd


class CitationDoc(NamedTuple):
    """A paper of Gu et al.'s ``papers.json`` (a missing title or abstract is ``''``, as upstream reads it)."""
    doc_id: str
    title: str
    abstract: str

    def default_text(self) -> str:
        """``title + ' ' + abstract``."""
        return f'{self.title} {self.abstract}'

    @classmethod
    def from_record(cls, paper_id: str, record: dict) -> 'CitationDoc':
        """From a ``papers.json`` entry."""
        return cls(paper_id, record.get('title') or '', record.get('abstract') or '')


class ArSyTaDoc(NamedTuple):
    """A paper of ArSyTa's ``papers.json``: Gu et al.'s fields plus its arXiv categories."""
    doc_id: str
    title: str
    abstract: str
    categories: Tuple[str, ...]  # noqa: UP006

    def default_text(self) -> str:
        """``title + ' ' + abstract``."""
        return f'{self.title} {self.abstract}'

    @classmethod
    def from_record(cls, paper_id: str, record: dict) -> 'ArSyTaDoc':
        """From a ``papers.json`` entry (``categories`` a list, or a space-separated string)."""
        categories = record.get('categories') or ()
        categories = categories.split() if isinstance(categories, str) else categories
        return cls(paper_id, record.get('title') or '', record.get('abstract') or '', tuple(categories))


class CitationQuery(NamedTuple):
    """A citation context of Gu et al.'s ``contexts.json``; ``TARGETCIT`` marks the cited slot.

    The record's cited paper (``refid``) is gold: it is in the qrels, not in the query, so that it
    cannot leak into what PyTerrier's ``get_topics()`` hands a retriever.
    """
    query_id: str
    text: str
    citing_id: str

    def default_text(self) -> str:
        """The masked context."""
        return self.text

    @classmethod
    def from_record(cls, context_id: str, record: dict) -> 'CitationQuery':
        """From a ``contexts.json`` entry (``refid`` checked to be there, and left to the qrels)."""
        record['refid']  # noqa: B018  (a record without it is malformed)
        return cls(context_id, record['masked_text'], record['citing_id'])


class ArSyTaQuery(NamedTuple):
    """A citation context of ArSyTa's contexts file, with the heading of its section (its cited paper,
    ``ref_id``, is gold: in the qrels only)."""
    query_id: str
    text: str
    citing_id: str
    heading: str

    def default_text(self) -> str:
        """The masked context."""
        return self.text

    @classmethod
    def from_record(cls, context_id: str, record: dict) -> 'ArSyTaQuery':
        """From a contexts file entry (``ref_id`` checked to be there, and left to the qrels)."""
        record['ref_id']  # noqa: B018  (a record without it is malformed)
        return cls(context_id, record['masked_text'], record['citing_id'], record['heading'])


DocClass: TypeAlias = type[CitationDoc] | type[ArSyTaDoc]
QueryClass: TypeAlias = type[CitationQuery] | type[ArSyTaQuery]


@dataclass(frozen=True)
class Layout:
    """A release: its ``downloads.json`` entries, record classes and file names (several accepted
    names per file: the first one found is read)."""
    source: str
    doc_cls: DocClass
    query_cls: QueryClass
    split_files: Mapping[str, str]
    contexts_files: Tuple[str, ...] = ('contexts.json',)  # noqa: UP006
    papers_files: Tuple[str, ...] = ('papers.json',)  # noqa: UP006


GU = Layout('gu2022', CitationDoc, CitationQuery, {'train': 'train.json', 'val': 'val.json', 'test': 'test.json'})
#: SymTax's per.py reads contexts_new_head.json and papers_cat.json; the shorter names are also accepted.
ARSYTA = Layout('arsyta', ArSyTaDoc, ArSyTaQuery,
                {'train': 'train_data.json', 'val': 'val_data.json', 'test': 'test_data.json'},
                ('contexts_new_head.json', 'contexts.json'), ('papers_cat.json', 'papers.json'))
COLLECTIONS = {'acl-200': GU, 'fulltextpeerread': GU, 'refseer': GU, 'arxiv': GU, 'arsyta': ARSYTA}


def _build(cls: DocClass | QueryClass, path: Path, key: str, record: Any) -> NamedTuple:
    if not isinstance(record, dict):
        raise InputError(f'{path}: record {key!r} is not a JSON object')
    try:
        return cls.from_record(key, record)
    except KeyError as e:
        raise InputError(f'{path}: record {key!r} lacks field {e}') from e


def read_papers(path: Path, doc_cls: DocClass) -> dict[str, NamedTuple]:
    """``{paper_id: doc}`` of a ``papers.json``, parsed as a stream."""
    return {key: _build(doc_cls, path, key, record) for key, record in iter_json(path, '{')}


def stream_contexts(path: Path, context_ids: Collection[str] | None = None,
                    query_cls: QueryClass = ArSyTaQuery, all_present: bool = True) -> Iterator[NamedTuple]:
    """Stream the citation contexts of a contexts file as ``query_cls`` records, in file order,
    keeping those of ``context_ids`` (all when ``None``).

    One record is in memory at a time (plus a set of ``context_ids``): peak memory does not grow
    with the file's size. Raises ``InputError`` on malformed JSON or records, and, at the end, when
    some of ``context_ids`` are not in the file (unless ``all_present`` is false).
    """
    remaining = None if context_ids is None else set(context_ids)
    for key, record in iter_json(path, '{'):
        if remaining is not None:
            if key not in remaining:
                continue
            remaining.remove(key)
        yield _build(query_cls, path, key, record)
    if remaining and all_present:
        raise InputError(f'{path} lacks {len(remaining)} context ids of the split, '
                         f'e.g. {sorted(remaining)[:3]}')


def read_split(path: Path) -> Iterator[tuple[str, tuple[str, ...]]]:
    """Stream a split file's ``(context_id, positive_ids)`` pairs (duplicate positive ids removed)."""
    for index, item in iter_json(path, '['):
        match item:
            case {'context_id': str(context_id), 'positive_ids': list(positive_ids)} if all(
                    isinstance(doc_id, str) for doc_id in positive_ids):
                yield context_id, tuple(dict.fromkeys(positive_ids))
            case _:
                raise InputError(f'{path}: record {index} is not {{"context_id": str, "positive_ids": [str, ...]}}')


class _Collection:
    """The files of one collection, located when used."""

    def __init__(self, name: str):
        self.name = name
        self.layout = COLLECTIONS[name]

    def source(self, *file_names: str) -> Source:
        """The first of ``file_names`` in ``$IR_DATASETS_HOME/citation-rec/<name>/`` (the first if none is)."""
        folder = ir_datasets.util.home_path() / 'citation-rec' / self.name
        found = next((name for name in file_names if (folder / name).exists()), file_names[0])
        entry = f'{self.name}/{found}' if f'{self.name}/{found}' in _downloads('citation-rec') else self.layout.source
        return Source('citation-rec', entry, f'{self.name}/{found}')

    def path(self, *file_names: str) -> Path:
        """The path of :meth:`source`, or the manual-placement error (with the checksum check of ``locate``)."""
        return self.source(*file_names).locate()

    def papers(self) -> dict[str, NamedTuple]:
        """Papers by id, parsed once per file version."""
        return load_once(read_papers, self.path(*self.layout.papers_files), self.layout.doc_cls)

    def contexts(self) -> Path:
        """The contexts file."""
        return self.path(*self.layout.contexts_files)


class _Split:
    def __init__(self, collection: _Collection, split: str):
        self._collection = collection
        self._split = split

    def _split_path(self) -> Path:
        return self._collection.path(self._collection.layout.split_files[self._split])


class CitationQueries(_Split, BaseQueries):
    """The citation contexts of a split, streamed from ``contexts.json`` in its order."""

    def queries_iter(self) -> Iterator[NamedTuple]:
        """Queries (one pass over the split file, then one over the contexts file)."""
        return stream_contexts(self._collection.contexts(), self._context_ids(), self._collection.layout.query_cls)

    def _context_ids(self) -> set[str]:
        return {context_id for context_id, _ in read_split(self._split_path())}

    def queries_store(self) -> StreamedQueryStore:
        """Lookup by query_id (``ir_datasets lookup --qid``): one pass over the contexts file per lookup."""
        def lookup(query_ids: set[str]) -> Iterator[NamedTuple]:
            return stream_contexts(self._collection.contexts(), query_ids & self._context_ids(),
                                   self._collection.layout.query_cls, all_present=False)
        return StreamedQueryStore(lookup, self._collection.layout.query_cls)

    def queries_cls(self) -> type:
        """``CitationQuery`` or ``ArSyTaQuery``."""
        return self._collection.layout.query_cls

    def queries_lang(self) -> str:
        """English."""
        return 'en'

    def queries_namespace(self) -> str:
        """Context ids of this collection."""
        return f'citation-rec/{self._collection.name}'


class CitationQrels(_Split, BaseQrels):
    """The split's ``positive_ids``, relevance 1."""

    def qrels_iter(self) -> Iterator[GenericQrel]:
        """Qrels in split-file order."""
        for context_id, positive_ids in read_split(self._split_path()):
            for doc_id in positive_ids:
                yield GenericQrel(context_id, doc_id, 1)

    def qrels_defs(self) -> dict[int, str]:
        """Relevance levels."""
        return {1: 'cited at this context (a positive id)'}


def datasets() -> dict[str, Dataset]:
    """Every citation recommendation dataset by id (nothing is read until a dataset is used)."""
    result = {'citation-rec': Dataset(Documentation('citation-rec', '_'))}
    for name, layout in COLLECTIONS.items():
        collection = _Collection(name)
        docs = DictDocs(collection.papers, layout.doc_cls, 'en', f'citation-rec/{name}')
        result[f'citation-rec/{name}'] = Dataset(docs, Documentation('citation-rec', name))
        for split, file_name in layout.split_files.items():
            result[f'citation-rec/{name}/{split}'] = Dataset(
                docs, CitationQueries(collection, split), CitationQrels(collection, split),
                Documentation('citation-rec', name, split=f'{split} split: the contexts listed in {file_name}'))
    return result


def count(dataset_id: str, entity: str, dataset: Dataset) -> int:
    """``metadata()``'s count of ``entity`` records of a citation dataset, from the files in place,
    counted once per version of the files: the papers file (docs), the split file (qrels), and the
    split and contexts files (queries)."""
    name, *split = dataset_id.split('/')[1:]
    collection = _Collection(name)
    layout = collection.layout
    if entity == 'docs':
        sources = [collection.source(*layout.papers_files)]
    else:
        sources = [collection.source(layout.split_files[split[0]])]
        if entity == 'queries':
            sources.append(collection.source(*layout.contexts_files))
    paths = in_place(sources, f'counting the {entity} of {dataset_id}')
    return cached_count('citation-rec', dataset_id, entity, paths, lambda: count_records(dataset, entity))


CitingSource: TypeAlias = Mapping[str, str] | str | Dataset


def citing_ids(dataset_or_mapping: CitingSource) -> Mapping[str, str]:
    """``{query_id: citing paper id}``: the mapping itself, or read from a dataset (or dataset id)'s queries."""
    if isinstance(dataset_or_mapping, Mapping):
        return dataset_or_mapping
    return {query.query_id: query.citing_id for query in _dataset(dataset_or_mapping).queries_iter()}


def positive_ids(dataset_or_mapping: CitingSource) -> set[tuple[str, str]]:
    """The (query_id, positive doc_id) pairs of a dataset's qrels (none for a plain mapping)."""
    if isinstance(dataset_or_mapping, Mapping):
        return set()
    return {(qrel.query_id, qrel.doc_id) for qrel in _dataset(dataset_or_mapping).qrels_iter() if qrel.relevance > 0}


def first_positives(dataset_or_id: str | Dataset) -> 'pd.DataFrame':
    """The qrels of a citation dataset keeping only each query's first-listed positive
    (``positive_ids[0]``), as ``query_id``, ``doc_id``, ``relevance`` columns.

    ``RR`` against them is the MRR of an evaluation that ranks only ``relevant_docs[0]``: with
    several positives it is lower than ``RR`` against all of them (the ``citation`` suite, where the
    best-ranked positive counts); with one positive per query (ACL-200) the two are equal.
    """
    import pandas as pd

    first: dict[str, str] = {}
    for qrel in _dataset(dataset_or_id).qrels_iter():
        if qrel.relevance > 0:
            first.setdefault(qrel.query_id, qrel.doc_id)
    return pd.DataFrame({'query_id': list(first), 'doc_id': list(first.values()), 'relevance': 1})


def _dataset(dataset_or_id: str | Dataset) -> Dataset:
    return ir_datasets.load(dataset_or_id) if isinstance(dataset_or_id, str) else dataset_or_id


def remove_citing_papers(run_df: 'pd.DataFrame', dataset_or_mapping: CitingSource,
                         positives: Collection[tuple[str, str]] | None = None) -> 'pd.DataFrame':
    """The run without each query's citing paper, unless it is one of the query's positives: Gu et
    al.'s prefetch rule (``src/prefetch/test.py``: ``if citing_id in candidates and citing_id not in
    set(example["positive_ids"]): candidates.remove(citing_id)``).

    ``run_df`` has ir_measures columns (``query_id``, ``doc_id``) or PyTerrier's (``qid``, ``docno``);
    ``dataset_or_mapping`` is a citation-rec dataset or its id (citing ids from its queries,
    positives from its qrels), or ``{query_id: citing_id}`` with ``positives`` as (query_id, doc_id)
    pairs (none: the citing paper is always removed). Queries without a known citing paper are kept
    whole; other columns and the row order are unchanged (ranks are not recomputed).
    """
    for query_col, doc_col in (('query_id', 'doc_id'), ('qid', 'docno')):
        if query_col in run_df.columns and doc_col in run_df.columns:
            break
    else:
        raise InputError(f'run has neither query_id/doc_id nor qid/docno columns: {list(run_df.columns)}')
    if positives is None:
        positives = positive_ids(dataset_or_mapping)
    query_ids, doc_ids = run_df[query_col].astype(str), run_df[doc_col].astype(str)
    citing = (doc_ids == query_ids.map(citing_ids(dataset_or_mapping))).to_numpy(dtype=bool, copy=True)
    for row in citing.nonzero()[0]:  # at most one row per query
        citing[row] = (query_ids.iat[row], doc_ids.iat[row]) not in positives
    return run_df[~citing]


def citing_paper_filter(dataset_or_mapping: CitingSource,
                        positives: Collection[tuple[str, str]] | None = None) -> Any:
    """A PyTerrier transformer applying ``remove_citing_papers`` and re-ranking what is left.

    Needs python-terrier (imported here, not by this package; without it, a ModuleNotFoundError naming the
    install command); citing ids and positives are read once, now.
    """
    try:
        import pyterrier as pt
    except ModuleNotFoundError as missing:
        raise ModuleNotFoundError(f'citing_paper_filter needs python-terrier (no module {missing.name!r}): '
                                  f'{extra_install("pyterrier")}', name=missing.name) from None

    citing = citing_ids(dataset_or_mapping)
    keep = positive_ids(dataset_or_mapping) if positives is None else set(positives)
    return pt.apply.generic(lambda run: pt.model.add_ranks(remove_citing_papers(run, citing, keep)))
