"""Intent probabilities P(i|q) and intent types for NTCIREVAL's diversity measures, and qrels that carry them.

Forms: NTCIREVAL's ``Iprob`` file (``qid intent prob``) or ``DINprob`` file (``qid intent prob inf|nav``;
Iprob's intents are all informational), a table (DataFrame, Arrow, or a Parquet or Arrow IPC file) with
columns ``query_id, intent, probability`` and optionally ``type``, or a dict ``{query_id: {intent:
probability}}`` or ``{query_id: {intent: (probability, type)}}``. Ids are read as text. A file is read in the
grammar of TREC files (:meth:`.trec.TrecSource.text_lines`: the same line ends, BOM, blank lines, field
separators and UTF-8; compressed or not), and a probability written as text is a number as a TREC score is
(:data:`.trec.SCORE`: ASCII digits, no ``_``). A problem names the file and line (or the row): a line of the
wrong number of fields, a probability that is not a number from 0 to 1, a type other than ``inf``/``nav``, an
intent listed twice, and a file that is not text; an intent the qrels judge relevant without a probability names
the qrels line and the probabilities (:class:`MissingProbabilityError`).

A query's probabilities are used as they are written, as NTCIREVAL uses them (its scripts never renormalise):
where they do not sum to 1, one :class:`~irmeasures_ext.errors.ProbabilitySumWarning` names the first such
query's line and sum, and how many such queries there are. "Sum to 1" is to the precision they are written with:
each probability may be off by half a unit of its last written decimal (0.3333 stands for anything from 0.33325
to 0.33335; a probability written without decimals, 0 or 1, is exact), so a sum that is less than the total of
these half units away from 1 is 1 (0.3333 x 3 = 0.9999 is 1; 0.5 + 0.4 is not; nor is 0.3333 + 0.3333 + 0.3332).
A number (a dict's, a table's) is written as its shortest form, Python's ``repr``; and a sum within
:data:`FLOAT_SLACK` of 1 as doubles is 1. ``renormalise=True`` divides each query's probabilities by their sum instead
(an error for a query whose probabilities sum to 0).
"""
from __future__ import annotations

import math
from collections.abc import Iterator, Mapping
from decimal import Decimal
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pyarrow as pa

from irmeasures_ext.errors import (
    InputError,
    IrMeasuresExtError,
    ProbabilitySumWarning,
    RowError,
    check_flag,
    warn_at_caller,
)
from irmeasures_ext.readers.inputs import as_source
from irmeasures_ext.readers.schemas import Layout
from irmeasures_ext.readers.source import Source
from irmeasures_ext.readers.trec import SCORE, TrecFileError, TrecSource, score_value

#: How far from 1 a sum of probabilities, as doubles, is 1 whatever their written precision (the rounding of binary
#: numbers: 1/3 + 1/3 + 1/3 computed, a number's repr with 17 digits).
FLOAT_SLACK = 1e-12
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


def read_intent_probabilities(data: Any, renormalise: bool = False) -> IntentProbabilities:
    """The intent probabilities of ``data`` in any form of the module docstring, checked; as written (a
    ProbabilitySumWarning where a query's do not sum to 1), or with ``renormalise``, divided by their query's sum."""
    check_flag('renormalise', renormalise, IrMeasuresExtError)
    if isinstance(data, IntentProbabilities):
        return _renormalised(data) if renormalise else data
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
    return _checked_probabilities(rows, name, renormalise)


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


def _checked_probabilities(rows: list[_Row], name: str | None, renormalise: bool) -> IntentProbabilities:
    seen: dict[tuple[str, str], str] = {}
    sums: dict[str, _Sum] = {}
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
        sums.setdefault(row.query_id, _Sum(row.where)).add(row.probability, probability)
        probabilities.append(probability)
    read = IntentProbabilities([row.query_id for row in rows], [row.intent for row in rows],
                               np.array(probabilities, dtype=np.float64),
                               np.array([row.type == 'nav' for row in rows], dtype=bool), [row.where for row in rows],
                               name)
    if renormalise:
        return _renormalised(read)
    _warn_of_sums(sums)
    return read


def _renormalised(read: IntentProbabilities) -> IntentProbabilities:
    """``read`` with each query's probabilities divided by their sum (IntentFileError for a sum of 0)."""
    queries, first, inverse = np.unique(np.array(read.query_id, dtype=object), return_index=True,
                                        return_inverse=True)
    sums = np.bincount(inverse.ravel(), weights=read.probability, minlength=len(queries))
    if (sums == 0).any():
        row = int(first[sums == 0].min())
        raise IntentFileError(f'{read.where[row]}: the intent probabilities of query {read.query_id[row]!r} sum to 0, '
                              'which cannot be renormalised')
    return read._replace(probability=read.probability / sums[inverse.ravel()])


class _Sum:
    """The sum of a query's probabilities (``value``, as doubles), the same as written (``written``, in decimal) and
    how far the written sum may be from the sum of the numbers written (``slack``: half a unit of each one's last
    written decimal); ``where`` names the query's first line or row."""

    def __init__(self, where: str) -> None:
        self.where, self.value, self.written, self.slack = where, 0.0, Decimal(0), Decimal(0)

    def add(self, given: Any, probability: float) -> None:
        """Adds ``probability``, given as ``given`` (text as written, else a number, written as its repr: 1.0 as 1)."""
        written = Decimal(given) if isinstance(given, str) else Decimal(repr(probability)).normalize()
        exponent = written.as_tuple().exponent
        self.value += probability
        self.written += written
        if isinstance(exponent, int) and exponent < 0:  # (written without decimals: exact)
            self.slack += Decimal(5).scaleb(exponent - 1)

    def is_one(self) -> bool:
        """Whether the probabilities sum to 1 as written, to their precision, or as doubles to FLOAT_SLACK."""
        return self.written == 1 or abs(self.written - 1) < self.slack or abs(self.value - 1) <= FLOAT_SLACK


def _warn_of_sums(sums: dict[str, _Sum]) -> None:
    """One ProbabilitySumWarning for the queries whose probabilities do not sum to 1 to their written precision."""
    off = [(query_id, total) for query_id, total in sums.items() if not total.is_one()]
    if off:
        query_id, total = off[0]
        queries = '1 such query' if len(off) == 1 else f'{len(off)} such queries'
        warn_at_caller(f'{total.where}: the intent probabilities of query {query_id!r} sum to {total.written:f}, not 1 '
                       f"to the precision they are written with ({queries}): NTCIREVAL's measures take them as they "
                       'are, and so do ours (renormalise=True, on the command line --renormalise-intents, divides '
                       "each by its query's sum)", ProbabilitySumWarning)


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
    probabilities and types (:func:`read_intent_probabilities`: as written, or with ``renormalise``, divided by
    their query's sum), as the qrels of NTCIREVAL's diversity measures: ``irmeasures_ext.intent_qrels('Dqrels',
    'DINprob')`` is given wherever qrels are."""

    def __init__(self, qrels: Any, probabilities: Any, renormalise: bool = False) -> None:
        self.qrels = as_source(qrels)
        self.name = self.qrels.name
        self.probabilities = read_intent_probabilities(probabilities, renormalise)

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

