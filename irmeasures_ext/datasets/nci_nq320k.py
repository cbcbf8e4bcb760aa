"""NQ320k as NCI builds it (Wang et al., NeurIPS 2022; ``Data_process/NQ_dataset/
NQ_dataset_Process.ipynb`` of solidsea98/Neural-Corpus-Indexer-NCI): ``nci/nq320k``,
``nci/nq320k/train`` and ``nci/nq320k/dev``.

Sources (``$IR_DATASETS_HOME/nci/nq320k/``): Natural Questions' simplified train file
``simplified-nq-train.jsonl.gz`` and the dev set in the original format, ``nq-dev-all.jsonl.gz``
when placed by hand, else its five shards ``nq-dev-00.jsonl.gz`` … ``nq-dev-04.jsonl.gz``
(downloaded with their md5s). Every example is a query (``example_id`` → ``question_text``) whose
one relevant doc is the Wikipedia page it was asked about; pages are deduplicated by their title
normalised as bert-base-uncased tokenizes and decodes it (:mod:`.titles`), train examples first in
file order, then dev; a doc's id is its position in that order, its text the first example's
``title + abstract + content``. The rules, and where they differ from NCI's notebook:
``ir_datasets.load('nci/nq320k').documentation()`` (``docs/nci.yaml``).
"""
import functools
import gzip
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

import ir_datasets
from ir_datasets.datasets.base import Dataset
from ir_datasets.formats import GenericQuery

from irmeasures_ext.datasets import titles
from irmeasures_ext.datasets.built import BuiltCollection, Writer, built_datasets
from irmeasures_ext.datasets.common import Documentation, Source
from irmeasures_ext.errors import InputError

# (No ``from __future__ import annotations``: ir_datasets' export reads the record classes' annotations as types.)

COLLECTION = 'nci'
DIRECTORY = 'nq320k'
TRAIN_FILE = 'simplified-nq-train.jsonl.gz'
DEV_FILE = 'nq-dev-all.jsonl.gz'
DEV_SHARDS = [f'nq-dev-0{i}.jsonl.gz' for i in range(5)]
SPLITS = ['train', 'dev']
#: Bumped when the build rules change, so that older builds are rebuilt.
BUILD_VERSION = 1

_TAG = re.compile('<[^<]+?>')
_SPACES = re.compile(' +')


class NQ320kDoc(NamedTuple):
    """A Wikipedia page of NQ320k: NCI's title (train: the text between the first ``<H1>`` and
    ``</H1>``; dev: ``document_title``), its doc text (``title + abstract + content``, NCI's
    ``doc_tac``), the normalised title it was deduplicated by, and the first example it came from."""
    doc_id: str
    title: str
    text: str
    title_key: str
    example_id: str

    def default_text(self) -> str:
        """``text`` (it starts with the title)."""
        return self.text


def train_title(document_text: str) -> str:
    """The text between the first ``<H1>`` and the first ``</H1>``, spaces kept ('' without them)."""
    start, end = document_text.find('<H1>'), document_text.find('</H1>')
    return document_text[start + 4:end] if start != -1 and end != -1 else ''


def abstract_and_content(document_text: str) -> tuple[str, str]:
    """NCI's abstract (the raw text between the first ``<P>`` and the first ``</P>``) and content
    (from after that ``</P>`` to the second-to-last ``</Ul>``, or the only one, or the end; tags
    removed, newlines dropped, stripped, runs of spaces collapsed). Without ``<P>`` … ``</P>`` the
    abstract is empty and the content starts at the beginning of the text (NCI reuses the previous
    example's position there)."""
    start, end = document_text.find('<P>'), document_text.find('</P>')
    if start != -1 and end != -1:
        abstract, content_start = document_text[start + 3:end], end + 4
    else:
        abstract, content_start = '', 0
    last = document_text.rfind('</Ul>')
    if last != -1:
        before_last = document_text.rfind('</Ul>', 0, last)
        content = document_text[content_start:before_last if before_last != -1 else last]
    else:
        content = document_text[content_start:]
    content = _TAG.sub('', content).replace('\n', '').strip()
    return abstract, _SPACES.sub(' ', content)


class Example(NamedTuple):
    """What the build takes from an NQ example."""
    example_id: str
    question: str
    title: str
    document_text: str


def _json_lines(path: Path) -> Iterator[tuple[int, dict]]:
    try:
        with gzip.open(path, 'rt', encoding='utf-8') as lines:
            for line_no, line in enumerate(lines, 1):
                if line.strip():
                    try:
                        yield line_no, json.loads(line)
                    except ValueError as error:
                        raise InputError(f'{path}, line {line_no}: not a JSON object ({error})') from None
    except (OSError, EOFError) as error:
        raise InputError(f'{path}: not a readable gzip file ({error})') from None


def _field(path: Path, line_no: int, item: dict, name: str) -> Any:
    if name not in item:
        raise InputError(f'{path}, line {line_no}: no {name!r} field (is it the right Natural Questions file?)')
    return item[name]


def questions(paths: list[Path]) -> Iterator[GenericQuery]:
    """The questions of NQ files of either format, in file order: what the build writes as queries."""
    for path in paths:
        for line_no, item in _json_lines(path):
            yield GenericQuery(str(_field(path, line_no, item, 'example_id')),
                               _field(path, line_no, item, 'question_text'))


def train_examples(path: Path) -> Iterator[Example]:
    """The simplified train file's examples (``document_text``: the page as space-joined tokens)."""
    for line_no, item in _json_lines(path):
        text = _field(path, line_no, item, 'document_text')
        yield Example(str(_field(path, line_no, item, 'example_id')), _field(path, line_no, item, 'question_text'),
                      train_title(text), text)


def dev_examples(paths: list[Path]) -> Iterator[Example]:
    """The original-format dev examples, their tokens (HTML tokens included) joined with spaces."""
    for path in paths:
        for line_no, item in _json_lines(path):
            tokens = _field(path, line_no, item, 'document_tokens')
            try:
                text = ' '.join(token['token'] for token in tokens)
            except (KeyError, TypeError):
                raise InputError(f'{path}, line {line_no}: document_tokens must be objects with a "token"') from None
            yield Example(str(_field(path, line_no, item, 'example_id')), _field(path, line_no, item, 'question_text'),
                          _field(path, line_no, item, 'document_title'), text)


def build(writer: Writer, train: Path, dev: list[Path], normalise: Callable[[str], str]) -> dict:
    """Streams train then dev into ``writer``: a doc for each new normalised title, a query and a qrel
    for each example."""
    doc_of_key: dict[str, str] = {}
    progress = ir_datasets.log.easy()
    for split, examples in (('train', train_examples(train)), ('dev', dev_examples(dev))):
        for example in progress.pbar(examples, desc=f'building nci/nq320k ({split})', unit='example'):
            key = normalise(example.title)
            doc_id = doc_of_key.get(key)
            if doc_id is None:
                abstract, content = abstract_and_content(example.document_text)
                doc_id = doc_of_key[key] = writer.doc({'title': example.title,
                                                       'text': example.title + abstract + content,
                                                       'title_key': key, 'example_id': example.example_id})
            writer.query(split, {'query_id': example.example_id, 'text': example.question})
            writer.qrel(split, example.example_id, doc_id)
    return {}


class NQ320k(BuiltCollection):
    """NQ320k's sources and build. A split's queries are read from the split's own files while the
    collection is not built, so that they need neither the other split's files nor a build."""

    def __init__(self) -> None:
        super().__init__(COLLECTION, DIRECTORY, SPLITS, BUILD_VERSION, NQ320kDoc, GenericQuery, 'en')

    def query_sources(self, split: str) -> list[Source]:
        """Train: the simplified train file; dev: nq-dev-all.jsonl.gz when placed by hand, else the five shards."""
        if split == 'train':
            return [Source(COLLECTION, 'nq320k-train', f'{DIRECTORY}/{TRAIN_FILE}')]
        dev_all = Source(COLLECTION, 'nq320k-dev-all', f'{DIRECTORY}/{DEV_FILE}')
        if dev_all.path().exists():
            return [dev_all]
        return [Source(COLLECTION, f'nq320k-{name.split(".")[0]}', f'{DIRECTORY}/{name}') for name in DEV_SHARDS]

    def sources(self) -> list[Source]:
        """The train file, then the dev file(s)."""
        return [source for split in SPLITS for source in self.query_sources(split)]

    def build(self, writer: Writer, paths: list[Path], normaliser: str) -> dict[str, Any]:
        """See :func:`build`."""
        return build(writer, paths[0], paths[1:], titles.normaliser(normaliser))

    def read_queries(self, split: str, paths: list[Path]) -> Iterator[GenericQuery]:
        """See :func:`questions`."""
        return questions(paths)


#: The collection (stateless: it finds its files when used).
NQ = NQ320k()


def datasets() -> dict[str, Dataset]:
    """``nci/nq320k`` (all docs, queries and qrels of both splits) and its splits."""
    relevant = 'the Wikipedia page the question was asked about (deduplicated by normalised title)'
    return built_datasets(NQ, relevant, functools.partial(Documentation, COLLECTION, DIRECTORY))


def count(dataset_id: str, entity: str, dataset: Dataset) -> int:
    """``metadata()``'s count, from the build in place (see ``BuiltCollection.count_in_place``)."""
    return NQ.count_in_place(dataset_id, entity)
