"""Reading TREC run and qrels files (plain, or compressed with gzip, bzip2 or xz) into Arrow tables.

One grammar on every path, trec_eval's wherever trec_eval reads a value at all:

- Lines end with ``\\n``, ``\\r\\n`` or ``\\r``; lines of only whitespace are skipped; a UTF-8 BOM
  at the start of the file is ignored (anywhere else it belongs to its field). Text must be UTF-8.
- Fields are separated by runs of spaces, tabs, ``\\v`` and ``\\f`` (C's ``isspace``, as trec_eval
  splits). Every other character, U+00A0 and U+3000 included, belongs to a field.
- Run lines: ``qid Q0 docid rank score tag``, later fields ignored (as trec_eval); qrels lines:
  ``qid iteration docid relevance``, exactly, or ``qid iteration docid relevance class`` on every line
  (equivalence classes, NTCIREVAL's erel files; :func:`qrels_layout` tells them by the first line).
- A score is a decimal number as ``strtod`` reads it (``[+-]digits[.digits][e[+-]digits]``, also
  ``.5`` and ``5.``), or inf/nan, which are read and then refused as not finite. A relevance is
  ``-?digits`` within int64, or a real-valued label written as a score is (``0.35``, ``2.5``; refused if
  not finite): the relevance column is then float64, unless every label is whole (``2.0`` is label 2).
  Numerals trec_eval would read otherwise (``1_000`` as 1, ``0x1F`` as 0, full-width or Arabic-Indic
  digits as 0) are refused: never a third value.
- A file may open with an ir_metadata block (below); any other line whose first field starts with ``#`` is
  refused, naming its line: trec_eval 9 reads it as a line of query ``#...`` (or refuses it), trec_eval's 10.0
  development branch skipped it as a comment, so either reading could be the wrong one.

ir_metadata (Breuer et al., "ir_metadata: An Extensible Metadata Schema for IR Experiments", SIGIR 2022;
https://www.ir-metadata.org): the file's first lines (after a BOM and blank lines) may be a block of ``#`` lines,
as repro_eval writes and reads them::

    # ir_metadata.start
    # tag: bm25-baseline
    # method:
    #   retrieval:
    #     - name: bm25
    # ir_metadata.end

The markers are the lines ``# ir_metadata.start`` and ``# ir_metadata.end`` (repro_eval's ``META_START`` and
``META_END``; the space may be left out, blanks may end the line). Each line between them is ``#``, an optional
space and a line of YAML (repro_eval writes ``# `` + the line + a space); further spaces are the YAML's indentation,
so an indented ``ir_metadata.end`` is YAML, not the marker; a blank line is an empty line of YAML. The YAML, read
with PyYAML's safe loader, is a mapping: the schema's keys are ``schema-version``, ``run-version``, ``tag``,
``platform``, ``research goal``, ``implementation``, ``method``, ``actor`` and ``data``, none required (the schema
is extensible). The block is found in the file's first bytes (:attr:`TrecSource.header` holds it, parsed), and
every path reads the file from the line after it, as if it were absent: line numbers stay the file's, and a BOM
opening that line is ignored as at the start of a file. A block not closed, YAML that does not parse (a key twice
in a mapping included), or YAML that is not a mapping is a :class:`~irmeasures_ext.errors.MetadataError` naming the
file and line. Qrels files take
the same block, read the same way: the schema describes runs, but the block is the file's, and refusing it in qrels
would only make an annotated qrels file unreadable.

The fast path is ``pyarrow.csv`` on single-space fields. A file in any other layout (tabs, runs
of spaces, trailing fields, CR line ends) is normalised block by block in numpy to that layout and
read by the same parser. The slow path only names the line of a problem: the file is read again
line by line, streaming (:meth:`TrecSource.locate`). Pipes and other non-regular files are read once
into memory, so that they can be read again (the command copies standard input to a temporary file).
:meth:`TrecSource.batches` reads a file block by block, for evaluating it as it is read
(:mod:`irmeasures_ext.engine.stream`).
"""
from __future__ import annotations

import bz2
import contextlib
import functools
import gzip
import io
import lzma
import math
import os
import re
import stat
import zlib
from collections.abc import Callable, Generator, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from irmeasures_ext._arrow import compute as ac
from irmeasures_ext._arrow.memory import table_pool
from irmeasures_ext.errors import (
    ConflictingClassesError,
    ConflictingLabelsError,
    DuplicateDocError,
    InputError,
    InvalidClassError,
    MetadataError,
    NonFiniteScoreError,
    RepeatedJudgment,
    RowError,
)
from irmeasures_ext.readers import FORMATS
from irmeasures_ext.readers.schemas import (
    CLASS_COLUMN,
    QRELS,
    QRELS_EC,
    RUN,
    Layout,
    labels_of,
    with_labels_of,
)
from irmeasures_ext.readers.source import Source

#: Compressed files by their first bytes, and the modules that read them line by line (Arrow's codecs parse
#: gzip and bz2; xz is read through Python's lzma).
_MAGIC = {'gzip': b'\x1f\x8b', 'bz2': b'BZh', 'xz': b'\xfd7zXZ\x00'}
_OPENER: dict[str, Callable[[BinaryIO], Any]] = {
    'gzip': lambda raw: gzip.GzipFile(fileobj=raw), 'bz2': bz2.BZ2File, 'xz': lzma.LZMAFile}
_HEAD = max(map(len, _MAGIC.values()))
#: What reading a corrupt compressed file raises (the line-by-line reader then names where).
_CORRUPT = (OSError, EOFError, lzma.LZMAError)
_BOM = b'\xef\xbb\xbf'
#: The first bytes of files that are not text (:meth:`TrecSource.not_text`): Parquet (which ends with them too),
#: Arrow IPC files (which end with ``ARROW1``) and streams (a continuation marker), zstd frames and zip archives.
_PARQUET, _IPC_FILE, _IPC_STREAM = b'PAR1', b'ARROW1\x00\x00', b'\xff\xff\xff\xff'
_ZSTD, _ZIP = b'\x28\xb5\x2f\xfd', b'PK\x03\x04'
#: Bytes looked at for a NUL byte, the sign of binary data.
_SNIFF = 4096


class _ErrorOnClose(io.RawIOBase):
    """A readable file over ``raw`` whose read errors (a corrupt or truncated xz stream, or any other) end the
    stream instead and are raised by :meth:`close`, on the thread that closes it: Arrow reads a Python file on its
    own threads, and pyarrow 14 deadlocks when a read there raises (its thread then waits for the GIL that the
    caller, cleaning up the reader, holds)."""

    def __init__(self, raw: lzma.LZMAFile) -> None:
        super().__init__()
        self._raw = raw
        self._error: BaseException | None = None

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._error is None:
            try:
                return self._raw.readinto(buffer)
            except Exception as error:  # (raised by close, on the caller's thread)
                self._error = error
        return 0

    def close(self) -> None:
        error, self._error = self._error, None
        self._raw.close()
        super().close()
        if error is not None:
            raise error
#: Bytes read and normalised at once on the normalising path.
_BLOCK = 1 << 23
#: Bytes scanned at once for irregular spacing.
_SCAN_CHUNK = 1 << 20
#: A score as pyarrow.csv reads float64 (a subset of what strtod reads; checked by the tests).
SCORE = re.compile(rb'[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?'
                   rb'|(?i:inf|infinity|nan(?:\([0-9A-Za-z_]*\))?))')
#: A relevance label, and NTCIREVAL's form of one (a level: ``L0``, ``L1``, ...).
LABEL = re.compile(rb'-?[0-9]+')
LEVEL = re.compile(rb'L[0-9]+')
_INT64 = (-(1 << 63), (1 << 63) - 1)
_FIELD_SEPARATOR = re.compile(rb'[ \t\v\f]+')
_BLANK = b' \t\v\f\r\n'
#: The lines that open and close an ir_metadata block (without their blanks at either end), as latin-1 text.
_MARKER = re.compile(r'# ?ir_metadata\.(start|end)')
#: Separators other than a single space (TrecSource._irregular); found with memchr.
_OTHER_SEPARATORS = (b'\t', b'\v', b'\f')
#: Byte pairs, as little-endian uint16, of two spaces and of a space before a line feed. (A space
#: after one need not be looked for: it makes the line's first field, the query id, empty.)
_SPACE_PAIRS = np.array([int.from_bytes(pair, 'little') for pair in (b'  ', b' \n')], dtype=np.uint16)


def score_value(field: bytes) -> float:
    """The value of a field :data:`SCORE` matches, as ``strtod`` reads it: Python's ``float`` reads every such
    field but strtod's NaN with a payload (``nan()``, ``NaN(123)``, ``nan(0x1)``), which is NaN."""
    return float(field.split(b'(', 1)[0])


class TrecFileError(InputError):
    """A TREC file cannot be read, or holds a problem; the message names the file and line."""


class Header(NamedTuple):
    """The ir_metadata block opening a TREC file: the bytes and the lines before the file's first line of data (a
    BOM, blank lines and the block), and the block's YAML mapping."""

    size: int
    lines: int
    metadata: dict[str, Any]


#: The characters YAML breaks lines at but a file (an editor, our readers) does not.
_YAML_ONLY_BREAK = re.compile('[\x85\u2028\u2029]')
#: The line breaks of a file.
_LINE_BREAK = re.compile('\r\n|\r|\n')


def parse_metadata(text: str | bytes, name: str, first_line: int = 1) -> dict[str, Any]:
    """The mapping the YAML ``text`` (bytes: UTF-8) holds (an empty text: an empty one), read with PyYAML's safe
    loader (libyaml's; a key twice in a mapping refused: :func:`_yaml_loader`); MetadataError naming ``name`` and the
    line of a problem (``text`` starts at line ``first_line`` of ``name``)."""
    import yaml  # type: ignore[import-untyped]  # (PyYAML, an ir_datasets dependency: only for files with metadata)
    if isinstance(text, bytes):
        data = text
        try:
            text = data.decode('utf-8')
        except UnicodeDecodeError as error:
            line = first_line + len(_LINE_BREAK.findall(data[:error.start].decode('utf-8')))
            raise MetadataError(f'{name}:{line}: not valid UTF-8 ({error.reason})') from None
    try:
        metadata = yaml.load(text, Loader=_yaml_loader())
    except yaml.YAMLError as error:
        mark = getattr(error, 'problem_mark', None)
        problem = getattr(error, 'problem', None) or str(error)
        line = first_line
        if mark is not None:  # (YAML's count of lines, less the breaks only YAML makes; past the text, its last line)
            line += mark.line - len(_YAML_ONLY_BREAK.findall(text, 0, mark.index))
            line = min(line, first_line + len(_LINE_BREAK.findall(text.rstrip())))
        raise MetadataError(f'{name}:{line}: ir_metadata is not valid YAML: {" ".join(problem.split())}') from None
    except (ValueError, KeyError, TypeError, OverflowError) as error:  # (PyYAML's constructors of tagged values:
        raise MetadataError(f'{name}: ir_metadata holds a tagged value YAML cannot read '  # !!float abc, !!bool x)
                            f'({type(error).__name__}: {error})') from None
    if metadata is None:
        return {}
    if not isinstance(metadata, dict):
        raise MetadataError(f'{name}:{first_line}: ir_metadata is a YAML {type(metadata).__name__}, not a mapping '
                            'of keys (schema-version, tag, platform, ...)')
    return metadata


@functools.cache
def _yaml_loader() -> Any:
    """PyYAML's safe loader (libyaml's, if built) reading YAML 1.2's booleans and numbers
    (:func:`.yaml_schema.yaml_1_2`: ``no`` is a string), refusing a key twice in a mapping, or two keys Python takes
    for one (``1``, ``1.0``), at the second (a ConstructorError): PyYAML keeps the last value. A merge key's (``<<``)
    mappings may hold the mapping's keys, which override theirs."""
    import yaml

    from irmeasures_ext.readers.yaml_schema import yaml_1_2

    class Loader(getattr(yaml, 'CSafeLoader', yaml.SafeLoader)):  # type: ignore[misc]
        def flatten_mapping(self, node: Any) -> None:
            # (a mapping's own keys checked once, before PyYAML merges into it the keys of its ``<<`` mappings, which
            # it does in place, at the mapping's construction or at an alias merging it, whichever comes first)
            checked = self.__dict__.setdefault('_checked', set())
            if id(node) not in checked:
                checked.add(id(node))
                keys: set[Any] = set()
                for key_node, _ in node.value:
                    if key_node.tag == 'tag:yaml.org,2002:merge':
                        continue
                    key = self.construct_object(key_node, deep=True)
                    try:
                        if key in keys:
                            raise yaml.constructor.ConstructorError(
                                None, None, f'the key {key!r} is in the mapping twice; give each key once',
                                key_node.start_mark)
                        keys.add(key)
                    except TypeError:  # (an unhashable key: the safe loader's own error)
                        break
            super().flatten_mapping(node)

    return yaml_1_2(Loader)


def _opens_with_hash(binary: BinaryIO) -> bool:
    """Whether the first byte of a file other than its BOM and blanks is ``#`` (read until one is found)."""
    chunk = binary.read(_SNIFF).removeprefix(_BOM)
    while chunk:
        if text := chunk.lstrip(_BLANK):
            return text.startswith(b'#')
        chunk = binary.read(_SNIFF)
    return False


def _header_of(text: Iterable[str], name: str) -> Header | None:
    """The ir_metadata block opening ``text`` (a file's lines read as latin-1, one character per byte, their ends kept),
    or None if its first line other than a BOM and blanks is not ``# ir_metadata.start``; MetadataError for a
    block not closed, or whose YAML cannot be read."""
    size = start = 0
    yaml_lines: list[str] = []
    for line_no, line in enumerate(text, start=1):
        size += len(line)
        stripped = (line.removeprefix(_BOM.decode('latin-1')) if line_no == 1 else line).strip(_BLANK.decode())
        marker = _MARKER.fullmatch(stripped)
        if not start:
            if not stripped:
                continue
            if marker is None or marker[1] != 'start':
                return None
            start = line_no
        elif marker is not None and marker[1] == 'end':
            return Header(size, line_no, parse_metadata('\n'.join(yaml_lines), name, start + 1))
        elif marker is not None:
            raise MetadataError(f'{name}:{line_no}: "# ir_metadata.start" again, inside the block opened at line '
                                f'{start}')
        elif stripped and not stripped.startswith('#'):
            raise MetadataError(f'{name}:{line_no}: not a "#" line, and the ir_metadata block opened at line {start} '
                                'is not closed: end it with "# ir_metadata.end" before the first line of data')
        else:
            try:
                yaml_lines.append(stripped[1:].removeprefix(' ').encode('latin-1').decode('utf-8'))
            except UnicodeDecodeError as error:
                raise MetadataError(f'{name}:{line_no}: not valid UTF-8 ({error.reason})') from None
    if start:
        raise MetadataError(f'{name}:{start}: the ir_metadata block opened here is not closed: the file ends before '
                            '"# ir_metadata.end"')
    return None


#: About how many times larger than its compressed file a TREC file is (gzip's; bz2 and xz compress more).
GZIP_RATIO = 4


def open_path(path: str | os.PathLike[str], file_format: str = 'trec', name: str | None = None) -> TrecSource:
    """The source of the TREC file at ``path`` (the registry's opener)."""
    return TrecSource(path, name)


def read_run(path: str | Path, name: str | None = None) -> pa.Table:
    """Reads a TREC run (``qid Q0 docid rank score tag``) into ``(query_id, doc_id, score)``."""
    return TrecSource(path, name).read(RUN)


def read_qrels(path: str | Path, name: str | None = None) -> pa.Table:
    """Reads TREC qrels (``qid iteration docid relevance``) into ``(query_id, doc_id, relevance)``, or
    with a fifth field on every line, the class id, into ``(query_id, doc_id, relevance, equivalence_class)``."""
    source = TrecSource(path, name)
    return source.read(qrels_layout(source))


def qrels_layout(source: TrecSource) -> Layout:
    """QRELS_EC if the first line of ``source`` has five fields, else QRELS (a file mixing the two is refused
    at its first line of the other kind). Reads only the file's first block."""
    first = next(source.lines(), (0, []))[1]
    return QRELS_EC if len(first) == len(QRELS_EC.fields) else QRELS


class TrecSource(Source):
    """A TREC file, read fast once and, for a problem, again to name its line.

    ``name`` is the file's name in messages (default: the path).
    """

    name: str

    def __init__(self, path: str | os.PathLike[str], name: str | None = None) -> None:
        self.path = Path(path)
        self.name = str(path) if name is None else name
        try:
            mode = self.path.stat().st_mode
        except FileNotFoundError:
            raise TrecFileError(f'{self.name}: no such file') from None
        except OSError as error:
            raise TrecFileError(f'{self.name}: cannot read: {error.strerror}') from None
        if stat.S_ISDIR(mode):
            raise TrecFileError(f'{self.name}: is a directory, expected a TREC file')
        #: The whole content of a file that cannot be read twice (standard input, a pipe), else None.
        self._data: bytes | None = None
        #: The size of a file read from disk (compressed, if it is), else None.
        self.size: int | None = None
        try:
            if stat.S_ISREG(mode):
                self.size = self.path.stat().st_size
                with open(self.path, 'rb') as handle:
                    head = handle.read(_HEAD)
            else:
                with open(self.path, 'rb') as handle:
                    self._data = handle.read()
                head = self._data[:_HEAD]
        except OSError as error:
            raise TrecFileError(f'{self.name}: cannot read: {error.strerror or error}') from None
        self._check_head(head)

    @classmethod
    def of_bytes(cls, data: bytes, name: str) -> TrecSource:
        """The TREC file whose whole content is ``data`` (e.g. standard input, read once)."""
        source = cls.__new__(cls)
        source.path, source.name, source._data, source.size = Path(name), name, data, None
        source._check_head(data[:_HEAD])
        return source

    def _check_head(self, head: bytes) -> None:
        #: How the file is compressed (gzip, bz2 or xz, known by its first bytes), or None.
        self.compression = next((name for name, magic in _MAGIC.items() if head.startswith(magic)), None)
        #: The ir_metadata block opening the file, or None; every path reads the file from the line after it.
        self.header = self._read_header()

    def _read_header(self) -> Header | None:
        """The ir_metadata block opening the file, found in its first bytes (a file that does not open with ``#``
        is read no further); TrecFileError for a compressed file corrupt or truncated before the block ends, naming
        the last line read (:meth:`_latin1_lines`)."""
        try:
            with self._binary() as binary:
                if not _opens_with_hash(binary):
                    return None
        except (*_CORRUPT, zlib.error):
            pass  # (the lines read below name the last line before the damage)
        with contextlib.closing(self._latin1_lines(newline='')) as lines:
            return _header_of(lines, self.name)

    @property
    def compressed(self) -> bool:
        return self.compression is not None

    def read(self, layout: Layout) -> pa.Table:
        """The file's ``(query_id, doc_id, value)`` table; TrecFileError names the line of a problem."""
        try:
            table = _parse(self._stream, layout) if self.compressed else self._parse_scanned(layout)
            if table is None:
                table = self._read_normalised(layout)
        except _CORRUPT:  # a corrupt compressed stream: the line-by-line reader says where
            table = None
        if table is None or not table.num_rows:
            self._raise_unreadable(layout)
            return layout.schema.empty_table()  # (an empty run)
        return table

    def _stream(self) -> pa.NativeFile:
        """The file's bytes, decompressed, from the line after its ir_metadata block (if any)."""
        if self.compression == 'xz':  # (no Arrow codec: Python's lzma, read through by Arrow)
            stream = pa.PythonFile(_ErrorOnClose(lzma.LZMAFile(self._raw() if self._data is not None else self.path)),
                                   mode='r')  # (a file's name: the LZMAFile opens and closes it)
        else:
            raw = pa.BufferReader(self._data) if self._data is not None else pa.OSFile(os.fsencode(self.path))
            stream = raw if self.compression is None else pa.CompressedInputStream(raw, self.compression)
        if self.header is not None:
            stream.read(self.header.size)
        return stream

    def _parse_scanned(self, layout: Layout) -> pa.Table | None:
        """The kept columns of a plain file or one held in memory, parsed while another thread scans
        the bytes (:meth:`_irregular`); None if the scan finds another layout (the parse is dropped).

        Only the kept columns are built, which is sound once the scan has ruled out empty fields
        and fields holding a tab. Scanning beside the parse rather than before it, since Arrow's
        parse leaves part of a second CPU idle. Gzip is not scanned:
        it would be inflated twice."""
        with ThreadPoolExecutor(1) as pool:
            irregular = pool.submit(self._irregular)
            table = _parse(self._stream, layout, known_single_spaced=True)
            return None if irregular.result() else table

    def _irregular(self) -> bool:
        """Whether the file departs from single-space fields: a tab, ``\v`` or ``\f``, two spaces in a
        row, or a space at the end of a line. A space at the start of a line is left to the parse: it
        makes the query id empty, which is refused. The file is read in 1 MB chunks into one buffer,
        after the last byte of the chunk before (a zero byte before the first)."""
        buffer = bytearray(1 + _SCAN_CHUNK)
        chunk = memoryview(buffer)[1:]
        with self._stream() as stream:
            while size := stream.readinto(chunk):
                if _departs_from_single_spaces(buffer, 1 + size):
                    return True
                buffer[0] = buffer[size]
        return buffer[0] == 0x20

    def _read_normalised(self, layout: Layout) -> pa.Table | None:
        """Reads the file in blocks normalised to single-space fields; None if a block cannot be parsed."""
        pieces = []
        for block in self._blocks():
            piece = _parse_normalised(block, layout)
            if piece is None:
                return None
            pieces.append(piece)
        return pa.concat_tables(pieces) if pieces else None

    def size_hint(self) -> int | None:
        """A file's size (a compressed one's times :data:`GZIP_RATIO`); None for one held in memory."""
        if self.size is None:
            return None
        return self.size * (GZIP_RATIO if self.compressed else 1)

    def has_classes(self) -> bool:
        return qrels_layout(self) is QRELS_EC

    def lists_ranks(self) -> bool:
        return True

    def batches(self, layout: Layout, block_size: int) -> Iterator[pa.Table]:
        """The file's ``(query_id, doc_id, value)`` rows as tables of about ``block_size`` bytes of lines
        each, in file order, read as they are asked for: the same rows as :meth:`read`, in bounded memory.
        Each block is scanned for irregular spacing and parsed by the fast path or normalised; TrecFileError
        names the file's first line the grammar refuses (the file is read again from its start)."""
        rows = 0
        try:
            for block in self._blocks(block_size):
                table = _parse_block(block, layout)
                if table is None:
                    break
                rows += table.num_rows
                yield table
            else:
                if rows:
                    return
        except _CORRUPT:  # a corrupt compressed stream: the line-by-line reader says where
            pass
        self._raise_unreadable(layout)

    def _blocks(self, block_size: int | None = None) -> Iterator[bytes]:
        """The file's bytes after its ir_metadata block in blocks of whole lines (about ``block_size`` bytes each,
        default ``_BLOCK``), the BOM opening them removed (a BOM anywhere else belongs to its field, as trec_eval
        reads it)."""
        with self._stream() as stream:
            carry = stream.read(len(_BOM)).removeprefix(_BOM)
            while chunk := stream.read(block_size or _BLOCK):
                data = carry + chunk if carry else chunk
                cut = max(data.rfind(b'\n'), data.rfind(b'\r')) + 1
                block, carry = data[:cut], data[cut:]
                if block:
                    yield block
        if carry:
            yield carry

    # --- the slow path: naming the line of a problem ---------------------------------------------

    def lines(self, containing: bytes = b'') -> Iterator[tuple[int, list[bytes]]]:
        """``(line number, fields)`` of every non-blank line after the ir_metadata block (holding ``containing``),
        read again from the start, streaming: memory stays flat whatever the file's size."""
        for line_no, raw in self._raw_lines():
            if containing in raw:
                fields = _FIELD_SEPARATOR.split(raw.strip(_BLANK))
                if fields != [b'']:
                    yield line_no, fields

    def text_lines(self) -> Iterator[tuple[int, list[str]]]:
        """:meth:`lines`, their fields decoded: the lines of any text input, in the TREC files' grammar (line ends,
        BOM, blanks, separators, UTF-8; :mod:`.intent_probabilities`). TrecFileError names a line that is not
        UTF-8."""
        for line_no, fields in self.lines():
            yield line_no, _decoded(fields, f'{self.name}:{line_no}')

    def _raw_lines(self) -> Iterator[tuple[int, bytes]]:
        first = 1 if self.header is None else self.header.lines + 1  # (the ir_metadata block's lines skipped)
        for line_no, line in enumerate(self._latin1_lines(newline=None), start=1):
            if line_no >= first:
                raw = line.encode('latin-1')
                yield line_no, raw.removeprefix(_BOM) if line_no == first else raw

    def _latin1_lines(self, newline: str | None) -> Generator[str, None, None]:
        """The file's lines read as latin-1, which maps bytes one to one (line ends as ``newline`` tells
        :class:`io.TextIOWrapper`: None, universal newlines \\n, \\r\\n, \\r without decoding; ``''``, the same, kept);
        TrecFileError naming the last line read for a corrupt or truncated compressed file."""
        with self._binary() as binary, io.TextIOWrapper(binary, encoding='latin-1', newline=newline) as text:
            read = 0
            try:
                for line in text:
                    read += 1
                    yield line
            except (*_CORRUPT, zlib.error) as error:
                raise TrecFileError(f'{self.name}: corrupt or truncated {self.compression} after line {read}: '
                                    f'{error}') from None

    def _raw(self) -> BinaryIO:
        """The file's bytes as stored (compressed or not)."""
        return io.BytesIO(self._data) if self._data is not None else open(self.path, 'rb')  # noqa: SIM115

    @contextlib.contextmanager
    def _binary(self) -> Iterator[BinaryIO]:
        """The file's bytes, decompressed; the decompressor and the file closed after (a decompressor does not close
        a file object it is given)."""
        with self._raw() as raw:
            if self.compression is None:
                yield raw
                return
            with _OPENER[self.compression](raw) as binary:
                yield binary

    def _raise_unreadable(self, layout: Layout) -> None:
        """Raises TrecFileError for the first line the grammar refuses (or, for a file that is not text, what it
        is: :meth:`not_text`), or for qrels of no line; returns for a run of no line (empty, or of blank lines):
        an empty run, which retrieves nothing."""
        try:
            self._check_lines(layout)
        except TrecFileError:
            not_text = self.not_text('--format' if layout.kind == 'run' else '--qrels-format')
            if not_text is None:
                raise
            raise TrecFileError(not_text) from None

    def not_text(self, option: str | None = None, what: str = 'TREC text') -> str | None:
        """Why the file is not ``what`` at all, if its first bytes (decompressed) say so: a Parquet or Arrow IPC
        file (then how to read it as one: its suffix, or the command's ``option`` giving its format), a zstd
        file, a zip archive or binary data (a NUL byte in its first 4 KB); else None. Only for a file the grammar
        has refused. A text file may begin with ``PAR1`` (a query id): a Parquet file is one only if it ends as
        one too."""
        try:
            with self._binary() as binary:
                head = binary.read(_SNIFF)
        except (*_CORRUPT, zlib.error):
            return None
        if head.startswith(_PARQUET) and self._ends_as_parquet():
            file_format, description = 'parquet', FORMATS['parquet'].description
        elif head.startswith(_IPC_FILE) and self._tail(6)[0] in (None, _IPC_FILE[:6]):
            file_format, description = 'arrow', FORMATS['arrow'].description
        elif head.startswith(_IPC_STREAM):
            file_format, description = 'arrow', 'an Arrow IPC stream'
        elif head.startswith(_ZSTD):
            return (f'{self.name}: this is a zstd-compressed file, which is not read: decompress it (zstd -d), or '
                    'compress it with gzip, bzip2 or xz')
        elif head.startswith(_ZIP):
            return f'{self.name}: this is a zip archive, not {what}: extract it'
        elif (nul := head.find(b'\x00')) >= 0:
            return f'{self.name}: binary data, not {what} (a NUL byte at byte {nul})'
        else:
            return None
        advice = f'name it {FORMATS[file_format].suffixes[0]}' + (
            '' if option is None else f', or give {option} {file_format} on the command line')
        if self.compressed:
            return (f'{self.name}: this is {description}, compressed with {self.compression}, not {what}: '
                    f'decompress it, and {advice}')
        return f'{self.name}: this is {description}, not {what}: {advice}'

    def _ends_as_parquet(self) -> bool:
        """Whether the file ends as a Parquet file does: the length of a footer that fits in the file, and ``PAR1``
        (a compressed file: assumed, not decompressed to its end)."""
        tail, size = self._tail(8)
        return tail is None or (tail[4:] == _PARQUET and int.from_bytes(tail[:4], 'little') <= size - 12)

    def _tail(self, count: int) -> tuple[bytes | None, int]:
        """The file's last ``count`` bytes and its size; (None, 0) for a compressed file (not decompressed to its
        end)."""
        if self.compressed:
            return None, 0
        if self._data is not None:
            return self._data[-count:], len(self._data)
        with open(self.path, 'rb') as handle:
            size = handle.seek(0, os.SEEK_END)
            handle.seek(max(0, size - count))
            return handle.read(), size

    def _check_lines(self, layout: Layout) -> None:
        """:meth:`_raise_unreadable` for a file of text."""
        n_fields, found = len(layout.fields), False
        levels: bool | None = None  # (whether the first line's label is an NTCIREVAL level)
        for line_no, fields in self.lines():
            found = True
            if fields[0].startswith(b'#'):
                raise TrecFileError(f'{self.name}:{line_no}: {_comment_problem(fields)}')
            if len(fields) < n_fields or (len(fields) > n_fields and not layout.extra_fields):
                mixed = layout.kind == 'qrels' and {n_fields, len(fields)} == {len(QRELS.fields), len(QRELS_EC.fields)}
                raise TrecFileError(f'{self.name}:{line_no}: expected {n_fields} fields ({layout.description}), '
                                    f'got {len(fields)}' + ('; a class id (the fifth field) is on every line or on '
                                                            'none' if mixed else ''))
            _decoded(fields[:n_fields], f'{self.name}:{line_no}')
            if layout.kind == 'qrels':  # (NTCIREVAL's levels L0, L1, ... are labels 0, 1, ...)
                label = fields[layout.fields.index('relevance')]
                is_level = bool(LEVEL.fullmatch(label))
                levels = is_level if levels is None else levels
                if is_level != levels:
                    raise TrecFileError(f'{self.name}:{line_no}: relevance {_text(label)!r} is '
                                        f'{"a level" if is_level else "not a level"}, unlike the first line\'s: '
                                        "write NTCIREVAL's levels (L0, L1, ...) on every line or on none")
                fields[layout.fields.index('relevance')] = _level_as_label(label)
            value = fields[layout.fields.index(layout.value)]
            if not SCORE.fullmatch(value):
                raise TrecFileError(f'{self.name}:{line_no}: {layout.value} {_text(value)!r} is not a number')
            if layout.kind == 'qrels' and not math.isfinite(label_value := score_value(value)):
                rule = 'a label must be a finite number'
                raise TrecFileError(f'{self.name}:{line_no}: relevance {_text(value)!r} is not finite: '
                                    + (f'NaN is not a label ({rule})' if math.isnan(label_value) else rule))
            for name in layout.schema.names:
                number = fields[layout.fields.index(name)]
                real_label = name == 'relevance' and not LABEL.fullmatch(number)  # (a number, checked above)
                if layout.schema.field(name).type == pa.int64() and not real_label:
                    if not LABEL.fullmatch(number):
                        what = 'class id' if name == CLASS_COLUMN else name
                        raise TrecFileError(f'{self.name}:{line_no}: {what} {_text(number)!r} is not an integer')
                    if not _INT64[0] <= int(number) <= _INT64[1]:
                        raise TrecFileError(f'{self.name}:{line_no}: {name} {_text(number)!r} is out of range '
                                            f'({_INT64[0]} to {_INT64[1]})')
        if not found and layout.kind == 'qrels':
            raise TrecFileError(f'{self.name}: no qrels lines (the file is empty or has only blank lines), so every '
                                'measure would be undefined: give judgments')
        if not found:
            return
        raise TrecFileError(f'{self.name}: cannot be read as a TREC {layout.kind} file')

    def locate(self, error: RowError) -> TrecFileError:
        """The error of a check on the table, naming the line(s) of its query and doc in this file."""
        query_id, doc_id = error.query_id.encode('utf-8'), error.doc_id.encode('utf-8')
        intent = None if error.intent is None else error.intent.encode('utf-8')
        doc_field = 2
        layout = RUN if error.kind == 'run' else QRELS
        value_field = layout.fields.index(layout.value)
        if isinstance(error, (ConflictingClassesError, InvalidClassError)):
            value_field = QRELS_EC.fields.index(CLASS_COLUMN)
        first: tuple[int, bytes] | None = None
        for line_no, fields in self.lines(containing=doc_id):
            if fields[0] != query_id or fields[doc_field] != doc_id or intent not in (None, fields[1]):
                continue
            where, value = f'{self.name}:{line_no}', _text(fields[value_field])
            if isinstance(error, NonFiniteScoreError):
                return TrecFileError(f'{where}: score {value!r} is not finite')
            if isinstance(error, InvalidClassError):
                if int(fields[value_field]) == error.class_id:
                    return TrecFileError(f'{where}: {error.problem}')
                continue
            if not isinstance(error, (DuplicateDocError, ConflictingLabelsError, ConflictingClassesError,
                                      RepeatedJudgment)):
                return TrecFileError(f'{where}: {error.problem}')  # a problem of one line
            if first is None:
                first = line_no, fields[value_field]
            elif isinstance(error, RepeatedJudgment):
                return TrecFileError(f'{where}: {error.problem}; first at line {first[0]}')
            elif isinstance(error, DuplicateDocError):
                return TrecFileError(f'{where}: duplicate doc {error.doc_id!r} in query {error.query_id!r} '
                                     f'(first at line {first[0]})')
            elif _number(fields[value_field]) != _number(first[1]):
                what = 'classes' if isinstance(error, ConflictingClassesError) else 'labels'
                hint = '' if error.hint is None else f'; {error.hint}'
                return TrecFileError(f'{where}: conflicting {what} for doc {error.doc_id!r} in query '
                                     f'{error.query_id!r}: {value} here, {_text(first[1])} at line {first[0]}{hint}')
        return TrecFileError(f'{self.name}: {error}')


def _departs_from_single_spaces(data: bytes | bytearray, size: int) -> bool:
    """Whether the first ``size`` bytes of ``data`` hold a separator other than one space (see
    :meth:`TrecSource._irregular`).

    The space pairs are looked for as uint16 values at even and at odd offsets (a ``bytes`` search for a
    two-byte pattern stops at every space)."""
    if any(data.find(separator, 0, size) >= 0 for separator in _OTHER_SEPARATORS):
        return True
    if data.find(b'\r', 0, size) >= 0 and data.find(b' \r', 0, size) >= 0:  # (memchr first: most files have no CR)
        return True
    for offset in (0, 1):
        pairs = np.frombuffer(data, dtype=np.uint16, count=(size - offset) // 2, offset=offset)
        if any((pairs == pair).any() for pair in _SPACE_PAIRS):
            return True
    return False


def _comment_problem(fields: list[bytes]) -> str:
    """Why a line whose first field starts with ``#`` is refused (:meth:`TrecSource._check_lines`)."""
    if _MARKER.fullmatch(b' '.join(fields).decode('latin-1')):  # (a marker, or one spaced otherwise)
        return ("like an ir_metadata marker: the markers are the lines '# ir_metadata.start' and '# ir_metadata.end', "
                "at most one space after '#', and the block is read only at the top of the file, before the first "
                'line of data')
    return ("a line starting with '#': comment lines are not read, except an ir_metadata block at the top of the "
            'file (# ir_metadata.start ... # ir_metadata.end)')


def _number(field: bytes) -> int | float:
    """A label or class id field as its value (a real-valued label as a float, exactly as the table holds it)."""
    field = _level_as_label(field)
    return int(field) if LABEL.fullmatch(field) else score_value(field)


def _level_as_label(field: bytes) -> bytes:
    """An NTCIREVAL level (``L2``) as its label (``2``); any other field as it is."""
    return field[1:] if LEVEL.fullmatch(field) else field


def _decoded(fields: list[bytes], where: str) -> list[str]:
    """``fields`` as text; TrecFileError naming ``where`` (file:line) for one that is not UTF-8."""
    try:
        return [field.decode('utf-8') for field in fields]
    except UnicodeDecodeError as error:
        raise TrecFileError(f'{where}: not valid UTF-8 ({error.reason})') from None


def _text(field: bytes) -> str:
    return field.decode('utf-8', errors='replace')


def _parse_block(block: bytes, layout: Layout) -> pa.Table | None:
    """The rows of ``block`` (whole lines, not the file's first bytes: a BOM opening it is data), by the
    fast path if it has single-space fields (:func:`_departs_from_single_spaces`), else normalised; None
    if it cannot be parsed."""
    table = None
    if not (block.startswith(_BOM) or _departs_from_single_spaces(block, len(block)) or block.endswith(b' ')):
        table = _parse(functools.partial(pa.BufferReader, block), layout, known_single_spaced=True)
    return _parse_normalised(block, layout) if table is None else table


def _parse_normalised(block: bytes, layout: Layout) -> pa.Table | None:
    """The rows of ``block`` (whole lines) normalised to single-space fields; None if it cannot be parsed."""
    normalised = normalise(block, len(layout.fields) if layout.extra_fields else None)
    if normalised.startswith(_BOM):  # pyarrow.csv drops a BOM opening its input; a blank line keeps it
        normalised = b'\n' + normalised
    return _parse(functools.partial(pa.BufferReader, normalised), layout)


def _parse(open_stream: Callable[[], pa.NativeFile], layout: Layout,
           known_single_spaced: bool = False) -> pa.Table | None:
    """``(query_id, doc_id, value)`` of single-space fields, or None if the grammar does not hold.

    A field too many or too few is refused by the parser; an empty field (two spaces in a row, a
    space at a line's start or end) or a field holding a tab, ``\v`` or ``\f`` (fields single
    spaces did not separate) sends the file to the normalising path as well, and so does text that
    is not UTF-8 (:func:`_validate_utf8`; the slow path names its line). Unless the caller
    scans the bytes for those (``known_single_spaced``), every field is read to look for them;
    after a scan only the kept columns are built.

    The tables are allocated from :func:`~irmeasures_ext._arrow.memory.table_pool`.
    """
    value_type = pa.float64() if layout.kind == 'run' else pa.string()
    kept = tuple(layout.schema.names)
    read = kept if known_single_spaced else layout.fields
    types = {name: value_type if name == layout.value else pa.string() for name in read}
    try:
        table = _read_csv(open_stream, layout, types)
        for name, data_type in types.items():
            if data_type == pa.string():
                for strings in (chunk for chunk in table[name].chunks if len(chunk)):
                    if not ac.min_length(strings) or (not known_single_spaced and _holds_separator(strings)):
                        return None  # (an empty field: two spaces in a row)
                    if name == 'query_id' and _one_starts_with_hash(strings):
                        return None  # (a '#' line, which the slow path refuses)
                    _validate_utf8(strings)
        for name in kept:  # integers: Arrow's cast also reads 0x1F, so digits and '-' only
            if layout.schema.field(name).type == pa.int64():
                column = table[name]
                if all(_digits_and_minus_only(chunk) for chunk in column.chunks if len(chunk)):
                    column = ac.cast(column, pa.int64())
                elif name == 'relevance' and all(_levels_only(chunk) for chunk in column.chunks if len(chunk)):
                    column = ac.cast(_without_level_prefix(column), pa.int64())  # (NTCIREVAL's levels L0, L1, ...)
                elif name == 'relevance':  # real-valued labels (Arrow's float cast reads what SCORE does)
                    column = labels_of(column)
                    if isinstance(column, int):  # (not finite: the slow path names the line)
                        return None
                else:
                    return None
                table = table.set_column(table.schema.get_field_index(name), name, column)
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    return ac.cast_table(table, with_labels_of(layout.schema, table))


def _read_csv(open_stream: Callable[[], pa.NativeFile], layout: Layout, types: dict[str, pa.DataType]) -> pa.Table:
    """pyarrow.csv on single-space fields, building the columns of ``types`` only; read again with
    larger blocks while a line is longer than one (the parser cannot split a line between blocks;
    1 MB by default)."""
    block_size = 1 << 20
    while True:
        try:
            with open_stream() as stream:
                return pacsv.read_csv(
                    stream,
                    read_options=pacsv.ReadOptions(column_names=list(layout.fields), block_size=block_size),
                    parse_options=pacsv.ParseOptions(delimiter=' ', quote_char=False),
                    convert_options=pacsv.ConvertOptions(column_types=types, include_columns=list(types),
                                                         null_values=[], quoted_strings_can_be_null=False,
                                                         strings_can_be_null=False, check_utf8=False),
                    memory_pool=table_pool())  # see _parse's docstring
        except pa.ArrowInvalid as error:
            if 'straddling' not in str(error) or block_size >= 1 << 31:
                raise
            block_size *= 16


def _bytes_of(strings: pa.Array) -> np.ndarray:
    """The bytes of all the strings of ``strings`` (non-empty), concatenated."""
    offsets = np.frombuffer(strings.buffers()[1], np.int32, len(strings) + 1, strings.offset * 4)
    return np.frombuffer(strings.buffers()[2], np.uint8, int(offsets[-1] - offsets[0]), int(offsets[0]))


def _validate_utf8(strings: pa.Array) -> None:
    """ArrowInvalid unless every string of ``strings`` (not all empty) is UTF-8. The bytes are first checked
    for ASCII all at once; Arrow validates string by string only if one is not. In place of the reader's
    own check (``check_utf8``), which validates every string."""
    if _bytes_of(strings).max() >= 0x80:
        strings.validate(full=True)


def _one_starts_with_hash(strings: pa.Array) -> bool:
    """Whether some string of ``strings`` (none empty) starts with ``#``."""
    offsets = np.frombuffer(strings.buffers()[1], np.int32, len(strings), strings.offset * 4)
    return bool((np.frombuffer(strings.buffers()[2], np.uint8)[offsets] == 0x23).any())


def _holds_separator(strings: pa.Array) -> bool:
    """Whether a tab, \v or \f is in some string of ``strings``."""
    data = _bytes_of(strings)
    return bool(np.any((data == 0x09) | ((data >= 0x0B) & (data <= 0x0C))))


def _levels_only(strings: pa.Array) -> bool:
    """Whether every string of ``strings`` is an NTCIREVAL level, ``L`` and digits."""
    offsets = np.frombuffer(strings.buffers()[1], np.int32, len(strings) + 1, strings.offset * 4)
    data = _bytes_of(strings)
    first = offsets[:-1] - offsets[0]
    is_digit = (data >= 0x30) & (data <= 0x39)
    leading = np.zeros(len(data), dtype=bool)
    leading[first[offsets[1:] > offsets[:-1]]] = True
    return bool(np.all(np.diff(offsets) >= 2) and np.all(data[leading] == 0x4C) and np.all(is_digit | leading))


def _without_level_prefix(levels: pa.ChunkedArray) -> pa.ChunkedArray:
    """NTCIREVAL levels (``L2``) without their ``L`` (``2``)."""
    return ac.slice_from(levels, 1)


def _digits_and_minus_only(strings: pa.Array) -> bool:
    data = _bytes_of(strings)
    return bool(np.all(((data >= 0x30) & (data <= 0x39)) | (data == 0x2D)))

#: Per byte value: 1 for a field separator (space, tab, \v, \f), 2 for a line end (\n, \r).
_BYTE_CLASS = np.zeros(256, dtype=np.uint8)
_BYTE_CLASS[[0x20, 0x09, 0x0B, 0x0C]] = 1
_BYTE_CLASS[[0x0A, 0x0D]] = 2


def normalise(block: bytes, max_fields: int | None) -> bytes:
    """``block`` (whole lines) with single spaces between fields, ``\\n`` line ends, no blanks at either
    end of a line, and only the first ``max_fields`` fields of each line when given."""
    data = np.frombuffer(block, np.uint8)
    kind = _BYTE_CLASS[data]
    separator, line_end = kind == 1, kind == 2
    after_blank = np.empty(len(data), dtype=bool)  # a separator after a separator, a line end or the start
    after_blank[:1] = True
    np.logical_or(separator[:-1], line_end[:-1], out=after_blank[1:])
    keep = ~(separator & after_blank)
    data, separator, line_end = data[keep], separator[keep], line_end[keep]
    before_end = np.empty(len(data), dtype=bool)  # the one separator left of a run, before a line end
    before_end[-1:] = True
    before_end[:-1] = line_end[1:]
    keep = ~(separator & before_end)
    data, separator, line_end = data[keep], separator[keep], line_end[keep]
    data[separator] = 0x20
    data[line_end] = 0x0A
    if max_fields is not None:
        count = np.cumsum(separator)
        field = count - np.maximum.accumulate(np.where(line_end, count, 0))
        data = data[field < max_fields]
    return data.tobytes()
