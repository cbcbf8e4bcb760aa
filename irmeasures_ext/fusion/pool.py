"""The runs to fuse as one flat pool of rows on integer codes, ranked, with what every method reads of it.

A row is one doc of one query in one run: ``run`` (its position among the runs), ``query`` and ``doc`` (codes
into the byte-wise ascending distinct ids), with a score. Rows are held run after run, each (run, query) *list*
contiguous and in *rank order*: descending score, tied docs by descending doc id (as trec_eval ranks them), so a
row's rank (from 1) is its place in its list. Rows already so (a TREC file, a run written by this package) are
kept in place; others are sorted. A normalisation that keeps the order of the scores keeps the rows and their
ranks (:meth:`Pool.rescored`). A *candidate* is a (query, doc) pair some run retrieves; candidates are numbered by
query, then ascending doc id.
"""
from __future__ import annotations

import functools
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from irmeasures_ext._arrow.arrays import from_numpy, to_numpy
from irmeasures_ext.engine.ranking import check_run
from irmeasures_ext.errors import DuplicateDocError, InputError
from irmeasures_ext.readers.inputs import Input, read_input

#: Rows (of all runs together) pooled at once by :func:`pools`: a pool's ids are coded through hash tables, faster
#: in parts that stay in the CPU caches (10 runs of 1M lines read and fused by RRF in 4.7 s in parts of 2^18 rows,
#: 5.0 s of 2^19, 6.2 s of 2^20, 10.1 s at once).
PART_ROWS = 1 << 18
#: A run whose rows of a range lie in more stretches than this, on average, is copied in range order before it is cut
#: (else each range's rows are the run's slices, not copied).
_STRETCHES_PER_RANGE = 64


class FusionError(InputError):
    """:func:`irmeasures_ext.fusion.fuse` was given too few runs, an unknown method or normalisation, or
    parameters the method does not take."""


@dataclass(frozen=True, eq=False)
class Rows:
    """The rows of every run in rank order (the module's docstring), without their scores; ``query_ids`` and
    ``doc_ids`` the ids the codes index."""

    run: np.ndarray
    query: np.ndarray
    doc: np.ndarray
    n_runs: int
    query_ids: pa.Array
    doc_ids: pa.Array

    # -- lists: the rows of one run for one query --------------------------------------------------------------

    @functools.cached_property
    def list_starts(self) -> np.ndarray:
        """The first row of each list."""
        return _changes(self.run, self.query)

    @functools.cached_property
    def list_sizes(self) -> np.ndarray:
        """The number of docs of each list."""
        return np.diff(self.list_starts, append=len(self.run))

    @functools.cached_property
    def list_of_row(self) -> np.ndarray:
        """Each row's list."""
        return np.repeat(np.arange(len(self.list_starts)), self.list_sizes)

    @functools.cached_property
    def rank(self) -> np.ndarray:
        """Each row's rank in its list, from 1."""
        return np.arange(len(self.run)) - self.list_starts[self.list_of_row] + 1

    def per_row(self, per_list: np.ndarray) -> np.ndarray:
        """A value of each list, repeated for each of its rows."""
        return per_list[self.list_of_row]

    def list_totals(self, values: np.ndarray) -> np.ndarray:
        """Each list's sum of ``values`` (one a row), added in row order."""
        return np.bincount(self.list_of_row, weights=values, minlength=len(self.list_starts))

    # -- candidates: the (query, doc) pairs some run retrieves ----------------------------------------------

    @functools.cached_property
    def _candidates(self) -> tuple[np.ndarray, np.ndarray]:
        """Each candidate's key (query × docs + doc) and each row's candidate; a doc twice in a list is an
        error."""
        key = (self.query * len(self.doc_ids) + self.doc) * self.n_runs + self.run
        order = np.argsort(key)
        ordered = key[order]
        if len(ordered) and (repeated := np.flatnonzero(np.diff(ordered) == 0)).size:
            row = order[repeated[0]]
            query, doc = self.query_ids[self.query[row]].as_py(), self.doc_ids[self.doc[row]].as_py()
            raise DuplicateDocError(f'duplicate doc {doc!r} in query {query!r} of run {self.run[row]} (counted '
                                    'from 0); each doc may appear once per query', 'run', query, doc)
        pair = ordered // self.n_runs
        firsts = _changes(pair)
        candidate = np.empty(len(key), dtype=np.int64)
        candidate[order] = np.repeat(np.arange(len(firsts)), np.diff(firsts, append=len(key)))
        return pair[firsts], candidate

    @property
    def candidate(self) -> np.ndarray:
        """Each row's candidate."""
        return self._candidates[1]

    @property
    def n_candidates(self) -> int:
        """The number of candidates."""
        return len(self._candidates[0])

    @property
    def candidate_query(self) -> np.ndarray:
        """Each candidate's query."""
        return self._candidates[0] // len(self.doc_ids)

    @property
    def candidate_doc(self) -> np.ndarray:
        """Each candidate's doc."""
        return self._candidates[0] % len(self.doc_ids)

    def totals(self, values: np.ndarray) -> np.ndarray:
        """Each candidate's sum of ``values`` (one a row), added in run order."""
        return np.bincount(self.candidate, weights=values, minlength=self.n_candidates)

    @functools.cached_property
    def counts(self) -> np.ndarray:
        """The number of runs retrieving each candidate."""
        return np.bincount(self.candidate, minlength=self.n_candidates)

    def sorted_by_candidate(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``values`` (one a row) sorted by candidate, then ascending, and the first position of each candidate."""
        order = np.lexsort((values, self.candidate))
        return values[order], np.cumsum(self.counts) - self.counts

    @functools.cached_property
    def candidates_of_query(self) -> tuple[np.ndarray, np.ndarray]:
        """The first candidate of each query and their number."""
        queries = np.arange(len(self.query_ids))
        return np.searchsorted(self.candidate_query, queries), np.bincount(self.candidate_query,
                                                                            minlength=len(queries))

    @functools.cached_property
    def grid(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every pair of a list and a candidate of the list's query, list after list (so run after run), each list's
        in rank order: its docs by rank, then the candidates it misses by descending doc id. Returned: each pair's
        list, candidate and row (-1 for a candidate the list misses)."""
        first, count = self.candidates_of_query
        list_query = self.query[self.list_starts]
        sizes = count[list_query]
        starts = np.cumsum(sizes) - sizes
        candidate = np.empty(int(sizes.sum()), dtype=np.int64)
        row = np.full(len(candidate), -1)
        ranked = starts[self.list_of_row] + self.rank - 1
        candidate[ranked], row[ranked] = self.candidate, np.arange(len(self.run))
        # the missed candidates: ascending, list after list, as every candidate less those ranked; then reversed
        every = np.repeat(first[list_query] - starts, sizes) + np.arange(len(candidate))
        missed = np.ones(len(candidate), dtype=bool)
        missed[starts[self.list_of_row] + self.candidate - first[self.query]] = False
        missed_list = np.repeat(np.arange(len(sizes)), sizes)[missed]
        n_missed = sizes - self.list_sizes
        k = np.arange(len(missed_list)) - (np.cumsum(n_missed) - n_missed)[missed_list]
        candidate[starts[missed_list] + self.list_sizes[missed_list] + n_missed[missed_list] - 1 - k] = every[missed]
        return np.repeat(np.arange(len(sizes)), sizes), candidate, row

    def moved(self, destination: np.ndarray) -> Rows:
        """The same rows, row i moved to ``destination[i]`` (within its list), and the same candidates."""
        return self.of_candidates(_placed(self.run, destination), _placed(self.query, destination),
                                  _placed(self.doc, destination), _placed(self.candidate, destination))

    def of_candidates(self, run: np.ndarray, query: np.ndarray, doc: np.ndarray, candidate: np.ndarray) -> Rows:
        """Rows (in rank order) of this one's candidates, ``candidate`` the candidate of each."""
        rows = Rows(run, query, doc, self.n_runs, self.query_ids, self.doc_ids)
        rows.__dict__['_candidates'] = (self._candidates[0], candidate)  # (what the cached property would find)
        return rows


def _placed(values: np.ndarray, destination: np.ndarray) -> np.ndarray:
    """``values`` with values[i] at ``destination[i]``."""
    placed = np.empty_like(values)
    placed[destination] = values
    return placed


@dataclass(frozen=True)
class Pool:
    """Rows in rank order and their scores (one a row)."""

    rows: Rows
    score: np.ndarray

    @classmethod
    def read(cls, runs: Sequence[object]) -> Pool:
        """The pool of ``runs``, each in any form :func:`~irmeasures_ext.readers.inputs.read_input` reads;
        a non-finite score or a doc twice in a query of a run is an InputError."""
        reads = _checked_reads(runs)
        try:
            return cls.of_tables([read.table for read in reads])
        except DuplicateDocError as error:
            raise located_duplicate(error, reads) from None

    @classmethod
    def of_tables(cls, tables: Sequence[pa.Table]) -> Pool:
        """The pool of runs read and checked (tables of query_id, doc_id and score); a doc twice in a query of a run
        is a DuplicateDocError."""
        table = pa.concat_tables([table.select(['query_id', 'doc_id', 'score']) for table in tables])
        query_ids, query = _codes(table['query_id'])
        doc_ids, doc = _codes(table['doc_id'])
        run = np.repeat(np.arange(len(tables)), [t.num_rows for t in tables])
        pool = cls.ranked(run, query, doc, to_numpy(table['score']).astype(np.float64), len(tables), query_ids,
                          doc_ids)
        _ = pool.rows.candidate  # (finds a doc twice in a list now, whatever is asked next)
        return pool

    @classmethod
    def ranked(cls, run: np.ndarray, query: np.ndarray, doc: np.ndarray, score: np.ndarray, n_runs: int,
               query_ids: pa.Array, doc_ids: pa.Array) -> Pool:
        """The pool of these rows (run after run), put in rank order unless they are."""
        order = _rank_order(run * len(query_ids) + query, doc, score, len(doc_ids))
        if order is not None:
            run, query, doc, score = run[order], query[order], doc[order], score[order]
        return cls(Rows(run, query, doc, n_runs, query_ids, doc_ids), score)

    def rescored(self, score: np.ndarray) -> Pool:
        """The same rows and ranks with new scores (row for row), a non-decreasing function of the old: where it
        makes two scores equal, the docs keep their ranks."""
        return Pool(self.rows, score)

    def inverted(self, score: np.ndarray) -> Pool:
        """The same rows with new scores (row for row), a non-increasing function of the old: each list ranked
        from its last doc to its first, docs of an equal old score still by descending doc id."""
        rows, n = self.rows, len(self.score)
        ties = _changes(rows.list_of_row, self.score)
        tie_sizes = np.diff(ties, append=n)
        tie_start = np.repeat(ties, tie_sizes)
        tie_end = tie_start + np.repeat(tie_sizes, tie_sizes) - 1
        list_start, list_end = rows.per_row(rows.list_starts), rows.per_row(rows.list_starts + rows.list_sizes) - 1
        # (a tie group's place mirrored in its list, the rows of the group in their order)
        destination = list_start + (list_end - tie_end) + (np.arange(n) - tie_start)
        return Pool(rows.moved(destination), _placed(score, destination))


def pools(runs: Sequence[object], part_rows: int | None = None) -> Iterator[Pool]:
    """The pools of ``runs`` (read and checked as :meth:`Pool.read` does), each of a range of query ids, in
    ascending order, of at most ``part_rows`` (default :data:`PART_ROWS`) rows of all runs together (or one
    query)."""
    reads = _checked_reads(runs)
    tables = [read.table for read in reads]
    for part in _query_parts(tables, PART_ROWS if part_rows is None else part_rows):
        try:
            yield Pool.of_tables(part)
        except DuplicateDocError as error:
            raise located_duplicate(error, reads) from None


def range_starts(rows: np.ndarray, max_rows: int) -> np.ndarray:
    """Consecutive ranges of items of ``rows`` rows each, as many items as fit in ``max_rows`` rows (or one): the
    first item of each range."""
    through = np.cumsum(rows)
    starts = [0]
    while (end := max(int(np.searchsorted(through, through[starts[-1]] - rows[starts[-1]] + max_rows, side='right')),
                      starts[-1] + 1)) < len(rows):
        starts.append(end)
    return np.array(starts, dtype=np.int64)


def _checked_reads(runs: Sequence[object]) -> list[Input]:
    """``runs`` read, each checked as an evaluation checks a run but for a doc twice in a query (the pool finds
    those): a non-finite score is an InputError naming its line."""
    reads = [read_input(run, 'run') for run in runs]
    for read in reads:
        with read.located():
            check_run(read.table, duplicates=False)
    return reads


def _query_parts(tables: list[pa.Table], part_rows: int) -> Iterator[list[pa.Table]]:
    """The rows of ``tables`` by ranges of query ids (:func:`range_starts` of the queries in ascending order), each
    range's rows of each table in their order."""
    if sum(table.num_rows for table in tables) <= part_rows:
        yield tables
        return
    query_ids, codes = _codes(pa.concat_tables([table.select(['query_id']) for table in tables])['query_id'])
    starts = range_starts(np.bincount(codes, minlength=len(query_ids)), part_rows)
    range_of = np.repeat(np.arange(len(starts)), np.diff(starts, append=len(query_ids)))[codes]
    split = []
    for table, offset in zip(tables, np.cumsum([0] + [table.num_rows for table in tables]).tolist(), strict=False):
        ranges = range_of[offset:offset + table.num_rows]
        stretches = _changes(ranges)  # (the first row of each stretch of rows of one range)
        if len(stretches) > _STRETCHES_PER_RANGE * len(starts):  # (queries interleaved: the rows taken in order)
            order = np.argsort(ranges, kind='stable')
            table, ranges = table.take(from_numpy(order)), ranges[order]
            stretches = _changes(ranges)
        sizes = np.diff(stretches, append=len(ranges))
        by_range = np.argsort(ranges[stretches], kind='stable')
        bounds = np.searchsorted(ranges[stretches][by_range], np.arange(len(starts) + 1))
        split.append([pa.concat_tables([table.slice(stretches[i], sizes[i]) for i in by_range[start:end].tolist()])
                      if end > start else table.slice(0, 0)
                      for start, end in zip(bounds[:-1], bounds[1:], strict=True)])
    yield from (list(part) for part in zip(*split, strict=True))


def located_duplicate(error: DuplicateDocError, reads: Sequence[Input]) -> InputError:
    """``error`` named by the source (a file and its lines) of the first of ``reads`` that holds its doc twice in its
    query (as it is if that run has no source)."""
    for read in reads:
        table = read.table
        same = pc.and_(pc.equal(table['query_id'], error.query_id), pc.equal(table['doc_id'], error.doc_id))
        if (pc.sum(same).as_py() or 0) > 1:
            return error if read.source is None else read.source.locate(error)
    return error


def _codes(ids: pa.ChunkedArray) -> tuple[pa.Array, np.ndarray]:
    """The distinct ``ids`` in ascending byte-wise order, and each row's position among them."""
    encoded = pc.dictionary_encode(ids.combine_chunks() if isinstance(ids, pa.ChunkedArray) else ids)
    order = to_numpy(pc.sort_indices(encoded.dictionary)).astype(np.int64)
    position = np.empty(len(order), dtype=np.int64)
    position[order] = np.arange(len(order))
    return encoded.dictionary.take(from_numpy(order)), position[to_numpy(encoded.indices).astype(np.int64)]


def _changes(*keys: np.ndarray) -> np.ndarray:
    """The rows where any of ``keys`` changes from the row before, with row 0 (none for no rows)."""
    if not len(keys[0]):
        return np.empty(0, dtype=np.int64)
    changed = np.zeros(len(keys[0]) - 1, dtype=bool)
    for key in keys:
        changed |= key[1:] != key[:-1]
    return np.concatenate(([0], np.flatnonzero(changed) + 1))


def _rank_order(list_key: np.ndarray, doc: np.ndarray, score: np.ndarray, n_docs: int) -> np.ndarray | None:
    """An order of the rows that makes each list (of one ``list_key``) contiguous, run after run, and puts its rows
    in rank order (descending score, then descending doc), or None if they are so. Rows whose lists are each
    contiguous with non-increasing scores (as a run file has them) keep their lists where they are and are sorted
    on one integer key, a tie group's first row and the doc, which is in order but within tie groups (a stable sort
    finds the ordered stretches); others by the three keys."""
    n = len(list_key)
    starts = _changes(list_key)
    in_lists = np.ones(max(n - 1, 0), dtype=bool)
    in_lists[starts[1:] - 1] = False
    if len(np.unique(list_key[starts])) < len(starts) or np.any(in_lists & (score[:-1] < score[1:])) \
            or n * max(n_docs, 1) >= 1 << 62:
        return np.lexsort((-doc, -score, list_key))
    ties = _changes(list_key, score)
    key = np.repeat(ties, np.diff(ties, append=n)) * n_docs + (n_docs - 1 - doc)
    if n < 2 or np.all(key[1:] > key[:-1]):
        return None
    return np.argsort(key, kind='stable')
