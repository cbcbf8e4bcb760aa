"""``dataset.metadata()`` for this package's datasets: docs, queries and qrels counts.

Counts known without the files are in ``metadata.json`` (each with its source). The others are
counted from the files the first time ``metadata()`` (or ``*_count()``) asks for them, and kept in
``$IR_DATASETS_HOME/<collection>/irmeasures_ext-counts.json`` next to the data, so each is counted
once; the counts are of the files in place, whatever their version.
"""
import functools
import json
import os
import pkgutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ir_datasets

CACHE_NAME = 'irmeasures_ext-counts.json'

#: Counts a dataset's entities of one type (``'docs'``, ``'queries'``, ``'qrels'``), reading its files.
Counter = Callable[[str, str], int]


@functools.cache
def known_counts() -> dict[str, dict[str, dict[str, Any]]]:
    """The counts of metadata.json, by dataset id and entity type (``{'count': n, 'source': ...}``)."""
    return json.loads(pkgutil.get_data(__package__, 'metadata.json'))['datasets']


class CountsProvider:
    """ir_datasets' metadata provider interface (``get_metadata``) for one collection's datasets."""

    def __init__(self, collection: str, count: Counter) -> None:
        self._collection, self._count = collection, count

    def get_metadata(self, dataset_id: str, entity_type: Any) -> dict[str, Any]:
        entity = ir_datasets.EntityType(entity_type).value
        known = known_counts().get(dataset_id, {}).get(entity)
        if known is not None:
            return {'count': known['count']}
        cache = self._cache_path()
        counted = _read(cache).get(dataset_id, {})
        if entity not in counted:
            counted[entity] = self._count(dataset_id, entity)
            _update(cache, dataset_id, entity, counted[entity])
        return {'count': counted[entity]}

    def _cache_path(self) -> Path:
        return ir_datasets.util.home_path() / self._collection / CACHE_NAME


def _read(path: Path) -> dict[str, dict[str, int]]:
    try:
        return json.loads(path.read_text(encoding='utf-8'))
    except (OSError, ValueError):
        return {}


def _update(path: Path, dataset_id: str, entity: str, count: int) -> None:
    """Adds one count to the cache file, written atomically (a temporary file renamed into place)."""
    counts = _read(path)
    counts.setdefault(dataset_id, {})[entity] = count
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile('w', dir=path.parent, prefix=CACHE_NAME, delete=False, encoding='utf-8') as out:
        json.dump(counts, out, indent=1, sort_keys=True)
    os.replace(out.name, path)
