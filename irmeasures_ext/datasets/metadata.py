"""``dataset.metadata()`` for this package's datasets: docs, queries and qrels counts.

``metadata()`` never downloads and never builds. Counts known without the files are in
``metadata.json`` (each with its source): the official counts of the released data, given as
``{'count': n, 'official': True}`` whatever files are in place (a file placed by hand may hold others;
reading it counts what is there). The others are counted from the files in place the
first time ``metadata()`` (or ``*_count()``) asks for them, and kept in
``$IR_DATASETS_HOME/<collection>/irmeasures_ext-counts.json`` next to the data with the sizes and
mtimes of the files they were counted from, so each is counted once per version of its files (a
folder that cannot be written to just keeps nothing); NCI's come from the manifest of the build in
place. A count whose files are not in place is left out of ``metadata()`` (ir_datasets' ``{}``); asked for
alone (``*_count()``) it is None, as ir_datasets gives an unknown count.
"""
import functools
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import ir_datasets
from ir_datasets.datasets.base import Dataset

from irmeasures_ext.datasets.common import MissingFilesError, package_data, source_signature

CACHE_NAME = 'irmeasures_ext-counts.json'

#: The number of a dataset's entities of one type (``'docs'``, ``'queries'``, ``'qrels'``), from the
#: files in place: ``count(dataset_id, entity)``.
Counter = Callable[[str, str], int]


@functools.cache
def known_counts() -> dict[str, dict[str, dict[str, Any]]]:
    """The counts of metadata.json, by dataset id and entity type (``{'count': n, 'source': ...}``)."""
    return json.loads(package_data('metadata.json'))['datasets']


class CountsProvider:
    """ir_datasets' metadata provider interface (``get_metadata``) for one collection's datasets."""

    def __init__(self, count: Counter) -> None:
        self._count = count

    def get_metadata(self, dataset_id: str, entity_type: Any) -> dict[str, Any]:
        """``{'count': n, 'official': True}``: the official count, known offline (not counted from the files in
        place, which a user may have placed by hand); ``{'count': n}``: counted from the files in place (nothing
        downloaded or built); ``{}`` (ir_datasets' "not known") when neither: ``metadata()`` gives what is known
        and never raises for what is not."""
        entity = ir_datasets.EntityType(entity_type).value
        known = known_counts().get(dataset_id, {}).get(entity)
        if known is not None:
            return {'count': known['count'], 'official': True}
        try:
            return {'count': self._count(dataset_id, entity)}
        except MissingFilesError:
            return {}


def count_records(dataset: Dataset, entity: str) -> int:
    """The number of ``entity`` records (``'docs'``, ``'queries'``, ``'qrels'``) of a dataset, read from its files."""
    if entity == 'docs':
        return dataset.docs_count()
    return sum(1 for _ in getattr(dataset, f'{entity}_iter')())


def cached_count(collection: str, dataset_id: str, entity: str, sources: list[Path], count: Callable[[], int]) -> int:
    """``count()`` of files ``sources``, kept in the collection's counts file with their sizes and
    mtimes, and read from there while they stay the same."""
    cache = ir_datasets.util.home_path() / collection / CACHE_NAME
    signature = source_signature(sources)
    counted = _read(cache).get(dataset_id, {}).get(entity)
    if isinstance(counted, dict) and counted.get('sources') == signature:
        return counted['count']
    value = count()
    _update(cache, dataset_id, entity, {'count': value, 'sources': signature})
    return value


def _read(path: Path) -> dict[str, dict[str, Any]]:
    try:
        counts = json.loads(path.read_text(encoding='utf-8'))
    except (OSError, ValueError):
        return {}
    return counts if isinstance(counts, dict) else {}


def _update(path: Path, dataset_id: str, entity: str, entry: dict[str, Any]) -> None:
    """Adds one count to the counts file, written atomically (a temporary file in the same folder,
    renamed into place). When the folder cannot be written to (read-only, full), the count is not
    kept and no temporary file is left."""
    counts = _read(path)
    if not isinstance(counts.get(dataset_id), dict):
        counts[dataset_id] = {}
    counts[dataset_id][entity] = entry
    temporary = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile('w', dir=path.parent, prefix=f'.{CACHE_NAME}.', delete=False,
                                         encoding='utf-8') as out:
            temporary = out.name
            json.dump(counts, out, indent=1, sort_keys=True)
        os.replace(temporary, path)
    except BaseException as error:  # whatever failed, no temporary file is left
        if temporary is not None:
            Path(temporary).unlink(missing_ok=True)
        if not isinstance(error, OSError):  # (a folder that cannot be written to is not an error)
            raise
