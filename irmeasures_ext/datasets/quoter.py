"""QuoteR (Qi et al., ACL 2022): ``quoter/english``, ``quoter/modern-chinese``,
``quoter/classical-chinese``, each with ``/train``, ``/valid`` and ``/test`` (docs/datasets.md).

Docs are the language's quote pool: ``sorted(set(all quotes, all splits))``, a quote's doc_id being
its index there (the official label). Queries are the contexts of the split's lines, query_id being
the line's 0-based index in the file. Each query has one relevant doc, its gold quote.
The file is read as the official scripts read it: ``line.strip()`` (English also ``.lower()``),
then ``split('\\t')``, fields after the third ignored. Full description:
``ir_datasets.load('quoter/english').documentation()`` (``docs/quoter.yaml``).
"""
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from ir_datasets.datasets.base import Dataset
from ir_datasets.formats import BaseQrels, BaseQueries, GenericDoc, GenericQrel

from irmeasures_ext.datasets.common import DictDocs, DictDocstore, Documentation, Source, in_place, load_once
from irmeasures_ext.datasets.metadata import cached_count, count_records
from irmeasures_ext.errors import InputError

# (No ``from __future__ import annotations`` in this module: ir_datasets' export reads the record
# classes' annotations as types.)


class QuoteRQuery(NamedTuple):
    """A context: the text left and right of the gap where the quote goes, and the masked form the
    official code feeds its model (``left_context + '[MASK]' + right_context``)."""
    query_id: str
    text: str
    left_context: str
    right_context: str
    masked_text: str

    def default_text(self) -> str:
        """``left_context + ' ' + right_context``."""
        return self.text


@dataclass(frozen=True)
class Language:
    """One QuoteR part: its file, language tag, case folding and official split boundaries."""
    file_name: str
    lang: str
    lowercase: bool
    valid_start: int
    test_start: int

    def splits(self) -> dict[str, slice]:
        """Line ranges of the official train / valid / test splits."""
        return {'train': slice(0, self.valid_start), 'valid': slice(self.valid_start, self.test_start),
                'test': slice(self.test_start, None)}


LANGUAGES = {
    'english': Language('english.txt', 'en', True, 101171, 113942),
    'modern-chinese': Language('modern_chinese.txt', 'zh', False, 32472, 36657),
    'classical-chinese': Language('ancient_chinese.txt', 'lzh', False, 93031, 104784),
}


class QuoteRFile(NamedTuple):
    """A parsed QuoteR file."""
    samples: list[tuple[str, str, str]]  # (left context, quote, right context) per line
    docs: dict[str, GenericDoc]  # the quote pool by doc_id
    doc_ids: dict[str, str]  # quote -> doc_id


def read_quoter(path: Path, lowercase: bool) -> QuoteRFile:
    """Parse a QuoteR file as the official scripts do; ``InputError`` names the file and line of a bad line."""
    samples = []
    with path.open(encoding='utf-8') as f:
        try:
            for line_no, line in enumerate(f, 1):
                line = line.strip()
                fields = (line.lower() if lowercase else line).split('\t')
                if len(fields) < 3:
                    raise InputError(f'{path}, line {line_no}: expected 3 tab-separated fields '
                                     f'(left context, quote, right context), found {len(fields)}')
                samples.append((fields[0], fields[1], fields[2]))
        except UnicodeDecodeError as e:
            raise InputError(f'{path}: not UTF-8 after line {len(samples)}: {e}') from e
    pool = sorted({quote for _, quote, _ in samples})
    docs = {str(i): GenericDoc(str(i), quote) for i, quote in enumerate(pool)}
    return QuoteRFile(samples, docs, {doc.text: doc_id for doc_id, doc in docs.items()})


class _Source:
    """The file of one language, located (and downloaded if missing) on first use."""

    def __init__(self, name: str):
        self.name = name
        self.language = LANGUAGES[name]

    def source(self) -> Source:
        """The file."""
        return Source('quoter', self.name, self.language.file_name)

    def load(self) -> QuoteRFile:
        """The parsed file; ``InputError`` if it is too short for the official splits."""
        path = self.source().locate()
        data = load_once(read_quoter, path, self.language.lowercase)
        if len(data.samples) <= self.language.test_start:
            raise InputError(f'{path} has {len(data.samples)} lines; the official test split starts '
                             f'at line index {self.language.test_start}')
        return data

    def docs(self) -> dict[str, GenericDoc]:
        """The quote pool by doc_id."""
        return self.load().docs


class _Split:
    """The lines of one split."""

    def __init__(self, source: _Source, rows: slice):
        self._source = source
        self._rows = rows

    def _select(self) -> tuple[QuoteRFile, range]:
        data = self._source.load()
        return data, range(*self._rows.indices(len(data.samples)))


class QuoteRQueries(_Split, BaseQueries):
    """The contexts of a split."""

    def queries_iter(self) -> Iterator[QuoteRQuery]:
        """Queries in file order."""
        data, rows = self._select()
        for index in rows:
            left, _, right = data.samples[index]
            yield QuoteRQuery(str(index), f'{left} {right}', left, right, f'{left}[MASK]{right}')

    def queries_cls(self) -> type:
        """``QuoteRQuery``."""
        return QuoteRQuery

    def queries_store(self) -> DictDocstore:
        """Lookup by query_id (``ir_datasets lookup --qid``)."""
        return DictDocstore({query.query_id: query for query in self.queries_iter()}, QuoteRQuery, 'query_id')

    def queries_lang(self) -> str:
        """ISO 639 language code."""
        return self._source.language.lang

    def queries_namespace(self) -> str:
        """Query ids are line indices of this file."""
        return f'quoter/{self._source.name}'


class QuoteRQrels(_Split, BaseQrels):
    """One qrel per context: its gold quote, relevance 1."""

    def qrels_iter(self) -> Iterator[GenericQrel]:
        """Qrels in file order."""
        data, rows = self._select()
        for index in rows:
            yield GenericQrel(str(index), data.doc_ids[data.samples[index][1]], 1)

    def qrels_defs(self) -> dict[int, str]:
        """Relevance levels."""
        return {1: 'the quote used in this context (the only relevant doc)'}


def datasets() -> dict[str, Dataset]:
    """Every QuoteR dataset by id (nothing is read until a dataset is used)."""
    result = {'quoter': Dataset(Documentation('quoter', '_'))}
    for name, language in LANGUAGES.items():
        source = _Source(name)
        docs = DictDocs(source.docs, GenericDoc, language.lang, f'quoter/{name}')
        result[f'quoter/{name}'] = Dataset(docs, Documentation('quoter', name))
        for split, rows in language.splits().items():
            stop = '' if rows.stop is None else rows.stop
            note = f'{split} split: lines [{rows.start}:{stop}] of {language.file_name}'
            result[f'quoter/{name}/{split}'] = Dataset(
                docs, QuoteRQueries(source, rows), QuoteRQrels(source, rows), Documentation('quoter', name, split=note))
    return result


def count(dataset_id: str, entity: str, dataset: Dataset) -> int:
    """``metadata()``'s count of ``entity`` records of a QuoteR dataset, from its file in place (never
    downloaded), counted once per version of the file."""
    paths = in_place([_Source(dataset_id.split('/')[1]).source()], f'counting the {entity} of {dataset_id}')
    return cached_count('quoter', dataset_id, entity, paths, lambda: count_records(dataset, entity))
