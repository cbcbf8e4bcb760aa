"""A collection derived from large source files: built once, streaming, into a directory of its own,
written atomically and reused while its sources stay the same.

Layout of ``<directory>``: ``docs.jsonl`` (one JSON object per doc, doc ids 0, 1, 2, ... in order),
``docs.offsets.npy`` (each doc's byte offset, for lookups by id), ``queries-<split>.jsonl``,
``qrels-<split>.tsv`` (``query_id \\t doc_id``, relevance 1) and ``manifest.json`` (the sources'
sizes and mtimes, the build's parameters and counts). A build writes everything into a temporary
sibling directory and renames it into place, so a reader sees a complete build or none.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, NamedTuple

import numpy as np
from ir_datasets.datasets.base import Dataset
from ir_datasets.formats import BaseDocs, BaseQrels, BaseQueries, GenericQrel
from ir_datasets.indices import Docstore

from irmeasures_ext.datasets import titles
from irmeasures_ext.datasets.common import DictDocstore

MANIFEST = 'manifest.json'


class Writer:
    """What a build writes: docs in id order, and each split's queries and qrels."""

    def __init__(self, directory: Path, splits: Iterable[str]) -> None:
        self.directory = directory  # the (temporary) build directory, also for a build's scratch files
        self._docs = (directory / 'docs.jsonl').open('w', encoding='utf-8')
        self._offsets: list[int] = []
        self._queries: dict[str, IO[str]] = {}
        self._qrels: dict[str, IO[str]] = {}
        self.counts: dict[str, int] = {'docs': 0}
        for split in splits:
            self._queries[split] = (directory / f'queries-{split}.jsonl').open('w', encoding='utf-8')
            self._qrels[split] = (directory / f'qrels-{split}.tsv').open('w', encoding='utf-8')
            self.counts.update({f'queries-{split}': 0, f'qrels-{split}': 0})

    def doc(self, record: dict[str, str]) -> str:
        """Writes the next doc (``record`` without its id) and returns its doc_id."""
        doc_id = str(self.counts['docs'])
        self._offsets.append(self._docs.tell())
        self._docs.write(json.dumps({'doc_id': doc_id, **record}, ensure_ascii=False) + '\n')
        self.counts['docs'] += 1
        return doc_id

    def query(self, split: str, record: dict[str, str]) -> None:
        """Writes a query (``record`` with its ``query_id``) of ``split``."""
        self._queries[split].write(json.dumps(record, ensure_ascii=False) + '\n')
        self.counts[f'queries-{split}'] += 1

    def qrel(self, split: str, query_id: str, doc_id: str) -> None:
        """Writes a qrel (relevance 1) of ``split``."""
        self._qrels[split].write(f'{query_id}\t{doc_id}\n')
        self.counts[f'qrels-{split}'] += 1

    def close(self) -> None:
        for handle in [self._docs, *self._queries.values(), *self._qrels.values()]:
            handle.close()
        np.save(self.directory / 'docs.offsets.npy', np.array(self._offsets, dtype=np.int64))


def source_signature(paths: Iterable[Path]) -> dict[str, list[int]]:
    """Each source file's size and mtime: a build is reused while these stay the same."""
    return {path.name: [path.stat().st_size, path.stat().st_mtime_ns] for path in paths}


def ensure_built(directory: Path, sources: list[Path], parameters: dict[str, Any], splits: list[str],
                 build: Callable[[Writer], dict[str, Any]]) -> dict[str, Any]:
    """The manifest of the build in ``directory``, building it first when it is missing or was made
    from other sources or parameters. ``build(writer)`` streams the sources into the writer and
    returns notes for the manifest (skipped records, ...)."""
    expected = {'sources': source_signature(sources), 'parameters': parameters}
    manifest = _read_manifest(directory)
    if manifest is not None and {k: manifest.get(k) for k in expected} == expected:
        return manifest
    directory.parent.mkdir(parents=True, exist_ok=True)
    temporary = Path(tempfile.mkdtemp(prefix=f'.{directory.name}.', dir=directory.parent))
    temporary.chmod(0o755)  # mkdtemp's 0700 would hide a shared $IR_DATASETS_HOME's build from its other users
    try:
        writer = Writer(temporary, splits)
        try:
            notes = build(writer)
        finally:
            writer.close()
        manifest = {**expected, 'counts': writer.counts, 'notes': notes}
        (temporary / MANIFEST).write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + '\n', encoding='utf-8')
        _replace_directory(temporary, directory)
    finally:
        shutil.rmtree(temporary, ignore_errors=True)
    return manifest


def ensure_titled_build(directory: Path, sources: list[Path], build_version: int, splits: list[str],
                        build: Callable[[Writer, str], dict[str, Any]]) -> Path:
    """``<directory>/built-<normaliser>`` for the title normaliser in use (:func:`titles.chosen`),
    built first if needed by ``build(writer, normaliser name)``; see :func:`ensure_built`."""
    normaliser = titles.chosen()
    target = directory / f'built-{normaliser}'
    ensure_built(target, sources, {'build_version': build_version, 'titles': normaliser}, splits,
                 lambda writer: build(writer, normaliser))
    return target


def _read_manifest(directory: Path) -> dict[str, Any] | None:
    try:
        return json.loads((directory / MANIFEST).read_text(encoding='utf-8'))
    except (OSError, ValueError):
        return None


def _replace_directory(new: Path, target: Path) -> None:
    """Moves ``new`` to ``target``; an older build there (ours: it has a manifest, or is a partial
    build of ours) is moved aside first and removed after."""
    if target.exists():
        old = Path(tempfile.mkdtemp(prefix=f'.{target.name}.old.', dir=target.parent))
        os.replace(target, old / target.name)
        os.replace(new, target)
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(new, target)


class BuiltDocstore(Docstore):
    """Lookup of a build's docs by id (a seek per doc)."""

    def __init__(self, directory: Path, doc_cls: type) -> None:
        super().__init__(doc_cls, 'doc_id')
        self._directory = directory

    def get_many_iter(self, doc_ids: Iterable[str]) -> Iterator[NamedTuple]:
        """The docs of ``doc_ids`` that exist."""
        offsets = np.load(self._directory / 'docs.offsets.npy')
        with (self._directory / 'docs.jsonl').open('rb') as docs:
            for doc_id in doc_ids:
                if doc_id.isdigit() and int(doc_id) < len(offsets) and str(int(doc_id)) == doc_id:
                    docs.seek(int(offsets[int(doc_id)]))
                    yield self._doc_cls(**json.loads(docs.readline()))


@dataclass(frozen=True)
class BuiltCollection:
    """A built collection, located and built on first use by ``ensure`` (which returns its directory)."""

    ensure: Callable[[], Path]
    doc_cls: type
    query_cls: type
    lang: str
    namespace: str

    def counts(self) -> dict[str, int]:
        """The build's counts (``docs``, ``queries-<split>``, ``qrels-<split>``), from its manifest."""
        return _read_manifest(self.ensure())['counts']


class BuiltDocs(BaseDocs):
    """The docs of a built collection."""

    def __init__(self, collection: BuiltCollection) -> None:
        self._collection = collection

    def docs_iter(self) -> Iterator[NamedTuple]:
        """Docs in id order."""
        with (self._collection.ensure() / 'docs.jsonl').open(encoding='utf-8') as docs:
            for line in docs:
                yield self._collection.doc_cls(**json.loads(line))

    def docs_count(self) -> int:
        """Number of docs."""
        return self._collection.counts()['docs']

    def docs_store(self) -> BuiltDocstore:
        """Lookup by doc_id."""
        return BuiltDocstore(self._collection.ensure(), self._collection.doc_cls)

    def docs_cls(self) -> type:
        """The docs' namedtuple class."""
        return self._collection.doc_cls

    def docs_lang(self) -> str:
        """ISO 639 language code."""
        return self._collection.lang

    def docs_namespace(self) -> str:
        """Datasets sharing this namespace share doc_ids."""
        return self._collection.namespace


class BuiltQueries(BaseQueries):
    """The queries of some splits of a built collection, split by split."""

    def __init__(self, collection: BuiltCollection, splits: list[str]) -> None:
        self._collection, self._splits = collection, splits

    def queries_iter(self) -> Iterator[NamedTuple]:
        """Queries in source order."""
        directory = self._collection.ensure()
        for split in self._splits:
            with (directory / f'queries-{split}.jsonl').open(encoding='utf-8') as queries:
                for line in queries:
                    yield self._collection.query_cls(**json.loads(line))

    def queries_store(self) -> DictDocstore:
        """Lookup by query_id (``ir_datasets lookup --qid``)."""
        return DictDocstore({q.query_id: q for q in self.queries_iter()}, self._collection.query_cls, 'query_id')

    def queries_cls(self) -> type:
        """The queries' namedtuple class."""
        return self._collection.query_cls

    def queries_lang(self) -> str:
        """ISO 639 language code."""
        return self._collection.lang

    def queries_namespace(self) -> str:
        """Query ids are the source's question ids."""
        return self._collection.namespace


class BuiltQrels(BaseQrels):
    """The qrels of some splits of a built collection (relevance 1)."""

    def __init__(self, collection: BuiltCollection, splits: list[str], definition: str) -> None:
        self._collection, self._splits, self._definition = collection, splits, definition

    def qrels_iter(self) -> Iterator[GenericQrel]:
        """Qrels in source order."""
        directory = self._collection.ensure()
        for split in self._splits:
            with (directory / f'qrels-{split}.tsv').open(encoding='utf-8') as qrels:
                for line in qrels:
                    query_id, doc_id = line.rstrip('\n').split('\t')
                    yield GenericQrel(query_id, doc_id, 1)

    def qrels_defs(self) -> dict[int, str]:
        """Relevance levels."""
        return {1: self._definition}


def built_datasets(collection: BuiltCollection, splits: list[str], definition: str,
                   documentation: Callable[..., Any]) -> dict[str, Dataset]:
    """The datasets of a built collection: ``<namespace>`` with every split's queries and qrels, and
    ``<namespace>/<split>``; ``documentation(**extra)`` gives each its documentation component."""
    docs = BuiltDocs(collection)
    result = {collection.namespace: Dataset(docs, BuiltQueries(collection, splits),
                                            BuiltQrels(collection, splits, definition), documentation())}
    for split in splits:
        result[f'{collection.namespace}/{split}'] = Dataset(
            docs, BuiltQueries(collection, [split]), BuiltQrels(collection, [split], definition),
            documentation(split=f'the {split} split'))
    return result
