"""The Source boundary (readers/source.py): a format added as one module and one line of FORMATS is read by every
entry point, whole and streamed, its problems named by its own lines. The format here is the README's example
("Adding a format"): JSON Lines, one object per line with the layout's fields."""
from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import ir_measures
import pyarrow as pa
import pytest

from irmeasures_ext import Q, provider
from irmeasures_ext.cli import main
from irmeasures_ext.engine import stream
from irmeasures_ext.errors import InputError, RowError
from irmeasures_ext.readers import FORMATS, Format, pieces
from irmeasures_ext.readers.conversion import from_lists
from irmeasures_ext.readers.schemas import Layout
from irmeasures_ext.readers.source import Source, format_of


class JsonLinesSource(Source):
    """A JSON Lines file: one object per line holding the layout's fields (``query_id``, ``doc_id``, ``score``
    or ``relevance``)."""

    def __init__(self, path: str | Path, name: str | None = None) -> None:
        self.path = Path(path)
        self.name = str(path) if name is None else name

    def read(self, layout: Layout) -> pa.Table:
        return self._table([json.loads(line) for line in self.path.read_text().splitlines() if line], layout)

    def batches(self, layout: Layout, block_bytes: int) -> Iterator[pa.Table]:
        rows, size = [], 0
        for line in self.path.read_text().splitlines(keepends=True):
            rows.append(json.loads(line))
            size += len(line)
            if size >= block_bytes:
                yield self._table(rows, layout)
                rows, size = [], 0
        if rows:
            yield self._table(rows, layout)

    def _table(self, rows: list[dict], layout: Layout) -> pa.Table:
        return from_lists(*([row[name] for row in rows] for name in layout.schema.names), schema=layout.schema,
                          what=f'{self.name}: {layout.kind}')

    def size_hint(self) -> int:
        return self.path.stat().st_size

    def has_classes(self) -> bool:
        return False

    def lists_ranks(self) -> bool:
        return False

    def locate(self, error: RowError) -> InputError:
        lines = [number for number, line in enumerate(self.path.read_text().splitlines(), 1)
                 if (json.loads(line)['query_id'], json.loads(line)['doc_id']) == (error.query_id, error.doc_id)]
        return InputError(f'{self.name}:{",".join(map(str, lines))}: {error.problem}')


def open_path(path: str | Path, file_format: str, name: str | None = None) -> JsonLinesSource:
    return JsonLinesSource(path, name)


QRELS = 'q1 0 a 1\nq1 0 b 2\nq1 0 c 0\nq2 0 d 1\nq2 0 e 1\nq3 0 f 1\n'
RUN = [('q1', 'b', 3.0), ('q1', 'x', 2.0), ('q1', 'a', 2.0), ('q1', 'c', 1.0), ('q2', 'y', 5.0), ('q2', 'e', 4.0),
       ('q2', 'z', 1.0)]
MEASURES = [ir_measures.AP, ir_measures.nDCG @ 10, ir_measures.RR, Q @ 10]


@pytest.fixture
def jsonl_format(monkeypatch):
    monkeypatch.setitem(FORMATS, 'jsonl', Format(__name__, ('.jsonl',), 'a JSON Lines file'))


@pytest.fixture
def files(tmp_path):
    (tmp_path / 'qrels.txt').write_text(QRELS)
    (tmp_path / 'run.txt').write_text(''.join(f'{q} Q0 {d} 0 {s} t\n' for q, d, s in RUN))
    (tmp_path / 'run.jsonl').write_text(''.join(json.dumps({'query_id': q, 'doc_id': d, 'score': s}) + '\n'
                                                for q, d, s in RUN))
    return tmp_path


def test_a_format_of_one_module_and_one_registry_line_is_read_whole_and_streamed(jsonl_format, files, monkeypatch):
    assert format_of(files / 'run.jsonl') == 'jsonl'
    as_trec = provider.calc_aggregate(MEASURES, files / 'qrels.txt', files / 'run.txt')
    # AP by hand: q1 ranks b (2), a (1) tied with x at 2.0 (x after a: doc ids descending), c: relevant at 1 and 3
    # of 2 relevant docs: (1/1 + 2/3) / 2; q2: e at 2 of 2 relevant: (1/2) / 2; q3 retrieves nothing: 0
    assert as_trec[ir_measures.AP] == pytest.approx(((1 + 2 / 3) / 2 + 1 / 4 + 0) / 3, abs=1e-15)
    assert provider.calc_aggregate(MEASURES, files / 'qrels.txt', files / 'run.jsonl') == as_trec
    evaluated = []
    monkeypatch.setattr(stream, '_ordered', lambda *args, original=stream._ordered: evaluated.append(1)
                        or original(*args))
    monkeypatch.setattr(pieces, 'STREAM_FROM_BYTES', 0)
    monkeypatch.setattr(pieces, 'BLOCK_BYTES', 100)  # (about two lines a batch)
    assert provider.calc_aggregate(MEASURES, files / 'qrels.txt', files / 'run.jsonl') == as_trec
    assert evaluated == [1]


def test_the_command_reads_the_new_format_by_suffix_and_by_name(jsonl_format, files, capsys):
    assert main([str(files / 'qrels.txt'), str(files / 'run.txt'), 'AP', 'Q@10']) == 0
    as_trec = capsys.readouterr().out
    assert main([str(files / 'qrels.txt'), str(files / 'run.jsonl'), 'AP', 'Q@10']) == 0
    assert capsys.readouterr().out == as_trec
    (files / 'run.json-lines').write_bytes((files / 'run.jsonl').read_bytes())
    assert main([str(files / 'qrels.txt'), str(files / 'run.json-lines'), 'AP', 'Q@10', '--format', 'jsonl',
                 '--qrels-format', 'trec']) == 0
    assert capsys.readouterr().out == as_trec


def test_a_problem_the_engine_finds_is_named_by_the_formats_own_lines(jsonl_format, files):
    with open(files / 'run.jsonl', 'a') as run:
        run.write(json.dumps({'query_id': 'q2', 'doc_id': 'e', 'score': 0.5}) + '\n')
    with pytest.raises(InputError, match=rf"^{files / 'run.jsonl'}:6,8: duplicate doc 'e' in query 'q2' \(2 times\)"):
        provider.calc_aggregate(MEASURES, files / 'qrels.txt', files / 'run.jsonl')


def test_an_unknown_format_is_named():
    from irmeasures_ext.readers.source import open_file
    with pytest.raises(InputError, match="^unknown input format 'csv': expected one of trec, parquet, arrow$"):
        open_file('run.csv', 'csv')
