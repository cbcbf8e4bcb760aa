"""Helpers shared by the dataset modules: locating files, memoised loading, streamed JSON,
in-memory docs and the ir_datasets documentation hook."""
from __future__ import annotations

import functools
import json
import pkgutil
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

import ijson
import ir_datasets
from ir_datasets.datasets.base import ExpectedFile
from ir_datasets.formats import BaseDocs
from ir_datasets.indices import Docstore
from ir_datasets.util import _DownloadConfig

from irmeasures_ext.errors import InputError

T = TypeVar('T')


@functools.cache
def _package_data(name: str) -> bytes:
    return pkgutil.get_data(__package__, name)


def locate(collection: str, key: str, relative_path: str) -> Path:
    """Return ``$IR_DATASETS_HOME/<collection>/<relative_path>``, resolving the home directory now.

    When the file is missing, ``downloads.json`` entry ``[collection][key]`` says what happens:
    with a ``url`` the file is downloaded there by ir_datasets; otherwise ir_datasets'
    manual-placement error (``OSError``) is raised with the entry's ``instructions``.
    """
    entry = json.loads(_package_data('downloads.json'))[collection][key]
    base = ir_datasets.util.home_path() / collection
    if 'url' in entry:
        config = _DownloadConfig(contents={key: {**entry, 'cache_path': relative_path}}, base_path=str(base))
        return Path(config[key].path())
    return ExpectedFile(base / relative_path, instructions=entry['instructions']).path()


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
    """Docstore over an in-memory ``{doc_id: doc}`` dict."""

    def __init__(self, docs: dict[str, NamedTuple], doc_cls: type):
        super().__init__(doc_cls)
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
    return yaml.safe_load(_package_data(f'docs/{collection}.yaml'))


class Documentation:
    """ir_datasets' documentation hook: entry ``key`` of ``docs/<collection>.yaml``, plus ``extra``."""

    def __init__(self, collection: str, key: str, **extra: str):
        self._collection = collection
        self._key = key
        self._extra = extra

    def documentation(self) -> dict[str, str]:
        """The dataset's documentation fields (pretty_name, desc, protocol, license, bibtex, ...)."""
        return {**_documentation_file(self._collection)[self._key], **self._extra}
