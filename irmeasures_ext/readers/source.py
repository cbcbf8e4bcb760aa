"""The one boundary between inputs and the engine: a :class:`Source` is a run or qrels in any form (a file of
a format of :data:`~irmeasures_ext.readers.FORMATS`, a dataset, or data in memory) that reads itself into the
fixed columns of a :class:`~.schemas.Layout`, whole or in pieces, says how large it is, and names the line or
row of a problem the engine finds. :func:`open_file` is the one place a path is opened."""
from __future__ import annotations

import importlib
import os
from abc import ABC, abstractmethod
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pyarrow as pa

from irmeasures_ext.errors import InputError, RowError
from irmeasures_ext.readers import FORMATS
from irmeasures_ext.readers.schemas import Layout


class Source(ABC):
    """A run or qrels to read; ``name`` names it in messages (None: messages say ``run`` or ``qrels``)."""

    name: str | None

    @abstractmethod
    def read(self, layout: Layout) -> pa.Table:
        """The whole data as ``layout``'s columns, checked (a problem names its line or row)."""

    @abstractmethod
    def batches(self, layout: Layout, block_bytes: int) -> Iterator[pa.Table]:
        """The rows :meth:`read` gives, in stored order, in tables of about ``block_bytes`` bytes of TREC lines."""

    @abstractmethod
    def has_classes(self) -> bool:
        """Whether the data, as qrels, carries equivalence classes."""

    @abstractmethod
    def lists_ranks(self) -> bool:
        """Whether the data, as a run, lists each query's docs by rank (then checked not to list them by
        ascending score: rank and score swapped)."""

    def size_hint(self) -> int | None:
        """About how many bytes of TREC lines the data holds; None for data in memory (never read in pieces)."""
        return None

    def query_starts(self) -> np.ndarray | None:
        """Where the form guarantees it (a dict-of-dict): the first row of each query of :meth:`read`'s table,
        its rows grouped by query, each query once, no doc twice within one; else None."""
        return None

    def emptiness(self) -> str:
        """How the data says it holds no rows, in its form's terms (for the error about empty qrels)."""
        return 'no rows'

    def locate(self, error: RowError) -> InputError:
        """A problem the engine found in the rows read (a duplicate doc, conflicting labels...), naming the source
        and, where it has them, the lines."""
        return error if self.name is None else InputError(f'{self.name}: {error}')


def format_of(path: str | os.PathLike[str]) -> str:
    """The format of ``path`` by its suffix (:data:`~irmeasures_ext.readers.FORMATS`); a folder holding files of
    a format's suffixes (at any depth) is in that format; anything else is the default, ``'trec'``."""
    path = Path(path)
    suffix = path.suffix.lower()
    named = [name for name, file_format in FORMATS.items() if suffix in file_format.suffixes]
    if named:
        return named[0]
    if path.is_dir():
        for name, file_format in FORMATS.items():
            if any(next(path.rglob(f'*{suffix}'), None) is not None for suffix in file_format.suffixes):
                return name
    return next(iter(FORMATS))


def open_file(path: str | os.PathLike[str], file_format: str | None = None, name: str | None = None) -> Source:
    """The source reading ``path`` (named ``name`` in messages, default the path) in ``file_format`` (default:
    :func:`format_of`)."""
    file_format = format_of(path) if file_format is None else file_format
    if file_format not in FORMATS:
        raise InputError(f'unknown input format {file_format!r}: expected one of {", ".join(FORMATS)}')
    module = importlib.import_module(FORMATS[file_format].module)
    return module.open_path(path, file_format, name)
