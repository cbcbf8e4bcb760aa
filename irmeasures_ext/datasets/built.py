"""A collection derived from large source files: built once, streaming, into a directory of its own,
written atomically and reused while its sources stay the same.

Layout of ``<directory>``: ``docs.jsonl`` (one JSON object per doc, doc ids 0, 1, 2, ... in order),
``docs.offsets.npy`` (each doc's byte offset, for lookups by id), ``queries-<split>.jsonl``,
``qrels-<split>.tsv`` (``query_id \\t doc_id``, relevance 1) and ``manifest.json`` (the sources'
sizes and mtimes, the build's parameters and counts, and the files it wrote). A build writes
everything into a temporary sibling directory and renames it into place, so a reader sees a
complete build or none.

Nothing else is touched: a rebuild removes only the files the old manifest lists (files of the
user's in the directory stay), a directory without our manifest is refused, and what a killed
builder left beside the directory (``.<name>.<random>``, with its lock file) is swept by the next.
"""
from __future__ import annotations

import errno
import glob
import io
import json
import os
import shutil
import tempfile
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import IO, Any, AnyStr, Generic, NamedTuple

import ir_datasets
import numpy as np
from ir_datasets.datasets.base import Dataset
from ir_datasets.formats import BaseDocs, BaseQrels, BaseQueries, GenericQrel
from ir_datasets.indices import Docstore

from irmeasures_ext.datasets import titles
from irmeasures_ext.datasets.common import (
    DictDocstore,
    MissingFilesError,
    Source,
    in_place,
    locate_all,
    source_signature,
)

try:
    import fcntl
except ImportError:  # Windows: no advisory locks, so no builder's leftovers can be proven abandoned
    fcntl = None  # type: ignore[assignment]

MANIFEST = 'manifest.json'
_LOCK_SUFFIX = '.lock'


class WriteError(OSError):
    """A build could not write one of its files (a full disk, a quota): the message names the file."""

    def __init__(self, path: Path, cause: OSError) -> None:
        reason = 'the disk is full' if cause.errno in (errno.ENOSPC, errno.EDQUOT) else 'the write failed'
        super().__init__(f'cannot write {path}: {reason} ({cause.strerror or cause}); the partial build was removed '
                         'and nothing else changed')
        self.errno = cause.errno


class BuildFile(Generic[AnyStr]):
    """A file of a build, whose write errors name it (Python's own name no file, and numpy's say
    only "N requested and M written")."""

    def __init__(self, path: Path, mode: str) -> None:
        self.path = path
        self._handle: IO[AnyStr] = path.open(mode, encoding=None if 'b' in mode else 'utf-8')

    def write(self, data: AnyStr) -> None:
        """Writes ``data``."""
        with self._naming():
            self._handle.write(data)

    def tell(self) -> int:
        """The position (a text file flushes first)."""
        with self._naming():
            return self._handle.tell()

    def seek(self, offset: int) -> None:
        """Moves to ``offset``."""
        with self._naming():
            self._handle.seek(offset)

    def read(self, size: int) -> AnyStr:
        """Reads ``size`` bytes (or characters)."""
        return self._handle.read(size)

    def close(self) -> None:
        """Flushes and closes."""
        with self._naming():
            self._handle.close()

    def __enter__(self) -> BuildFile[AnyStr]:
        return self

    def __exit__(self, *exception: Any) -> None:
        self.close()

    def _naming(self) -> _Naming:
        return _Naming(self.path)


class _Naming:
    """Turns an ``OSError`` raised inside it into a :class:`WriteError` naming ``path``."""

    def __init__(self, path: Path) -> None:
        self._path = path

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type | None, error: BaseException | None, traceback: Any) -> None:
        if isinstance(error, OSError) and not isinstance(error, WriteError):
            raise WriteError(self._path, error) from None


def file_names(splits: Iterable[str]) -> list[str]:
    """The files a build of ``splits`` writes (its manifest included)."""
    splits = list(splits)
    return ['docs.jsonl', 'docs.offsets.npy', *(f'queries-{split}.jsonl' for split in splits),
            *(f'qrels-{split}.tsv' for split in splits), MANIFEST]


class Writer:
    """What a build writes: docs in id order, and each split's queries and qrels; a context manager
    that closes the files (and, on success, writes the docs' offsets)."""

    def __init__(self, directory: Path, splits: Iterable[str]) -> None:
        self.directory = directory  # the (temporary) build directory, also for a build's scratch files
        self._docs: BuildFile[str] = BuildFile(directory / 'docs.jsonl', 'w')
        self._offsets: list[int] = []
        self._queries: dict[str, BuildFile[str]] = {}
        self._qrels: dict[str, BuildFile[str]] = {}
        self.counts: dict[str, int] = {'docs': 0}
        for split in splits:
            self._queries[split] = BuildFile(directory / f'queries-{split}.jsonl', 'w')
            self._qrels[split] = BuildFile(directory / f'qrels-{split}.tsv', 'w')
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

    def scratch(self, name: str) -> BuildFile[bytes]:
        """A binary scratch file of the build (read and written; the build removes it)."""
        return BuildFile(self.directory / name, 'w+b')

    def __enter__(self) -> Writer:
        return self

    def __exit__(self, kind: type | None, error: BaseException | None, traceback: Any) -> None:
        handles = [self._docs, *self._queries.values(), *self._qrels.values()]
        if error is not None:  # the build failed: close quietly, its error is the one to see
            for handle in handles:
                try:
                    handle.close()
                except WriteError:
                    pass
            return
        for handle in handles:
            handle.close()
        offsets = io.BytesIO()
        np.save(offsets, np.array(self._offsets, dtype=np.int64))
        _write_file(self.directory / 'docs.offsets.npy', offsets.getvalue())


def _write_file(path: Path, data: bytes) -> None:
    with BuildFile[bytes](path, 'wb') as file:
        file.write(data)


def current_manifest(directory: Path, sources: list[Path], parameters: dict[str, Any]) -> dict[str, Any] | None:
    """The manifest of the build in ``directory`` if it was made from ``sources`` as they are now
    (same sizes and mtimes) with ``parameters``, else ``None``; nothing is built."""
    manifest = _read_manifest(directory)
    expected = {'sources': source_signature(sources), 'parameters': parameters}
    return manifest if manifest is not None and _made_as(manifest, expected) else None


def ensure_built(directory: Path, sources: list[Path], parameters: dict[str, Any], splits: list[str],
                 build: Callable[[Writer], dict[str, Any]]) -> dict[str, Any]:
    """The manifest of the build in ``directory``, building it first when it is missing or was made
    from other sources or parameters. ``build(writer)`` streams the sources into the writer and
    returns notes for the manifest (skipped records, ...).

    A ``directory`` without our manifest is refused (``FileExistsError``), never touched. When
    another builder finishes the same build first, its build is used.
    """
    expected = {'sources': source_signature(sources), 'parameters': parameters}
    manifest = _read_manifest(directory)
    if manifest is not None and _made_as(manifest, expected):
        return manifest
    if manifest is None and (directory.exists() or directory.is_symlink()):
        raise _not_ours(directory)
    directory.parent.mkdir(parents=True, exist_ok=True)
    _sweep(directory)
    with _Workspace(directory) as workspace:
        with Writer(workspace.build, splits) as writer:
            notes = build(writer)
        manifest = {**expected, 'counts': writer.counts, 'notes': notes, 'files': file_names(splits)}
        _write_file(workspace.build / MANIFEST,
                    (json.dumps(manifest, indent=1, ensure_ascii=False) + '\n').encode('utf-8'))
        try:
            return _install_unless_built(workspace, directory, expected, manifest)
        except OSError as error:
            if error.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                raise
        return _install_unless_built(workspace, directory, expected, manifest)  # a build came into place meanwhile


def _install_unless_built(workspace: _Workspace, directory: Path, expected: dict[str, Any],
                          manifest: dict[str, Any]) -> dict[str, Any]:
    """The manifest in ``directory`` once our build is installed there, or the one already there
    when another builder finished the same build first (its build is the same: ours is dropped)."""
    in_place = _read_manifest(directory)
    if in_place is not None and _made_as(in_place, expected):
        return in_place
    _install(workspace, directory)
    return manifest


def _made_as(manifest: dict[str, Any], expected: dict[str, Any]) -> bool:
    return {key: manifest.get(key) for key in expected} == expected


def _read_manifest(directory: Path) -> dict[str, Any] | None:
    try:
        manifest = json.loads((directory / MANIFEST).read_text(encoding='utf-8'))
    except (OSError, ValueError):
        return None
    return manifest if isinstance(manifest, dict) and isinstance(manifest.get('counts'), dict) else None


def _listed_files(manifest: dict[str, Any]) -> set[str]:
    """The files a manifest says its build wrote (manifests before the list: the layout of its splits)."""
    if 'files' in manifest:
        return set(manifest['files'])
    return set(file_names(key.removeprefix('queries-') for key in manifest['counts'] if key.startswith('queries-')))


def _not_ours(directory: Path) -> FileExistsError:
    return FileExistsError(f'{directory} exists but was not made by irmeasures_ext (it has no {MANIFEST} of ours), so '
                           'it is left as it is; move it away or delete it, and the collection is built there')


class _Workspace:
    """A builder's private place beside ``target``: the build folder ``.<name>.<random>``, the
    folder ``.<name>.<random>.old`` an older build is moved aside to, and the lock file
    ``.<name>.<random>.lock``, held while the builder runs, so that a later builder can tell one
    that was killed from one at work. On exit, whatever is left of them is removed (of an older
    build moved aside: only its files)."""

    def __init__(self, target: Path) -> None:
        descriptor, lock = tempfile.mkstemp(prefix=f'.{target.name}.', suffix=_LOCK_SUFFIX, dir=target.parent)
        self._descriptor = descriptor
        _try_lock(descriptor)  # a new file: nobody else holds it
        self.lock = Path(lock)
        stem = lock[:-len(_LOCK_SUFFIX)]
        self.build, self.aside = Path(stem), Path(stem + '.old')
        self.build.mkdir()
        self.build.chmod(0o755)  # like mkdtemp's 0700, a umask could hide a shared $IR_DATASETS_HOME's build

    def __enter__(self) -> _Workspace:
        return self

    def __exit__(self, *exception: Any) -> None:
        shutil.rmtree(self.build, ignore_errors=True)
        _remove_build(self.aside)
        self.lock.unlink(missing_ok=True)
        os.close(self._descriptor)


def _try_lock(descriptor: int) -> bool:
    """Takes the lock of an open lock file if nobody holds it (without fcntl: never)."""
    if fcntl is None:
        return False
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def _sweep(target: Path) -> None:
    """Removes what builders of ``target`` that were killed (SIGKILL, SIGTERM) left beside it: the
    folders of each lock file that no running builder holds."""
    for lock in target.parent.glob(f'.{glob.escape(target.name)}.*{_LOCK_SUFFIX}'):
        try:
            descriptor = os.open(lock, os.O_RDWR)
        except FileNotFoundError:  # swept meanwhile by another builder
            continue
        try:
            if _try_lock(descriptor):
                stem = str(lock)[:-len(_LOCK_SUFFIX)]
                shutil.rmtree(stem, ignore_errors=True)
                _remove_build(Path(stem + '.old'))
                lock.unlink(missing_ok=True)
        finally:
            os.close(descriptor)


def _remove_build(directory: Path) -> None:
    """Removes the files a build's manifest lists (the manifest last), then the folder if that left it empty."""
    manifest = _read_manifest(directory)
    if manifest is None:
        return
    for name in sorted(_listed_files(manifest) - {MANIFEST}):
        (directory / name).unlink(missing_ok=True)
    (directory / MANIFEST).unlink(missing_ok=True)
    try:
        directory.rmdir()
    except OSError:  # something else is in it: not ours to remove
        pass


def _install(workspace: _Workspace, target: Path) -> None:
    """Moves the finished build into ``target``. An older build of ours there is replaced: when it
    holds only its own files, by swapping the folders (a reader sees one build or the other), else
    file by file, the manifest last, leaving the other files as they are."""
    if not target.exists():
        os.replace(workspace.build, target)  # ENOTEMPTY / EEXIST if another builder got there first
        return
    old = _read_manifest(target)
    if old is None:
        raise _not_ours(target)
    ours, present = _listed_files(old), {path.name for path in target.iterdir()}
    if present <= ours:
        os.replace(target, workspace.aside)
        os.replace(workspace.build, target)
        return
    new = {path.name for path in workspace.build.iterdir()}
    clashes = sorted((present - ours) & new)
    if clashes:
        raise FileExistsError(f'{target} holds {", ".join(clashes)}, not made by irmeasures_ext, where the new build '
                              'writes: nothing was changed; move them away and the collection is built there')
    (target / MANIFEST).unlink()
    for name in sorted(ours - new):
        (target / name).unlink(missing_ok=True)
    for name in sorted(new - {MANIFEST}):
        os.replace(workspace.build / name, target / name)
    os.replace(workspace.build / MANIFEST, target / MANIFEST)


class BuiltCollection(ABC):
    """A collection built from source files under ``$IR_DATASETS_HOME/<collection>/<directory>/``,
    into ``built-<normaliser>/`` for the title normaliser in use (:func:`titles.chosen`), on first use."""

    def __init__(self, collection: str, directory: str, splits: list[str], build_version: int, doc_cls: type,
                 query_cls: type, lang: str) -> None:
        self.collection, self.directory, self.splits, self.build_version = collection, directory, splits, build_version
        self.doc_cls, self.query_cls, self.lang = doc_cls, query_cls, lang
        self.namespace = f'{collection}/{directory}'

    @abstractmethod
    def sources(self) -> list[Source]:
        """The files the build reads."""

    @abstractmethod
    def build(self, writer: Writer, paths: list[Path], normaliser: str) -> dict[str, Any]:
        """Streams the sources (``paths``, in :meth:`sources`' order) into ``writer``, titles
        normalised by the normaliser called ``normaliser``; returns notes for the manifest."""

    def query_sources(self, split: str) -> list[Source] | None:
        """The files a split's queries can be read from without a build (``None``: from the build only)."""
        return None

    def read_queries(self, split: str, paths: list[Path]) -> Iterator[NamedTuple]:
        """A split's queries read from :meth:`query_sources` (``paths``), as the build writes them."""
        raise NotImplementedError

    def _target(self, normaliser: str) -> Path:
        """The build's folder for the normaliser called ``normaliser``."""
        return ir_datasets.util.home_path() / self.collection / self.directory / f'built-{normaliser}'

    def _parameters(self, normaliser: str) -> dict[str, Any]:
        """What, besides the sources, a build depends on."""
        return {'build_version': self.build_version, 'titles': normaliser}

    def ensure(self) -> Path:
        """The build's folder, built first if needed (missing sources downloaded first; those that
        cannot be are named together)."""
        return self._ensure_manifest()[0]

    def _ensure_manifest(self) -> tuple[Path, dict[str, Any]]:
        """The build's folder and manifest, built first if needed (see :meth:`ensure`)."""
        paths = locate_all(self.sources())
        normaliser = titles.chosen()
        target = self._target(normaliser)
        return target, ensure_built(target, paths, self._parameters(normaliser), self.splits,
                                    lambda writer: self.build(writer, paths, normaliser))

    def current(self) -> Path | None:
        """The build's folder if it is in place and made from the sources as they are, else ``None``
        (nothing is downloaded or built)."""
        paths = [source.path() for source in self.sources()]
        if not all(path.exists() for path in paths):
            return None
        normaliser = titles.chosen()
        target = self._target(normaliser)
        return target if current_manifest(target, paths, self._parameters(normaliser)) is not None else None

    def counts(self) -> dict[str, int]:
        """The build's counts (``docs``, ``queries-<split>``, ``qrels-<split>``), from its manifest."""
        return self._ensure_manifest()[1]['counts']

    def count_in_place(self, dataset_id: str, entity: str) -> int:
        """The number of ``entity`` records of dataset ``dataset_id`` (the collection or a split), from
        the build in place, nothing downloaded or built: :class:`MissingFilesError` names the
        sources to place, or says how to build."""
        counts = self._counts_in_place()
        if entity == 'docs':
            return counts['docs']
        splits = self.splits if dataset_id == self.namespace else [dataset_id.rsplit('/', 1)[1]]
        return sum(counts[f'{entity}-{split}'] for split in splits)

    def _counts_in_place(self) -> dict[str, int]:
        paths = in_place(self.sources(), f'counting {self.namespace} (in its build: the counts depend on the title '
                                          'normaliser)')
        normaliser = titles.chosen()
        target = self._target(normaliser)
        manifest = current_manifest(target, paths, self._parameters(normaliser))
        if manifest is None:
            raise MissingFilesError(
                f'{self.namespace}: this count depends on the title normaliser ({normaliser}) and is read from the '
                f'build in {target}, which is not there or not of the sources in place; metadata() does not build it: '
                f'ir_datasets.load({self.namespace!r}).docs_count() builds it once')
        return manifest['counts']

    def queries(self, split: str) -> Iterator[NamedTuple]:
        """A split's queries: from the build when it is current, else from the split's own sources
        when they can be read without a build, else from the build, made first."""
        directory = self.current()
        sources = self.query_sources(split)
        if directory is None and sources is not None:
            yield from self.read_queries(split, locate_all(sources))
            return
        with ((directory or self.ensure()) / f'queries-{split}.jsonl').open(encoding='utf-8') as queries:
            for line in queries:
                yield self.query_cls(**json.loads(line))


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
        for split in self._splits:
            yield from self._collection.queries(split)

    def queries_store(self) -> DictDocstore:
        """Lookup by query_id (``ir_datasets lookup --qid``)."""
        queries: Iterator[Any] = self.queries_iter()  # (namedtuples with a query_id)
        return DictDocstore({q.query_id: q for q in queries}, self._collection.query_cls, 'query_id')

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


def built_datasets(collection: BuiltCollection, definition: str,
                   documentation: Callable[..., Any]) -> dict[str, Dataset]:
    """The datasets of a built collection: ``<namespace>`` with every split's queries and qrels, and
    ``<namespace>/<split>``; ``documentation(**extra)`` gives each its documentation component."""
    docs = BuiltDocs(collection)
    splits = collection.splits
    result = {collection.namespace: Dataset(docs, BuiltQueries(collection, splits),
                                            BuiltQrels(collection, splits, definition), documentation())}
    for split in splits:
        result[f'{collection.namespace}/{split}'] = Dataset(
            docs, BuiltQueries(collection, [split]), BuiltQrels(collection, [split], definition),
            documentation(split=f'the {split} split'))
    return result
