"""Intent probabilities P(i|q) and intent types for NTCIREVAL's diversity measures, and qrels that carry them.

Forms: NTCIREVAL's ``Iprob`` file (``qid intent prob``) or ``DINprob`` file (``qid intent prob inf|nav``;
Iprob's intents are all informational), a table (DataFrame, Arrow, or a Parquet or Arrow IPC file) with
columns ``query_id, intent, probability`` and optionally ``type``, or a dict ``{query_id: {intent:
probability}}`` or ``{query_id: {intent: (probability, type)}}``. Ids are read as text. A file is read in the
grammar of TREC files (:meth:`.trec.TrecSource.text_lines`: the same line ends, BOM, blank lines, field
separators and UTF-8; compressed or not), and a probability written as text is a number as a TREC score is
(:data:`.trec.SCORE`: ASCII digits, no ``_``). A problem names the file and line (or the row): a line of the
wrong number of fields, a probability that is not a number from 0 to 1, a type other than ``inf``/``nav``, an
intent listed twice, a query whose probabilities do not sum to 1 (within 1e-6), and a file that is not text;
an intent the qrels judge relevant without a probability names the qrels line and the probabilities
(:class:`MissingProbabilityError`).
"""
from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa

from irmeasures_ext.errors import InputError, RowError
from irmeasures_ext.readers.inputs import as_source
from irmeasures_ext.readers.schemas import Layout
from irmeasures_ext.readers.source import Source
from irmeasures_ext.readers.trec import SCORE, TrecFileError, TrecSource, score_value

#: How far a query's probabilities may sum from 1 (NTCIREVAL's files write them with 4 decimals that sum to 1).
SUM_TOLERANCE = 1e-6
TYPES = ('inf', 'nav')


class IntentFileError(InputError):
    """An intent probability file or table is malformed; the message names the file and line (or row)."""


class MissingProbabilityError(IntentFileError, RowError):
    """The qrels judge an intent relevant that the intent probabilities (``probabilities``: their file, else None)
    do not list; ``query_id``, ``doc_id`` and ``intent`` are its first relevant judgment (by doc id), which a
    qrels file's reader names the line of (:meth:`IntentQrels.locate`), and ``count`` how many such intents
    there are."""

    def __init__(self, query_id: str, doc_id: str, intent: str, count: int, probabilities: str | None) -> None:
        message = (f'intent {intent!r} of query {query_id!r} has relevant judgments but no probability in '
                   f'{"the intent probabilities" if probabilities is None else probabilities} ({count} such '
                   'intent(s)): list each intent of the qrels with its probability')
        RowError.__init__(self, message, 'qrels', query_id, doc_id)
        self.args = (message,)  # (said without RowError's 'qrels: ': the message names the qrels' intent)
        self.intent, self.count, self.probabilities = intent, count, probabilities

    def __reduce__(self) -> tuple[type, tuple[str, str, str | None, int, str | None]]:  # type: ignore[override]
        return type(self), (self.query_id, self.doc_id, self.intent, self.count, self.probabilities)


class IntentProbabilities(NamedTuple):
    """P(i|q) and the type of each (query, intent), in the order given; ``where`` names each one's line or row."""

    query_id: list[str]
    intent: list[str]
    probability: np.ndarray
    navigational: np.ndarray
    where: list[str]
    #: The file they were read from, else None.
    name: str | None = None

    def of(self) -> dict[tuple[str, str], int]:
        """The position of each (query id, intent)."""
        return {key: index for index, key in enumerate(zip(self.query_id, self.intent, strict=True))}


def read_intent_probabilities(data: Any) -> IntentProbabilities:
    """The intent probabilities of ``data`` in any form of the module docstring, checked."""
    if isinstance(data, IntentProbabilities):
        return data
    name = str(data) if isinstance(data, (str, Path)) else None
    if isinstance(data, (str, Path)) and Path(data).suffix.lower() in ('.parquet', '.arrow', '.feather'):
        rows = list(_table_rows(_read_table(Path(data))))
    elif isinstance(data, (str, Path)):
        rows = list(_file_rows(Path(data)))
    elif isinstance(data, Mapping):
        rows = list(_dict_rows(data))
    elif isinstance(data, pa.Table) or hasattr(data, 'itertuples'):
        rows = list(_table_rows(data))
    else:
        raise InputError(f'unsupported intent probabilities type {type(data).__name__}: expected an Iprob or DINprob '
                         'file, a table with columns query_id, intent, probability (and type), or a dict '
                         '{query_id: {intent: probability or (probability, type)}}')
    return _checked(rows, name)


class _Row(NamedTuple):
    query_id: str
    intent: str
    probability: Any
    type: Any
    where: str


def _file_rows(path: Path) -> Iterator[_Row]:
    """The lines of an Iprob or DINprob file, read as a TREC file's are (:meth:`.trec.TrecSource.text_lines`)."""
    try:
        source = TrecSource(path)
    except TrecFileError as error:  # (no such file, a folder, unreadable)
        raise IntentFileError(str(error)) from None
    n_fields = None
    try:
        for line_no, fields in source.text_lines():
            n_fields = n_fields or len(fields)
            if len(fields) not in (3, 4) or len(fields) != n_fields:
                raise _refused(source, f'{path}:{line_no}: expected {n_fields if n_fields in (3, 4) else "3 or 4"} '
                                       'fields (qid intent prob, as Iprob, or qid intent prob type, as DINprob), got '
                                       f'{len(fields)}')
            yield _Row(fields[0], fields[1], fields[2], fields[3] if len(fields) == 4 else 'inf', f'{path}:{line_no}')
    except TrecFileError as error:  # (not UTF-8, a corrupt compressed file)
        raise _refused(source, str(error)) from None
    if n_fields is None:
        raise IntentFileError(f'{path}: no intent probabilities (the file is empty)')


def _refused(source: TrecSource, message: str) -> IntentFileError:
    """The error of a line the grammar refuses (``message``), or if the file is not text, the error saying so."""
    return IntentFileError(source.not_text(what='text (an Iprob or DINprob file)') or message)


def _read_table(path: Path) -> pa.Table:
    """A Parquet or Arrow IPC (Feather) file of intent probabilities."""
    try:
        if path.suffix.lower() == '.parquet':
            import pyarrow.parquet as pq
            return pq.read_table(path)
        import pyarrow.feather as feather
        return feather.read_table(path)
    except (OSError, pa.ArrowInvalid) as error:
        raise IntentFileError(f'{path}: cannot read intent probabilities: {error}') from None


def _dict_rows(data: Mapping) -> Iterator[_Row]:
    for query_id, intents in data.items():
        if not isinstance(intents, Mapping):
            raise IntentFileError(f'intent probabilities: value for query {query_id!r} is not a dict of intent -> '
                                  'probability')
        for intent, value in intents.items():
            probability, kind = value if isinstance(value, (tuple, list)) and len(value) == 2 else (value, 'inf')
            yield _Row(str(query_id), str(intent), probability, kind, f'intent probabilities of query {query_id!r}')


def _table_rows(data: Any) -> Iterator[_Row]:
    names = list(data.column_names if isinstance(data, pa.Table) else data.columns)
    missing = [name for name in ('query_id', 'intent', 'probability') if name not in names]
    if missing:
        raise IntentFileError(f'intent probabilities are missing column(s) {missing} (found {names}); expected '
                              'query_id, intent, probability and optionally type')
    columns = {name: (data[name].to_pylist() if isinstance(data, pa.Table) else list(data[name]))
               for name in ('query_id', 'intent', 'probability', 'type') if name in names}
    types = columns.get('type', ['inf'] * len(columns['query_id']))
    for row, values in enumerate(zip(columns['query_id'], columns['intent'], columns['probability'], types,
                                     strict=True)):
        yield _Row(str(values[0]), str(values[1]), values[2], values[3], f'intent probabilities, row {row}')


def _checked(rows: list[_Row], name: str | None) -> IntentProbabilities:
    seen: dict[tuple[str, str], str] = {}
    sums: dict[str, float] = {}
    first: dict[str, str] = {}
    probabilities = []
    for row in rows:
        probability = _probability(row)
        if row.type not in TYPES:
            raise IntentFileError(f'{row.where}: intent type {row.type!r} is not inf or nav')
        key = (row.query_id, row.intent)
        if key in seen:
            raise IntentFileError(f'{row.where}: intent {row.intent!r} of query {row.query_id!r} is listed twice '
                                  f'(first at {seen[key]})')
        seen[key] = row.where
        sums[row.query_id] = sums.get(row.query_id, 0.0) + probability
        first.setdefault(row.query_id, row.where)
        probabilities.append(probability)
    for query_id, total in sums.items():
        if abs(total - 1) > SUM_TOLERANCE:
            raise IntentFileError(f'{first[query_id]}: the intent probabilities of query {query_id!r} sum to '
                                  f'{total:.6g}, not 1')
    return IntentProbabilities([row.query_id for row in rows], [row.intent for row in rows],
                               np.array(probabilities, dtype=np.float64),
                               np.array([row.type == 'nav' for row in rows], dtype=bool), [row.where for row in rows],
                               name)


def _probability(row: _Row) -> float:
    """The probability of ``row``; text (a file's field, a string in a table) is read as a TREC score is."""
    if isinstance(row.probability, str):  # (not float(): it reads full-width digits, '0.2_5', ' 1 ')
        text = row.probability.encode('utf-8', errors='replace')
        probability = score_value(text) if SCORE.fullmatch(text) else math.nan
    else:
        try:
            probability = float(row.probability)
        except (TypeError, ValueError):
            probability = math.nan
    if isinstance(row.probability, bool) or not 0 <= probability <= 1:
        raise IntentFileError(f'{row.where}: probability {row.probability!r} of intent {row.intent!r} is not a '
                              'number from 0 to 1')
    return probability


class IntentQrels(Source):
    """Qrels with the intent of each judgment (any qrels form, e.g. NTCIREVAL's Dqrels file) and the intents'
    probabilities and types (:func:`read_intent_probabilities`), as the qrels of NTCIREVAL's diversity measures:
    ``irmeasures_ext.intent_qrels('Dqrels', 'DINprob')`` is given wherever qrels are."""

    def __init__(self, qrels: Any, probabilities: Any) -> None:
        self.qrels = as_source(qrels)
        self.name = self.qrels.name
        self.probabilities = read_intent_probabilities(probabilities)

    def read(self, layout: Layout) -> pa.Table:
        return self.qrels.read(layout)

    def batches(self, layout: Layout, block_bytes: int) -> Iterator[pa.Table]:
        return self.qrels.batches(layout, block_bytes)

    def has_classes(self) -> bool:
        return self.qrels.has_classes()

    def lists_ranks(self) -> bool:
        return False

    def emptiness(self) -> str:
        return self.qrels.emptiness()

    def locate(self, error: RowError) -> InputError:
        """The qrels' location of ``error`` (a qrels file's line); a MissingProbabilityError stays an
        IntentFileError."""
        located = self.qrels.locate(error)
        if isinstance(error, IntentFileError) and not isinstance(located, IntentFileError):
            return IntentFileError(str(located))
        return located

