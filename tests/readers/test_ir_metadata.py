"""ir_metadata (irmeasures_ext.ir_metadata, readers/trec.py): a run's ``# ir_metadata.start`` block is read on every
path of the TREC reader as if it were absent, its YAML is available in Python, and runs are written with it."""
import bz2
import collections
import datetime
import decimal
import gzip
import lzma
import os
import pathlib
import re
import sys
import threading

import ir_measures
import numpy
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

import irmeasures_ext
from irmeasures_ext.errors import InputError, MetadataError, RunWriteError
from irmeasures_ext.ir_metadata import load_metadata, metadata_block, read_metadata, run_writer, write_run
from irmeasures_ext.readers import pieces
from irmeasures_ext.readers.inputs import read_input
from irmeasures_ext.readers.schemas import RUN as RUN_LAYOUT
from irmeasures_ext.readers.trec import TrecFileError, TrecSource, read_qrels, read_run

#: An ir_metadata annotation of a BM25 run, with the schema's top-level keys (ir-metadata.org, schema 0.1).
METADATA = {
    'schema-version': 0.1,
    'run-version': 1.0,
    'tag': 'bm25-title',
    'platform': {'hardware': {'cpu': {'model': 'Intel(R) Xeon(R) Gold 6144 CPU @ 3.50GHz', 'architecture': 'x86_64',
                                      'number of cores': 16}, 'ram': '64 GB'},
                 'operating system': {'kernel': '5.15.0-91-generic', 'distribution': 'Ubuntu 22.04.3 LTS'},
                 'software': {'libraries': {'python': ['pyterrier==0.10.0', 'numpy==1.26.2']},
                              'retrieval toolkit': ['terrier==5.8']}},
    'research goal': {'description': 'a BM25 baseline for the title queries'},
    'implementation': {'source': {'lang': ['python'], 'repository': 'https://example.org/runs.git',
                                  'commit': '9f2c1e7'}},
    'method': {'retrieval': [{'name': 'bm25', 'method': 'BM25', 'k1': 1.2, 'b': 0.75}]},
    'actor': {'team': 'irmeasures_ext tests', 'role': 'experimenter'},
    'data': {'test collection': {'name': 'hand-made', 'source': 'tests/readers/test_ir_metadata.py'}},
}
#: METADATA as repro_eval writes it into a run: ``# `` + each YAML line + a space, between the two markers.
HEADER = ('# ir_metadata.start\n' + ''.join(f'# {line} \n' for line in yaml.safe_dump(METADATA, sort_keys=False)
                                            .splitlines()) + '# ir_metadata.end\n')
HEADER_LINES = HEADER.count('\n')

QRELS = 'q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 1\nq2 0 d4 2\nq2 0 d5 0\n'
# q1 in trec_eval's order: d2 (0.9), d1 (0.5), d3 (0.1); q2: d5 then d4 (tied at 2.0: doc id descending)
RUN = 'q1 Q0 d1 1 0.5 bm25\nq1 Q0 d2 2 0.9 bm25\nq1 Q0 d3 3 0.1 bm25\nq2 Q0 d4 1 2.0 bm25\nq2 Q0 d5 2 2.0 bm25\n'
#: By hand: q1, relevant d1 at rank 2 and d3 at rank 3: AP (1/2 + 2/3) / 2, RR 1/2, P@1 0; q2, relevant d4 at
#: rank 2: AP 1/2, RR 1/2, P@1 0. Means: AP 13/24, RR 1/2, P@1 0.
HAND = {'AP': (1 / 2 + 2 / 3) / 4 + 1 / 4, 'RR': 0.5, 'P@1': 0.0}
ROWS = [('q1', 'd1', 0.5), ('q1', 'd2', 0.9), ('q1', 'd3', 0.1), ('q2', 'd4', 2.0), ('q2', 'd5', 2.0)]
COMPRESSORS = {'none': lambda data: data, 'gzip': gzip.compress, 'bz2': bz2.compress, 'xz': lzma.compress}
#: The same run in the reader's layouts: single spaces (the fast path), tabs and runs of spaces (normalised), CR LF
#: line ends, a BOM and blank lines before the block.
LAYOUTS = {
    'single spaces': lambda header, run: header + run,
    'tabs': lambda header, run: header + run.replace(' ', '\t  '),
    'crlf': lambda header, run: (header + run).replace('\n', '\r\n'),
    'bom and blank lines': lambda header, run: '\ufeff\n  \n' + header + '\n' + run,
}


def rows_of(table: pa.Table) -> list[tuple]:
    return list(zip(*(table[name].to_pylist() for name in ('query_id', 'doc_id', 'score')), strict=True))


def write(path, text: str, compression: str = 'none'):
    path.write_bytes(COMPRESSORS[compression](text.encode('utf-8')))
    return path


@pytest.mark.parametrize('compression', sorted(COMPRESSORS))
@pytest.mark.parametrize('layout', sorted(LAYOUTS))
def test_a_run_with_the_block_reads_as_without_it(tmp_path, compression, layout):
    run = write(tmp_path / 'run', LAYOUTS[layout](HEADER, RUN), compression)
    source = TrecSource(run)
    assert source.header.metadata == METADATA
    assert rows_of(read_run(run)) == ROWS
    assert read_metadata(run) == METADATA


def test_the_header_counts_the_bytes_and_lines_before_the_first_run_line(tmp_path):
    text = '\ufeff\r\n' + HEADER.replace('\n', '\r\n')
    header = TrecSource(write(tmp_path / 'run', text + RUN)).header
    assert header.size == len(text.encode()) and header.lines == HEADER_LINES + 1


def test_the_block_after_many_blank_bytes_is_found(tmp_path):
    """The block is looked for past the first 4 KB when they are blank."""
    run = write(tmp_path / 'run', '\n' * 5000 + HEADER + RUN)
    assert read_metadata(run) == METADATA and rows_of(read_run(run)) == ROWS


def test_a_run_from_a_pipe_with_the_block(tmp_path):
    reading, writing = os.pipe()
    feeder = threading.Thread(target=lambda: (os.write(writing, gzip.compress((HEADER + RUN).encode())),
                                              os.close(writing)))
    feeder.start()
    try:
        source = TrecSource(f'/dev/fd/{reading}', name='<pipe>')
    finally:
        feeder.join()
        os.close(reading)
    assert source.header.metadata == METADATA and rows_of(source.read(RUN_LAYOUT)) == ROWS


def test_qrels_take_the_block_too(tmp_path):
    qrels = write(tmp_path / 'qrels', HEADER + QRELS)
    assert read_qrels(qrels).to_pylist() == read_qrels(write(tmp_path / 'plain', QRELS)).to_pylist()
    assert read_metadata(qrels) == METADATA


@pytest.mark.parametrize('compression', ['none', 'gzip'])
def test_values_with_the_block_are_the_hand_values(tmp_path, compression):
    qrels = write(tmp_path / 'qrels', QRELS)
    annotated = write(tmp_path / 'annotated', HEADER + RUN, compression)
    measures = [ir_measures.AP, ir_measures.RR, ir_measures.P @ 1]
    values = irmeasures_ext.provider.calc_aggregate(measures, str(qrels), str(annotated))
    assert {str(measure): value for measure, value in values.items()} == pytest.approx(HAND, abs=1e-15)


def long_run(queries: int = 40, docs: int = 30) -> str:
    return ''.join(f'q{q} Q0 d{d} {d + 1} {1 / (d + q + 1)!r} tag\n' for q in range(queries) for d in range(docs))


def long_qrels(queries: int = 40) -> str:
    return ''.join(f'q{q} 0 d{d} {(q + d) % 3}\n' for q in range(queries) for d in range(0, 30, 4))


@pytest.mark.parametrize('compression', ['none', 'gzip', 'xz'])
def test_a_streamed_run_with_the_block_gives_the_values_without_it(tmp_path, monkeypatch, compression):
    qrels = write(tmp_path / 'qrels', long_qrels())
    plain = write(tmp_path / 'plain', long_run())
    annotated = write(tmp_path / 'annotated', HEADER + long_run(), compression)
    measures = [ir_measures.AP, ir_measures.nDCG @ 10, ir_measures.RR]
    whole = irmeasures_ext.provider.calc_aggregate(measures, str(qrels), str(plain))
    monkeypatch.setattr(pieces, 'STREAM_FROM_BYTES', 0)
    monkeypatch.setattr(pieces, 'BLOCK_BYTES', 64)  # (smaller than the block: its bytes are not a block's)
    assert isinstance(pieces.streamed_or_whole(str(annotated), False), pieces.RunStream)
    assert irmeasures_ext.provider.calc_aggregate(measures, str(qrels), str(annotated)) == whole


# --- a problem after the block names its line in the file ----------------------------------------------------------

def test_a_bad_run_line_after_the_block_names_its_line(tmp_path, monkeypatch):
    lines = long_run().splitlines(keepends=True)
    lines[100] = 'q3 Q0 d10 11 x1 tag\n'
    run = write(tmp_path / 'run', HEADER + ''.join(lines))
    line = HEADER_LINES + 101
    with pytest.raises(TrecFileError, match=rf"^{run}:{line}: score 'x1' is not a number$"):
        read_run(run)
    qrels = write(tmp_path / 'qrels', long_qrels())
    monkeypatch.setattr(pieces, 'STREAM_FROM_BYTES', 0)
    monkeypatch.setattr(pieces, 'BLOCK_BYTES', 64)
    with pytest.raises(InputError, match=rf"^{run}:{line}: score 'x1' is not a number$"):
        irmeasures_ext.provider.calc_aggregate([ir_measures.AP], str(qrels), str(run))


def test_a_duplicate_doc_after_the_block_names_both_lines(tmp_path):
    run = write(tmp_path / 'run', HEADER + RUN + 'q1 Q0 d2 4 0.05 bm25\n')
    with pytest.raises(InputError, match=rf"^{run}:{HEADER_LINES + 6}: duplicate doc 'd2' in query 'q1' "
                                         rf'\(first at line {HEADER_LINES + 2}\)'):
        irmeasures_ext.provider.calc_aggregate([ir_measures.AP], str(write(tmp_path / 'qrels', QRELS)), str(run))


# --- refusals --------------------------------------------------------------------------------------------------------

START, END = '# ir_metadata.start\n', '# ir_metadata.end\n'
REFUSED = {
    'a comment line after the run lines': (RUN + '# a comment\n', TrecFileError, 6, "a line starting with '#'"),
    'a comment line first': ('# a comment\n' + RUN, TrecFileError, 1, "a line starting with '#'"),
    'a query id starting with #': ('#q1 Q0 d1 1 0.5 bm25\n', TrecFileError, 1, "a line starting with '#'"),
    'the block after a run line': (RUN[:20] + HEADER + RUN[20:], TrecFileError, 2,
                                   'the block is read only at the top of the file'),
    'a block not closed before a run line': (START + '# tag: x\n' + RUN, MetadataError, 3,
                                             'the ir_metadata block opened at line 1 is not closed'),
    'a block not closed at the end': ('\n' + START + '# tag: x\n', MetadataError, 2,
                                      'not closed: the file ends before "# ir_metadata.end"'),
    'a second start': (START + '# tag: x\n' + START + END + RUN, MetadataError, 3, 'again, inside the block'),
    'YAML that does not parse': (START + '# tag: x\n# platform: [a, b\n# data: y\n' + END + RUN, MetadataError, 4,
                                 'ir_metadata is not valid YAML'),
    'YAML that is not a mapping': (START + '# - a\n# - b\n' + END + RUN, MetadataError, 2, 'not a mapping'),
    'a tab as indentation': (START + '# tag: x\n# platform:\n#\tram: 8 GB\n' + END + RUN, MetadataError, 4,
                             'not valid YAML'),
}


@pytest.mark.parametrize('case', sorted(REFUSED))
def test_refusals_name_the_file_and_line(tmp_path, case):
    text, error, line, problem = REFUSED[case]
    run = write(tmp_path / 'run', text)
    with pytest.raises(error, match=f'^{run}:{line}: .*{problem}'):
        read_run(run)
    assert issubclass(error, InputError)


@pytest.mark.parametrize('separator', ['\u2028', '\u2029', '\x85'])
def test_a_yaml_error_names_the_file_line_though_yaml_breaks_lines_at_more_characters(tmp_path, separator):
    # (YAML counts U+0085, U+2028 and U+2029 as line breaks; a file, an editor and the other errors do not)
    text = START + f'# a: "x{separator}y"\n# c: 1\n# b: [x, y\n# d: 2\n' + END + RUN
    with pytest.raises(MetadataError, match=f"^{re.escape(str(tmp_path / 'run'))}:5: ir_metadata is not valid YAML: "
                                            "did not find expected ',' or ']'"):
        read_metadata(write(tmp_path / 'run', text))
    lone_cr = START + '# a: 1\r# c: 2\n# k: 1\n# k: 2\n' + END + RUN  # (a lone \r breaks a line, as for YAML)
    with pytest.raises(MetadataError, match=f"^{re.escape(str(tmp_path / 'cr'))}:5: .* the key 'k' is in the mapping"):
        read_metadata(write(tmp_path / 'cr', lone_cr))
    (tmp_path / 'meta.yaml').write_bytes(f'a: "x{separator}y"\r\nc: 1\rk: 2\nk: 3\nz: 4\n'.encode())
    with pytest.raises(MetadataError, match=f"^{re.escape(str(tmp_path / 'meta.yaml'))}:4: .* the key 'k' is in the "
                                            'mapping twice'):
        load_metadata(tmp_path / 'meta.yaml')


def test_yaml_that_is_no_mapping_or_no_text_is_refused_whole(tmp_path):
    # (a list; a control character, which PyYAML's reader refuses with no line of its own: the block's first line; a
    # YAML file whose bytes are not UTF-8)
    for text, message in (('# - a\n# - b\n', ':2: ir_metadata is a YAML list, not a mapping of keys (schema-version, '
                                              'tag, platform, ...)'),
                          ('# a: 1\n# tag: a\x07b\n', ':2: ir_metadata is not valid YAML: unacceptable character '
                                                     '#x0007: control characters are not allowed in "<unicode '
                                                     'string>", position 11')):
        run = write(tmp_path / 'run', START + text + END + RUN)
        with pytest.raises(MetadataError) as raised:
            read_metadata(run)
        assert str(raised.value) == f'{run}{message}'
    (tmp_path / 'meta.yaml').write_bytes(b'a: 1\n\nb: 2\ntag: \xff\n')
    with pytest.raises(MetadataError) as raised:
        load_metadata(tmp_path / 'meta.yaml')
    assert str(raised.value) == f"{tmp_path / 'meta.yaml'}:4: not valid UTF-8 (invalid start byte)"


def test_text_in_the_block_that_is_not_utf8_names_its_line(tmp_path):
    run = tmp_path / 'run'
    run.write_bytes((START + '# tag: x\n# actor: ').encode() + b'\xe9t\xe9\n' + (END + RUN).encode())
    with pytest.raises(MetadataError, match=f'^{run}:3: not valid UTF-8'):
        read_run(run)


def test_markers_without_the_space_and_an_indented_end_that_is_yaml(tmp_path):
    """``#ir_metadata.start`` is a marker; ``#   ir_metadata.end``, indented, is a line of YAML (a folded value)."""
    text = '#ir_metadata.start\n# note: a long\n#   ir_metadata.end\n#ir_metadata.end  \n' + RUN
    run = write(tmp_path / 'run', text)
    assert read_metadata(run) == {'note': 'a long ir_metadata.end'} and rows_of(read_run(run)) == ROWS


def test_an_empty_block_is_an_empty_mapping(tmp_path):
    run = write(tmp_path / 'run', START + END + RUN)
    assert read_metadata(run) == {} and rows_of(read_run(run)) == ROWS


# --- read_metadata ---------------------------------------------------------------------------------------------------

def test_read_metadata_is_none_without_metadata(tmp_path):
    assert read_metadata(write(tmp_path / 'run', RUN)) is None
    table = pa.table({'query_id': ['q1'], 'doc_id': ['d1'], 'score': [1.0]})
    pq.write_table(table, tmp_path / 'run.parquet')
    assert read_metadata(tmp_path / 'run.parquet') is None


@pytest.mark.parametrize('suffix', ['.parquet', '.arrow'])
def test_read_metadata_of_a_columnar_run(tmp_path, suffix):
    table = pa.table({'query_id': ['q1'], 'doc_id': ['d1'], 'score': [1.0]})
    path = tmp_path / f'run{suffix}'

    def save(text: str) -> None:
        annotated = table.replace_schema_metadata({'ir_metadata': text})
        if suffix == '.parquet':
            pq.write_table(annotated, path)
        else:
            with pa.ipc.new_file(path, annotated.schema) as writer:
                writer.write_table(annotated)
    save(yaml.safe_dump(METADATA))
    assert read_metadata(path) == METADATA
    save('tag: x\nplatform: [a\n')
    with pytest.raises(MetadataError, match=rf"^{path} \(schema metadata 'ir_metadata'\):2: .*not valid YAML"):
        read_metadata(path)


def test_the_package_exports_the_functions(tmp_path):
    run = write(tmp_path / 'run', HEADER + RUN)
    assert irmeasures_ext.read_metadata(run) == METADATA
    assert irmeasures_ext.ir_metadata.read_metadata is read_metadata
    irmeasures_ext.write_run(run, tmp_path / 'out.txt', read_metadata(run))
    assert read_metadata(tmp_path / 'out.txt') == METADATA


# --- write_run -------------------------------------------------------------------------------------------------------

#: Scores whose shortest decimals are long, tiny, huge, negative, subnormal, or equal as float32 only.
SCORES = [0.1, 1 / 3, 2 / 3, 1e-300, 5e-324, 1.7976931348623157e308, -2.5, 12.664297, 1e22, 2.0 ** 53 + 2,
          0.30000000000000004, 1.0000001, 1.00000011920928955]


def scored_run() -> dict:
    return {'q2': {f'd{i}': score for i, score in enumerate(SCORES)},
            'q1': {'d1': 1.0, 'd2': 1.0, 'd10': 1.0, 'd3': 0.5, 'é': 1.0}}


def trec_lines(path) -> list[list[str]]:
    """The fields of a written TREC file's lines after its block, read without our reader."""
    opener = {'.gz': gzip.open, '.xz': lzma.open, '.bz2': bz2.open}.get(path.suffix, open)
    with opener(path, 'rt', encoding='utf-8') as handle:
        lines = handle.read().splitlines()
    return [line.split(' ') for line in lines[lines.index('# ir_metadata.end') + 1:]]


@pytest.mark.parametrize('name', ['run.txt', 'run.txt.gz', 'run.txt.xz', 'run.txt.bz2'])
def test_write_run_to_trec_round_trips(tmp_path, name):
    path = tmp_path / name
    write_run(scored_run(), path, METADATA)
    assert read_metadata(path) == METADATA
    lines = trec_lines(path)
    # every line: qid Q0 docid rank score tag, the scores read back (by float(), and by our reader) exactly
    assert {(fields[0], fields[2]): float(fields[4]) for fields in lines} == {
        (query, doc): score for query, docs in scored_run().items() for doc, score in docs.items()}
    assert all(fields[1] == 'Q0' and fields[5] == 'bm25-title' and len(fields) == 6 for fields in lines)
    assert [(q, d, s) for q, d, s in rows_of(read_run(path))] == [(f[0], f[2], float(f[4])) for f in lines]
    # queries in the order given; each query's docs by score, then doc id descending (bytes), ranked 1, 2, ...
    assert [fields[0] for fields in lines] == ['q2'] * len(SCORES) + ['q1'] * 5
    assert [(fields[2], fields[3]) for fields in lines if fields[0] == 'q1'] == [
        ('é', '1'), ('d2', '2'), ('d10', '3'), ('d1', '4'), ('d3', '5')]
    q2 = [fields for fields in lines if fields[0] == 'q2']
    expected = sorted(scored_run()['q2'].items(), key=lambda item: (item[1], item[0].encode()), reverse=True)
    assert [(fields[2], fields[3]) for fields in q2] == [(doc, str(rank)) for rank, (doc, _) in
                                                          enumerate(expected, start=1)]


def test_a_gzipped_run_is_the_same_bytes_whenever_it_is_written(tmp_path, monkeypatch):
    import time
    for folder, now in (('a', 1e9), ('b', 2e9)):  # (gzip's header held the time of writing)
        monkeypatch.setattr(time, 'time', lambda now=now: now)
        (tmp_path / folder).mkdir()
        write_run(scored_run(), tmp_path / folder / 'run.txt.gz', METADATA)
    assert (tmp_path / 'a' / 'run.txt.gz').read_bytes() == (tmp_path / 'b' / 'run.txt.gz').read_bytes()


def test_write_run_ranks_by_float64_scores_not_by_the_runs_ranks(tmp_path):
    # (1.00000001 above 1.0 as float64, as ranx orders a fused run; one float32, which trec_eval evaluates by doc id:
    # b first. A run's own ranks (here against its scores) are not kept: the file's are the scores' order)
    write_run({'q': {'a': 1.00000001, 'b': 1.0}}, tmp_path / 'run.txt')
    assert [line.split()[2:4] for line in (tmp_path / 'run.txt').read_text().splitlines()] == [['a', '1'], ['b', '2']]
    by_rank = irmeasures_ext.provider.configured(ties='rank')
    qrels = {'q': {'a': 1}}
    assert irmeasures_ext.provider.calc_aggregate([ir_measures.RR], qrels, str(tmp_path / 'run.txt')) == {
        ir_measures.RR: 0.5}
    assert by_rank.calc_aggregate([ir_measures.RR], qrels, str(tmp_path / 'run.txt')) == {ir_measures.RR: 1.0}
    source = write(tmp_path / 'ranked.txt', 'q Q0 a 1 1.0 g\nq Q0 b 2 3.0 g\n')
    with pytest.warns(irmeasures_ext.ReversedScoresWarning, match='the scores increase down the listed docs'):
        write_run(source, tmp_path / 'rewritten.txt')
    assert [line.split()[2:5] for line in (tmp_path / 'rewritten.txt').read_text().splitlines()] == [
        ['b', '1', '3'], ['a', '2', '1']]


@pytest.mark.parametrize('name', ['run.parquet', 'run.arrow'])
def test_write_run_to_columnar_round_trips(tmp_path, name):
    path = tmp_path / name
    write_run(scored_run(), path, METADATA)
    assert read_metadata(path) == METADATA
    table = pq.read_table(path) if name.endswith('.parquet') else pa.ipc.open_file(path).read_all()
    assert table.column_names == ['query_id', 'doc_id', 'rank', 'score']
    assert yaml.safe_load(table.schema.metadata[b'ir_metadata'].decode()) == METADATA
    written = {(q, d): s for q, d, s in rows_of(table)}
    assert written == {(query, doc): score for query, docs in scored_run().items() for doc, score in docs.items()}
    assert table.filter(pa.compute.equal(table['query_id'], 'q1'))['doc_id'].to_pylist() == [
        'é', 'd2', 'd10', 'd1', 'd3']
    assert rows_of(read_input(str(path), 'run').table) == rows_of(table)


def test_write_run_takes_metadata_from_a_yaml_file_and_no_metadata_by_default(tmp_path):
    source = write(tmp_path / 'annotated', HEADER + RUN)
    write_run(source, tmp_path / 'plain.txt')
    assert read_metadata(tmp_path / 'plain.txt') is None  # (not carried over unasked)
    assert rows_of(read_run(tmp_path / 'plain.txt')) == [('q1', 'd2', 0.9), ('q1', 'd1', 0.5), ('q1', 'd3', 0.1),
                                                        ('q2', 'd5', 2.0), ('q2', 'd4', 2.0)]
    assert [line.split()[5] for line in (tmp_path / 'plain.txt').read_text().splitlines()] == ['plain'] * 5
    (tmp_path / 'meta.yaml').write_text(yaml.safe_dump(METADATA), encoding='utf-8')
    write_run(source, tmp_path / 'kept.txt', tmp_path / 'meta.yaml')
    assert read_metadata(tmp_path / 'kept.txt') == METADATA
    assert load_metadata(tmp_path / 'meta.yaml') == METADATA


def test_write_run_refuses_to_overwrite_and_leaves_the_file_as_it_was(tmp_path):
    target = write(tmp_path / 'run.txt', 'mine\n')
    before = target.stat()
    with pytest.raises(RunWriteError, match=rf'^{target}: exists; .*overwrite=True'):
        write_run(scored_run(), target, METADATA)
    assert target.read_text() == 'mine\n' and target.stat().st_mtime_ns == before.st_mtime_ns
    assert sorted(os.listdir(tmp_path)) == ['run.txt']  # (no file left beside it)
    write_run(scored_run(), target, METADATA, overwrite=True)
    assert read_metadata(target) == METADATA and sorted(os.listdir(tmp_path)) == ['run.txt']


def test_write_run_leaves_nothing_when_the_run_is_refused(tmp_path):
    with pytest.raises(RunWriteError, match='doc id of query .q1. .a b. cannot be a field of a TREC line'):
        write_run({'q1': {'a b': 1.0}}, tmp_path / 'run.txt')
    with pytest.raises(RunWriteError, match="query id '#q' cannot be a field"):
        write_run({'#q': {'d': 1.0}}, tmp_path / 'run.txt')
    with pytest.raises(RunWriteError) as raised:  # (the first bad id named, not the last row's)
        write_run({'q1': {'a b': 2.0, 'c\td': 1.5, 'ok': 1.0}}, tmp_path / 'run.txt')
    assert str(raised.value) == (f"{tmp_path / 'run.txt'}: doc id of query 'q1' 'a b' cannot be a field of a TREC line "
                                 '(empty, holding a blank, or a query id starting with "#" or U+FEFF): write a Parquet '
                                 'file (a name ending .parquet) instead')
    for run in ({'\ufeffq1': {'d': 1.0}}, {'q0': {'d': 1.0}, '\ufeffq1': {'d': 1.0}}):  # (read back as a BOM: q1)
        with pytest.raises(RunWriteError, match=r"query id '\\ufeffq1' cannot be a field .* U\+FEFF"):
            write_run(run, tmp_path / 'run.txt', METADATA)
    with pytest.raises(InputError, match='not a finite number'):
        write_run({'q1': {'d': float('nan')}}, tmp_path / 'run.txt')
    with pytest.raises(RunWriteError, match="tag 'a b' is not one field"):
        write_run({'q1': {'d': 1.0}}, tmp_path / 'run.txt', {'tag': 'a b'})
    with pytest.raises(RunWriteError, match='no such folder'):
        write_run({'q1': {'d': 1.0}}, tmp_path / 'missing' / 'run.txt')
    with pytest.raises(MetadataError, match='cannot be written as YAML'):
        write_run({'q1': {'d': 1.0}}, tmp_path / 'run.txt', {'tag': object()})
    assert os.listdir(tmp_path) == []
    write_run({'q1': {'a b': 1.0}}, tmp_path / 'run.parquet')  # (Parquet holds any id)
    assert rows_of(pq.read_table(tmp_path / 'run.parquet')) == [('q1', 'a b', 1.0)]


def test_a_name_as_long_as_a_file_name_may_be_is_written_and_a_longer_one_is_a_run_write_error(tmp_path):
    # (the run is first written beside its path, under a name that holds the path's name cut to 200 bytes)
    for name in ('r' * 251 + '.txt', 'x' + 'é' * 125 + '.txt'):  # (255 bytes; the second cut within an 'é')
        write_run(scored_run(), tmp_path / name)
        assert os.listdir(tmp_path) == [name]
        assert {(q, d): s for q, d, s in rows_of(read_run(tmp_path / name))} == {
            (query, doc): score for query, docs in scored_run().items() for doc, score in docs.items()}
        os.remove(tmp_path / name)
    too_long = tmp_path / ('r' * 256 + '.txt')
    with pytest.raises(RunWriteError, match=rf'^{too_long}: cannot write the run: File name too long; nothing was '
                                            'written there$'):
        write_run(scored_run(), too_long)
    assert os.listdir(tmp_path) == []


def test_a_file_name_that_is_not_utf8_is_written_and_not_taken_for_a_tag(tmp_path):
    name = os.fsdecode(b'run\xff.txt')  # (Linux takes any bytes; Python names them with surrogates)
    with pytest.raises(RunWriteError, match=r"tag 'run\\udcff' is not one field of a TREC line \(.* bytes of a file "
                                            r"name that are not UTF-8\); give tag=..."):
        write_run(scored_run(), tmp_path / name)
    assert os.listdir(tmp_path) == []
    names = [name, name + '.gz', os.fsdecode(b'run.\xff' * 49 + b'.parquet')]  # (the last cut at a byte not UTF-8)
    for written in names:  # (read back by the TREC reader, through Arrow's files, and by the Parquet one)
        write_run(scored_run(), tmp_path / written, tag=None if written.endswith('.parquet') else 'run')
        assert {(q, d): s for q, d, s in rows_of(read_input(str(tmp_path / written), 'run').table)} == {
            (query, doc): score for query, docs in scored_run().items() for doc, score in docs.items()}
    assert sorted(os.listdir(tmp_path)) == sorted(names)
    folder = tmp_path / os.fsdecode(b'runs\xff')
    folder.mkdir()
    os.replace(tmp_path / names[-1], folder / 'part-0.parquet')
    with pytest.raises(InputError, match='cannot read as a folder of Parquet files: .*surrogates not allowed'):
        read_input(str(folder), 'run')


def test_a_file_where_the_run_is_first_written_that_is_there_already_is_left_alone(tmp_path, monkeypatch):
    import uuid

    from irmeasures_ext import files
    monkeypatch.setattr(files.uuid, 'uuid4', lambda: uuid.UUID(int=0))
    theirs = tmp_path / ('.run.txt.' + '0' * 12 + '.tmp')
    theirs.write_text('theirs')
    with pytest.raises(RunWriteError, match=r'^.*run\.txt: cannot write the run: File exists; nothing was written'):
        write_run(scored_run(), tmp_path / 'run.txt')
    assert theirs.read_text() == 'theirs' and os.listdir(tmp_path) == [theirs.name]


def test_a_duplicate_doc_is_refused_naming_its_line(tmp_path):
    source = write(tmp_path / 'annotated', HEADER + RUN + 'q2 Q0 d4 3 1.0 bm25\n')
    with pytest.raises(InputError, match=rf"^{source}:{HEADER_LINES + 6}: duplicate doc 'd4'"):
        write_run(source, tmp_path / 'out.txt')
    assert sorted(os.listdir(tmp_path)) == ['annotated']


def test_metadata_block_round_trips_dates_and_multiline_text(tmp_path):
    metadata = {'date': datetime.date(2022, 7, 11), 'notes': 'line one\n\nline three\n', 'empty': '', 'n': None}
    block = metadata_block(metadata)
    assert block.startswith('# ir_metadata.start\n# date: 2022-07-11\n') and block.endswith('# ir_metadata.end\n')
    assert read_metadata(write(tmp_path / 'run', block + RUN)) == metadata
    assert metadata_block(metadata, '%').splitlines() == ['%' + line[1:] for line in block.splitlines()]


@pytest.mark.parametrize('name', ['run.txt', 'run.txt.gz', 'run.parquet'])
def test_run_writer_writes_parts_as_write_run_writes_them_together(tmp_path, name):
    first, second = {'q2': {'a': 1.0, 'b': 3.0}}, {'q1': {'c': 0.5}, 'q3': {'d': 2.0, 'e': 2.0}}
    with run_writer(tmp_path / name, {'tag': 'parts'}) as write:
        write(first)
        write(second)
    write_run({**first, **second}, tmp_path / ('whole-' + name), {'tag': 'parts'})
    if name.endswith('.gz'):  # (gzip's header holds the file's name)
        assert gzip.open(tmp_path / name).read() == gzip.open(tmp_path / ('whole-' + name)).read()
    else:
        assert (tmp_path / name).read_bytes() == (tmp_path / ('whole-' + name)).read_bytes()
    if name == 'run.txt':  # (queries in the order given, each ranked: score, then doc id, descending)
        assert (tmp_path / name).read_text().splitlines() == [
            '# ir_metadata.start', '# tag: parts', '# ir_metadata.end', 'q2 Q0 b 1 3 parts', 'q2 Q0 a 2 1 parts',
            'q1 Q0 c 1 0.5 parts', 'q3 Q0 e 1 2 parts', 'q3 Q0 d 2 2 parts']


def test_run_writer_refuses_a_query_in_two_parts_and_leaves_nothing(tmp_path):
    with pytest.raises(RunWriteError, match=r"run\.txt: query 'q1' is in two parts of the run written"):
        with run_writer(tmp_path / 'run.txt') as write:
            write({'q1': {'a': 1.0}})
            write({'q2': {'b': 1.0}, 'q1': {'c': 2.0}})
    assert os.listdir(tmp_path) == []


#: Characters YAML 1.1 takes for line breaks, which PyYAML writes raw in plain and single-quoted scalars.
LINE_BREAKS = {'nel': 'a\x85b', 'line separator': 'a\u2028b', 'paragraph separator': 'a\u2029b',
               'all \x85\u2028\u2029 in a key': ' \x85 \u2028\u2029 '}


@pytest.mark.parametrize('name', ['run.txt', 'run.txt.gz', 'run.parquet', 'run.arrow'])
def test_yaml_line_breaks_round_trip(tmp_path, name):
    write_run(scored_run(), tmp_path / name, LINE_BREAKS)
    assert read_metadata(tmp_path / name) == LINE_BREAKS
    block = metadata_block(LINE_BREAKS)
    assert block.splitlines()[1:4] == ['# nel: "a\\Nb"', '# line separator: "a\\Lb"', '# paragraph separator: "a\\Pb"']
    assert read_metadata(write(tmp_path / 'block.txt', block + RUN)) == LINE_BREAKS


@pytest.mark.parametrize('compression', ['gzip', 'bz2', 'xz'])
def test_a_compressed_run_cut_in_its_block_is_corrupt_on_every_path(tmp_path, compression):
    """Cut inside its block, a compressed run is the line reader's "corrupt or truncated" error naming the last line
    read, from read_metadata and every reading (it was read as a run without metadata, refused at its marker)."""
    data = COMPRESSORS[compression]((START + '# tag: r\n' + END + 'q1 Q0 d1 1 2.0 r\n').encode())
    run = tmp_path / 'run.txt.z'
    run.write_bytes(data[:40] if compression == 'gzip' else data[:len(data) // 2])
    line = {'gzip': 1, 'xz': 1, 'bz2': 0}[compression]  # (lines read whole before the cut; bz2's: none of its block)
    for read in (read_metadata, read_run, lambda path: read_input(str(path), 'run')):
        with pytest.raises(TrecFileError, match=f'^{run}: corrupt or truncated {compression} after line {line}: '):
            read(run)


@pytest.mark.parametrize(('text', 'line'), [
    ('#  ir_metadata.start\n# tag: x\n# ir_metadata.end\n' + RUN, 1),  # (two spaces: not a marker)
    ('#\tir_metadata.start\n# tag: x\n# ir_metadata.end\n' + RUN, 1),  # (a tab)
    (RUN[:20] + START + END + RUN[20:], 2),  # (a marker after a run line)
])
def test_a_marker_out_of_place_or_misspaced_is_told_how_markers_are_read(tmp_path, text, line):
    run = write(tmp_path / 'run', text)
    with pytest.raises(TrecFileError) as raised:
        read_run(run)
    assert str(raised.value) == (
        f"{run}:{line}: like an ir_metadata marker: the markers are the lines '# ir_metadata.start' and "
        "'# ir_metadata.end', at most one space after '#', and the block is read only at the top of the file, "
        'before the first line of data')


@pytest.mark.parametrize(('yaml_lines', 'line', 'key'), [
    (['tag: a', 'tag: b'], 3, "'tag'"),
    (['tag: a', 'method:', '  retrieval:', '  - name: bm25', '    k1: 1.2', '    k1: 0.9'], 7, "'k1'"),
    (['1: one', '1.0: one again'], 3, '1.0'),  # (equal keys in Python: one would replace the other)
])
def test_a_key_twice_in_a_mapping_is_refused_at_its_second_line(tmp_path, yaml_lines, line, key):
    run = write(tmp_path / 'run', START + ''.join(f'# {text}\n' for text in yaml_lines) + END + RUN)
    for read in (read_metadata, read_run):
        with pytest.raises(MetadataError) as raised:
            read(run)
        assert str(raised.value) == (f'{run}:{line}: ir_metadata is not valid YAML: the key {key} is in the mapping '
                                     'twice; give each key once')


def test_merge_keys_may_repeat_the_keys_they_merge(tmp_path):
    text = 'bm25: &bm25\n  k1: 1.2\n  b: 0.75\nmethod:\n  <<: *bm25\n  b: 0.8\nother:\n  <<: [*bm25, {k1: 2}]\n'
    run = write(tmp_path / 'run', START + ''.join(f'# {line}\n' for line in text.splitlines()) + END + RUN)
    assert read_metadata(run) == yaml.safe_load(text)  # (as PyYAML merges them)
    assert read_metadata(run)['method'] == {'k1': 1.2, 'b': 0.8}


@pytest.mark.parametrize('text', [
    # (a mapping that merges and overrides, merged itself into a mapping before or after it is built: PyYAML merges
    # in place, so its own keys are checked before that)
    'a:\n  b: &m\n    <<: {k: 1}\n    k: 2\nc:\n  <<: *m\n',
    'c:\n  <<: &m\n    <<: {k: 1}\n    k: 2\na: *m\n',
    'base: &b {k: 1}\nd:\n  <<: *b\n  k: 2\ne:\n  <<: *b\n  k: 3\n',
])
def test_a_mapping_that_overrides_a_merge_may_be_merged_itself(tmp_path, text):
    run = write(tmp_path / 'run', START + ''.join(f'# {line}\n' for line in text.splitlines()) + END + RUN)
    assert read_metadata(run) == yaml.safe_load(text)


def test_a_key_twice_beside_a_merge_is_refused_at_its_second_line(tmp_path):
    text = 'base: &b {k: 1}\nd:\n  <<: *b\n  k: 2\n  k: 3\n'
    run = write(tmp_path / 'run', START + ''.join(f'# {line}\n' for line in text.splitlines()) + END + RUN)
    with pytest.raises(MetadataError, match=f"^{re.escape(str(run))}:6: ir_metadata is not valid YAML: the key 'k' "
                                            'is in the mapping twice; give each key once$'):
        read_metadata(run)


@pytest.mark.parametrize('suffix', ['.parquet', '.arrow'])
def test_a_columnar_run_whose_metadata_is_not_yaml_is_refused_on_every_entry_point(tmp_path, capsys, suffix):
    """As a TREC run's block that does not parse: when the run is opened, by an evaluation in Python or the
    command, not only by read_metadata."""
    from irmeasures_ext.cli import main
    run = tmp_path / f'run{suffix}'
    table = pa.table({'query_id': ['q1'], 'doc_id': ['d1'], 'score': [1.0]}).replace_schema_metadata(
        {'ir_metadata': b'a: [x'})
    if suffix == '.parquet':
        pq.write_table(table, run)
    else:
        with pa.ipc.new_file(run, table.schema) as writer:
            writer.write_table(table)
    qrels = write(tmp_path / 'qrels', QRELS)
    message = (f"{run} (schema metadata 'ir_metadata'):1: ir_metadata is not valid YAML: did not find expected ',' "
               "or ']'")
    for evaluate in (ir_measures.calc_aggregate, irmeasures_ext.provider.calc_aggregate,
                     lambda _, __, path: read_input(path, 'run'), lambda _, __, path: read_metadata(path)):
        with pytest.raises(MetadataError) as raised:
            evaluate([ir_measures.AP], str(qrels), str(run))
        assert str(raised.value) == message
    assert main([str(qrels), str(run), 'AP']) == 2
    assert capsys.readouterr() == ('', f'irmeasures-ext: error: {message}\n')


@pytest.mark.parametrize('writer', ['parquet', 'arrow'])
def test_read_metadata_of_a_columnar_file_named_as_text_says_what_it_is(tmp_path, writer):
    """The error evaluating it gives ("this is a Parquet file, ..."), not None (no header found)."""
    table = pa.table({'query_id': ['q1'], 'doc_id': ['d1'], 'score': [1.0]})
    run = tmp_path / 'run.txt'
    if writer == 'parquet':
        pq.write_table(table, run)
    else:
        with pa.ipc.new_file(run, table.schema) as writer_:
            writer_.write_table(table)
    with pytest.raises(TrecFileError) as evaluated:
        irmeasures_ext.provider.calc_aggregate([ir_measures.AP], str(write(tmp_path / 'qrels', QRELS)), str(run))
    description = 'a Parquet file' if writer == 'parquet' else 'an Arrow IPC (Feather) file'
    assert str(evaluated.value).startswith(f'{run}: this is {description}, not TREC text: name it .')
    with pytest.raises(TrecFileError) as raised:
        read_metadata(run)
    assert str(raised.value) == str(evaluated.value)


def test_read_metadata_of_a_text_run_holding_a_nul_byte_is_none(tmp_path):
    """A NUL byte makes a file look binary, but the reader reads this one (a doc id holding it): no metadata."""
    run = write(tmp_path / 'run.txt', 'q1 Q0 d\x001 1 1.0 r\n')
    assert rows_of(read_run(run)) == [('q1', 'd\x001', 1.0)] and read_metadata(run) is None


@pytest.mark.parametrize(('metadata', 'where', 'value'), [
    ({'tag': 'x', 'method': {'retrieval': [{'name': 'bm25', 'k1': decimal.Decimal('1.2')}]}},
     "the value at ['method']['retrieval'][0]['k1']", decimal.Decimal('1.2')),
    ({'data': {pathlib.PurePosixPath('index'): 'seven'}}, "the key {value!r} in ['data']",
     pathlib.PurePosixPath('index')),
    ({'tag': 'x', 'n': (1, complex(2, 1))}, "the value at ['n'][1]", complex(2, 1)),
])
def test_a_value_yaml_cannot_write_is_named_by_its_key_path(tmp_path, metadata, where, value):
    with pytest.raises(MetadataError) as raised:
        write_run(scored_run(), tmp_path / 'run.txt', metadata)
    kind = type(value).__qualname__ if type(value).__module__ == 'builtins' else \
        f'{type(value).__module__}.{type(value).__qualname__}'
    assert str(raised.value) == (f'the metadata cannot be written as YAML: {where.format(value=value)} is {value!r}, '
                                 f'of type {kind}, which YAML has no form for: give a str, int, float, bool, None, '
                                 'date, list or dict')
    assert os.listdir(tmp_path) == []


def test_numpy_scalars_and_subclasses_of_dict_list_and_str_are_written_as_their_values(tmp_path):
    def tree():
        return collections.defaultdict(tree)

    class Ranks(list):
        pass
    method = tree()
    method['retrieval']['name'] = numpy.str_('bm25')
    metadata = {'method': method, 'k1': numpy.float64(1.2), 'b': numpy.float32(0.5), 'top': numpy.int64(1000),
                'stemmed': numpy.bool_(False), 'ordered': collections.OrderedDict(a=1), 'list': Ranks([1]),
                'no': numpy.str_('no')}
    write_run(scored_run(), tmp_path / 'run.txt', metadata)
    assert read_metadata(tmp_path / 'run.txt') == {'method': {'retrieval': {'name': 'bm25'}}, 'k1': 1.2, 'b': 0.5,
                                                   'top': 1000, 'stemmed': False, 'ordered': {'a': 1}, 'list': [1],
                                                   'no': 'no'}


@pytest.mark.parametrize(('metadata', 'problem'), [
    ({'note': 'a\ud800b'}, 'found invalid Unicode character escape code'),  # (a file name's bytes, not UTF-8)
    ({(1, 2): 'a'}, 'found unhashable key'),  # (YAML writes a tuple key as a sequence, which no reader can hash)
])
def test_metadata_no_reader_could_read_is_refused_and_nothing_written(tmp_path, metadata, problem):
    for name in ('run.txt', 'run.txt.gz', 'run.parquet'):
        with pytest.raises(MetadataError, match=re.escape(problem)) as raised:
            write_run(scored_run(), tmp_path / name, metadata)
        assert str(raised.value).startswith('the metadata cannot be written as YAML that reads back: the metadata as '
                                            'written:1: ir_metadata is not valid YAML: ')
    assert os.listdir(tmp_path) == []


def test_metadata_nested_too_deep_to_write_is_refused():
    deep = nested = {}
    for _ in range(sys.getrecursionlimit()):
        nested['a'] = nested = {}
    with pytest.raises(MetadataError, match='^the metadata cannot be written as YAML: it is nested too deep$'):
        metadata_block(deep)


@pytest.mark.parametrize('metadata', [['a'], 42, b'meta.yaml', None])
def test_metadata_that_is_no_mapping_nor_path_is_refused_naming_its_type(tmp_path, metadata):
    for call in (lambda: load_metadata(metadata), lambda: metadata_block(metadata)):
        with pytest.raises(MetadataError, match=re.escape(
                'the metadata must be a mapping (a dict) or the path of a YAML file holding one; got a value of type '
                f'{type(metadata).__name__}')):
            call()
    if metadata is not None:  # (None: a run written without metadata)
        with pytest.raises(MetadataError):
            write_run(scored_run(), tmp_path / 'run.txt', metadata)
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize('run', [{'q1': {'d1': 1.0}}, pa.table({'query_id': ['q1']})])
def test_read_metadata_of_a_run_in_memory_is_refused(run):
    with pytest.raises(MetadataError, match=f'^read_metadata reads a run file: give its path, not a '
                                            f'{type(run).__name__} '):
        read_metadata(run)


def test_a_tag_the_file_cannot_hold_or_that_is_not_the_metadata_s_is_refused_and_nothing_written(tmp_path):
    for name, metadata, tag, problem in (
            ('run.parquet', None, 'bm25', 'a Parquet run has no tag: tag=... (--tag) names the run of a TREC file'),
            ('run.arrow', {'tag': 'bm25'}, 'bm25', 'an Arrow run has no tag'),
            ('run.txt', {'tag': 'bm25'}, 'mine', "tag 'mine' is not the metadata's tag 'bm25': the lines would name "
                                                 'one run and the block another')):
        with pytest.raises(RunWriteError, match=re.escape(f'{tmp_path / name}: {problem}')):
            write_run(scored_run(), tmp_path / name, metadata, tag=tag)
    assert os.listdir(tmp_path) == []
    write_run(scored_run(), tmp_path / 'run.txt', {'tag': 7}, tag='7')  # (the metadata's tag as its text)
    write_run(scored_run(), tmp_path / 'run.parquet', {'tag': 'bm25'})  # (the metadata's tag, in its block only)
    assert read_metadata(tmp_path / 'run.parquet') == {'tag': 'bm25'}


@pytest.mark.parametrize('ending', ['\n', '\r\n', '\r'])
@pytest.mark.parametrize('after', ['', '{e}', '{e}{e}{e}', '  {e}\t{e}'])
def test_a_yaml_error_at_the_end_of_a_file_names_its_last_line(tmp_path, ending, after):
    # (YAML finds the unclosed list at the end of the stream, a line past the text: the last line is named)
    (tmp_path / 'meta.yaml').write_bytes(f'tag: x{ending}platform: [a, b{ending}{after}'.format(e=ending).encode())
    with pytest.raises(MetadataError, match=f"^{re.escape(str(tmp_path / 'meta.yaml'))}:2: ir_metadata is not valid "
                                            'YAML'):
        load_metadata(tmp_path / 'meta.yaml')


@pytest.mark.parametrize('ending', ['\n', '\r\n', '\r'])
def test_a_yaml_file_not_utf8_names_the_line_of_the_bad_byte_whatever_its_line_breaks(tmp_path, ending):
    (tmp_path / 'meta.yaml').write_bytes(f'a: 1{ending}{ending}b: 2{ending}'.encode() + b'tag: \xff' + ending.encode())
    with pytest.raises(MetadataError, match=f"^{re.escape(str(tmp_path / 'meta.yaml'))}:4: not valid UTF-8 "):
        load_metadata(tmp_path / 'meta.yaml')


@pytest.mark.parametrize(('text', 'message'), [
    ('commit: 0o_', ":1: ir_metadata is not valid YAML: '0o_' is not an integer"),
    ('a: 1\nb: !!int 0x', ":2: ir_metadata is not valid YAML: '0x' is not an integer"),
    ('a: !!int 0o8', ":1: ir_metadata is not valid YAML: '0o8' is not an integer"),
    ('a: !!int ""', ":1: ir_metadata is not valid YAML: '' is not an integer"),
    ('a: !!float abc', ": ir_metadata holds a tagged value YAML cannot read (ValueError: could not convert string to "
                       "float: 'abc')"),
    ('a: !!bool maybe', ": ir_metadata holds a tagged value YAML cannot read (KeyError: 'maybe')"),
])
def test_a_value_yaml_cannot_read_is_a_metadata_error_naming_the_file(tmp_path, text, message):
    (tmp_path / 'meta.yaml').write_text(text + '\n')
    with pytest.raises(MetadataError) as raised:
        load_metadata(tmp_path / 'meta.yaml')
    assert str(raised.value) == f"{tmp_path / 'meta.yaml'}{message}"


def test_an_int_tagged_with_signs_reads_as_pyyaml_reads_it():
    # (one sign, then PyYAML's reading of the rest: +-5 is -5, --5 is 5, as in PyYAML and ruamel.yaml)
    assert load_metadata_text('a: !!int +-5\nb: !!int --5\nc: !!int -0x1F\nd: !!int +0b101\n') == {
        'a': -5, 'b': 5, 'c': -31, 'd': 5}


def load_metadata_text(text):
    from irmeasures_ext.readers.trec import parse_metadata
    return parse_metadata(text, 'metadata.yaml')


@pytest.mark.parametrize('value', [numpy.longdouble(1.5), numpy.datetime64('2024-01-02T10:00', 'ns'),
                                   numpy.complex128(1 + 2j), numpy.timedelta64(3, 's')])
def test_numpy_scalars_yaml_has_no_form_for_are_refused(tmp_path, value):
    # (a longdouble's item() is a longdouble, a datetime64's in ns an int: neither written as what it is)
    with pytest.raises(MetadataError, match=f"^the metadata cannot be written as YAML: the value at \\['x'\\] is "
                                            f"{re.escape(repr(value))}, of type numpy.{type(value).__name__}, which "
                                            'YAML has no form for'):
        write_run(scored_run(), tmp_path / 'run.txt', {'x': value})
    assert os.listdir(tmp_path) == []


def test_a_metadata_tag_no_line_can_hold_is_stood_for_by_the_tag_given(tmp_path):
    with pytest.raises(RunWriteError, match="tag 'a b' is not one field of a TREC line"):
        write_run(scored_run(), tmp_path / 'run.txt', {'tag': 'a b'})
    write_run(scored_run(), tmp_path / 'run.txt', {'tag': 'a b'}, tag='a_b')
    assert {fields[-1] for fields in trec_lines(tmp_path / 'run.txt')} == {'a_b'}
    assert read_metadata(tmp_path / 'run.txt') == {'tag': 'a b'}
    with pytest.raises(RunWriteError, match=r"tag must be a str, got int 7"):
        write_run(scored_run(), tmp_path / 'other.txt', {'tag': '7'}, tag=7)


def test_a_metadata_file_opening_with_a_bom_or_that_cannot_be_read(tmp_path):
    (tmp_path / 'meta.yaml').write_bytes(b'\xef\xbb\xbftag: x\n')
    assert load_metadata(tmp_path / 'meta.yaml') == {'tag': 'x'}
    (tmp_path / 'folder.yaml').mkdir()
    with pytest.raises(MetadataError, match=f"^{re.escape(str(tmp_path / 'folder.yaml'))}: cannot read: Is a "
                                            'directory$'):
        load_metadata(tmp_path / 'folder.yaml')
    with pytest.raises(MetadataError, match=f"^{re.escape(str(tmp_path / 'none.yaml'))}: no such file$"):
        load_metadata(tmp_path / 'none.yaml')


def test_metadata_is_written_as_it_reads_each_value_on_its_line():
    # (letters beyond ASCII as they are, not escaped; a long value on one line, as repro_eval writes it)
    long = 'word ' * 200
    assert metadata_block({'actor': 'Zoë', 'note': long, 'z': 1}) == (
        f'# ir_metadata.start\n# actor: Zoë\n# note: \'{long}\'\n# z: 1\n# ir_metadata.end\n')
