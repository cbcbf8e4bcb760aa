"""A run evaluated in pieces that each hold whole queries: a large file as it is read (:mod:`.stream`), a Dask
partition (:mod:`irmeasures_ext.dask`). Each piece's :class:`Partial` is computed by the same plan as a whole run;
partials are merged, then finished into every qrels query's value."""
from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any, NamedTuple

import numpy as np
from ir_measures.measures import Measure

from irmeasures_ext.engine import stream
from irmeasures_ext.engine.plan import Plan
from irmeasures_ext.engine.query_ids import run_only_ids, warn_if_written_otherwise
from irmeasures_ext.errors import PartialsError
from irmeasures_ext.readers.inputs import Input, read_input
from irmeasures_ext.readers.pieces import RunStream
from irmeasures_ext.readers.schemas import layout_of


class Partial(NamedTuple):
    """The evaluation of pieces of a run that each hold whole queries (:meth:`Pieces.partial`, joined by
    :meth:`Pieces.merge`), in the plan's orders; only the queries answered are kept (plain arrays, to
    travel between processes: Dask's workers). It says which evaluator made it (``evaluator``) and which pieces
    it holds (``pieces``), so that ``merge`` and ``finished`` refuse what would give wrong values: a qrels query
    in two pieces (``held``), a partial of another evaluator, a piece merged twice."""

    queries: list[np.ndarray]    # per distinct list (``Plan.list_keys``): the qrels queries it has docs for
    retrieved: list[np.ndarray]  # per distinct list: how many docs each of those queries retrieves
    values: list[np.ndarray]     # per measure: its value of each of its list's ``queries``
    retrieved_docs: int          # docs retrieved for qrels queries
    run_queries: int             # queries of the pieces (run-only ones too)
    held: np.ndarray             # the qrels queries the pieces have rows of, judged or not, each once per piece
    evaluator: str               # the fingerprint of the plan that made it (``Plan.fingerprint``)
    pieces: tuple[str, ...]      # the identity of each piece in it (a random one per ``Pieces.partial``)
    run_only: tuple[str, ...]    # the pieces' query ids that the qrels do not have (for QueryIdFormWarning)


class Pieces:
    """The pieces protocol of a :class:`~.plan.Plan`: :meth:`partial` of each piece, :meth:`merge`,
    :meth:`finished`."""

    def __init__(self, plan: Plan) -> None:
        self.plan = plan

    def streamed(self, run: RunStream) -> dict[Measure, np.ndarray]:
        """Every measure's value of every qrels query for a run evaluated as it is read, in pieces of whole
        queries (:mod:`.stream`)."""
        return self.finished(stream.in_whole_queries(
            run, lambda tables: self.merge(self.partial(Input(table, run.source)) for table in tables)),
            run.source.name)

    def partial(self, run: Any) -> Partial:
        """The evaluation of ``run`` (any accepted form), one of the pieces of a run that each hold whole queries
        (every row of a query in one piece); :meth:`merge` joins the pieces' partials. Each call makes a new
        piece (its own identity), even of the same rows."""
        plan = self.plan
        read = read_input(run, 'run', with_rank=plan.reads_rank, dict_run=True)
        rankings = plan.ranked(read)
        ranked = next(iter(rankings.values()), None)
        identity = (os.urandom(16).hex(),)
        if ranked is None:  # (no measure of ours: the run is still checked)
            return Partial([], [], [], 0, 0, np.empty(0, dtype=np.int64), plan.fingerprint, identity, ())
        lists = plan.lists_of(rankings)
        answered = {key: np.flatnonzero(lists[key].n_retrieved) for key in plan.list_keys}
        values = plan.kernel_values(lists)
        return Partial(list(answered.values()), [lists[key].n_retrieved[queries] for key, queries in answered.items()],
                       [values[measure][answered[key]] for measure, _, key, _ in plan.steps],
                       int(ranked.n_retrieved.sum()), ranked.run_queries, np.flatnonzero(ranked.n_retrieved),
                       plan.fingerprint, identity,
                       run_only_ids(plan.judgments, read, ranked.n_retrieved, ranked.run_queries))

    def merge(self, partials: Iterable[Partial]) -> Partial:
        """The partials of pieces of one run (each query in one of them) as one. PartialsError for anything but
        partials of this evaluator, for a piece given twice (also within merged partials), and for a qrels
        query that two pieces have rows of (its value would be that of part of its rows)."""
        pieces = list(partials)
        for index, partial in enumerate(pieces):
            self._check_own(partial, f'merge: item {index}')
        identities = [identity for partial in pieces for identity in partial.pieces]
        if len(set(identities)) < len(identities):
            _refuse_repeated_piece(pieces)
        self._check_held([partial.held for partial in pieces], 'merge')
        with_lists = [partial for partial in pieces if partial.queries]

        def joined(field: str) -> list[np.ndarray]:
            columns = zip(*(getattr(partial, field) for partial in with_lists), strict=True)
            return [np.concatenate(column) for column in columns]

        return Partial(joined('queries'), joined('retrieved'), joined('values'),
                       sum(partial.retrieved_docs for partial in pieces),
                       sum(partial.run_queries for partial in pieces),
                       np.concatenate([np.empty(0, dtype=np.int64), *(partial.held for partial in pieces)]),
                       self.plan.fingerprint, tuple(identities),
                       tuple(query_id for partial in pieces for query_id in partial.run_only))

    def answered(self, partial: Partial) -> dict[Measure, tuple[np.ndarray, np.ndarray]]:
        """Per measure, the qrels queries (positions in the sorted query ids) that ``partial`` answers (its list
        has docs for them), and its values of them. PartialsError for anything but a partial of this evaluator."""
        self._check_own(partial, 'answered: its partial')
        if not partial.queries:
            return {measure: (np.empty(0, dtype=np.int64), np.empty(0)) for measure in self.plan.measures}
        queries = dict(zip(self.plan.list_keys, partial.queries, strict=True))
        return {measure: (queries[key], values) for (measure, _, key, _), values in zip(self.plan.steps,
                                                                                          partial.values, strict=True)}

    def finished(self, partial: Partial, run_name: str | None = None) -> dict[Measure, np.ndarray]:
        """Every measure's value of every qrels query from the merged partial of a whole run: where no piece has
        docs in the query's list, the value of a list without rows retrieving what the whole run retrieves for
        it (MeanRank's value of an unanswered query depends on the deepest query); checked as a whole run's
        values (:meth:`.Plan.checked`). PartialsError for anything but a partial of this evaluator, and for one
        holding a qrels query twice."""
        plan = self.plan
        self._check_own(partial, 'finished: its partial')
        self._check_held([partial.held], 'finished')
        lists = plan.lists_of(plan.ranked(Input(layout_of('run', plan.reads_rank).schema.empty_table(), None)))
        if partial.queries:  # (else an empty run: no piece)
            for key, queries, retrieved in zip(plan.list_keys, partial.queries, partial.retrieved, strict=True):
                n_retrieved = np.zeros(plan.judgments.n_queries, dtype=np.int64)
                n_retrieved[queries] = retrieved
                lists[key] = lists[key].without_rows(n_retrieved, partial.run_queries)
        values = plan.kernel_values(lists)
        for measure, (queries, their_values) in self.answered(partial).items():
            values[measure][queries] = their_values
        if plan.measure_rankings:
            warn_if_written_otherwise(plan.judgments, partial.run_only, partial.held)
        return plan.checked(values, partial.retrieved_docs, partial.run_queries, run_name)

    def _check_own(self, partial: Any, where: str) -> None:
        """PartialsError unless ``partial`` is a Partial made by this evaluator (or one of the same fingerprint)."""
        if not isinstance(partial, Partial):
            raise PartialsError(f'{where} is a {type(partial).__name__}, not a Partial (what ExtEvaluator.partial '
                                'returns and merge joins)')
        if partial.evaluator != self.plan.fingerprint:
            raise PartialsError(f'{where} is a partial made by another evaluator (other qrels, measures, or ranking: '
                                'tie policy, score precision, depth): its values are of other queries or measures; '
                                'merge and finish the partials of a run with the evaluator that made them')

    def _check_held(self, held: list[np.ndarray], where: str) -> None:
        """PartialsError naming a qrels query that is in two of the pieces (``held``: each piece's qrels queries,
        positions in the sorted query ids): O(queries log queries), whatever the pieces' rows."""
        every = np.concatenate([np.empty(0, dtype=np.int64), *held])
        ordered = np.sort(every)
        repeated = ordered[1:][ordered[1:] == ordered[:-1]]
        if not len(repeated):
            return
        query = int(repeated[0])
        query_id = self.plan.judgments.query_ids[query].as_py()
        owners = np.repeat(np.arange(len(held)), [len(queries) for queries in held])[every == query]
        others = int(np.count_nonzero(np.diff(repeated)))  # (the other queries repeated: ``repeated`` is sorted)
        where_found = (f'items {int(owners[0])} and {int(owners[1])}' if owners[0] != owners[1] else
                       f'item {int(owners[0])}, which holds it twice')
        raise PartialsError(f'{where}: query {query_id!r} is in two pieces ({where_found}'
                            f'{f"; {others} more such queries" if others else ""}): each piece must hold all the rows '
                            'of its queries, else a value is that of part of its ranking; cut the run between queries',
                            query_id)


def _refuse_repeated_piece(partials: list[Partial]) -> None:
    """PartialsError naming the items of ``partials`` that hold the same piece."""
    first: dict[str, int] = {}
    for index, partial in enumerate(partials):
        for identity in partial.pieces:
            if identity in first:
                which = (f'items {first[identity]} and {index} hold' if first[identity] != index else
                         f'item {index} holds')
                raise PartialsError(f'merge: a piece is merged twice ({which} the same piece): its queries would be '
                                    'counted twice; merge each partial of a run once')
            first[identity] = index
