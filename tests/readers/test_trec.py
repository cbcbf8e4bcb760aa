"""The TREC reader: one grammar on every path (fast, normalised, line by line), trec_eval's layout rules."""
import bz2
import gzip
import io
import lzma
import math
import os
import re
import threading
import warnings

import ir_measures
import pyarrow as pa
import pyarrow.csv as pacsv
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irmeasures_ext
from irmeasures_ext._arrow import memory
from irmeasures_ext.readers import trec
from irmeasures_ext.readers.trec import SCORE, TrecFileError, TrecSource, normalise, read_qrels, read_run

NUMBER_ALPHABET = '0123456789+-.eEinfatyINFATY()_x ١１'


def arrow_reads(text: str, value_type: pa.DataType) -> object:
    """What pyarrow.csv itself makes of one field as ``value_type`` (None if it refuses it)."""
    try:
        table = pacsv.read_csv(io.BytesIO(text.encode() + b'\n'), read_options=pacsv.ReadOptions(column_names=['v']),
                               parse_options=pacsv.ParseOptions(delimiter=' ', quote_char=False),
                               convert_options=pacsv.ConvertOptions(column_types={'v': value_type}, null_values=[],
                                                                    strings_can_be_null=False))
    except (pa.ArrowInvalid, pa.ArrowTypeError):
        return None
    return table['v'][0].as_py() if table.num_rows == 1 else None


@settings(max_examples=600, deadline=None)
@given(st.text(NUMBER_ALPHABET, min_size=1, max_size=8).filter(lambda t: ' ' not in t))
def test_score_grammar_is_exactly_what_arrow_reads(text):
    """The line-by-line reader refuses exactly the scores the fast path refuses (one grammar)."""
    accepted = trec.SCORE.fullmatch(text.encode()) is not None
    assert accepted == (arrow_reads(text, pa.float64()) is not None), text
    if accepted and text.strip('+-').lower()[:1] in '0123456789.':
        assert arrow_reads(text, pa.float64()) == float(text)  # the decimal value strtod reads too


@settings(max_examples=300, deadline=None)
@given(st.text('0123456789+-x.e ١', min_size=1, max_size=22).filter(lambda t: ' ' not in t))
def test_label_grammar_is_decimal_digits_within_int64_or_a_real_number(tmp_path_factory, text):
    """Integer labels as trec_eval reads them; any other number a score could be is a real-valued label (an
    integer if whole); anything else an error naming the line."""
    path = tmp_path_factory.mktemp('labels') / 'qrels'
    path.write_text(f'q 0 d {text}\n', encoding='utf-8')
    if re.fullmatch('-?[0-9]+', text):
        expected = int(text) if -2 ** 63 <= int(text) < 2 ** 63 else None
    elif SCORE.fullmatch(text.encode()) and math.isfinite(trec.score_value(text.encode())):  # (nan(...): NaN)
        expected = float(text)
        if expected.is_integer() and abs(expected) < 2 ** 63:
            expected = int(expected)
    else:
        expected = None
    if expected is None:
        problem = '(is not a number|is not finite|is out of range)'
        with pytest.raises(TrecFileError, match=rf'{path}:1: relevance .* {problem}'):
            read_qrels(path)
    else:
        read = read_qrels(path)['relevance']
        assert read.to_pylist() == [expected] and read.type == (pa.int64() if isinstance(expected, int) else
                                                               pa.float64())


def reference_fields(text: str) -> list[list[str]]:
    """Fields of each non-blank line: lines end at \\n, \\r\\n or \\r; fields split on [ \\t\\v\\f]+."""
    text = text.removeprefix('\ufeff')
    return [fields for line in re.split(r'\r\n|\r|\n', text) if (fields := re.split(r'[ \t\v\f]+', line.strip(
        ' \t\v\f')))[0]]


ID_CHARACTERS = 'abQ019_-.\u00a0\u3000\x1c\x85é'
SEPARATORS = [' ', '  ', '\t', ' \t ', '\x0b', '\x0c']
LINE_ENDS = ['\n', '\r\n', '\r']


@st.composite
def run_files(draw) -> tuple[str, list[tuple[str, str, float]]]:
    """A run file in a random layout, and the (query, doc, score) of its lines."""
    rows, lines = [], []
    for _ in range(draw(st.integers(1, 8))):
        query_id = draw(st.text(ID_CHARACTERS, min_size=1, max_size=4))
        doc_id = draw(st.text(ID_CHARACTERS, min_size=1, max_size=6))
        score = draw(st.sampled_from([0.5, -2.0, 1e-07, 12.664297, 3.0]))
        fields = [query_id, 'Q0', doc_id, '1', repr(score), 'tag'] + draw(st.lists(st.sampled_from(['x', 'extra']),
                                                                                   max_size=2))
        separators = [draw(st.sampled_from(SEPARATORS)) for _ in fields[1:]]
        line = ''.join(field + separator for field, separator in zip(fields, separators + [''], strict=True))
        lines.append(draw(st.sampled_from(['', ' ', '\t'])) + line + draw(st.sampled_from(['', ' ', '\t'])))
        rows.append((query_id, doc_id, score))
        if draw(st.booleans()):
            lines.append(draw(st.sampled_from(['', '  ', '\t'])))  # a blank line
    ends = [draw(st.sampled_from(LINE_ENDS)) for _ in lines]
    text = draw(st.sampled_from(['', '\ufeff'])) + ''.join(line + end for line, end in zip(lines, ends, strict=True))
    return text, rows


#: How a file may be compressed: its name's suffix, and the compressor (bz2 and xz: issue 39 §4, they were read
#: as text: "expected 6 fields, got 2").
COMPRESSIONS = {'none': ('', lambda raw: raw), 'gzip': ('.gz', gzip.compress), 'bz2': ('.bz2', bz2.compress),
                'xz': ('.xz', lzma.compress)}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(run_files(), st.sampled_from(sorted(COMPRESSIONS)))
def test_every_layout_reads_as_the_reference_split(tmp_path, data, compression):
    text, rows = data
    suffix, compress = COMPRESSIONS[compression]
    path = tmp_path / f'run{suffix}'
    path.write_bytes(compress(text.encode('utf-8')))
    expected = [(fields[0], fields[2], float(fields[4])) for fields in reference_fields(text)]
    assert expected == rows  # the generator and the reference agree on what the lines hold
    table = read_run(path)
    assert list(zip(*(table[name].to_pylist() for name in ('query_id', 'doc_id', 'score')), strict=True)) == rows


def test_fields_split_on_ascii_blanks_only(tmp_path):
    """U+00A0, U+3000 and \\x1c are part of a doc id on every path, with or without a tab in the file."""
    doc = 'a\u00a0b\u3000c\x1cd'
    single = tmp_path / 'single'
    single.write_text(f'q1 Q0 {doc} 1 9 t\nq1 Q0 c 2 5 t\n', encoding='utf-8')
    tabbed = tmp_path / 'tabbed'
    tabbed.write_text(f'q1 Q0 {doc} 1 9 t\nq1\tQ0 c 2 5 t\n', encoding='utf-8')
    assert read_run(single)['doc_id'].to_pylist() == read_run(tabbed)['doc_id'].to_pylist() == [doc, 'c']


def test_a_line_of_blanks_is_skipped_not_a_query(tmp_path):
    path = tmp_path / 'qrels'
    path.write_text('q1 0 d1 1\n   \n\t\nq2 0 d2 0\n', encoding='utf-8')
    assert read_qrels(path)['query_id'].to_pylist() == ['q1', 'q2']


def test_two_spaces_make_an_empty_field_which_is_refused(tmp_path):
    path = tmp_path / 'qrels'
    path.write_text('q1 0 d1 1\nq1 0  1\n', encoding='utf-8')
    with pytest.raises(TrecFileError, match=f'{path}:2: expected 4 fields'):
        read_qrels(path)


@pytest.mark.parametrize('gzipped', [False, True])
def test_blanks_single_spaces_would_hide_are_found_in_plain_and_gzipped_files(tmp_path, gzipped):
    """Lines that split on single spaces into six fields, one of them empty or holding a tab: read as
    trec_eval splits them, whether the bytes are scanned (plain) or every field is read (gzip)."""
    path = tmp_path / ('run.gz' if gzipped else 'run')

    def write(text: str) -> None:
        path.write_bytes(gzip.compress(text.encode()) if gzipped else text.encode())

    write('q Q0 a 1 2 t\nq Q0 d\t1 0.5 7 x\n')  # single spaces: doc 'd\t1', score 7
    assert read_run(path).to_pydict() == {'query_id': ['q', 'q'], 'doc_id': ['a', 'd'], 'score': [2.0, 0.5]}
    write('q Q0 a 1 2 t\nq  d 1 0.5 t\n')  # no Q0: single spaces make it an empty field
    with pytest.raises(TrecFileError, match=f'{path}:2: expected 6 fields'):
        read_run(path)


def test_normalise_keeps_the_first_fields_of_each_line():
    # \r\n makes two line ends (and an empty line, skipped by the parser).
    assert normalise(b' a\t\tb  c d e f g h\r\n\x0b\n x y\r', 6) == b'a b c d e f\n\n\nx y\n'
    assert normalise(b'a b c d e\n', None) == b'a b c d e\n'
    assert normalise(b'\xef\xbb\xbfq\tx\n', None) == b'\xef\xbb\xbfq x\n'  # a block's BOM is not the file's


def test_normalise_keeps_a_one_byte_first_field_and_drops_a_separator_ending_the_block():
    assert normalise(b'q\tQ0 d\n', None) == b'q Q0 d\n'
    assert normalise(b'a\tb\t', None) == b'a b'  # the file's last line, without a line end


@pytest.mark.parametrize('ends', ['\n', '\r', '\r\n', '\n\r\r\n'])
def test_blocks_are_whole_lines_of_about_the_block_size(tmp_path, monkeypatch, ends):
    """The normalising path's memory: blocks of at most _BLOCK bytes plus the line carried over, each ending a
    line, together the file without its BOM."""
    monkeypatch.setattr(trec, '_BLOCK', 64)  # some lines to a block
    lines = [f'q\tQ0\td{"x" * (i % 7)}\t1\t2\tt' for i in range(200)]
    text = ''.join(line + ends[i % len(ends)] for i, line in enumerate(lines)) + 'q\tQ0\tlast\t1\t1\tt'
    path = tmp_path / 'run'
    path.write_bytes(('\ufeff' + text).encode())
    blocks = list(TrecSource(path)._blocks())
    assert b''.join(blocks) == text.encode()
    assert all(block.endswith((b'\n', b'\r')) for block in blocks[:-1])
    assert max(map(len, blocks)) <= 64 + max(map(len, lines)) + 2


def test_a_tab_separated_qrels_line_of_five_fields_is_refused(tmp_path):
    path = tmp_path / 'qrels'
    path.write_text('q1\t0\td1\t1\nq1\t0\td2\t1\textra\n')
    with pytest.raises(TrecFileError, match=f'{path}:2: expected 4 fields .*, got 5'):
        read_qrels(path)


@pytest.mark.parametrize('data', [b'\xef\xbb\xbf', b'\xef\xbb\xbf\n', b'\xef\xbb\xbf\t\n'])
def test_a_file_of_only_a_bom_has_no_lines(tmp_path, data):
    """An empty run (it retrieves nothing); qrels without a line are an error."""
    path = tmp_path / 'run'
    path.write_bytes(data)
    assert read_run(path).num_rows == 0
    with pytest.raises(TrecFileError, match=f'{path}: no qrels lines'):
        read_qrels(path)


def per_query(qrels, run) -> dict[tuple[str, str], float]:
    return {(metric.query_id, str(metric.measure)): metric.value
            for metric in irmeasures_ext.provider.iter_calc([ir_measures.NumRet, ir_measures.RR], qrels, run)}


@pytest.mark.parametrize('block', [1, 7, 16, 29, 64])
def test_only_the_files_own_bom_is_dropped_at_every_block_boundary(tmp_path, monkeypatch, block):
    """The normalising path reads ``_BLOCK`` bytes at a time: a BOM starting a line mid-file belongs to its
    query id (trec_eval reads bytes) wherever it falls against a block boundary; only the file's is dropped.
    Run and qrels (both tab-separated) get a BOM line at each of over two blocks' consecutive offsets."""
    monkeypatch.setattr(trec, '_BLOCK', block)
    qrels, run = tmp_path / 'qrels', tmp_path / 'run'
    expected = {(query_id, measure): 1.0 for query_id in ('q1', '\ufeffq2', 'q2') for measure in ('NumRet', 'RR')}
    for tabs in ('\t' * pad for pad in range(2 * block + 2)):
        qrels.write_text(f'\ufeffq1\t0\td1\t1{tabs}\n\ufeffq2\t0\te1\t1\nq2\t0\te2\t1\n', encoding='utf-8')
        run.write_text(f'\ufeffq1\tQ0\td1\t1\t1.0\tt{tabs}\n\ufeffq2\tQ0\te1\t1\t1.5\tt\n'
                       'q2\tQ0\te2\t2\t0.5\tt\n', encoding='utf-8')
        assert per_query(qrels, run) == expected, len(tabs)


@pytest.mark.parametrize('block', [1, 7, 16, 64])
def test_a_duplicate_under_a_bom_names_its_line_at_every_block_boundary(tmp_path, monkeypatch, block):
    monkeypatch.setattr(trec, '_BLOCK', block)
    run, bom_q2 = tmp_path / 'run', '\ufeffq2'
    for tabs in ('\t' * pad for pad in range(2 * block + 2)):
        run.write_text(f'q1\tQ0\td1\t1\t1.0\tt{tabs}\n\ufeffq2\tQ0\te1\t1\t1.5\tt\n'
                       '\ufeffq2\tQ0\te1\t2\t0.5\tt\nq2\tQ0\te2\t1\t1\tt\n', encoding='utf-8')
        with pytest.raises(TrecFileError, match=re.escape(f"{run}:3: duplicate doc 'e1' in query {bom_q2!r} "
                                                          '(first at line 2)')):
            per_query({'q1': {'d1': 1}}, run)


@pytest.mark.parametrize('line, problem', [
    (b'q1 0 d1 1_0', "relevance '1_0' is not a number"),
    (b'q1 0 d1 0x1F', "relevance '0x1F' is not a number"),
    (b'q1 0 d1 1e400', "relevance '1e400' is not finite: a label must be a finite number"),
    ('q1 0 d1 \uff11'.encode(), "relevance '\uff11' is not a number"),
    (b'q1 0 d1 9223372036854775808', "relevance '9223372036854775808' is out of range (-9223372036854775808 to "
                                     '9223372036854775807)'),
    (b'q1 0 d\xff 1', 'not valid UTF-8 (invalid start byte)'),
])
def test_bad_qrels_lines_name_file_and_line(tmp_path, line, problem):
    path = tmp_path / 'qrels'
    path.write_bytes(b'q0 0 d0 1\n' * 3 + line + b'\n')
    with pytest.raises(TrecFileError) as error:
        read_qrels(path)
    assert str(error.value) == f'{path}:4: {problem}'


def test_utf8_error_names_its_own_line_far_into_the_file(tmp_path):
    path = tmp_path / 'run'
    path.write_bytes(b''.join(b'q Q0 d%d 1 1 t\n' % i for i in range(3999)) + b'q Q0 \xff 1 1 t\n')
    with pytest.raises(TrecFileError, match=f'{path}:4000: not valid UTF-8'):
        read_run(path)


def test_each_id_must_be_utf8_on_its_own(tmp_path):
    """The two halves of 'é' in two doc ids: their bytes together are UTF-8, each id is not."""
    path = tmp_path / 'run'
    path.write_bytes(b'q Q0 d\xc3 1 2 t\nq Q0 \xa9e 2 1 t\n')
    with pytest.raises(TrecFileError, match=f'{path}:1: not valid UTF-8'):
        read_run(path)
    path.write_bytes(b'q Q0 d 1 2 t\nq Q0 \x80 2 1 t\n')  # the smallest byte that is not ASCII
    with pytest.raises(TrecFileError, match=f'{path}:2: not valid UTF-8'):
        read_run(path)
    path.write_bytes('q Q0 dé 1 2 t\nq Q0 \u3000e 2 1 t\n'.encode())
    assert read_run(path)['doc_id'].to_pylist() == ['dé', '\u3000e']


def test_a_pipe_is_read_once(tmp_path):
    """A FIFO can be read only once: the reader keeps its bytes, also to name a problem's line."""
    fifo = tmp_path / 'fifo'
    os.mkfifo(fifo)

    def feed(text: bytes) -> threading.Thread:
        thread = threading.Thread(target=lambda: fifo.write_bytes(text))
        thread.start()
        return thread

    writer = feed(b'q1 Q0 d1 1 2 t\nq1\tQ0 d2 2 1 t\n')
    assert read_run(fifo)['doc_id'].to_pylist() == ['d1', 'd2']
    writer.join()
    writer = feed(b'q1 Q0 d1 1 2 t\nq1 Q0 d2 2 x t\n')
    with pytest.raises(TrecFileError, match=f"{fifo}:2: score 'x' is not a number"):
        read_run(fifo)
    writer.join()


def test_source_of_bytes_names_itself():
    source = TrecSource.of_bytes(b'q1 Q0 d1 1 nope t\n', '<stdin>')
    with pytest.raises(TrecFileError, match="<stdin>:1: score 'nope' is not a number"):
        source.read(trec.RUN)



@pytest.mark.parametrize(('layout', 'text'), [(trec.RUN, 'q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 1 t\n'),
                                              (trec.RUN, 'q1 Q0 d1 1 2.5 t\r\nq1 Q0 d2 2 1 t\r\n'),
                                              (trec.QRELS, 'q1 0 d1 1\nq1 0 d2 0\n')])
def test_single_spaced_file_builds_only_the_kept_columns(tmp_path, monkeypatch, layout, text):
    """A file in single-space layout takes the fast path: one parse building the kept columns only,
    never the normalising path (both of which would give the same table, slower)."""
    built = []
    read_csv = trec._read_csv
    monkeypatch.setattr(trec, '_read_csv', lambda open_stream, lay, types: built.append(list(types)) or read_csv(
        open_stream, lay, types))
    monkeypatch.setattr(TrecSource, '_read_normalised', lambda self, lay: pytest.fail('normalised'))
    path = tmp_path / layout.kind
    path.write_text(text, encoding='utf-8')
    table = TrecSource(path).read(layout)
    assert built == [list(layout.schema.names)]
    assert table.schema == layout.schema and table.num_rows == 2



def test_space_before_a_carriage_return_is_irregular_in_every_chunk(tmp_path):
    """'q Q0 x 1 2 \\r\\n' has five fields (an error for trec_eval) but six for a parser splitting on
    single spaces; found in a full 1 MB chunk (the scan's buffer then holds no zero byte) as well."""
    lines = [f'q Q0 d{i} {i} {i} t\r\n' for i in range(70_000)]  # over 1 MB
    lines[9] = 'q Q0 x 1 2 \r\n'
    path = tmp_path / 'run'
    path.write_bytes(''.join(lines).encode())
    assert path.stat().st_size > 1 << 20
    with pytest.raises(TrecFileError, match=rf'{path}:10: expected 6 fields .*, got 5'):
        read_run(path)



@pytest.mark.parametrize('end', ['\n', '\r\n', '\r'])
def test_space_starting_a_line_of_five_fields_is_refused(tmp_path, end):
    """' q Q0 b 1 2' is six fields for a parser splitting on single spaces, the first empty: the parse
    refuses the empty query id (the scan does not look for it), and the line is named."""
    path = tmp_path / 'run'
    path.write_bytes(f'q Q0 a 1 1 t{end} q Q0 b 1 2{end}'.encode())
    with pytest.raises(TrecFileError, match=rf'{path}:2: expected 6 fields .*, got 5'):
        read_run(path)


@pytest.mark.parametrize(('before', 'irregularity', 'after'), [
    ('q Q0 x', '  ', '2 t\n'),  # two spaces where the rank is missing
    ('q Q0 x 1 2', ' \n', 'q Q0 last 1 1 t\n'),  # a space after a line missing its tag
    ('q Q0 x 1 2', ' \r\n', 'q Q0 last 1 1 t\r\n'),  # the same before a CRLF line end
    ('q Q0 x 1 1 t', '\n ', 'q Q0 next 1 2\n'),  # a space before a line missing its tag
    ('q Q0 x 1', '  2', ''),  # the same at the end of the file, without a line end
    ('q Q0 x 1 2', ' ', ''),
])
def test_irregular_spacing_straddling_the_scans_chunks_is_found(tmp_path, before, irregularity, after):
    """The fast path scans 1 MB chunks for irregular spacing. Each line here has five fields (an error
    for trec_eval) but six for a parser splitting on single spaces: the irregularity must be seen even
    split across two chunks (or at the file's end), so that the line is refused, naming it."""
    lines = ''.join(f'q Q0 d{i} {i} {i} t\n' for i in range(60_000))  # over 1 MB
    head = lines[:lines.rfind('\n', 0, (1 << 20) - 40) + 1]
    doc = 'x' + 'y' * ((1 << 20) - 1 - len(head) - len(before))  # the irregularity starts at the chunk's last byte
    text = head + before.replace('x', doc) + irregularity + after
    assert text.encode()[(1 << 20) - 1:(1 << 20)] == irregularity[:1].encode()
    path = tmp_path / 'run'
    path.write_bytes(text.encode())
    bad_line = head.count('\n') + 1 + irregularity.startswith('\n')
    with pytest.raises(TrecFileError, match=rf'{path}:{bad_line}: expected 6 fields .*, got 5'):
        read_run(path)


@pytest.mark.parametrize('padding', ['', 'x'])  # the irregularity at an even or at an odd byte offset
@pytest.mark.parametrize(('line', 'bad_line'), [
    ('q Q0 {doc}  2 t\n', 2),  # two spaces where the rank is missing
    ('q Q0 {doc} 1 2 \n', 2),  # a space after a line missing its tag
    ('q Q0 {doc} 1 1 t\n q Q0 next 1 2\n', 3),  # a space before a line missing its tag
])
def test_irregular_spacing_is_found_at_either_byte_parity(tmp_path, padding, line, bad_line):
    """The scan compares byte pairs at even and at odd offsets: a line of five fields that single spaces
    would split into six is refused wherever it starts."""
    path = tmp_path / 'run'
    path.write_bytes(('q Q0 first 1 3 t\n' + line.format(doc='d' + padding)).encode())
    with pytest.raises(TrecFileError, match=rf'{path}:{bad_line}: expected 6 fields .*, got 5'):
        read_run(path)


def test_tables_are_allocated_from_the_table_pool(tmp_path):
    path = tmp_path / 'run'
    path.write_text(''.join(f'q{i % 7} Q0 d{i} {i} {i / 3} tag\n' for i in range(5000)))
    pool = memory.table_pool()
    before = pool.bytes_allocated()
    table = read_run(path)
    assert pool.bytes_allocated() - before >= table.nbytes
    del table
    assert pool.bytes_allocated() == before


def test_table_pool_is_jemalloc_where_arrow_has_it_else_malloc(monkeypatch):
    monkeypatch.setattr(memory, '_table_pool', None)
    assert memory.table_pool().backend_name == 'jemalloc'  # (the Linux wheels have it)

    def unavailable() -> pa.MemoryPool:
        raise NotImplementedError('built without jemalloc')
    monkeypatch.setattr(pa, 'jemalloc_memory_pool', unavailable)
    monkeypatch.setattr(memory, '_table_pool', None)
    assert memory.table_pool().backend_name == 'system'


def test_the_command_line_allocates_tables_with_malloc(monkeypatch):
    monkeypatch.setattr(memory, '_table_pool', None)
    default = pa.default_memory_pool()
    try:
        memory.use_malloc_for_arrow()
        assert memory.table_pool().backend_name == 'system'
        assert pa.default_memory_pool().backend_name == 'system'
    finally:
        pa.set_memory_pool(default)


@pytest.mark.parametrize('separator', [' ', '\t'])  # (the fast path, and the normalising one)
def test_ntcireval_levels_read_as_labels(tmp_path, separator):
    """NTCIREVAL's levels L0, L1, ... (its Dqrels files) are labels 0, 1, ...; on every line or on none."""
    path = tmp_path / 'qrels.txt'
    path.write_text(''.join(separator.join(line) + '\n' for line in [('q', '1', 'a', 'L2'), ('q', '0', 'b', 'L0'),
                                                                      ('q', '2', 'c', 'L13')]), encoding='utf-8')
    assert read_qrels(path).to_pylist() == [{'query_id': 'q', 'doc_id': doc, 'relevance': label}
                                            for doc, label in (('a', 2), ('b', 0), ('c', 13))]
    path.write_text('q 1 a L2\nq 2 b 1\n', encoding='utf-8')
    with pytest.raises(TrecFileError, match=r"qrels.txt:2: relevance '1' is not a level, unlike the first line's: "
                                            r"write NTCIREVAL's levels \(L0, L1, ...\) on every line or on none"):
        read_qrels(path)
    for bad in ('L', 'Lx', 'l2', 'L-1', 'LL2'):
        path.write_text(f'q 1 a L1\nq 2 b {bad}\n', encoding='utf-8')
        with pytest.raises(TrecFileError, match=r'qrels.txt:2: relevance'):
            read_qrels(path)


def test_a_corrupt_xz_stream_raises_on_the_closing_thread(tmp_path):
    """Arrow reads an xz file (through Python's lzma) on its own threads; pyarrow 14 deadlocked when a read there
    raised (a truncated xz run hung 1 in about 30 runs of test_cli's truncated-file test under pyarrow 14). The
    stream ends at the corrupt point instead, and closing it raises the error on the caller's thread."""
    text = ''.join(f'q{i % 7} Q0 d{i * 7919 % 10007} {i} {i * 0.37:.4f} r\n' for i in range(20000)).encode()
    data = lzma.compress(text)
    path = tmp_path / 'run.xz'
    path.write_bytes(data[:len(data) // 2])
    stream = TrecSource(path)._stream()
    read = read_all(stream)
    assert 0 < len(read) < len(text) and text.startswith(read)
    with pytest.raises(EOFError, match='Compressed file ended before the end-of-stream marker was reached'):
        stream.close()
    path.write_bytes(data)
    whole = TrecSource(path)._stream()
    assert read_all(whole) == text
    whole.close()


def read_all(stream: pa.NativeFile) -> bytes:
    """The bytes of a stream of unknown size, read as Arrow's CSV reader does: in blocks until an empty one."""
    blocks = []
    while block := stream.read(1 << 16):
        blocks.append(block)
    return b''.join(blocks)


# --- every error names file, line and problem (issue 45 §3) -----------------------------------------------------------

NAN_SPELLINGS = ['nan', 'NaN', '-nan', '+NAN', 'nan()', 'NaN(123)', 'nan(0x1)', '-NaN(abc_1)']


@pytest.mark.parametrize('label', NAN_SPELLINGS + ['inf', '-Infinity', '1e400'])
def test_a_label_that_is_nan_or_infinite_names_its_line_in_every_spelling(tmp_path, label):
    """strtod's NaN with a payload (``nan()``, ``NaN(123)``) gave a bare "could not convert string to float",
    naming no file or line; every spelling of NaN and infinity is now the same error, on both paths."""
    path = tmp_path / 'qrels.txt'
    problem = ('NaN is not a label (a label must be a finite number)' if math.isnan(float(label.split('(')[0]))
               else 'a label must be a finite number')
    for text in (f'q 0 a 1\nq 0 b {label}\n', f'q 0 a 1\nq\t0\tb\t{label}\n'):  # (fast, normalised)
        path.write_text(text)
        with pytest.raises(TrecFileError) as error:
            read_qrels(path)
        assert str(error.value) == f"{path}:2: relevance '{label}' is not finite: {problem}"


def test_a_nan_payload_is_a_score_as_strtod_reads_it():
    assert all(math.isnan(trec.score_value(label.encode())) for label in NAN_SPELLINGS)
    assert [trec.score_value(text) for text in (b'-inf', b'Infinity', b'.5', b'2.', b'1e3')] == [
        -math.inf, math.inf, 0.5, 2.0, 1000.0]


def zip_of(data: bytes) -> bytes:
    import zipfile
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, 'w') as archive:
        archive.writestr('run.txt', data)
    return buffer.getvalue()


def binary_forms(kind: str) -> dict[str, tuple[bytes, str]]:
    """Files that are not text, as bytes, and what the error says after the file's name."""
    import pyarrow.feather as feather
    import pyarrow.parquet as pq
    table = (pa.table({'query_id': ['q1'], 'doc_id': ['a'], 'score': [1.0]}) if kind == 'run' else
             pa.table({'query_id': ['q1'], 'doc_id': ['a'], 'relevance': [1]}))
    parquet, arrow, stream = pa.BufferOutputStream(), pa.BufferOutputStream(), pa.BufferOutputStream()
    pq.write_table(table, parquet)
    feather.write_feather(table, arrow)
    with pa.ipc.new_stream(stream, table.schema) as writer:
        writer.write_table(table)
    flag = '--format' if kind == 'run' else '--qrels-format'
    text = b'q1 Q0 a 1 1 t\n' if kind == 'run' else b'q1 0 a 1\n'
    return {
        'Parquet': (parquet.getvalue().to_pybytes(), 'this is a Parquet file, not TREC text: name it .parquet, or '
                                                     f'give {flag} parquet on the command line'),
        'Arrow IPC file': (arrow.getvalue().to_pybytes(), 'this is an Arrow IPC (Feather) file, not TREC text: name '
                                                          f'it .arrow, or give {flag} arrow on the command line'),
        'Arrow IPC stream': (stream.getvalue().to_pybytes(), 'this is an Arrow IPC stream, not TREC text: name it '
                                                             f'.arrow, or give {flag} arrow on the command line'),
        'gzipped Parquet': (gzip.compress(parquet.getvalue().to_pybytes()),
                            'this is a Parquet file, compressed with gzip, not TREC text: decompress it, and name it '
                            f'.parquet, or give {flag} parquet on the command line'),
        'zstd': (pa.compress(text, 'zstd', asbytes=True),
                 'this is a zstd-compressed file, which is not read: decompress it (zstd -d), or compress it with '
                 'gzip, bzip2 or xz'),
        'zip': (zip_of(text), 'this is a zip archive, not TREC text: extract it'),
        'binary': (b'\x80\x04\x95' + b'\x00' * 5 + text, 'binary data, not TREC text (a NUL byte at byte 3)'),
    }


@pytest.mark.parametrize('kind', ['run', 'qrels'])
@pytest.mark.parametrize('form', list(binary_forms('run')))
def test_a_file_that_is_not_text_says_so(tmp_path, kind, form):
    """A Parquet file named run.txt gave "expected 6 fields, got 3"; it is said to be one, whole or in pieces.
    (gzip, bzip2 and xz are read whatever the name: test_a_compressed_file_is_known_by_its_bytes.)"""
    data, problem = binary_forms(kind)[form]
    path = tmp_path / f'{kind}.txt'
    path.write_bytes(data)
    read = read_run if kind == 'run' else read_qrels
    with pytest.raises(TrecFileError) as error:
        read(path)
    assert str(error.value) == f'{path}: {problem}'
    if kind == 'run':
        with pytest.raises(TrecFileError) as error:
            list(TrecSource(path).batches(trec.RUN, 64))
        assert str(error.value) == f'{path}: {problem}'


@pytest.mark.parametrize('suffix', ['.txt', '', '.gz', '.zst'])
@pytest.mark.parametrize('compression', ['gzip', 'bz2', 'xz'])
def test_a_compressed_file_is_known_by_its_bytes(tmp_path, compression, suffix):
    path = tmp_path / f'run{suffix}'
    path.write_bytes(COMPRESSIONS[compression][1](b'q1 Q0 a 1 2 t\nq1 Q0 b 2 1 t\n'))
    assert read_run(path)['doc_id'].to_pylist() == ['a', 'b']


def test_text_that_starts_as_a_parquet_file_does_is_still_text(tmp_path):
    """Only a file that is Parquet at both ends is called one: a query named PAR1 is text, its problem named."""
    path = tmp_path / 'run.txt'
    path.write_bytes(b'PAR1 Q0 a 1 2 t\nPAR1 Q0 b 2 x t\nPAR1')
    with pytest.raises(TrecFileError) as error:
        read_run(path)
    assert str(error.value) == f"{path}:2: score 'x' is not a number"
    path.write_bytes(b'PAR1 Q0 a 1 2 t\nPAR1 Q0 b 2 1 t\n')
    assert read_run(path)['query_id'].to_pylist() == ['PAR1', 'PAR1']


@pytest.mark.parametrize('suffix,opener', [('.gz', gzip.open), ('.bz2', bz2.open), ('.xz', lzma.open)])
def test_a_compressed_file_read_every_way_is_closed_after(tmp_path, suffix, opener):
    # (a decompressor given a file object does not close it: the file stayed open until collected)
    import gc

    from irmeasures_ext.readers.inputs import read_input
    good, bad = tmp_path / f'good.txt{suffix}', tmp_path / f'bad.txt{suffix}'
    with opener(good, 'wt') as file:
        file.write('# ir_metadata.start\n# tag: r\n# ir_metadata.end\nq1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\n')
    with opener(bad, 'wt') as file:
        file.write('q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 high r\n')
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always', ResourceWarning)
        assert read_input(good, 'run').table.num_rows == 2
        with pytest.raises(TrecFileError, match=r'bad\.txt.*:2: '):
            read_input(bad, 'run').table.validate()
        gc.collect()
    assert [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)] == []
