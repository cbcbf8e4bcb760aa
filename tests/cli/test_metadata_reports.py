"""``--metadata FILE`` of the evaluate, compare and reproduce commands (the ir_metadata block at the top of a
report), and runs carrying an ir_metadata block read by the command: from a compressed file, standard input,
streamed."""
import datetime
import gzip
import io
import json
import sys

import pytest
import yaml

from irmeasures_ext.cli import main
from irmeasures_ext.readers import pieces

#: An ir_metadata annotation (the schema's top-level keys), with a date, which YAML reads as a date.
METADATA = {
    'schema-version': 0.1,
    'tag': 'bm25-title',
    'platform': {'hardware': {'ram': '64 GB'}, 'software': {'retrieval toolkit': ['terrier==5.8']}},
    'method': {'retrieval': [{'name': 'bm25', 'k1': 1.2, 'b': 0.75}]},
    'data': {'test collection': {'name': 'hand-made', 'date': '2024-05-01'}},
    'actor': {'team': 'irmeasures_ext tests', 'date': None},
}
METADATA_TEXT = yaml.safe_dump(METADATA, sort_keys=False).replace("'2024-05-01'", '2024-05-01')
QRELS = 'q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 1\nq2 0 d4 2\nq2 0 d5 0\n'
RUN_A = 'q1 Q0 d1 1 0.5 a\nq1 Q0 d2 2 0.9 a\nq1 Q0 d3 3 0.1 a\nq2 Q0 d4 1 2.0 a\nq2 Q0 d5 2 2.0 a\n'
RUN_B = 'q1 Q0 d1 1 0.9 b\nq1 Q0 d2 2 0.5 b\nq1 Q0 d3 3 0.1 b\nq2 Q0 d4 1 2.0 b\nq2 Q0 d5 2 1.0 b\n'
HEADER = '# ir_metadata.start\n' + ''.join(f'# {line}\n' for line in METADATA_TEXT.splitlines()) + \
    '# ir_metadata.end\n'


@pytest.fixture
def files(tmp_path):
    for name, text in (('qrels', QRELS), ('a.txt', RUN_A), ('b.txt', RUN_B), ('meta.yaml', METADATA_TEXT)):
        (tmp_path / name).write_text(text, encoding='utf-8')
    return tmp_path


def output(capsys, *argv) -> str:
    assert main([str(argument) for argument in argv]) == 0, capsys.readouterr().err
    out, err = capsys.readouterr()
    assert err == ''
    return out


def expected_metadata() -> dict:
    """The file's mapping as YAML reads it (the date a date)."""
    return yaml.safe_load(METADATA_TEXT)


def split_block(text: str, comment: str = '#') -> tuple[dict, str]:
    """The mapping of the block opening ``text`` (read without our reader), and the text after the block."""
    lines = text.splitlines(keepends=True)
    assert lines[0] == f'{comment} ir_metadata.start\n'
    end = lines.index(f'{comment} ir_metadata.end\n')
    yaml_text = ''.join(line[len(comment) + 1:] if line.strip() != comment else '\n' for line in lines[1:end])
    return yaml.safe_load(yaml_text), ''.join(lines[end + 1:])


@pytest.mark.parametrize('options', [[], ['-q'], ['-q', '-n', '-p', '-1']])
def test_evaluate_tsv_opens_with_the_block_and_is_otherwise_unchanged(capsys, files, options):
    plain = output(capsys, files / 'qrels', files / 'a.txt', 'AP', 'RR', *options)
    annotated = output(capsys, files / 'qrels', files / 'a.txt', 'AP', 'RR', *options, '--metadata',
                       files / 'meta.yaml')
    metadata, rest = split_block(annotated)
    assert metadata == expected_metadata() and rest == plain
    assert not plain.startswith('#')


def test_evaluate_jsonl_opens_with_one_object(capsys, files):
    plain = output(capsys, files / 'qrels', files / 'a.txt', 'AP', '-o', 'jsonl')
    first, rest = output(capsys, files / 'qrels', files / 'a.txt', 'AP', '-o', 'jsonl', '--metadata',
                         files / 'meta.yaml').split('\n', 1)
    assert expected_metadata()['data']['test collection']['date'] == datetime.date(2024, 5, 1)
    assert json.loads(first) == {'ir_metadata': METADATA} and rest == plain  # (the date as its ISO text)


def test_evaluate_protocol_opens_with_the_block(capsys, files):
    plain = output(capsys, files / 'qrels', files / 'a.txt', '--protocol', 'symtax')
    metadata, rest = split_block(output(capsys, files / 'qrels', files / 'a.txt', '--protocol', 'symtax',
                                        '--metadata', files / 'meta.yaml'))
    assert metadata == expected_metadata() and rest == plain


@pytest.mark.parametrize(('output_format', 'report'), [
    *((output_format, []) for output_format in ('tsv', 'markdown', 'latex', 'jsonl')),
    *((output_format, ['--measures-report']) for output_format in ('tsv', 'markdown', 'jsonl'))])
def test_compare_reports_open_with_the_block(capsys, files, output_format, report):
    arguments = [files / 'qrels', files / 'a.txt', files / 'b.txt', 'AP', 'RR', '-o', output_format, *report]
    plain = output(capsys, 'compare', *arguments)
    annotated = output(capsys, 'compare', *arguments, '--metadata', files / 'meta.yaml')
    if output_format == 'jsonl':
        first, rest = annotated.split('\n', 1)
        assert set(json.loads(first)) == {'ir_metadata'}
    elif output_format == 'markdown':  # (in an HTML comment: not rendered as headings)
        assert annotated.startswith('<!--\n')
        inside, rest = annotated[len('<!--\n'):].split('-->\n', 1)
        assert split_block(inside) == (expected_metadata(), '')
    else:
        metadata, rest = split_block(annotated, '%' if output_format == 'latex' else '#')
        assert metadata == expected_metadata()
    assert rest == plain


@pytest.mark.parametrize('output_format', ['tsv', 'markdown', 'latex', 'jsonl'])
@pytest.mark.parametrize('kind', [[], ['--per-topic'], ['--qrels-b', 'qrels']])
def test_reproduce_reports_open_with_the_block(capsys, files, output_format, kind):
    runs = ['--original', files / 'a.txt', files / 'b.txt', '--reproduced', files / 'b.txt', files / 'a.txt']
    arguments = ['reproduce', files / 'qrels', 'AP', *runs, '-o', output_format,
                 *(files / option if option == 'qrels' else option for option in kind)]
    plain = output(capsys, *arguments)
    annotated = output(capsys, *arguments, '--metadata', files / 'meta.yaml')
    if output_format == 'jsonl':
        first, rest = annotated.split('\n', 1)
        assert json.loads(first) == {'ir_metadata': METADATA}
    elif output_format == 'markdown':
        inside, rest = annotated.removeprefix('<!--\n').split('-->\n', 1)
        assert annotated.startswith('<!--\n') and split_block(inside) == (expected_metadata(), '')
    else:
        metadata, rest = split_block(annotated, '%' if output_format == 'latex' else '#')
        assert metadata == expected_metadata()
    assert rest == plain and 'AP' in plain


def test_reproduce_refuses_a_bad_metadata_file_before_reading_a_run(capsys, files):
    (files / 'bad.yaml').write_text('tag: x\nplatform: [a, b\n', encoding='utf-8')
    runs = ['--original', 'missing.txt', str(files / 'b.txt'), '--reproduced', str(files / 'b.txt'),
            str(files / 'a.txt')]
    assert main(['reproduce', str(files / 'qrels'), 'AP', *runs, '--metadata', str(files / 'bad.yaml')]) == 2
    out, err = capsys.readouterr()
    assert out == '' and 'missing.txt: no such run file' in err  # (the runs' names checked first, as the plot's)
    runs[1] = str(files / 'a.txt')
    assert main(['reproduce', str(files / 'qrels'), 'AP', *runs, '--metadata', str(files / 'bad.yaml')]) == 2
    out, err = capsys.readouterr()
    assert out == '' and err.startswith(f'irmeasures-ext: error: {files / "bad.yaml"}:2: ir_metadata is not valid '
                                        'YAML: ') and err.count('\n') == 1


@pytest.mark.parametrize('command', [[], ['compare']])
def test_a_bad_metadata_file_is_one_line_and_no_output(capsys, files, command):
    runs = [files / 'a.txt', files / 'b.txt'] if command else [files / 'a.txt']
    (files / 'bad.yaml').write_text('tag: x\nplatform: [a, b\n', encoding='utf-8')
    for name, problem in (('missing.yaml', 'no such file'), ('bad.yaml', '2: ir_metadata is not valid YAML')):
        assert main([*command, str(files / 'qrels'), *map(str, runs), 'AP', '--metadata', str(files / name)]) == 2
        out, err = capsys.readouterr()
        assert out == '' and err.startswith(f'irmeasures-ext: error: {files / name}:') and problem in err
        assert err.count('\n') == 1


# --- runs carrying the block, read by the command --------------------------------------------------------------------

def test_the_command_reads_annotated_runs_compressed_and_from_standard_input(capsys, monkeypatch, files):
    plain = output(capsys, files / 'qrels', files / 'a.txt', 'AP', 'RR', 'P@1', '-p', '-1')
    assert plain == 'AP\t0.5416666666666666\nRR\t0.5\nP@1\t0.0\n'  # (by hand: AP (1/2 + 2/3) / 4 + 1 / 4)
    (files / 'annotated.gz').write_bytes(gzip.compress((HEADER + RUN_A).encode()))
    assert output(capsys, files / 'qrels', files / 'annotated.gz', 'AP', 'RR', 'P@1', '-p', '-1') == plain
    monkeypatch.setattr(sys, 'stdin', io.TextIOWrapper(io.BytesIO((HEADER + RUN_A).encode())))
    assert output(capsys, files / 'qrels', '-', 'AP', 'RR', 'P@1', '-p', '-1') == plain


def test_the_command_streams_annotated_runs(capsys, monkeypatch, files):
    lines = [f'q{q} Q0 d{d} {d + 1} {1 / (d + q + 1)!r} t\n' for q in range(30) for d in range(20)]
    (files / 'qrels').write_text(''.join(f'q{q} 0 d{d} {(q + d) % 3}\n' for q in range(30) for d in range(0, 20, 3)))
    (files / 'plain').write_text(''.join(lines))
    (files / 'annotated').write_text(HEADER + ''.join(lines))
    plain = output(capsys, files / 'qrels', files / 'plain', 'AP', 'nDCG@5', '-q', '-p', '-1')
    monkeypatch.setattr(pieces, 'STREAM_FROM_BYTES', 0)
    monkeypatch.setattr(pieces, 'BLOCK_BYTES', 50)
    assert output(capsys, files / 'qrels', files / 'annotated', 'AP', 'nDCG@5', '-q', '-p', '-1') == plain
    lines[57] = lines[57].replace(' t\n', '\n')
    (files / 'annotated').write_text(HEADER + ''.join(lines))
    assert main([str(files / 'qrels'), str(files / 'annotated'), 'AP']) == 2
    line = HEADER.count('\n') + 58
    assert capsys.readouterr().err == (f'irmeasures-ext: error: {files / "annotated"}:{line}: expected 6 fields '
                                       '(qid Q0 docid rank score tag), got 5\n')


def test_a_key_json_cannot_hold_is_refused_for_jsonl(capsys, files):
    """A key JSON has no form for (YAML reads ``2024-05-01:`` as a date) is refused for jsonl, written for tsv."""
    (files / 'dated.yaml').write_text('2024-05-01: first run\n', encoding='utf-8')
    arguments = [str(files / 'qrels'), str(files / 'a.txt'), 'AP', '--metadata', str(files / 'dated.yaml')]
    assert main([*arguments, '-o', 'jsonl']) == 2
    out, err = capsys.readouterr()
    assert out == '' and err.startswith(f'irmeasures-ext: error: {files / "dated.yaml"}: cannot be written as JSON')
    assert output(capsys, *arguments).startswith('# ir_metadata.start\n# 2024-05-01: first run\n')


def test_metadata_cannot_close_the_markdown_comment(capsys, files):
    """A string holding ``-->`` or ``--!>`` (which end an HTML comment) is written double-quoted with ``>`` as
    ``\\x3E`` there: the comment ends at its last line, and its block reads back as the metadata."""
    from irmeasures_ext import read_metadata
    metadata = {'tag': 'x', 'note': 'a --> b', 'bang': 'c--!>d', 'k-->': ['-->', '--!>', '--->x', '-- >'],
                'nested': {'deep': 'e-->\u2028f'}}
    (files / 'closing.yaml').write_text(yaml.safe_dump(metadata, sort_keys=False), encoding='utf-8')
    arguments = [files / 'qrels', files / 'a.txt', files / 'b.txt', 'AP', '-o', 'markdown']
    plain = output(capsys, 'compare', *arguments)
    annotated = output(capsys, 'compare', *arguments, '--metadata', files / 'closing.yaml')
    assert annotated.startswith('<!--\n')
    inside, rest = annotated[len('<!--\n'):].split('-->\n', 1)
    assert rest == plain and '--!>' not in inside and '-->' not in inside
    assert inside.endswith('# ir_metadata.end\n') and r'"a --\x3E b"' in inside
    (files / 'run.txt').write_text(inside + RUN_A, encoding='utf-8')
    assert read_metadata(files / 'run.txt') == metadata


def test_jsonl_writes_dates_and_times_in_iso_8601(capsys, files):
    (files / 'dated.yaml').write_text(
        'day: 2022-07-01\nwhen: 2022-07-01 10:00:00+00:00\nlocal: 2022-07-01t10:00:00.5\n', encoding='utf-8')
    first = output(capsys, files / 'qrels', files / 'a.txt', 'AP', '-o', 'jsonl', '--metadata',
                   files / 'dated.yaml').split('\n', 1)[0]
    assert json.loads(first) == {'ir_metadata': {'day': '2022-07-01', 'when': '2022-07-01T10:00:00+00:00',
                                                 'local': '2022-07-01T10:00:00.500000'}}


@pytest.mark.parametrize('yaml_text,what', [('tags: !!set {a: null, b: null}\n', "{'a', 'b'} is a set"),
                                            ('key: !!binary aGVsbG8=\n', "b'hello' is a bytes")])
def test_jsonl_refuses_a_value_json_has_no_form_for(capsys, files, yaml_text, what):
    # (str() wrote "{'a', 'b'}" and "b'hello'": texts that read back as other values)
    (files / 'odd.yaml').write_text(yaml_text, encoding='utf-8')
    status = main([str(files / 'qrels'), str(files / 'a.txt'), 'AP', '-o', 'jsonl', '--metadata',
                   str(files / 'odd.yaml')])
    out, err = capsys.readouterr()
    assert (status, out) == (2, '')
    assert err.splitlines()[-1].startswith(f'irmeasures-ext: error: {files / "odd.yaml"}: cannot be written as JSON: ')
    assert what in err or what.replace("{'a', 'b'}", "{'b', 'a'}") in err


@pytest.mark.parametrize('yaml_text,error', [
    ('a: .nan\n', 'Out of range float values are not JSON compliant'),
    ('b: [1, -.inf]\n', 'Out of range float values are not JSON compliant'),
    ('"1": a\n1: b\n', 'the keys \'1\' and 1 of a mapping are both "1" in JSON'),
    ('m: {true: x, "true": y}\n', 'the keys True and \'true\' of a mapping are both "true" in JSON'),
    ('m: {~: x, "null": y}\n', 'the keys None and \'null\' of a mapping are both "null" in JSON'),
    ('m: {1.5: x, "1.5": y}\n', 'the keys 1.5 and \'1.5\' of a mapping are both "1.5" in JSON'),
    ('a: &x [*x]\n', 'it holds over 1,000,000 values once its aliases are expanded, or holds itself'),
    ('a: &a [x, x, x, x, x, x, x, x, x, x]\n' + ''.join(f'{name}: &{name} [{", ".join([f"*{below}"] * 10)}]\n'
                                                        for below, name in zip('abcdefgh', 'bcdefghi', strict=True)),
     'it holds over 1,000,000 values once its aliases are expanded, or holds itself'),
    ('a: &a [x, x, x, x, x, x, x, x, x, x]\n' + ''.join(  # (an !!omap is read as a list of pairs: tuples)
        f'{name}: &{name} !!omap [{", ".join(f"{{k{i}: *{below}}}" for i in range(10))}]\n'
        for below, name in zip('abcdefgh', 'bcdefghi', strict=True)),
     'it holds over 1,000,000 values once its aliases are expanded, or holds itself'),
])
def test_jsonl_refuses_metadata_json_would_write_wrongly_or_never_finish(capsys, files, yaml_text, error):
    # (NaN and infinity are no JSON; keys that are one text in JSON would leave one value; a value holding itself,
    # or anchors nested to 10^9 values, would never be written: the same file is written at once as a tsv block)
    (files / 'odd.yaml').write_text(yaml_text, encoding='utf-8')
    arguments = [str(files / 'qrels'), str(files / 'a.txt'), 'AP', '--metadata', str(files / 'odd.yaml')]
    assert main([*arguments, '-o', 'jsonl']) == 2
    out, err = capsys.readouterr()
    assert out == '' and err == f'irmeasures-ext: error: {files / "odd.yaml"}: cannot be written as JSON: {error}\n'
    assert output(capsys, *arguments).startswith('# ir_metadata.start\n')


def test_jsonl_writes_keys_json_tells_apart_and_values_an_alias_repeats(capsys, files):
    (files / 'fine.yaml').write_text('"1": a\n2: b\nnull: c\nx: &x [1, 2]\ny: *x\n', encoding='utf-8')
    first = output(capsys, files / 'qrels', files / 'a.txt', 'AP', '-o', 'jsonl', '--metadata',
                   files / 'fine.yaml').split('\n', 1)[0]
    assert json.loads(first) == {'ir_metadata': {'1': 'a', '2': 'b', 'null': 'c', 'x': [1, 2], 'y': [1, 2]}}
