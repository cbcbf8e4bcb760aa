"""``irmeasures-ext crosscheck QRELS RUN [MEASURE...]``: our provider against pytrec_eval, per query."""
from __future__ import annotations

import sys

import ir_measures
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
from ir_measures.measures import Measure

from irmeasures_ext.cli.common import EXIT_DIFFER, PROG, ArgumentParser, CliError, add_inputs, load, prepare_process
from irmeasures_ext.engine.aggregates import aggregate
from irmeasures_ext.evaluation import (
    TREC_EVAL_CRASHING_LABEL,
    Results,
    evaluate,
    listed,
    queries_trec_eval_cannot_evaluate,
)
from irmeasures_ext.names import parse_measures
from irmeasures_ext.plugin import provider as ext_provider
from irmeasures_ext.readers.inputs import read_input

TOLERANCE = 1e-9
#: What ``crosscheck`` compares when no MEASURE is given: every measure both providers compute.
CROSSCHECK_MEASURES = 'AP AP@10 P@5 P@10 R@10 R@100 RR nDCG nDCG@10 Rprec Success@1 Success@10 NumRel NumRet'
#: Differing queries listed per measure.
MAX_LISTED = 10
#: The provider crosscheck compares ours with.
REFERENCE = 'pytrec_eval'


def aggregate_of(measure: Measure, values: dict[str, float]) -> float:
    return aggregate(measure, np.array(list(values.values())))


def per_query(results: Results) -> dict[Measure, dict[str, float]]:
    """Per-query values by measure and query id."""
    query_ids = results.query_ids.to_pylist()
    return {measure: dict(zip(query_ids, values.tolist(), strict=True)) for measure, values in results.values.items()}


def parser() -> ArgumentParser:
    """The command's argument parser (also read by the documentation's command-line reference)."""
    reference = REFERENCE
    parser = ArgumentParser(
        prog=f'{PROG} crosscheck',
        description=f'Compare {ext_provider.NAME} with {reference} on every measure both compute, per query '
                    f'and aggregated. Prints the largest absolute difference per measure and the queries that '
                    f'differ; exits with {EXIT_DIFFER} if any differ by more than {TOLERANCE:g}.')
    add_inputs(parser)
    parser.add_argument('measures', nargs='*', default=[], metavar='MEASURE', help=f'default: {CROSSCHECK_MEASURES}')
    parser.add_argument('--explain-rr', type=int, metavar='K',
                        help="also compare RR@K with ir_measures' default provider for it (msmarco, which breaks "
                             'score ties by doc_id ascending; trec_eval and irmeasures_ext: descending) and show '
                             'a query where they differ')
    return parser


def run(argv: list[str]) -> int:
    reference = REFERENCE
    command_parser = parser()
    args = command_parser.parse_intermixed_args(argv)
    if args.explain_rr is not None and args.explain_rr < 1:
        command_parser.error('--explain-rr K needs K >= 1')
    measures = list(dict.fromkeys(parse_measures(args.measures or [CROSSCHECK_MEASURES])))
    other = ir_measures.providers.registry[reference]
    unshared = [str(m) for m in measures if not (ext_provider.supports(m) and other.supports(m))]
    if unshared:
        raise CliError(f'not computed by both {ext_provider.NAME} and {reference}: {" ".join(unshared)}')
    prepare_process()
    qrels, run = load(args)
    qrels, run = read_input(qrels, 'qrels'), read_input(run, 'run')
    # (ours first: it checks the inputs, naming their lines)
    ours = per_query(evaluate(measures, qrels, run, ext_provider, ext_provider.NAME))
    left_out = _queries_pytrec_eval_cannot_evaluate(qrels.table, run.table)
    judged_qrels, judged_run = (_without(qrels.table, left_out), _without(run.table, left_out)) if left_out else (
        qrels.table, run.table)
    theirs = per_query(evaluate(measures, judged_qrels, judged_run, ext_provider, reference))
    for values in ours.values():
        for query_id in left_out:
            values.pop(query_id, None)
    _fill_num_rel_of_absent_queries(measures, ours, theirs, run.table)
    differ = _report_differences(measures, ours, theirs, reference)
    if args.explain_rr is not None:
        _explain_rr(ir_measures.RR @ args.explain_rr, qrels.table, run.table)
    return EXIT_DIFFER if differ else 0


def _queries_pytrec_eval_cannot_evaluate(qrels: pa.Table, run: pa.Table) -> list[str]:
    """The run's queries judged only with labels <= -2, which pytrec_eval cannot evaluate (see
    :data:`~irmeasures_ext.evaluation.TREC_EVAL_CRASHING_LABEL`), noted on stderr; CliError when
    nothing would be left to compare."""
    left_out = queries_trec_eval_cannot_evaluate(qrels, run)
    if not left_out:
        return []
    problem = (f'judged only with labels <= {TREC_EVAL_CRASHING_LABEL} ({listed(left_out)}), which pytrec_eval '
               "cannot evaluate (trec_eval's form_res_rels sizes its label counts by the largest label + 1)")
    if not (_without(qrels, left_out).num_rows and _without(run, left_out).num_rows):
        raise CliError(f'nothing to compare: every query is {problem}')
    print(f'note: {len(left_out)} {"query" if len(left_out) == 1 else "queries"} left out, {problem}',
          file=sys.stderr)
    return left_out


def _without(table: pa.Table, query_ids: list[str]) -> pa.Table:
    """``table`` without the rows of ``query_ids``."""
    return table.filter(pc.invert(pc.is_in(table['query_id'], value_set=pa.array(query_ids, pa.string()))))


#: The measures whose value for a qrels query absent from the run is not 0 (as trec_eval -c counts them), and
#: what that value is.
_ABSENT_QUERY_VALUES = {'NumRel': 'R', 'NumQ': '1'}


def _fill_num_rel_of_absent_queries(measures: list[Measure], ours: dict, theirs: dict, run: pa.Table) -> None:
    """pytrec_eval never sees qrels queries absent from the run, so ir_measures fills 0 for them; we
    report R (NumRel) and 1 (NumQ) there, as ``trec_eval -c`` does. Those values have no reference: not
    compared."""
    retrieved = set(pc.unique(run['query_id']).to_pylist())
    for measure in measures:
        absent = [q for q in ours[measure] if q not in retrieved]
        if measure.NAME in _ABSENT_QUERY_VALUES and absent:
            theirs[measure].update((q, ours[measure][q]) for q in absent)
            print(f'note: {measure} of the {len(absent)} qrels queries absent from the run is '
                  f"{_ABSENT_QUERY_VALUES[measure.NAME]} (trec_eval -c), where ir_measures' pytrec_eval wrapper "
                  'gives 0; those are not compared', file=sys.stderr)


def _differences(ours: dict[str, float], theirs: dict[str, float]) -> dict[str, tuple[float, float]]:
    """The queries whose values differ by more than TOLERANCE, with both values."""
    return {q: (ours[q], theirs[q]) for q in sorted(ours) if abs(ours[q] - theirs[q]) > TOLERANCE}


def _report_differences(measures: list[Measure], ours: dict, theirs: dict, reference: str) -> bool:
    """Prints the comparison table and the differing queries; returns whether any measure differs."""
    print(f'measure\tmax_abs_diff\tqueries_differing\t{ext_provider.NAME}\t{reference}')
    listings = []
    for measure in measures:
        ours_mean, theirs_mean = (aggregate_of(measure, v[measure]) for v in (ours, theirs))
        gaps = [abs(ours[measure][q] - theirs[measure][q]) for q in ours[measure]] + [abs(ours_mean - theirs_mean)]
        differing = _differences(ours[measure], theirs[measure])
        print(f'{measure}\t{max(gaps):.3g}\t{len(differing)}/{len(ours[measure])}\t{ours_mean:.6g}\t{theirs_mean:.6g}')
        if differing or max(gaps) > TOLERANCE:
            listings.append(f'{measure} differs on: ' + _list_queries(differing))
    print('\n'.join(listings) if listings else
          f'all {len(measures)} measures agree with {reference} within {TOLERANCE:g}')
    return bool(listings)


def _list_queries(differing: dict[str, tuple[float, float]]) -> str:
    shown = [f'{q} ({a:.6g} vs {b:.6g})' for q, (a, b) in list(differing.items())[:MAX_LISTED]]
    more = len(differing) - len(shown)
    return ', '.join(shown + ([f'and {more} more'] if more else [])) or 'the aggregate only'


def _explain_rr(measure: Measure, qrels: pa.Table, run: pa.Table) -> None:
    """Compares our RR@k with ir_measures' default provider for it and shows one differing query."""
    default = next(p for p in ir_measures.DefaultPipeline.providers if p.is_available() and p.supports(measure))
    ours, theirs = (per_query(evaluate([measure], qrels, run, ext_provider, name))[measure]
                    for name in (ext_provider.NAME, default.NAME))
    differing = _differences(ours, theirs)
    print(f"\n{measure}: {ext_provider.NAME} (ties: doc_id descending, as trec_eval) vs ir_measures' default "
          f'provider {default.NAME}: {len(differing)} of {len(ours)} queries differ; mean '
          f'{aggregate_of(measure, ours):.6g} vs {aggregate_of(measure, theirs):.6g}')
    if differing:
        query_id = next(iter(differing))
        print(f'example: query {query_id}: ' + _rank_story(query_id, measure, qrels, run, default.NAME))


def _rank_story(query_id: str, measure: Measure, qrels: pa.Table, run: pa.Table, other: str) -> str:
    """Where each tie rule puts the first relevant doc of one query, and the docs tied with it."""
    judged = qrels.filter(pc.equal(qrels['query_id'], query_id))
    relevant = set(judged.filter(pc.greater_equal(judged['relevance'], measure['rel']))['doc_id'].to_pylist())
    rows = run.filter(pc.equal(run['query_id'], query_id))
    docs = list(zip(rows['doc_id'].to_pylist(), rows['score'].to_pylist(), strict=True))
    # trec_eval compares scores as 32-bit floats (see irmeasures_ext.ranking); msmarco as given.
    trec_order = sorted(docs, key=lambda d: (np.float32(d[1]), d[0]), reverse=True)
    msmarco_order = sorted(docs, key=lambda d: (-d[1], d[0]))
    return '; '.join(f'{name} {_first_relevant(order, relevant, measure)}'
                     for name, order in ((ext_provider.NAME, trec_order), (other, msmarco_order)))


def _first_relevant(order: list[tuple[str, float]], relevant: set[str], measure: Measure) -> str:
    for rank, (doc, score) in enumerate(order, start=1):
        if doc in relevant:
            value = 1 / rank if rank <= measure['cutoff'] else 0.0
            tied = sorted(d for d, s in order if s == score)
            ties = f' ({len(tied)} docs tie at that score: {" ".join(tied[:MAX_LISTED])})' if len(tied) > 1 else ''
            return f'ranks relevant doc {doc!r} (score {score:g}) at {rank}{ties}, so {measure} = {value:.4g}'
    return f'retrieves no relevant doc, so {measure} = 0'
