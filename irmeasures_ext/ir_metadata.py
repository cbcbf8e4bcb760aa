"""ir_metadata (Breuer et al., "ir_metadata: An Extensible Metadata Schema for IR Experiments", SIGIR 2022;
https://www.ir-metadata.org): what a run says of the experiment that made it, read and written.

A TREC run file carries it as a block of ``#`` lines at its top, ``# ir_metadata.start``, YAML lines each after
``# ``, ``# ir_metadata.end`` (the reader's grammar: :mod:`irmeasures_ext.readers.trec`, which reads the file as if
the block were absent); a Parquet or Arrow IPC run carries the same YAML text in its schema's metadata, under the key
``ir_metadata``. :func:`read_metadata` reads it, :func:`write_run` writes a run with it, :func:`metadata_block`
formats the block (the command's reports carry it too: ``--metadata FILE``; Markdown reports in an HTML comment,
:func:`metadata_comment`).

A run written here does not take the metadata of the run it was made from unless it is given: a run cut, filtered or
fused is another run, which the metadata of its source could misdescribe (``write_run(run, path,
read_metadata(run))`` keeps it on purpose).
"""
from __future__ import annotations

import contextlib
import functools
import os
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TypeAlias

from irmeasures_ext.errors import MetadataError, RunWriteError, check_flag
from irmeasures_ext.files import check_target, written_beside

if TYPE_CHECKING:
    import pyarrow as pa

    from irmeasures_ext.readers.forms import RunLike

#: A mapping of metadata, or the path of a YAML file holding one.
MetadataLike: TypeAlias = 'Mapping[str, Any] | str | os.PathLike[str]'
#: Characters a query id, doc id or tag of a TREC file cannot hold (they separate fields and lines).
_BLANKS = r'[ \t\v\f\r\n]'
#: What Python reads a file name's bytes that are not UTF-8 as.
_SURROGATE = re.compile('[\ud800-\udfff]')
#: Rows written at once to a TREC file.
_ROWS = 1 << 20
#: YAML lines as long as their values (PyYAML folds longer ones; repro_eval writes them so too).
_YAML_WIDTH = 4096
#: What a string is written double-quoted for: the characters YAML 1.1 reads as line breaks beside \n and \r, which
#: PyYAML writes as they are in plain and single-quoted scalars (a reader then folds them into spaces) and escapes in
#: double quotes; and the ends of an HTML comment, whose ``>`` :func:`metadata_comment` escapes.
_DOUBLE_QUOTED = re.compile('[\x85\u2028\u2029]|--!?>')
#: The ``>`` of an end of an HTML comment (``-->``, ``--!>``).
_COMMENT_END = re.compile('(?<=--)>|(?<=--!)>')


def read_metadata(run: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The ir_metadata of the run file ``run`` (TREC, plain or compressed; Parquet; Arrow IPC): the YAML mapping of a
    TREC file's ``# ir_metadata.start`` block, or of a Parquet or Arrow file's schema metadata key ``ir_metadata``;
    None when it has none. MetadataError (an InputError) naming the line of YAML that cannot be read; for a file
    the TREC reader refuses as not text (a Parquet file named ``.txt``), its TrecFileError (an InputError) saying
    what the file is."""
    from irmeasures_ext.readers.columnar import ColumnarSource
    from irmeasures_ext.readers.schemas import RUN
    from irmeasures_ext.readers.source import open_file
    from irmeasures_ext.readers.trec import TrecSource
    if not isinstance(run, (str, os.PathLike)):
        raise MetadataError(f'read_metadata reads a run file: give its path, not a {type(run).__name__} (a run in '
                            'memory carries no ir_metadata)')
    source = open_file(run)
    if isinstance(source, TrecSource):
        if source.header is None and source.not_text() is not None:
            source.read(RUN)  # (raises the reader's error for a file that is not text; one it reads has no metadata)
        return None if source.header is None else source.header.metadata
    assert isinstance(source, ColumnarSource)  # (the formats are TREC, Parquet and Arrow)
    return source.metadata


def load_metadata(metadata: MetadataLike) -> dict[str, Any]:
    """``metadata`` as a dict: a mapping's copy, or the mapping a YAML file holds (MetadataError naming the file and
    line of a problem; or what was given, if neither)."""
    if isinstance(metadata, Mapping):
        return dict(metadata)
    if not isinstance(metadata, (str, os.PathLike)):
        raise MetadataError('the metadata must be a mapping (a dict) or the path of a YAML file holding one; got a '
                            f'value of type {type(metadata).__name__}')
    from irmeasures_ext.readers.trec import parse_metadata
    try:
        data = Path(metadata).read_bytes()
    except FileNotFoundError:
        raise MetadataError(f'{metadata}: no such file') from None
    except OSError as error:
        raise MetadataError(f'{metadata}: cannot read: {error.strerror or error}') from None
    return parse_metadata(data.removeprefix(b'\xef\xbb\xbf'), str(metadata))  # (a BOM opening the file dropped)


def metadata_block(metadata: MetadataLike, comment: str = '#') -> str:
    """The ir_metadata block of ``metadata`` (a mapping, or a YAML file's path): ``# ir_metadata.start``, the YAML
    (as PyYAML writes it, keys in their order) one line after each ``# ``, ``# ir_metadata.end``, each line ended by
    ``\\n``; ``comment`` replaces ``#`` (``%`` for LaTeX)."""
    return _block(_yaml_of(load_metadata(metadata)), comment)


def metadata_comment(metadata: MetadataLike) -> str:
    """The ir_metadata block of ``metadata`` (:func:`metadata_block`) in an HTML comment, for Markdown: the ``>`` of
    ``-->`` or ``--!>`` in a string (which is double-quoted) written ``\\x3E``, which YAML reads back as ``>``, so
    that the comment ends at its last line only."""
    return '<!--\n' + _COMMENT_END.sub(r'\\x3E', metadata_block(metadata)) + '-->\n'


def _block(text: str, comment: str) -> str:
    """The block of the YAML ``text`` (:func:`metadata_block`)."""
    lines = [f'{comment} {line}' if line else comment for line in text.removesuffix('\n').split('\n')]
    return ''.join(f'{line}\n' for line in [f'{comment} ir_metadata.start', *lines, f'{comment} ir_metadata.end'])


def write_run(run: RunLike, path: str | os.PathLike[str], metadata: MetadataLike | None = None, *,
              tag: str | None = None, overwrite: bool = False) -> None:
    """Writes ``run`` (any form the readers read: a file, a DataFrame, a dict, ...) to ``path``: a TREC
    file, ``qid Q0 docid rank score tag`` (gzip, bzip2 or xz for a name ending ``.gz``, ``.bz2``, ``.xz``), or, for a
    name ending ``.parquet`` (``.arrow``, ``.feather``, ``.ipc``), a Parquet (Arrow IPC) file of columns query_id,
    doc_id, rank and score.

    Queries come in the order they first appear; each query's docs are ranked 1, 2, ... by score descending (as
    float64; trec_eval, evaluating, compares them as float32), then doc id descending (byte order); the run's own
    ranks are not kept. Scores are written as the shortest decimals that read back as the same float64. With
    ``metadata`` (a mapping, or a YAML file's path) a TREC file opens with its ir_metadata block
    (:func:`metadata_block`) and a Parquet or Arrow file's schema metadata holds its YAML under ``ir_metadata``; the
    run's own metadata is not carried over unless given (``read_metadata(run)``). ``tag`` is a TREC line's last field
    (default: the metadata's ``tag``, else the file's name up to its first dot). A gzipped file has no time in its
    header: the same run gives the same bytes.

    The run is checked as an evaluation checks it (a non-finite score, a doc twice in a query: InputError naming the
    line); an id a TREC file cannot hold (empty, holding a blank, a query id starting with ``#`` or U+FEFF) is a
    RunWriteError.
    An existing file is replaced only with ``overwrite``, and only by a complete one: the run is written to a new
    file beside ``path``, then renamed onto it; on any failure ``path`` is as it was."""
    with run_writer(path, metadata, tag=tag, overwrite=overwrite) as write:
        write(run)


@contextlib.contextmanager
def run_writer(path: str | os.PathLike[str], metadata: MetadataLike | None = None, *, tag: str | None = None,
               overwrite: bool = False) -> Iterator[Callable[[RunLike], None]]:
    """:func:`write_run` part by part: gives a function that appends a run's queries to the file (each part checked
    and ranked as :func:`write_run` does it; parts written in turn give the file :func:`write_run` writes of them
    together when no query is in two of them: a RunWriteError otherwise). The file at ``path`` is replaced (or made)
    when the ``with`` block ends without an error, and only then."""
    path = Path(path)
    file_format, text, tag = _target(path, metadata, tag, overwrite)
    with written_beside(path, lambda: _check_target(path, overwrite), RunWriteError, 'the run') as file, \
            _appender(file, path, file_format, text, tag) as append:
        yield _checked_parts(append, path)


def check_run_target(path: str | os.PathLike[str], metadata: MetadataLike | None = None, *, tag: str | None = None,
                     overwrite: bool = False) -> None:
    """What :func:`write_run` checks before it reads the run, for checking it before long work (the command's
    ``fuse``): a file can be written at ``path`` (RunWriteError), ``metadata`` can be read and written as YAML
    (MetadataError), and a TREC file's tag is one field (RunWriteError)."""
    _target(Path(path), metadata, tag, overwrite)


def _target(path: Path, metadata: MetadataLike | None, tag: str | None, overwrite: bool) \
        -> tuple[str, str | None, str | None]:
    """:func:`check_run_target`'s checks; the format of ``path``, the YAML text of ``metadata`` (None without it) and
    the tag of a TREC file's lines (None for another format)."""
    from irmeasures_ext.readers.source import format_of
    _check_target(path, overwrite)
    file_format = format_of(path)
    given = None if metadata is None else load_metadata(metadata)
    text = None if given is None else _yaml_of(given)
    if tag is not None:
        _check_tag_given(tag, given, path, file_format)
    return file_format, text, _tag(tag, given, path) if file_format == 'trec' else None


def _checked_parts(append: Callable[[pa.Table], None], path: Path) -> Callable[[RunLike], None]:
    """A function reading a part of a run, checking it (and that none of its queries was in an earlier part),
    ranking it and appending it with ``append``."""
    from irmeasures_ext.engine.ranking import check_run
    from irmeasures_ext.readers.inputs import read_input
    written: set[str] = set()

    def write(run: RunLike) -> None:
        import pyarrow.compute as pc
        read = read_input(run, 'run')
        with read.located():
            check_run(read.table)
        queries = set(pc.unique(read.table['query_id']).to_pylist())
        if again := sorted(queries & written):
            raise RunWriteError(f'{path}: query {again[0]!r} is in two parts of the run written; give each query '
                                'in one part')
        written.update(queries)
        append(_ranked(read.table))

    return write


def _check_target(path: Path, overwrite: bool) -> None:
    """RunWriteError unless a run can be written at ``path`` (:func:`~irmeasures_ext.files.check_target`)."""
    check_flag('overwrite', overwrite, RunWriteError)
    check_target(path, overwrite, RunWriteError, 'the run', 'overwrite=True (--overwrite on the command line)')


def _ranked(table: pa.Table) -> pa.Table:
    """``(query_id, doc_id, rank, score)`` of a run's rows: queries in the order they first appear, each one's docs
    by score descending (as float64), then doc id descending, ranked 1, 2, ..."""
    import numpy as np
    import pyarrow as pa
    import pyarrow.compute as pc
    table = table.combine_chunks()
    query = pc.dictionary_encode(table['query_id']).combine_chunks().indices  # (codes by first appearance)
    keys = pa.table({'query': query, 'score': table['score'], 'doc_id': table['doc_id']})
    order = pc.sort_indices(keys, [('query', 'ascending'), ('score', 'descending'), ('doc_id', 'descending')])
    table = table.take(order)
    codes = query.take(order).to_numpy()
    positions = np.arange(len(codes))
    starts = np.maximum.accumulate(np.where(np.diff(codes, prepend=-1) != 0, positions, 0))
    return pa.table({'query_id': table['query_id'], 'doc_id': table['doc_id'], 'rank': positions - starts + 1,
                     'score': table['score']})


def _tag(tag: str | None, metadata: dict[str, Any] | None, path: Path) -> str:
    """The tag of a TREC file's lines: ``tag``, else the metadata's, else the file's name up to its first dot."""
    if tag is None:
        tag = str(metadata['tag']) if metadata and metadata.get('tag') is not None else path.name.split('.')[0]
    if not _is_field(tag):
        raise RunWriteError(f'{path}: tag {tag!r} is not one field of a TREC line (empty, holding a blank, or bytes '
                            'of a file name that are not UTF-8); give tag=... (--tag on the command line)')
    return tag


def _check_tag_given(tag: object, metadata: dict[str, Any] | None, path: Path, file_format: str) -> None:
    """RunWriteError unless ``tag`` is a str, for a TREC file, and the metadata's tag where that could be a line's
    (one that cannot, as ``a b``, the tag given stands for)."""
    if not isinstance(tag, str):
        raise RunWriteError(f'{path}: tag must be a str, got {type(tag).__name__} {tag!r}')
    if file_format != 'trec':
        article = 'an' if file_format == 'arrow' else 'a'
        raise RunWriteError(f'{path}: {article} {file_format.capitalize()} run has no tag: tag=... (--tag) names the '
                            "run of a TREC file's lines; leave it out, or write a TREC file")
    theirs = None if not metadata or metadata.get('tag') is None else str(metadata['tag'])
    if theirs is not None and theirs != tag and _is_field(theirs):
        raise RunWriteError(f"{path}: tag {tag!r} is not the metadata's tag {theirs!r}: the lines would name one run "
                            'and the block another; give one of them, or the same')


def _is_field(tag: str) -> bool:
    """Whether ``tag`` can be one field of a TREC line: not empty, no blank, no bytes of a file name that are not
    UTF-8."""
    return bool(tag) and not re.search(_BLANKS, tag) and not _SURROGATE.search(tag)


@contextlib.contextmanager
def _appender(file: IO[bytes], path: Path, file_format: str, text: str | None, tag: str | None) \
        -> Iterator[Callable[[pa.Table], None]]:
    """A function appending ranked tables to ``file`` in ``path``'s format: TREC lines (``tag`` given; after the
    block of the YAML ``text``, if any; compressed as ``path``'s suffix says), else a Parquet file (in row groups of
    :data:`_ROWS` rows, however the tables come) or an Arrow IPC file, the YAML ``text`` (if any) under the schema
    metadata key ``ir_metadata``."""
    import pyarrow as pa

    from irmeasures_ext.readers.columnar import SCHEMA_KEY
    if tag is not None:
        with _compressed(file, path) as out:
            if text is not None:
                out.write(_block(text, '#').encode('utf-8'))
            yield lambda table: _write_lines(out, table, path, tag)
        return
    schema = pa.schema([('query_id', pa.string()), ('doc_id', pa.string()), ('rank', pa.int64()),
                        ('score', pa.float64())], metadata=None if text is None else {SCHEMA_KEY: text})
    if file_format != 'parquet':
        with pa.ipc.new_file(file, schema) as writer:
            yield lambda table: writer.write_table(table.cast(schema))
        return
    import pyarrow.parquet as pq
    pending = schema.empty_table()
    full_groups = 0
    with pq.ParquetWriter(file, schema) as writer:
        def append(table: pa.Table) -> None:
            nonlocal pending, full_groups
            pending = pa.concat_tables([pending, table.cast(schema)])
            while pending.num_rows >= _ROWS:  # (a row group written whole once it is full)
                writer.write_table(pending.slice(0, _ROWS).combine_chunks())
                pending, full_groups = pending.slice(_ROWS), full_groups + 1
        yield append
        if pending.num_rows or not full_groups:  # (the rest; an empty run: one empty row group, as pq.write_table)
            writer.write_table(pending.combine_chunks())


def _write_lines(out: IO[bytes], table: pa.Table, path: Path, tag: str) -> None:
    """The TREC lines of ``table`` (ranked), :data:`_ROWS` at a time."""
    import pyarrow as pa
    import pyarrow.compute as pc
    _check_ids(table, path)
    for start in range(0, table.num_rows, _ROWS):
        rows = table.slice(start, _ROWS)
        for piece in _texts(pc.binary_join_element_wise(
                rows['query_id'], 'Q0', rows['doc_id'], pc.cast(rows['rank'], pa.string()),
                pc.cast(rows['score'], pa.string()), f'{tag}\n', ' ')):
            out.write(piece)


def _compressed(file: IO[bytes], path: Path) -> contextlib.AbstractContextManager[Any]:
    """``file``, written through gzip, bzip2 or xz when ``path``'s name ends .gz, .bz2 or .xz (closing it leaves
    ``file`` open)."""
    import bz2
    import gzip
    import lzma
    suffix = path.suffix.lower()
    if suffix == '.gz':
        # (the name, not the temporary one, in its header, and no time: the same run gives the same bytes)
        return gzip.GzipFile(path.name, mode='wb', fileobj=file, mtime=0)
    if suffix == '.bz2':
        return bz2.BZ2File(file, mode='wb')
    if suffix == '.xz':
        return lzma.LZMAFile(file, mode='wb')
    return contextlib.nullcontext(file)


def _texts(strings: pa.ChunkedArray) -> Iterator[memoryview]:
    """The bytes of the strings of ``strings``, one piece per chunk."""
    import numpy as np
    for chunk in strings.chunks:
        if len(chunk):
            bounds = np.frombuffer(chunk.buffers()[1], np.int32, len(chunk) + 1, chunk.offset * 4)
            yield memoryview(chunk.buffers()[2])[int(bounds[0]):int(bounds[-1])]


def _check_ids(table: pa.Table, path: Path) -> None:
    """RunWriteError naming the first id a TREC line cannot hold: empty, holding a blank, a query id starting with
    ``#`` (the reader takes such a line for a comment) or U+FEFF (at the file's first line, or the first after its
    block, the reader takes it for a byte order mark)."""
    import pyarrow.compute as pc
    for column, pattern in (('query_id', f'^$|^#|^\ufeff|{_BLANKS}'), ('doc_id', f'^$|{_BLANKS}')):
        bad = pc.match_substring_regex(table[column], pattern)
        if pc.any(bad).as_py():
            row = pc.index(bad, True).as_py()
            what = 'query id' if column == 'query_id' else f'doc id of query {table["query_id"][row].as_py()!r}'
            raise RunWriteError(f'{path}: {what} {table[column][row].as_py()!r} cannot be a field of a TREC line '
                                '(empty, holding a blank, or a query id starting with "#" or U+FEFF): write a '
                                'Parquet file (a name ending .parquet) instead')


def _yaml_of(metadata: dict[str, Any]) -> str:
    """``metadata`` as PyYAML's safe dumper writes it (:func:`_dumper`), keys in their order; MetadataError for a
    value YAML has no form for, naming where it is (:func:`_where`)."""
    import yaml  # type: ignore[import-untyped]  # (PyYAML, an ir_datasets dependency)

    from irmeasures_ext.readers.trec import parse_metadata
    try:
        text = yaml.dump(metadata, Dumper=_dumper(), sort_keys=False, allow_unicode=True, width=_YAML_WIDTH)
    except RecursionError:
        raise MetadataError('the metadata cannot be written as YAML: it is nested too deep') from None
    except yaml.representer.RepresenterError as error:  # (args: a message, the object)
        value = error.args[-1]
        kind = type(value).__qualname__
        if type(value).__module__ != 'builtins':
            kind = f'{type(value).__module__}.{kind}'
        raise MetadataError(f'the metadata cannot be written as YAML: {_where(metadata, value)} is {value!r}, of type '
                            f'{kind}, which YAML has no form for: give a str, int, float, bool, None, date, list or '
                            'dict') from None
    except yaml.YAMLError as error:
        raise MetadataError(f'the metadata cannot be written as YAML: {" ".join(str(error).split())}') from None
    try:  # (what no reader could read is not written: a lone surrogate, a key YAML writes that no reader can hash)
        parse_metadata(text, 'the metadata as written')
    except MetadataError as error:
        raise MetadataError(f'the metadata cannot be written as YAML that reads back: {error}') from None
    return text


def _where(metadata: dict[str, Any], value: object) -> str:
    """Where the object ``value`` is first in the mappings and lists of ``metadata``, as the dumper meets it: ``the
    key K in PATH`` or ``the value at PATH``, a key path (``['method']['retrieval'][0]``); ``a value`` if it is in
    none."""
    seen: set[int] = set()

    def search(data: Any, path: str) -> str | None:
        if id(data) in seen:  # (a structure holding itself)
            return None
        seen.add(id(data))
        pairs = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, (list, tuple)) else ()
        for key, item in pairs:
            if isinstance(data, dict) and key is value:
                return f'the key {key!r} in {path or "the top mapping"}'
            if item is value:
                return f'the value at {path}[{key!r}]'
            if (found := search(item, f'{path}[{key!r}]')) is not None:
                return found
        return None

    return search(metadata, '') or 'a value'


@functools.cache
def _dumper() -> Any:
    """PyYAML's safe dumper, writing a string that :data:`_DOUBLE_QUOTED` finds in double quotes, and quoting one that
    YAML 1.1 or 1.2 reads as a boolean or a number (:func:`~irmeasures_ext.readers.yaml_schema.quoting_both`); a
    subclass of str, dict or list as its base, and a numpy bool or real number as the Python value it holds."""
    import numpy as np
    import yaml

    from irmeasures_ext.readers.yaml_schema import quoting_both

    class Dumper(yaml.SafeDumper):
        def represent_str(self, data: str) -> Any:
            return self.represent_scalar('tag:yaml.org,2002:str', data,
                                         style='"' if _DOUBLE_QUOTED.search(data) else None)

        def represent_numpy(self, data: np.bool_ | np.number) -> Any:
            value = data.item()  # (a longdouble's is a longdouble, a complex number's a complex: no form in YAML)
            if not isinstance(value, (bool, int, float)) or isinstance(value, np.generic):
                raise yaml.representer.RepresenterError('cannot represent an object', data)
            return self.represent_data(value)

    Dumper.add_representer(str, Dumper.represent_str)
    for kind, represent in ((str, Dumper.represent_str), (dict, Dumper.represent_dict),
                            (list, Dumper.represent_list)):  # (their subclasses too: an OrderedDict, a defaultdict)
        Dumper.add_multi_representer(kind, represent)
    Dumper.add_multi_representer(np.bool_, Dumper.represent_numpy)
    Dumper.add_multi_representer(np.number, Dumper.represent_numpy)
    return quoting_both(Dumper)
