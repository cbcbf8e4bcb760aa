"""TriviaQA (Wikipedia domain) as NCI builds it (``Data_process/Trivia_dataset/
Trivia_dataset_Process.ipynb`` of solidsea98/Neural-Corpus-Indexer-NCI): ``nci/trivia-qa``,
``nci/trivia-qa/train`` and ``nci/trivia-qa/dev``.

Source: ``triviaqa-rc.tar.gz`` (University of Washington) at ``$IR_DATASETS_HOME/nci/trivia-qa/``,
read streaming (never extracted; the JSON files streamed with ijson): ``evidence/wikipedia/*.txt``
are the docs, ``qa/wikipedia-{train,dev}.json`` the questions. A doc's title is its file name's
stem with ``_`` → space, its text the file's content (universal newlines, as Python's ``open``
reads it) with newlines and tabs → spaces, cut to 10,240 characters; docs are deduplicated by the
normalised title (:mod:`.titles`) in sorted file-name order (NCI's ``os.listdir`` order is not
reproducible), a doc's id being its position. Queries: ``QuestionId`` → ``Question``; questions
containing a newline are skipped and identical question texts merged as NCI does (the last one's
id and pages, at the first one's place). Qrels: every ``EntityPages[].Filename``, through the
dedup: several relevant docs per query. ``ir_datasets.load('nci/trivia-qa').documentation()``
(``docs/nci.yaml``) has the details.
"""
import functools
import os
import tarfile
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any, NamedTuple

import ijson
import ir_datasets
from ir_datasets.datasets.base import Dataset
from ir_datasets.formats import GenericQuery

from irmeasures_ext.datasets import titles
from irmeasures_ext.datasets.built import BuildFile, BuiltCollection, WriteError, Writer, built_datasets
from irmeasures_ext.datasets.common import Documentation, Source
from irmeasures_ext.errors import InputError

# (No ``from __future__ import annotations``: ir_datasets' export reads the record classes' annotations as types.)

COLLECTION = 'nci'
DIRECTORY = 'trivia-qa'
ARCHIVE = 'triviaqa-rc.tar.gz'
EVIDENCE = 'evidence/wikipedia/'
QUESTION_FILES = {'qa/wikipedia-train.json': 'train', 'qa/wikipedia-dev.json': 'dev'}
SPLITS = ['train', 'dev']
MAX_CHARACTERS = 10_240
TITLE_TOKENS = 512  # NCI's lower() keeps the first 512 WordPieces of a title
BUILD_VERSION = 1


class TriviaQADoc(NamedTuple):
    """An evidence page: its title (from the file name), text (cut to 10,240 characters), the
    normalised title it was deduplicated by, and its file name."""
    doc_id: str
    title: str
    text: str
    title_key: str
    file_name: str

    def default_text(self) -> str:
        """``title + ' ' + text``."""
        return f'{self.title} {self.text}'


def title_of(file_name: str) -> str:
    """NCI's title: the file name without its extension, ``_`` → space."""
    return os.path.splitext(file_name)[0].replace('_', ' ')


def body_of(content: bytes) -> str:
    """NCI's doc text: the file read as text (UTF-8, universal newlines), ``\\n``, ``\\t`` and ``\\r`` →
    space, cut to 10,240 characters."""
    text = content.decode('utf-8').replace('\r\n', '\n').replace('\r', '\n')
    return text.replace('\n', ' ').replace('\t', ' ')[:MAX_CHARACTERS]


class Question(NamedTuple):
    question_id: str
    file_names: list[str]


def questions_of(stream: IO[bytes], where: str) -> Iterator[tuple[str, Question]]:
    """(question text, question) of a ``qa/*.json`` file, streamed."""
    try:
        for number, item in enumerate(ijson.items(stream, 'Data.item'), 1):
            try:
                pages = [page['Filename'] for page in item.get('EntityPages', [])]
                yield item['Question'], Question(str(item['QuestionId']), pages)
            except (KeyError, TypeError, AttributeError):
                raise InputError(f'{where}: question {number} lacks Question, QuestionId or '
                                 'EntityPages[].Filename') from None
    except ijson.JSONError as error:
        raise InputError(f'{where}: invalid JSON ({str(error).strip() or type(error).__name__})') from None


def _member_file(archive: tarfile.TarFile, member: tarfile.TarInfo, path: Path) -> IO[bytes]:
    """The contents of a regular file of ``archive`` (read from ``path``)."""
    stream = archive.extractfile(member)
    if stream is None:  # (extractfile gives None for members that are not files; read_archive asks for files)
        raise InputError(f'{path}: {member.name} is not a regular file')
    return stream


def read_archive(path: Path, bodies: BuildFile[bytes]) -> tuple[list[tuple[str, int, int]],
                                                               dict[str, dict[str, Question]], dict[str, int]]:
    """One streaming pass over the archive: each evidence page's (file name, offset, length) of its
    text written to ``bodies``, each split's questions by text (skipping those with a newline,
    the last of identical texts kept at the first one's place), and what was skipped or merged."""
    pages: list[tuple[str, int, int]] = []
    questions: dict[str, dict[str, Question]] = {split: {} for split in SPLITS}
    notes = {f'{what}-{split}': 0 for what in ('skipped_multiline', 'merged_identical') for split in SPLITS}
    progress = ir_datasets.log.easy()
    seen = set()
    try:
        with tarfile.open(path, 'r|gz') as archive:
            for member in progress.pbar(archive, desc='reading triviaqa-rc.tar.gz', unit='file'):
                if not member.isfile():
                    continue
                if member.name.startswith(EVIDENCE) and member.name.endswith('.txt'):
                    body = body_of(_member_file(archive, member, path).read()).encode('utf-8')
                    pages.append((member.name[len(EVIDENCE):], bodies.tell(), len(body)))
                    bodies.write(body)
                elif member.name in QUESTION_FILES:
                    seen.add(member.name)
                    split = QUESTION_FILES[member.name]
                    found = questions[split]
                    for text, question in questions_of(_member_file(archive, member, path), f'{path}: {member.name}'):
                        if '\n' in text:
                            notes[f'skipped_multiline-{split}'] += 1
                            continue
                        notes[f'merged_identical-{split}'] += text in found
                        found[text] = question
    except WriteError:  # (an OSError, but of the scratch file, not of the archive)
        raise
    except (tarfile.TarError, OSError, EOFError, zlib.error) as error:
        raise InputError(f'{path}: not a readable tar.gz archive ({error})') from None
    except UnicodeDecodeError as error:
        raise InputError(f'{path}: an evidence file is not UTF-8 ({error})') from None
    missing = [name for name in QUESTION_FILES if name not in seen]
    if not pages or missing:
        raise InputError(f'{path}: expected {EVIDENCE}*.txt and {", ".join(QUESTION_FILES)} in the archive; found '
                         f'{len(pages)} evidence pages, and {", ".join(missing) or "every question file"} missing')
    return pages, questions, notes


def build(writer: Writer, archive: Path, normalise: Callable[[str], str]) -> dict:
    """Reads the archive once, then writes the deduplicated docs in sorted file-name order, the
    queries and their qrels."""
    with writer.scratch('bodies.tmp') as bodies:
        pages, questions, notes = read_archive(archive, bodies)
        doc_of_key: dict[str, str] = {}
        doc_of_file: dict[str, str] = {}
        for file_name, offset, length in sorted(pages):
            title = title_of(file_name)
            key = normalise(title)
            if key not in doc_of_key:
                bodies.seek(offset)
                doc_of_key[key] = writer.doc({'title': title, 'text': bodies.read(length).decode('utf-8'),
                                              'title_key': key, 'file_name': file_name})
            doc_of_file[file_name] = doc_of_key[key]
    os.remove(writer.directory / 'bodies.tmp')
    for split in SPLITS:
        unknown = 0
        for text, question in questions[split].items():
            writer.query(split, {'query_id': question.question_id, 'text': text})
            doc_ids = [doc_of_file.get(name) for name in question.file_names]
            unknown += doc_ids.count(None)
            for doc_id in dict.fromkeys(d for d in doc_ids if d is not None):
                writer.qrel(split, question.question_id, doc_id)
        notes[f'entity_pages_without_evidence-{split}'] = unknown
    notes['evidence_files'] = len(pages)
    return notes


class TriviaQA(BuiltCollection):
    """TriviaQA's source (the one archive) and build."""

    def __init__(self) -> None:
        super().__init__(COLLECTION, DIRECTORY, SPLITS, BUILD_VERSION, TriviaQADoc, GenericQuery, 'en')

    def sources(self) -> list[Source]:
        """``triviaqa-rc.tar.gz``."""
        return [Source(COLLECTION, 'trivia-qa', f'{DIRECTORY}/{ARCHIVE}')]

    def build(self, writer: Writer, paths: list[Path], normaliser: str) -> dict[str, Any]:
        """See :func:`build`."""
        return build(writer, paths[0], titles.normaliser(normaliser, TITLE_TOKENS))


#: The collection (stateless: it finds its files when used).
TRIVIA_QA = TriviaQA()


def datasets() -> dict[str, Dataset]:
    """``nci/trivia-qa`` (all docs, queries and qrels of both splits) and its splits."""
    relevant = "a Wikipedia page of the question's EntityPages (deduplicated by normalised title)"
    return built_datasets(TRIVIA_QA, relevant, functools.partial(Documentation, COLLECTION, DIRECTORY))


def count(dataset_id: str, entity: str, dataset: Dataset) -> int:
    """``metadata()``'s count, from the build in place (see ``BuiltCollection.count_in_place``)."""
    return TRIVIA_QA.count_in_place(dataset_id, entity)
