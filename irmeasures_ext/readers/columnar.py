"""Runs and qrels stored as Parquet (a file, or a folder of files: a pyarrow dataset) or Arrow IPC / Feather:
the ``parquet`` and ``arrow`` formats of :data:`~irmeasures_ext.readers.FORMATS`.

A :class:`ColumnarSource` knows its column names from the schema and reads only the columns a layout
needs, checked and converted as an Arrow table's are (:mod:`.conversion`), whole or in batches of rows. An
Arrow file may be in the IPC file format (Feather v2) or the IPC stream format. Standard input and pipes
are read once, into memory. ``pyarrow.dataset`` is imported only when such a source is opened (it adds a
tenth of a second to the command's start). The schema's metadata key ``ir_metadata`` holds the data's ir_metadata, as
YAML text, read when the source is opened (:attr:`ColumnarSource.metadata`).
"""
from __future__ import annotations

import contextlib
import functools
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa

from irmeasures_ext.errors import InputError
from irmeasures_ext.readers import FORMATS
from irmeasures_ext.readers.conversion import from_columns, named_columns, needed_columns
from irmeasures_ext.readers.schemas import CLASS_COLUMN, Layout
from irmeasures_ext.readers.source import Source

_IPC_FILE_MAGIC = b'ARROW1'
#: What pyarrow raises for data it cannot read (ArrowIOError is an OSError).
_UNREADABLE = (pa.ArrowException, OSError)
#: The key of a Parquet or Arrow file's schema metadata that holds its ir_metadata, as YAML text.
SCHEMA_KEY = 'ir_metadata'
#: The bytes a row stands for (about a TREC run line: ``q1234 Q0 D123456 12 -0.123 tag``): a run of at least
#: STREAM_FROM_BYTES / ROW_BYTES rows is streamed (:mod:`.pieces`), a block's bytes / ROW_BYTES rows at once.
#: (Rows, not the files' bytes: the in-memory path's memory follows the rows, however well the files compress.)
ROW_BYTES = 40


class ColumnarFileError(InputError):
    """A Parquet or Arrow IPC file (or folder) cannot be read; the message names it."""


def open_path(path: str | os.PathLike[str], file_format: str, name: str | None = None) -> ColumnarSource:
    """The source of the Parquet file or folder, or Arrow IPC file, at ``path`` (the registry's opener)."""
    return ColumnarSource.of_path(path, file_format, name)


def _description(file_format: str) -> str:
    return FORMATS[file_format].description


class ColumnarSource(Source):
    """A run or qrels stored column by column: a Parquet or Arrow IPC file, a folder of Parquet files,
    such a file's bytes, or a ``pyarrow.dataset.Dataset``.

    ``name`` names it in messages (None for a Dataset object: messages then say ``run`` or ``qrels``, as
    for tables). Opening reads the schema only; :meth:`read` reads the data."""

    def __init__(self, opener: Callable[[], Any], name: str | None) -> None:
        """``opener`` returns a dataset to read (a fresh one each call: an IPC stream is read once)."""
        self.name = name
        self._opener = opener
        self._opened: Any = opener()
        #: The columns the data holds, in their stored order.
        self.column_names: list[str] = self._opened.schema.names
        #: The ir_metadata of the schema's metadata (its YAML, parsed), or None; MetadataError on opening for YAML that
        #: cannot be read, as for a TREC file's block.
        self.metadata = self._ir_metadata()

    @classmethod
    def of_path(cls, path: str | os.PathLike[str], file_format: str, name: str | None = None) -> ColumnarSource:
        """The Parquet file or folder, or Arrow IPC file, at ``path``."""
        name = str(path) if name is None else name
        path = Path(path)
        try:
            mode = path.stat().st_mode
        except FileNotFoundError:
            raise ColumnarFileError(f'{name}: no such file') from None
        except OSError as error:
            raise ColumnarFileError(f'{name}: cannot read: {error.strerror}') from None
        if stat.S_ISDIR(mode):
            if file_format != 'parquet':
                raise ColumnarFileError(f'{name}: is a directory, expected {_description(file_format)}')
            return cls(lambda: _parquet_folder(path, name), name)
        if not stat.S_ISREG(mode):  # standard input, a pipe: read once, into memory
            try:
                data = path.read_bytes()
            except OSError as error:
                raise ColumnarFileError(f'{name}: cannot read: {error.strerror or error}') from None
            return cls.of_bytes(data, file_format, name)
        return cls(lambda: _file_dataset(path, file_format, name), name)

    @classmethod
    def of_bytes(cls, data: bytes, file_format: str, name: str) -> ColumnarSource:
        """The Parquet or Arrow IPC file whose whole content is ``data`` (e.g. standard input)."""
        return cls(lambda: _buffer_dataset(pa.py_buffer(data), file_format, name), name)

    @classmethod
    def of_dataset(cls, dataset: Any) -> ColumnarSource:
        """A ``pyarrow.dataset.Dataset`` given by the caller."""
        return cls(lambda: dataset, None)

    def read(self, layout: Layout) -> pa.Table:
        """The data as ``layout``'s columns, checked as an Arrow table is: only the columns it needs are read,
        and only once the column names pass."""
        what = self._what(layout.kind)
        columns = needed_columns(self.column_names, layout.schema)
        table = functools.cache(lambda: self._read_columns(columns))
        return from_columns(self.column_names, lambda name: table()[name], layout.schema, what)

    def batches(self, layout: Layout, block_bytes: int) -> Iterator[pa.Table]:
        """The rows of :meth:`read` in stored order, ``block_bytes / ROW_BYTES`` at a time, each batch checked as
        the whole data is; the column names are checked before anything is read, and a problem of a batch's
        values names its rows (numbered from 0, in stored order)."""
        what = self._what(layout.kind)
        named_columns(self.column_names, layout.schema, what)
        first = 0
        for batch in self._column_batches(needed_columns(self.column_names, layout.schema),
                                          max(1, block_bytes // ROW_BYTES)):
            yield from_columns(self.column_names, batch.column, layout.schema,
                               f'{what} (rows {first} to {first + batch.num_rows - 1})', first)
            first += batch.num_rows

    def size_hint(self) -> int:
        return self.num_rows * ROW_BYTES

    def has_classes(self) -> bool:
        return CLASS_COLUMN in self.column_names

    def lists_ranks(self) -> bool:
        return 'rank' in self.column_names

    def _what(self, kind: str) -> str:
        """How messages name the ``kind`` read: with the file's name, if it has one."""
        return kind if self.name is None else f'{self.name}: {kind}'

    def _read_columns(self, columns: list[str]) -> pa.Table:
        """The data's ``columns``, read whole."""
        with self._reading() as dataset:
            return dataset.to_table(columns=columns)

    def _column_batches(self, columns: list[str], rows: int) -> Iterator[pa.Table]:
        """The data's ``columns`` in stored order (a folder's files in the order the whole read takes them),
        at most ``rows`` rows at a time: what :meth:`batches` reads instead of the whole.

        One batch is decoded at a time, without the scanner's read-ahead, threads or Parquet pre-buffering:
        the stream reads the next batch on a thread of its own while it evaluates one, and the scanner's
        defaults, which decode the row groups of several files at once, made the peak memory several
        times larger (docs/large-runs.md, "One process, bounded memory")."""
        import pyarrow.dataset as ds
        with self._reading() as dataset:
            parquet = isinstance(getattr(dataset, 'format', None), ds.ParquetFileFormat)
            options = ds.ParquetFragmentScanOptions(pre_buffer=False) if parquet else None
            for batch in dataset.to_batches(columns=columns, batch_size=rows, batch_readahead=1, fragment_readahead=1,
                                            use_threads=False, fragment_scan_options=options):
                yield pa.Table.from_batches([batch])

    @property
    def schema_metadata(self) -> dict[bytes, bytes]:
        """The key-value metadata of the data's schema (a Parquet or Arrow file's; a folder's first file's), e.g. its
        ir_metadata (:func:`irmeasures_ext.ir_metadata.read_metadata`)."""
        with self._reading(keep=True) as dataset:
            return dict(dataset.schema.metadata or {})

    def _ir_metadata(self) -> dict[str, Any] | None:
        """The mapping the YAML text of the schema metadata key :data:`SCHEMA_KEY` holds, or None without it."""
        text = self.schema_metadata.get(SCHEMA_KEY.encode())
        if text is None:
            return None
        from irmeasures_ext.readers.trec import parse_metadata
        return parse_metadata(text, f"{self.name or 'dataset'} (schema metadata '{SCHEMA_KEY}')")

    @functools.cached_property
    def num_rows(self) -> int:
        """The data's number of rows (from the Parquet files' metadata; for Arrow files, their batches' headers)."""
        with self._reading(keep=True) as dataset:
            return dataset.count_rows()

    @contextlib.contextmanager
    def _reading(self, keep: bool = False) -> Iterator[Any]:
        """The dataset to read (the one opened first, then fresh ones; ``keep``: the first kept for the next
        reader), a read error as a ColumnarFileError naming the source."""
        opened = self._opened
        if not keep:
            self._opened = None
        try:
            yield self._opener() if opened is None else opened
        except _UNREADABLE as error:
            raise ColumnarFileError(f'{self.name or "dataset"}: cannot read: {error}') from None



def _parquet_folder(path: Path, name: str) -> Any:
    """The Parquet dataset of a folder: its files at any depth (hive partitions such as ``query_id=007/`` read
    as columns of text: :func:`hive_partitioning_as_text`), those whose names start with ``.`` or ``_`` left
    out (Spark's ``_SUCCESS``, ``.crc``)."""
    import pyarrow.dataset as ds
    try:
        dataset = ds.dataset(path, format='parquet', partitioning=hive_partitioning_as_text(path))
    except (*_UNREADABLE, UnicodeEncodeError) as error:  # (the last: a name that is not UTF-8, which Arrow's paths are)
        raise ColumnarFileError(f'{name}: cannot read as a folder of Parquet files: {error}') from None
    if not dataset.files:
        raise ColumnarFileError(f'{name}: folder holds no Parquet files')
    _check_same_columns(dataset, path, name)
    return dataset


def _check_same_columns(dataset: Any, path: Path, name: str) -> None:
    """ColumnarFileError naming the first file of a folder whose columns (names or types) differ from its first
    file's: pyarrow would read the columns it lacks as missing values, or fail on a type."""
    def columns(fragment: Any) -> set[str]:
        return {f'{field.name} ({field.type})' for field in fragment.physical_schema}

    fragments = iter(dataset.get_fragments())
    first = next(fragments)
    wanted = columns(first)
    for fragment in fragments:
        described = columns(fragment)
        if described == wanted:
            continue
        raise ColumnarFileError(
            f'{name}: file {Path(fragment.path).relative_to(path)} has columns other than '
            f'{Path(first.path).relative_to(path)}: {", ".join(sorted(described - wanted)) or "none"} instead of '
            f'{", ".join(sorted(wanted - described))} (the files of a folder are one table: give them the same '
            'columns)')


def hive_partitioning_as_text(path: str | os.PathLike[str]) -> Any:
    """The hive partitioning of the Parquet folder ``path`` (``query_id=007/``) with every key's values read
    as text (pyarrow infers integers: ``007`` and ``7`` would both be query 7); ``'hive'`` for a folder
    without partitions. ArrowException or OSError for a folder pyarrow cannot read."""
    import pyarrow.dataset as ds
    files = ds.dataset(path, format='parquet', partitioning='hive').files
    keys = dict.fromkeys(folder.split('=', 1)[0] for file in files
                         for folder in Path(file).relative_to(path).parent.parts if '=' in folder)
    return ds.partitioning(pa.schema([(key, pa.string()) for key in keys]), flavor='hive') if keys else 'hive'


def _file_dataset(path: Path, file_format: str, name: str) -> Any:
    """The dataset of a Parquet file or an Arrow IPC file (or, memory-mapped, an IPC stream)."""
    import pyarrow.dataset as ds
    try:
        return ds.dataset(path, format='parquet' if file_format == 'parquet' else 'ipc')
    except _UNREADABLE:
        if file_format == 'parquet':
            raise ColumnarFileError(f'{name}: not {_description(file_format)}') from None
    except UnicodeEncodeError:  # (a name that is not UTF-8, which Arrow's paths are: the file read as a buffer)
        pass
    return _buffer_dataset(pa.memory_map(os.fsencode(path)).read_buffer(), file_format, name)


def _buffer_dataset(buffer: pa.Buffer, file_format: str, name: str) -> Any:
    """The dataset of a Parquet file, an Arrow IPC file or an Arrow IPC stream held in ``buffer``."""
    import pyarrow.dataset as ds
    try:
        if file_format == 'arrow' and buffer[:len(_IPC_FILE_MAGIC)].to_pybytes() != _IPC_FILE_MAGIC:
            return ds.dataset(pa.ipc.open_stream(buffer).read_all())  # (pyarrow 14 takes no stream reader)
        format_ = ds.ParquetFileFormat() if file_format == 'parquet' else ds.IpcFileFormat()
        fragment = format_.make_fragment(buffer)
        return ds.FileSystemDataset([fragment], fragment.physical_schema, format_)
    except _UNREADABLE:
        raise ColumnarFileError(f'{name}: not {_description(file_format)}') from None
