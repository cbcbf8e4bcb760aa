"""How far a reproduced run's ranked lists agree with the original's, topic by topic: Kendall's τ over the union of
the documents (``ktu``), repro_eval 0.5.0's KTU (``ktu_repro_eval``) and RBO (``rbo_repro_eval``), and Webber et al.'s
extrapolated RBO (``rbo_ext``). See docs/reproducibility.md for the formulas and where repro_eval departs from them.

Each run is read once into flat arrays (:class:`RankedLists`: topic, doc and rank of every kept row), and the RBO
overlaps are counted for a block of topics at once (a matrix of topics x depths, of at most 2 MB): a doc both lists
hold is shared from the depth of its lower rank on.
"""
from __future__ import annotations

import functools
import itertools
import math
import numbers
import os
import threading
import timeit
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from irmeasures_ext.engine.doc_ids import DocIds, GroupedHashes, pair_keys
from irmeasures_ext.errors import InputError, UnansweredTopicsWarning, warn_at_caller

if TYPE_CHECKING:
    import pandas as pd

    from irmeasures_ext.readers.forms import RunLike
    from irmeasures_ext.readers.inputs import Input

#: repro_eval's defaults: docs kept per topic (``RUN_LENGTH``), RBO's persistence and depth (``RBO_P``, ``RBO_DEPTH``).
RUN_LENGTH = 1000
RBO_P = 0.95
RBO_DEPTH = 1000
#: The deepest ``depth`` of repro_eval's RBO taken (its weights, one a depth, fill 160 MB there; past the longest
#: list each depth adds p^(d-1) X/d of the same overlap X).
RBO_MAX_DEPTH = 10 ** 7
#: The topic sets of :func:`ranked_list_agreement`.
TOPIC_SETS = ('original', 'repro_eval')
#: How a topic's docs are ordered: as our provider ranks them (``'trec_eval'``: score descending, compared as
#: float32, then doc id descending), or as repro_eval does (``'file'``: the order given, each run of adjacent equal
#: scores by doc id descending).
ORDERS = ('trec_eval', 'file')
#: The statistics of :func:`ranked_list_agreement`, in its columns' order.
STATISTICS = ('ktu', 'ktu_repro_eval', 'rbo_repro_eval', 'rbo_ext')


@dataclass(frozen=True)
class RankedLists:
    """The ranked list of every topic of a run, flat: per kept row its topic (index into ``topics``, sorted), doc id
    (``doc_ids``, with their hashes: ``irmeasures_ext.engine.doc_ids.DocIds``) and 0-based rank, rows by topic then
    rank; ``sizes`` the length of each topic's list."""

    topics: pa.Array
    topic: np.ndarray
    doc_ids: DocIds
    rank: np.ndarray
    sizes: np.ndarray

    @classmethod
    def of(cls, run: RunLike | Input, length: int = RUN_LENGTH, order: str = 'trec_eval') -> RankedLists:
        """The first ``length`` docs of each topic of ``run`` (any form our provider reads, or one read already) in
        ``order`` (:data:`ORDERS`). A doc twice in a topic: :class:`~irmeasures_ext.errors.DuplicateDocError` naming
        it (and its file and line); a score that is not a finite number:
        :class:`~irmeasures_ext.errors.NonFiniteScoreError` (as our provider refuses them).

        No strings are sorted but those of tied docs whose first 8 bytes are equal: the rows are ordered by topic,
        then (``'trec_eval'``) by score as the engine ranks them; each run of rows tied on score (in that order, or
        in the file's for ``'file'``) is then ordered by its doc ids (``DocIds.order_within``)."""
        from irmeasures_ext.engine.doc_ids import has_repeats, sorted_distinct
        from irmeasures_ext.engine.ranking import check_run, order_by_score
        from irmeasures_ext.engine.segments import run_starts
        from irmeasures_ext.readers.inputs import read_input
        _check_order(order)
        length = min(_whole('length', length), np.iinfo(np.int64).max)  # (longer: every list whole, as at its max)
        read = read_input(run, 'run')
        table = read.table
        topics, topic = sorted_distinct(table['query_id'])
        docs = DocIds.of(table['doc_id'])
        if not read.checked:  # (a run our provider has evaluated is)
            with read.located():  # (no repeated (topic, doc) hash: no doc is twice in a topic)
                check_run(table, duplicates=has_repeats(pair_keys(topic, docs.hash)))
        rows = np.argsort(topic, kind='stable')  # (each topic's rows in file order)
        topic, score = topic[rows], table['score'].to_numpy()[rows]
        sizes = np.bincount(topic, minlength=len(topics))
        if order == 'trec_eval':
            by_score, tied = order_by_score(topic, score, sizes)
            rows = rows[by_score]
        else:  # (file order within the topic; a new run of ties wherever the score changes between adjacent rows)
            tied = np.diff(np.flatnonzero(run_starts(topic, score)), append=len(rows))
        rows = docs.order_within(rows, tied, descending=True)
        rank = np.arange(len(rows)) - (np.cumsum(sizes) - sizes)[topic]
        kept = rank < length
        return cls(topics, topic[kept], docs.take(rows[kept]), rank[kept], np.minimum(sizes, length))

    @functools.cached_property
    def doc(self) -> pa.Array:
        """Each kept row's doc id (the strings of ``doc_ids``, one chunk; taken once)."""
        return self.doc_ids.strings().combine_chunks()

    @functools.cached_property
    def _side(self) -> _Side:
        """These lists as the side of a comparison on their own topics (made once)."""
        return _Side(self.topic, self.rank, self.doc_ids, self.sizes)

    def as_dict(self) -> dict[str, list[str]]:
        """Each topic's docids in rank order."""
        docs = self.doc.to_pylist()
        ends = np.cumsum(self.sizes).tolist()
        return {topic: docs[end - size:end] for topic, size, end in zip(self.topics.to_pylist(), self.sizes.tolist(),
                                                                         ends, strict=True)}


def ranked_lists(run: RunLike, length: int = RUN_LENGTH, order: str = 'trec_eval') -> dict[str, list[str]]:
    """Each topic's first ``length`` docids in ``order``: ``'trec_eval'`` (the default) as our provider ranks them
    (score descending, compared as float32, then docid descending); ``'file'`` as repro_eval reads them (the order
    given, each run of adjacent equal scores by docid descending). A doc twice in a topic: DuplicateDocError; a
    score that is not a finite number: NonFiniteScoreError (naming its file and line, as our provider does)."""
    return RankedLists.of(run, length, order).as_dict()


def ranked_list_agreement(original: RunLike | Input | RankedLists, reproduced: RunLike | Input | RankedLists,
                          topics: str = 'original', p: float = RBO_P, depth: int = RBO_DEPTH,
                          order: str = 'trec_eval') -> pd.DataFrame:
    """Per topic (``query_id``), ``ktu`` (Kendall's τ over both lists' docs), ``ktu_repro_eval``,
    ``rbo_repro_eval`` (repro_eval's definitions) and ``rbo_ext`` (Webber et al.'s), then a row ``query_id='all'``
    of their means. Each list: the first 1000 docs in ``order`` (:func:`ranked_lists`; a run's
    :class:`RankedLists` is taken as it is).

    ``topics='original'`` (the default): the original run's topics; one the reproduced run does not answer counts 0
    in all four (said in an :class:`~irmeasures_ext.errors.UnansweredTopicsWarning`), and the reproduced run's other
    topics are left out.
    ``topics='repro_eval'``: repro_eval's set, the reproduced run's topics (unanswered ones are skipped, silently;
    a reproduced run answering none has only the means, NaN); InputError if the original does not answer one
    (repro_eval raises AttributeError). Lists of different lengths: ``ktu_repro_eval`` NaN (repro_eval raises
    ValueError)."""
    return warn_lacking(agreement_of(original, reproduced, topics, p, depth, order))


def warn_lacking(agreement: tuple[pd.DataFrame, list[str]]) -> pd.DataFrame:
    """The frame of :func:`agreement_of`'s ``agreement``, after the warning naming the topics the reproduction
    lacks."""
    frame, lacking = agreement
    warn_unanswered(rankings={'reproduced': lacking})
    return frame


def agreement_of(original: RunLike | Input | RankedLists, reproduced: RunLike | Input | RankedLists, topics: str,
                 p: float, depth: int, order: str,
                 described: tuple[str, str] | None = None) -> tuple[pd.DataFrame, list[str]]:
    """:func:`ranked_list_agreement`'s frame, and the original's topics the reproduction does not answer (each
    counting 0 there, with ``topics='original'``; none with ``topics='repro_eval'``), without its warning. Errors
    name the runs as ``described`` (default: :func:`run_described` of each)."""
    check_lists_options(topics, order)
    p, depth = _persistence(p), _whole('depth', depth, RBO_MAX_DEPTH)
    described = described or (run_described('original', original), run_described('reproduced', reproduced))
    orig, rep = (run if isinstance(run, RankedLists) else RankedLists.of(run, order=order)
                 for run in (original, reproduced))
    chosen = orig.topics if topics == 'original' else rep.topics
    if topics == 'original' and not len(chosen):  # (with repro_eval's topics, a reproduction of none: NaN means)
        raise InputError(f'{described[0]} answers no topic: there are no ranked lists to compare')
    missing = pc.filter(chosen, pc.invert(pc.is_in(chosen, value_set=(rep if topics == 'original' else orig).topics)))
    if topics == 'repro_eval' and len(missing):
        raise InputError(f'{described[0]} does not answer topics {_listed(missing.to_pylist())} of {described[1]}')
    return agreement_frame(orig, rep, chosen, p, depth), missing.to_pylist()


def check_lists_options(topics: str, order: str) -> None:
    """InputError unless ``topics`` is one of :data:`TOPIC_SETS` and ``order`` one of :data:`ORDERS`."""
    if topics not in TOPIC_SETS:
        raise InputError(f'topics must be one of {", ".join(TOPIC_SETS)}, got {topics!r}')
    _check_order(order)


def _check_order(order: str) -> None:
    """InputError unless ``order`` is one of :data:`ORDERS`."""
    if order not in ORDERS:
        raise InputError(f'order must be one of {", ".join(ORDERS)}, got {order!r}')


def run_described(label: str, run: object) -> str:
    """``'the {label} run'``, with the name of its file where it has one (a path, or a run read from a file)."""
    from irmeasures_ext.readers.inputs import Input
    name = run.source.name if isinstance(run, Input) and run.source is not None else (
        run if isinstance(run, (str, os.PathLike)) else None)
    return f'the {label} run' + (f' ({os.fspath(name)})' if name is not None else '')


def _whole(name: str, value: Any, most: int | None = None) -> int:
    """``value`` if it is a whole number of 1 or more (an int or a numpy integer, not a bool), and at ``most``,
    else InputError."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < 1:
        raise InputError(f'{name} must be a whole number of 1 or more, got {value!r}')
    if most is not None and int(value) > most:
        raise InputError(f'{name} must be at most {most:,}, got {value!r}')
    return int(value)


def _persistence(p: Any) -> float:
    """``p`` if it is RBO's persistence, a number with 0 < p <= 1 (1: every depth weighs alike), else InputError."""
    if (isinstance(p, bool) or not isinstance(p, numbers.Real) or not 0 < float(p) <= 1
            or not math.isfinite(1 / float(p))):
        raise InputError(f"p (RBO's persistence) must be a number with 0 < p <= 1 (1/p finite), got {p!r}")
    return float(p)


#: Topics a warning names, at most (then how many more).
NAMED_TOPICS = 20


def warn_unanswered(scores: dict[str, list[str]] | None = None, rankings: dict[str, list[str]] | None = None) -> None:
    """One warning naming, per run, the topics of the qrels it does not answer (``scores``: each evaluated as a
    ranking of no documents) and those of the original's rankings a reproduction does not answer (``rankings``: each
    counting 0 in KTU and RBO); nothing if there are none."""
    said = []
    for unanswered, meaning in ((scores, 'each is evaluated as a ranking of no documents (0 in every measure of '
                                         'the ranking)'),
                                (rankings, "each counts 0 in the rankings' KTU, RBO and RBO_ext")):
        named = '; '.join(f'{name}: {_listed(topics)}' for name, topics in (unanswered or {}).items() if topics)
        if named:
            said.append(f'({named}): {meaning}')
    if said:
        warn_at_caller('topics not answered ' + '; and in the rankings '.join(said), UnansweredTopicsWarning)


def _listed(topics: list[str]) -> str:
    """The first :data:`NAMED_TOPICS` topics, then how many more."""
    more = len(topics) - NAMED_TOPICS
    return ' '.join(topics[:NAMED_TOPICS]) + (f' and {more} more' if more > 0 else '')


@dataclass(frozen=True, eq=False)
class _Side:
    """One run's lists on the chosen topics: each kept row's topic (index into the chosen, ascending), rank and doc
    id; the length of each topic's list (0 for a topic the run does not answer). What the statistics derive from
    it is made once (a side is kept with its :class:`RankedLists` when the chosen topics are the run's own)."""

    topic: np.ndarray
    rank: np.ndarray
    doc_ids: DocIds
    sizes: np.ndarray

    @classmethod
    def of(cls, lists: RankedLists, chosen: pa.Array) -> _Side:
        if chosen.equals(lists.topics):
            return lists._side
        position = pc.index_in(lists.topics, value_set=chosen)
        to_chosen = pc.fill_null(position, -1).to_numpy().astype(np.int64)
        row_topic = to_chosen[lists.topic]
        kept = row_topic >= 0
        sizes = np.zeros(len(chosen), dtype=np.int64)
        sizes[to_chosen[to_chosen >= 0]] = lists.sizes[to_chosen >= 0]
        return cls(row_topic[kept], lists.rank[kept], lists.doc_ids.take(np.flatnonzero(kept)), sizes)

    @functools.cached_property
    def keys(self) -> GroupedHashes | None:
        """The rows' (topic, doc hash) keys, as a table (made once, to find the other side's rows in); None where two
        of them are equal: two different docs of a topic share a hash (the run's docs are distinct in each topic:
        checked)."""
        return GroupedHashes.of(self.topic, self.doc_ids.hash, len(self.sizes))

    @functools.cached_property
    def doc_order(self) -> np.ndarray:
        """Each row's place (from 0) among its list's docs in ascending doc id order (byte-wise)."""
        return self.doc_places(np.ones(len(self.sizes), dtype=bool))

    def doc_places(self, topics: np.ndarray) -> np.ndarray:
        """:attr:`doc_order` of the rows of ``topics`` (a mask of the topics), in row order."""
        rows = np.flatnonzero(topics[self.topic])
        sizes = self.sizes[topics]
        ordered = self.doc_ids.order_within(rows, sizes)  # (the rows of each topic in turn, by doc id)
        place = np.empty(len(self.topic), dtype=np.int64)
        place[ordered] = np.arange(len(ordered)) - np.repeat(np.cumsum(sizes) - sizes, sizes)
        return place[rows]


@dataclass(frozen=True)
class _Pair:
    """The original's and the reproduction's lists on the chosen topics, and the docs both hold: per shared doc,
    its row in each side, in the reproduction's row order (by topic, then rank)."""

    orig: _Side
    rep: _Side
    shared_orig: np.ndarray
    shared_rep: np.ndarray

    @classmethod
    def of(cls, orig: RankedLists, rep: RankedLists, chosen: pa.Array) -> _Pair:
        sides = _Side.of(orig, chosen), _Side.of(rep, chosen)
        return cls(*sides, *_shared_rows(*sides))

    @property
    def n_topics(self) -> int:
        return len(self.orig.sizes)

    @functools.cached_property
    def shared_per_topic(self) -> np.ndarray:
        """The docs both lists of each topic hold."""
        return np.bincount(self._shared_topic, minlength=self.n_topics)

    @functools.cached_property
    def longest(self) -> int:
        """The length of the longest list, of either run (at least 1)."""
        return max(int(self.orig.sizes.max(initial=0)), int(self.rep.sizes.max(initial=0)), 1)

    def topic_blocks(self) -> Iterable[slice]:
        """The chosen topics in blocks of consecutive ones, each of at most :data:`_BLOCK_CELLS` cells of
        :meth:`overlaps` (one topic at least): the matrices of the RBOs are made block by block."""
        step = max(1, _BLOCK_CELLS // self.longest)
        return (slice(first, min(first + step, self.n_topics)) for first in range(0, self.n_topics, step))

    def overlaps(self, topics: slice) -> np.ndarray:
        """X[t, d - 1] for the topics t of ``topics`` (a slice of :meth:`topic_blocks`) and d = 1..:attr:`longest`:
        the docs the first d of both lists of topic t share (a shorter list's prefix is the whole list; deeper, X
        stays the last): a shared doc counts from the depth of its lower rank on."""
        first, last = np.searchsorted(self._shared_topic, [topics.start, topics.stop])
        cells = (self._shared_topic[first:last] - topics.start) * self.longest + self._shared_depth[first:last]
        n_topics = topics.stop - topics.start
        counts = np.bincount(cells, minlength=n_topics * self.longest).reshape(n_topics, self.longest)
        return np.cumsum(counts, axis=1).astype(np.float64)

    @functools.cached_property
    def _shared_topic(self) -> np.ndarray:
        """The topic of each shared doc (ascending: in the reproduction's row order)."""
        return self.rep.topic[self.shared_rep]

    @functools.cached_property
    def _shared_depth(self) -> np.ndarray:
        """The 0-based depth from which each shared doc is in both lists' prefixes: its lower rank."""
        return np.maximum(self.orig.rank[self.shared_orig], self.rep.rank[self.shared_rep])


#: The cells of an RBO matrix block (topics x the longest list: :meth:`_Pair.topic_blocks`); 2 MB of float64.
_BLOCK_CELLS = 1 << 18


def _by_topic_blocks(pair: _Pair, statistic: Callable[[slice, np.ndarray], np.ndarray]) -> np.ndarray:
    """Per chosen topic, ``statistic(topics, overlaps)`` of each block of topics (:meth:`_Pair.topic_blocks`) and its
    :meth:`_Pair.overlaps` (each row's value depends on its row alone: the blocks bound the memory, not the sums)."""
    values = np.empty(pair.n_topics)
    for topics in pair.topic_blocks():
        values[topics] = statistic(topics, pair.overlaps(topics))
    return values


def _shared_rows(orig: _Side, rep: _Side) -> tuple[np.ndarray, np.ndarray]:
    """The rows in ``orig`` and in ``rep`` of each doc both hold in a topic, in ``rep``'s row order: found by their
    (topic, doc) hashes, or by the strings (Arrow's hash join) where two different docs share a hash (ids that differ
    only in trailing NUL bytes do: a hash reads an id's bytes zero-padded)."""
    if orig.keys is not None:
        orig_row_of = orig.keys.rows_of(rep.topic, rep.doc_ids.hash)  # (-1: none)
        shared_rep = np.flatnonzero(orig_row_of >= 0)
        shared_orig = orig_row_of[shared_rep]
        if orig.doc_ids.equal(shared_orig, rep.doc_ids, shared_rep).all():
            return shared_orig, shared_rep
    tables = [pa.table({'topic': side.topic, 'doc': side.doc_ids.strings(), name: np.arange(len(side.topic))})
              for side, name in ((orig, 'orig_row'), (rep, 'rep_row'))]
    joined = tables[1].join(tables[0], ['topic', 'doc'], join_type='inner')
    by_rep = pc.sort_indices(joined, [('rep_row', 'ascending')])
    return (joined['orig_row'].take(by_rep).to_numpy().astype(np.int64),
            joined['rep_row'].take(by_rep).to_numpy().astype(np.int64))


def agreement_frame(orig: RankedLists, rep: RankedLists, chosen: pa.Array, p: float = RBO_P,
                    depth: int = RBO_DEPTH) -> pd.DataFrame:
    """The frame of :func:`ranked_list_agreement` on the ``chosen`` topics (each answered by ``orig``)."""
    import pandas as pd
    pair = _Pair.of(orig, rep, chosen)
    answered = pair.rep.sizes > 0
    columns = {'ktu': _ktu_union(pair), 'ktu_repro_eval': _ktu_repro_eval(pair),
               'rbo_repro_eval': _rbo_repro_eval(pair, p, depth), 'rbo_ext': _rbo_ext(pair, p)}
    frame = pd.DataFrame({'query_id': chosen.to_pylist(), **{name: np.where(answered, values, 0.0)
                                                             for name, values in columns.items()}})
    means = [float(np.mean(frame[name].to_numpy())) if len(frame) else math.nan for name in STATISTICS]
    return pd.concat([frame, pd.DataFrame([('all', *means)], columns=frame.columns)], ignore_index=True)


def _rbo_repro_eval(pair: _Pair, p: float, depth: int) -> np.ndarray:
    """repro_eval's RBO per topic: Σ_{d≤depth} p^(d-1) X_d/d / Σ_{d≤depth} p^(d-1) (the weights multiplied up
    as its loop does)."""
    weights = np.cumprod(np.r_[1.0, np.full(depth - 1, p)])
    width = min(depth, pair.longest)
    beyond = (weights[width:] / np.arange(width + 1, depth + 1)).sum()  # (past the longest list, X_d = X_width)
    total = weights.sum()

    def of_block(topics: slice, overlaps: np.ndarray) -> np.ndarray:
        overlaps = overlaps[:, :width]
        within = (overlaps / np.arange(1, width + 1) * weights[:width]).sum(axis=1)
        return (within + overlaps[:, -1] * beyond) / total

    return _by_topic_blocks(pair, of_block)


def _rbo_ext(pair: _Pair, p: float) -> np.ndarray:
    """Webber, Moffat & Zobel's (TOIS 2010) RBO_ext per topic (eq. 32 for lists of lengths s <= l; eq. 30 when
    equal); NaN where a list is empty (:func:`agreement_frame` scores such a topic 0)."""
    depths = np.arange(1, pair.longest + 1)
    weights = (1 - p) * p ** (depths - 1).astype(np.float64)  # ((1 - p)/p · p^d: no underflow of p^d for a tiny p)

    def of_block(topics: slice, overlaps: np.ndarray) -> np.ndarray:
        orig_sizes, rep_sizes = pair.orig.sizes[topics], pair.rep.sizes[topics]
        short, long = np.minimum(orig_sizes, rep_sizes), np.maximum(orig_sizes, rep_sizes)
        rows = np.arange(len(short))
        x_s = overlaps[rows, np.maximum(short - 1, 0)]
        x_l = overlaps[rows, np.maximum(long - 1, 0)]
        within = depths <= long[:, None]
        beyond = within & (depths > short[:, None])
        with np.errstate(invalid='ignore'):  # (an empty list: X_s = 0 over s = 0, NaN)
            tail = np.where(beyond, x_s[:, None] * (depths - short[:, None]) / (short[:, None] * depths), 0.0)
            sums = (np.where(within, overlaps / depths, 0.0) * weights).sum(axis=1) + (tail * weights).sum(axis=1)
            return sums + ((x_l - x_s) / long + x_s / short) * p ** long.astype(np.float64)

    return _by_topic_blocks(pair, of_block)


def _inversions(segment: np.ndarray, values: np.ndarray, n_segments: int) -> np.ndarray:
    """Per segment, the pairs of its rows i < j (rows grouped by segment, in order) with values[i] > values[j]
    (non-negative integers): the segments out of order (a value above the next one) of each power-of-two width
    (their length rounded up) merge-sorted at once (:func:`_inversions_of_width`); those in order count 0 unsorted
    (a reproduction's identical lists)."""
    counts = np.zeros(n_segments, dtype=np.int64)
    lengths = np.bincount(segment, minlength=n_segments)
    widths = np.frexp(lengths - 1)[1]  # (the bit length of length - 1: of 0, 0)
    unsorted = np.zeros(n_segments, dtype=bool)
    if len(values):
        descents = np.empty(len(values), dtype=bool)  # (a value below the one before it, in its segment)
        np.less(values[1:], values[:-1], out=descents[1:])
        starts = (np.cumsum(lengths) - lengths)[lengths > 0]  # (row 0 among them)
        descents[starts] = False
        unsorted[lengths > 0] = np.logical_or.reduceat(descents, starts)
    for width in sorted(set(widths[unsorted].tolist())):
        chosen = (widths == width) & unsorted
        in_chosen = chosen[segment]
        numbered = np.cumsum(chosen) - 1  # (the chosen segments numbered from 0)
        counts[chosen] = _inversions_of_width(numbered[segment[in_chosen]], values[in_chosen],
                                              lengths[chosen], 1 << width)
    return counts


#: The blocks whose inversions :func:`_inversions_of_width` counts pair by pair before it merges (all 28 pairs of 8
#: values took less time than sorting rows of 2, 4 and 8; of 16, more).
_FIRST_BLOCK = 8


def _inversions_of_width(segment: np.ndarray, values: np.ndarray, lengths: np.ndarray, width: int) -> np.ndarray:
    """:func:`_inversions` of segments of ``lengths`` rows, at most ``width`` (a power of two, 2 or more), by a merge
    sort of all at once: each segment's values in a row of ``width`` (padded at the end with a value above all).
    The values of each block of :data:`_FIRST_BLOCK` are first compared pair by pair (whole columns at a time); then
    at each level the values of every pair of adjacent blocks of b are sorted together as the keys 2 value + (1 in
    the right block) (by the kind of sort :func:`_merge_sort_kind` chooses), and the right block's values have b² +
    b(b - 1)/2 - Σ(their positions in that order) values of the left above them (equal values are no inversion: the
    left's key is lower). Only which values a block holds counts, not their order in it: each level sorts its pairs
    of blocks whole."""
    n_segments = len(lengths)
    position = np.arange(len(values)) - (np.cumsum(lengths) - lengths)[segment]
    top = int(values.max()) + 1
    dtype = np.int16 if 2 * top + 1 < 2 ** 15 and width <= 2 ** 15 else np.int64  # (keys and positions in a merge)
    keys = np.full((n_segments, width), 2 * top, dtype=dtype)
    keys[segment, position] = 2 * values
    block = min(width, _FIRST_BLOCK)
    places = [keys[:, place::block] for place in range(block)]  # (the values of every first block, place by place)
    above = np.zeros(places[0].shape, dtype=np.uint8)  # (per first block, its inversions: at most 28)
    for first, second in itertools.combinations(range(block), 2):
        above += places[first] > places[second]
    counts = above.sum(axis=1, dtype=np.int64)
    while block < width:
        half = ((np.arange(width) // block) & 1).astype(dtype)
        merged = ((keys & ~dtype(1)) | half).reshape(-1, 2 * block)
        keys = np.sort(merged, axis=-1, kind=_merge_sort_kind(block, dtype))
        keys = keys.reshape(n_segments, width)
        right_positions = keys & 1  # (each right block value's position in its merge, summed by segment:)
        right_positions *= (np.arange(width) & (2 * block - 1)).astype(dtype)
        counts += (width // (2 * block) * (block * block + block * (block - 1) // 2)
                   - right_positions.sum(axis=1, dtype=np.int64))
        block *= 2
    return counts


#: The kinds of ``np.sort`` the merge levels use.
SortKind = Literal['quicksort', 'stable']


def _merge_sort_kind(block: int, dtype: type) -> SortKind:
    """The kind of ``np.sort`` for a merge level of blocks of ``block`` keys of ``dtype`` (either kind sorts them
    alike): quicksort for short rows or 64-bit keys; for rows of 64 to 1024 16-bit keys, the faster here
    (:func:`_long_rows_sort`); for longer ones the radix sort, ``'stable'`` (rows of 2048 and 4096: 1.8x and 2.2x
    faster than even the SIMD quicksort)."""
    if dtype is not np.int16 or block < 32:
        return 'quicksort'
    return _long_rows_sort() if block <= 512 else 'stable'


#: Taken while :func:`_long_rows_sort` times the sorts, so that two threads (a reproduction's two runs) time them
#: once, not at once.
_TIMING = threading.Lock()


def _long_rows_sort() -> SortKind:
    """The kind of ``np.sort`` faster here on the rows a merge level sorts (of 16-bit keys, two sorted halves), timed
    once on 128 rows of 256 (either kind sorts them alike): numpy's quicksort, SIMD on CPUs with AVX-512 VBMI2
    (x86-simd-sort: there 5-10x faster than the radix sort on rows of 64 to 512), or its radix sort, ``'stable'``
    (elsewhere 1.4-8x faster than the quicksort)."""
    with _TIMING:
        return _timed_long_rows_sort()


@functools.cache
def _timed_long_rows_sort() -> SortKind:
    """:func:`_long_rows_sort`, timed."""
    scattered = ((np.arange(128 * 256, dtype=np.uint32) * np.uint32(0x9E37_79B1)) >> 21).astype(np.int16)
    rows = np.sort(scattered.reshape(-1, 128), axis=-1).reshape(128, 256)
    kinds: tuple[SortKind, ...] = ('quicksort', 'stable')
    return min(kinds, key=lambda kind: min(timeit.repeat(
        functools.partial(np.sort, rows, axis=-1, kind=kind), number=1, repeat=3)))


def _tau_b(discordant: np.ndarray, size: np.ndarray, ties_x: np.ndarray, ties_y: np.ndarray) -> np.ndarray:
    """Kendall's τ_b as scipy computes it, from the discordant pairs, the items and the pairs tied in x (only) and
    in y (only): (n0 - ties_x - ties_y - 2 discordant) / √(n0 - ties_x) / √(n0 - ties_y), n0 = size (size - 1) / 2,
    kept within [-1, 1]; NaN where every pair is tied on a side."""
    pairs = size * (size - 1) / 2
    defined = (pairs > ties_x) & (pairs > ties_y)
    with np.errstate(divide='ignore', invalid='ignore'):
        tau = (pairs - ties_x - ties_y - 2 * discordant) / np.sqrt(pairs - ties_x) / np.sqrt(pairs - ties_y)
    return np.where(defined, np.clip(tau, -1.0, 1.0), np.nan)


def _below_shared(side: _Side, shared_rows: np.ndarray, shared_per_topic: np.ndarray) -> np.ndarray:
    """Per topic, Σ over the docs of ``side``'s list the other list lacks of the shared docs ranked below it (only
    the topics with such docs are read: none in a reproduction of the same docs)."""
    rows = np.flatnonzero((side.sizes > shared_per_topic)[side.topic])
    shared = np.zeros(len(side.topic), dtype=bool)
    shared[shared_rows] = True
    shared, topic = shared[rows], side.topic[rows]
    running = np.cumsum(shared)  # (rows by topic, then rank: the shared docs up to each row, and to its topic's end)
    at_end = running[np.searchsorted(topic, topic, 'right') - 1] if len(rows) else running
    return np.bincount(topic, weights=np.where(shared, 0, at_end - running), minlength=len(side.sizes))


def _ktu_union(pair: _Pair) -> np.ndarray:
    """Kendall's τ_b per topic over the union of both lists' docs, each list ranking a doc it lacks tied below its
    last (Breuer et al., SIGIR 2020, §3.1: τ = (P - Q) / √((P + Q + U)(P + Q + V)) with U, V the ties of each).
    Q counts the shared docs' swaps (the original's ranks out of order in the reproduction's order), each doc one
    list lacks above a shared doc in the other, and every pair of a doc only the original holds with one only the
    reproduction holds."""
    swaps = _inversions(pair.rep.topic[pair.shared_rep], pair.orig.rank[pair.shared_orig], pair.n_topics)
    shared = pair.shared_per_topic
    only_orig, only_rep = pair.orig.sizes - shared, pair.rep.sizes - shared
    discordant = (swaps + _below_shared(pair.orig, pair.shared_orig, shared)
                  + _below_shared(pair.rep, pair.shared_rep, shared) + only_orig * only_rep)
    return _tau_b(discordant, shared + only_orig + only_rep, only_rep * (only_rep - 1) / 2,
                  only_orig * (only_orig - 1) / 2)


def _ktu_repro_eval(pair: _Pair) -> np.ndarray:
    """repro_eval's KTU per topic: Kendall's τ_b between the positions, in the docid-sorted union of both lists,
    of the docs at each rank, rounded to 14 decimals; NaN for lists of different lengths (repro_eval raises).
    Only the order of the positions counts, and the union orders each list's docs as the list's own doc ids do: so
    the swaps are those of the reproduction's docs' doc id places, rank by rank, in the order of the original's.
    Where both lists hold the same docs, a doc's place is the same in both (only the other topics' reproduced
    lists are ordered by doc id)."""
    equal = (pair.orig.sizes == pair.rep.sizes) & (pair.orig.sizes > 0)
    in_orig, in_rep = equal[pair.orig.topic], equal[pair.rep.topic]  # (row k of one pairs with row k of the other)
    topic = pair.orig.topic[in_orig]
    size = np.where(equal, pair.orig.sizes, 0)
    rep_place = np.empty(len(pair.rep.topic), dtype=np.int64)
    rep_place[pair.shared_rep] = pair.orig.doc_order[pair.shared_orig]
    other_docs = equal & (pair.shared_per_topic < pair.orig.sizes)
    if other_docs.any():  # (lists of the same docs: none)
        rep_place[other_docs[pair.rep.topic]] = pair.rep.doc_places(other_docs)
    by_orig_doc = np.empty(len(topic), dtype=np.int64)
    by_orig_doc[(np.cumsum(size) - size)[topic] + pair.orig.doc_order[in_orig]] = rep_place[in_rep]
    swaps = _inversions(topic, by_orig_doc, pair.n_topics)
    zeros = np.zeros(pair.n_topics)
    return np.where(equal, np.round(_tau_b(swaps, size, zeros, zeros), 14), np.nan)


def ktu(original: Sequence[str], reproduced: Sequence[str]) -> float:
    """Kendall's τ_b over the union of two lists' docs, each ranking a doc it lacks tied below its last."""
    return _of_two_lists('ktu', original, reproduced)


def ktu_repro_eval(original: Sequence[str], reproduced: Sequence[str]) -> float:
    """repro_eval's KTU of two lists (see :func:`ranked_list_agreement`); NaN for lists of different lengths."""
    return _of_two_lists('ktu_repro_eval', original, reproduced)


def rbo_repro_eval(original: Sequence[str], reproduced: Sequence[str], p: float = RBO_P,
                   depth: int = RBO_DEPTH) -> float:
    """repro_eval's RBO of two lists: Σ_{d≤depth} p^(d-1) X_d/d / Σ_{d≤depth} p^(d-1)."""
    return _of_two_lists('rbo_repro_eval', original, reproduced, p, depth)


def rbo_ext(original: Sequence[str], reproduced: Sequence[str], p: float = RBO_P) -> float:
    """Webber, Moffat & Zobel's (TOIS 2010) extrapolated RBO_ext of two lists (eq. 32 for unequal lengths);
    identical lists give 1 (to rounding)."""
    return _of_two_lists('rbo_ext', original, reproduced, p)


def _of_two_lists(statistic: str, original: Sequence[str], reproduced: Sequence[str], p: float = RBO_P,
                  depth: int = RBO_DEPTH) -> float:
    """:func:`ranked_list_agreement`'s ``statistic`` of two lists of doc ids (a list, tuple, array or Series of
    strings, each doc once), whole (a run's topics are cut at 1000 docs, these lists are not); 0 where one is empty,
    as for a topic a run does not answer."""
    p, depth = _persistence(p), _whole('depth', depth, RBO_MAX_DEPTH)
    lists = [_doc_list(docs, name) for docs, name in ((original, 'original'), (reproduced, 'reproduced'))]
    if not all(lists):
        return 0.0
    # (the whole lists, not repro_eval's first 1000 docs of a run's topic; in the order given, not by their scores
    # compared as float32, under which neighbours past 2^24 docs would tie)
    length = max(map(len, lists))
    original_lists, reproduced_lists = (RankedLists.of(_as_run(docs), length, 'file') for docs in lists)
    return float(ranked_list_agreement(original_lists, reproduced_lists, p=p, depth=depth).loc[0, statistic])


def _doc_list(docs: Any, name: str) -> list[str]:
    """``docs`` as a list of doc ids, each once, else InputError."""
    if isinstance(docs, (str, bytes)) or not isinstance(docs, Iterable) or isinstance(docs, (set, frozenset, dict)):
        raise InputError(f'the {name} list must be a sequence of doc ids (a list, tuple, array or Series of strings), '
                         f'got {type(docs).__name__}')
    listed = list(docs)
    if not all(isinstance(doc, str) for doc in listed):
        raise InputError(f'the {name} list must hold doc ids as strings')
    if len(set(listed)) != len(listed):
        raise InputError(f'a doc appears twice in the {name} list')
    return listed


def _as_run(docs: list[str]) -> dict[str, dict[str, float]]:
    """One topic ranking ``docs`` in their order (a run of one topic, scores descending)."""
    return {'1': {doc: float(len(docs) - i) for i, doc in enumerate(docs)}}
