"""``irmeasures-ext fuse``: the fused run written equals RRF and weighted CombSUM computed here from their
definitions; the options, the metadata, and each refusal (exit 2, one line, OUTPUT untouched)."""
import os
import subprocess
import sys

import pytest

from irmeasures_ext import fusion, read_metadata
from irmeasures_ext.cli import fuse as fuse_command
from irmeasures_ext.cli import main

RUNS = {
    'a': {'1': {'x': 3.0, 'y': 2.0, 'z': 2.0}, '2': {'u': 1.0, 'v': -1.0}},
    'b': {'1': {'y': 9.0, 'w': 5.0}, '3': {'t': 0.5}},
}


def write(folder, name, run):
    path = folder / f'{name}.txt'
    path.write_text(''.join(f'{q} Q0 {d} {i} {s!r} {name}\n' for q, docs in run.items()
                            for i, (d, s) in enumerate(docs.items(), 1)))
    return str(path)


def read_trec(path):
    lines = [line.split() for line in open(path) if not line.startswith('#')]
    return [(q, d, int(r), float(s)) for q, _, d, r, s, _ in lines]


def ranks(docs):
    """1-based ranks by score descending, ties by doc id descending (the stated tie rule)."""
    ordered = sorted(docs.items(), key=lambda item: (-item[1], tuple(-ord(c) for c in item[0])))
    return {doc: rank for rank, (doc, _) in enumerate(ordered, 1)}


def expected_order(scores):
    return sorted(scores.items(), key=lambda item: (item[0][0], -item[1], tuple(-ord(c) for c in item[0][1])))


def test_rrf_equals_its_definition(tmp_path):
    paths = [write(tmp_path, name, run) for name, run in RUNS.items()]
    out = tmp_path / 'fused.txt'
    assert main(['fuse', *paths, '-o', str(out), '--param', 'k=10']) == 0
    scores = {}
    for run in RUNS.values():
        for query, docs in run.items():
            for doc, rank in ranks(docs).items():
                scores[query, doc] = scores.get((query, doc), 0.0) + 1 / (10 + rank)
    got = read_trec(out)
    assert [(q, d) for q, d, _, _ in got] == [key for key, _ in expected_order(scores)]
    for q, d, _, s in got:
        assert s == pytest.approx(scores[q, d], abs=1e-12)
    assert [r for q, _, r, _ in got if q == '1'] == [1, 2, 3, 4]


def test_weighted_sum_of_min_max_scores_equals_its_definition(tmp_path):
    paths = [write(tmp_path, name, run) for name, run in RUNS.items()]
    out = tmp_path / 'fused.parquet'
    assert main(['fuse', *paths, '-o', str(out), '-m', 'wsum', '--weights', '0.25', '0.75']) == 0
    scores = {}
    for weight, run in zip((0.25, 0.75), RUNS.values(), strict=True):
        for query, docs in run.items():
            low, high = min(docs.values()), max(docs.values())
            for doc, score in docs.items():
                normalised = (score - low) / max(high - low, 1e-9)
                scores[query, doc] = scores.get((query, doc), 0.0) + weight * normalised
    import pyarrow.parquet as pq
    table = pq.read_table(out).to_pylist()
    assert {(row['query_id'], row['doc_id']): row['score'] for row in table} == pytest.approx(scores, abs=1e-12)


def test_metadata_and_tag(tmp_path):
    paths = [write(tmp_path, name, run) for name, run in RUNS.items()]
    (tmp_path / 'meta.yaml').write_text('tag: fused-rrf\nmethod:\n  fusion: rrf\n')
    out = tmp_path / 'fused.txt'
    assert main(['fuse', *paths, '-o', str(out), '--metadata', str(tmp_path / 'meta.yaml')]) == 0
    assert read_metadata(out) == {'tag': 'fused-rrf', 'method': {'fusion': 'rrf'}}
    assert {line.split()[-1] for line in open(out) if not line.startswith('#')} == {'fused-rrf'}


@pytest.mark.parametrize('arguments,message', [
    (['{a}'], 'give two runs or more'),
    (['{a}', 'missing.txt'], 'missing.txt: no such run file'),
    (['{a}', '{b}', '--param', 'k'], "--param 'k': give NAME=NUMBER"),
    (['{a}', '{b}', '-m', 'wsum', '--weights', '1'], 'weights must be 2 finite numbers'),
    (['{a}', '{b}', '-m', 'rrf', '--param', 'gamma=2'], 'rrf takes no parameter gamma'),
    (['{a}', '{b}', '--weights', '1', '1', '--param', 'weights=1'], 'give the weights once'),
])
def test_refusals_end_with_one_line_and_exit_2(tmp_path, capsys, arguments, message):
    a, b = (write(tmp_path, name, run) for name, run in RUNS.items())
    out = tmp_path / 'fused.txt'
    status = main(['fuse', *(x.format(a=a, b=b) for x in arguments), '-o', str(out)])
    err = capsys.readouterr().err
    assert status == 2 and message in err and not out.exists(), err


@pytest.mark.parametrize('output,options,message', [
    ('-', [], '--output names the file the fused run is written to; "-" (standard output) is not one'),
    ('fused.parquet', ['--tag', 'x'], 'a Parquet run has no tag'),
    ('fused.txt', ['--tag', 'x', '--metadata', 'meta.yaml'], "tag 'x' is not the metadata's tag 'fused-rrf'"),
])
def test_an_output_it_cannot_write_as_asked_is_refused_and_nothing_written(tmp_path, capsys, monkeypatch, output,
                                                                           options, message):
    monkeypatch.chdir(tmp_path)
    paths = [write(tmp_path, name, run) for name, run in RUNS.items()]
    (tmp_path / 'meta.yaml').write_text('tag: fused-rrf\n')
    before = sorted(os.listdir(tmp_path))
    assert main(['fuse', *paths, '-o', output, *options]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count('\n') == 1 and sorted(os.listdir(tmp_path)) == before, err


def test_an_existing_output_is_replaced_only_with_overwrite(tmp_path, capsys):
    paths = [write(tmp_path, name, run) for name, run in RUNS.items()]
    out = tmp_path / 'fused.txt'
    out.write_text('mine\n')
    assert main(['fuse', *paths, '-o', str(out)]) == 2
    assert 'exists' in capsys.readouterr().err and out.read_text() == 'mine\n'
    assert main(['fuse', *paths, '-o', str(out), '--overwrite']) == 0
    assert len(read_trec(out)) == 7


def test_the_choices_are_the_package_s():
    assert set(fuse_command.METHODS) == set(fusion.METHODS)
    assert set(fuse_command.NORMS) == {norm.replace('_', '-') for norm in fusion.NORMS} | {'none'}  # (ranx's aliases)


def test_the_console_script(tmp_path):
    paths = [write(tmp_path, name, run) for name, run in RUNS.items()]
    out = tmp_path / 'fused.txt'
    done = subprocess.run([sys.executable, '-m', 'irmeasures_ext', 'fuse', *paths, '-o', str(out)],
                          capture_output=True, text=True)
    assert done.returncode == 0 and 'of 3 queries written' in done.stderr


@pytest.mark.parametrize('arguments,message', [
    (['--metadata', '{bad}'], "{bad}:2: ir_metadata is not valid YAML: did not find expected ',' or ']'"),
    (['--metadata', '{spaced}'], "{out}: tag 'a b' is not one field of a TREC line (empty, holding a blank, or bytes "
                                 'of a file name that are not UTF-8); give tag=... (--tag on the command line)'),
    (['--tag', 'a b'], "{out}: tag 'a b' is not one field of a TREC line (empty, holding a blank, or bytes of a file "
                       'name that are not UTF-8); give tag=... (--tag on the command line)'),
])
def test_the_metadata_and_tag_are_checked_before_tuning(tmp_path, capsys, arguments, message):
    """Refused before any work: the tuning's report (stdout) is not written, nor OUTPUT."""
    paths = [write(tmp_path, name, run) for name, run in RUNS.items()]
    (tmp_path / 'qrels').write_text('1 0 x 1\n1 0 y 0\n')
    (tmp_path / 'bad.yaml').write_text('tag: x\nplatform: [a\n')
    (tmp_path / 'spaced.yaml').write_text('tag: a b\n')
    out = tmp_path / 'fused.txt'
    names = {'bad': tmp_path / 'bad.yaml', 'spaced': tmp_path / 'spaced.yaml', 'out': out}
    status = main(['fuse', *paths, '-o', str(out), '-m', 'wsum', '--optimize', 'AP', '--qrels', str(tmp_path / 'qrels'),
                   *(argument.format(**names) for argument in arguments)])
    captured = capsys.readouterr()
    assert status == 2 and captured.out == '' and not out.exists() and captured.err.count('\n') == 1
    assert captured.err.startswith(f'irmeasures-ext: error: {message.format(**names)}')
