"""Helpers shared by the dataset modules: locating files, memoised loading, streamed JSON,
in-memory docs and the ir_datasets documentation hook."""
from __future__ import annotations

import functools
import hashlib
import json
import pkgutil
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import ijson
import ir_datasets
from ir_datasets.datasets.base import ExpectedFile
from ir_datasets.formats import BaseDocs
from ir_datasets.indices import Docstore

from irmeasures_ext.errors import InputError, warn_at_caller

T = TypeVar('T')


@functools.cache
def package_data(name: str) -> bytes:
    """The bytes of a data file of this package (downloads.json, metadata.json, docs/*.yaml)."""
    data = pkgutil.get_data(__package__, name)
    if data is None:  # (only for loaders that cannot read files)
        raise FileNotFoundError(f'{__package__}/{name} is not installed')
    return data


def downloads(collection: str) -> dict[str, dict]:
    """The ``downloads.json`` entries of a collection, by key."""
    return json.loads(package_data('downloads.json'))[collection]


class DownloadError(OSError):
    """A file could not be downloaded, or what came did not match its pinned checksum."""


class MissingFilesError(FileNotFoundError):
    """Files a request needs are not in place, and the request does not download or build them
    (``metadata()``): the message names each, with where it comes from."""


@dataclass(frozen=True)
class Source:
    """A file a dataset reads, ``$IR_DATASETS_HOME/<collection>/<relative_path>``, and its entry in
    ``downloads.json`` (``key``)."""

    collection: str
    key: str
    relative_path: str

    def path(self) -> Path:
        """Where the file is read from."""
        return ir_datasets.util.home_path() / self.collection / self.relative_path

    def locate(self) -> Path:
        """:func:`locate` of the file: its path, downloaded first if missing."""
        return locate(self.collection, self.key, self.relative_path)

    def how_to_get(self) -> str:
        """Where the file comes from and where it goes, for a message naming it."""
        entry = downloads(self.collection)[self.key]
        if 'url' in entry:
            return f'download {entry["url"]} and place it at {self.path()}'
        return entry['instructions'].format(path=self.path())


def source_signature(paths: Iterable[Path]) -> dict[str, list[int]]:
    """Each file's size and mtime: what was made from the files is reused while these stay the same."""
    return {path.name: [path.stat().st_size, path.stat().st_mtime_ns] for path in paths}


def locate_all(sources: Iterable[Source]) -> list[Path]:
    """Each source's path, as :func:`locate` gives it (missing files downloaded, in turn). The files
    that could not be downloaded are named together, each with its URL and target path, in one
    :class:`DownloadError` (those that came are kept)."""
    paths, failures = [], []
    for source in sources:
        try:
            paths.append(source.locate())
        except DownloadError as error:
            failures.append(str(error))
    if len(failures) == 1:
        raise DownloadError(failures[0])
    if failures:
        raise DownloadError(f'{len(failures)} files could not be downloaded:\n' + '\n'.join(f'- {f}' for f in failures))
    return paths


def in_place(sources: Iterable[Source], needed_by: str) -> list[Path]:
    """Each source's path, nothing downloaded: :class:`MissingFilesError` names every missing one,
    with where it comes from (``needed_by``: what needs them, to start the message)."""
    sources = list(sources)
    missing = [source for source in sources if not source.path().exists()]
    if missing:
        raise MissingFilesError(f'{needed_by} needs {len(missing)} file(s) that are not in place, and does not '
                                'download them: ' + '; '.join(source.how_to_get() for source in missing))
    return [source.path() for source in sources]


def locate(collection: str, key: str, relative_path: str) -> Path:
    """``$IR_DATASETS_HOME/<collection>/<relative_path>``, downloaded first if the entry of
    ``downloads.json`` has a ``url`` and the file is missing.

    A file already in place is used as it is (placed by hand, or downloaded and checked before);
    if it differs from the entry's pinned checksum, a warning says so. A download is written to a
    temporary file, checked against the entry's ``git_blob_sha1`` or ``md5`` and only then
    renamed into place; a failure raises :class:`DownloadError` naming the URL, the target path and
    how to place the file by hand. Without a ``url``, ir_datasets' manual-placement error
    (``OSError``) is raised with the entry's ``instructions``.
    """
    entry = downloads(collection)[key]
    path = ir_datasets.util.home_path() / collection / relative_path
    if path.exists():
        if 'git_blob_sha1' in entry or 'md5' in entry:
            stat = path.stat()
            _warn_if_modified(path, stat.st_size, stat.st_mtime_ns, json.dumps(entry, sort_keys=True))
        return path
    if 'url' not in entry:
        return ExpectedFile(path, instructions=entry['instructions']).path()
    _download(entry, path)
    return path


def _download(entry: dict, path: Path) -> None:
    url = entry['url']
    how = (f'download {url} yourself and place it at {path} (ir_datasets reads $IR_DATASETS_HOME, '
           f'default ~/.ir_datasets)')
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + '.part')
    try:
        with partial.open('wb') as out:
            for chunk in ir_datasets.util.download.RequestsDownload(url):
                out.write(chunk)
    except Exception as error:  # requests' and ir_datasets' errors: one clear line instead
        partial.unlink(missing_ok=True)
        raise DownloadError(f'could not download {path.name} from {url} ({type(error).__name__}); {how}') from None
    problem = _checksum_problem(partial, entry)
    if problem:
        partial.unlink()
        raise DownloadError(f'{path.name} downloaded from {url} {problem}; nothing was kept. If the source changed, '
                            f'{how}')
    partial.replace(path)


def _checksum_problem(path: Path, entry: dict) -> str | None:
    """What is wrong with the file's checksum against the entry (None if it matches or none is pinned)."""
    if 'git_blob_sha1' in entry:
        digest = hashlib.sha1(b'blob %d\0' % path.stat().st_size)
        expected, what = entry['git_blob_sha1'], 'git blob SHA-1'
    elif 'md5' in entry:
        digest, expected, what = hashlib.md5(), entry['md5'], 'md5'
    else:
        return None
    with path.open('rb') as handle:
        for block in iter(lambda: handle.read(1 << 20), b''):
            digest.update(block)
    return None if digest.hexdigest() == expected else f'has {what} {digest.hexdigest()}, not the pinned {expected}'


@functools.lru_cache(maxsize=64)
def _warn_if_modified(path: Path, size: int, mtime_ns: int, entry: str) -> None:
    """Warns (once per file version) when a file in place differs from its pinned checksum."""
    problem = _checksum_problem(path, json.loads(entry))
    if problem:
        warn_at_caller(f'{path} {problem}: using it as it is (placed by hand?)', UserWarning)


def load_once(loader: Callable[..., T], path: Path, *args: Any) -> T:
    """``loader(path, *args)``, memoised until the file changes (keyed on its size and mtime)."""
    stat = path.stat()
    return _memoised(loader, path, stat.st_size, stat.st_mtime_ns, args)


@functools.lru_cache(maxsize=8)
def _memoised(loader: Callable[..., T], path: Path, size: int, mtime_ns: int, args: tuple) -> T:
    return loader(path, *args)  # size and mtime_ns only take part in the cache key


def iter_json(path: Path, container: str) -> Iterator[tuple[Any, Any]]:
    """Stream a top-level JSON object (``container='{'``) as ``(key, value)`` pairs, or a top-level
    array (``'['``) as ``(index, item)`` pairs, holding one record in memory at a time.

    Raises ``InputError`` naming the file and the last good record when the JSON is malformed.
    """
    with path.open('rb') as f:
        head = f.read(4096).lstrip()[:1]
        if head != container.encode():
            raise InputError(f'{path}: expected a JSON {"object" if container == "{" else "array"} '
                             f'starting with {container!r}, found {head.decode(errors="replace")!r}')
        f.seek(0)
        if container == '{':
            records = ijson.kvitems(f, '', use_float=True)
        else:
            records = enumerate(ijson.items(f, 'item', use_float=True))
        last = None
        try:
            for last, value in records:
                yield last, value
        except ijson.JSONError as e:
            where = 'before the first record' if last is None else f'after record {last!r}'
            reason = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
            raise InputError(f'{path}: invalid JSON {where}, near byte {f.tell()}: {reason}') from None


class DictDocstore(Docstore):
    """Docstore over an in-memory ``{id: record}`` dict (docs, or queries with ``id_field='query_id'``)."""

    def __init__(self, docs: dict[str, NamedTuple], doc_cls: type, id_field: str = 'doc_id'):
        super().__init__(doc_cls, id_field)
        self._docs = docs

    def get_many_iter(self, doc_ids: Iterable[str]) -> Iterator[NamedTuple]:
        """The docs of ``doc_ids`` that exist (ir_datasets' ``get`` raises ``KeyError`` for the others)."""
        for doc_id in doc_ids:
            if doc_id in self._docs:
                yield self._docs[doc_id]


class DictDocs(BaseDocs):
    """ir_datasets docs held in memory as ``{doc_id: doc}``, obtained from ``load()`` on first use."""

    def __init__(self, load: Callable[[], dict[str, NamedTuple]], doc_cls: type, lang: str, namespace: str):
        self._load = load
        self._doc_cls = doc_cls
        self._lang = lang
        self._namespace = namespace

    def docs_iter(self) -> Iterator[NamedTuple]:
        """Docs in file order."""
        return iter(self._load().values())

    def docs_count(self) -> int:
        """Number of docs."""
        return len(self._load())

    def docs_store(self) -> DictDocstore:
        """Lookup by doc_id."""
        return DictDocstore(self._load(), self._doc_cls)

    def docs_cls(self) -> type:
        """The docs' namedtuple class."""
        return self._doc_cls

    def docs_lang(self) -> str:
        """ISO 639 language code."""
        return self._lang

    def docs_namespace(self) -> str:
        """Datasets sharing this namespace share doc_ids."""
        return self._namespace


@functools.cache
def _documentation_file(collection: str) -> dict[str, dict[str, str]]:
    yaml = ir_datasets.lazy_libs.yaml()
    return yaml.safe_load(package_data(f'docs/{collection}.yaml'))


class StreamedQueryStore(Docstore):
    """Lookup by query_id over queries read on demand, one pass per lookup (``ir_datasets lookup --qid``):
    for splits too large to hold, such as ArSyTa's."""

    def __init__(self, queries: Callable[[set[str]], Iterator[NamedTuple]], query_cls: type):
        super().__init__(query_cls, 'query_id')
        self._queries = queries

    def get_many_iter(self, query_ids: Iterable[str]) -> Iterator[NamedTuple]:
        """The queries of ``query_ids`` that exist."""
        return self._queries(set(query_ids))


class Documentation:
    """ir_datasets' documentation hook: entry ``key`` of ``docs/<collection>.yaml``, plus ``extra``."""

    def __init__(self, collection: str, key: str, **extra: str):
        self._collection = collection
        self._key = key
        self._extra = extra

    def documentation(self) -> dict[str, str]:
        """The dataset's documentation fields (pretty_name, desc, protocol, license, bibtex, ...)."""
        return {**_documentation_file(self._collection)[self._key], **self._extra}
