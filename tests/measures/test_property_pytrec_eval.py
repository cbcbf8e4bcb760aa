"""Every trec_eval measure our provider answers equals pytrec_eval (trec_eval) on random data,
through our provider by name and through the command line (where it is the default provider)."""
import math

import ir_measures
import pytest
import pytrec_eval
import reference
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from public_paths import via_cli, via_provider
from strategies import qrels_and_run

from irmeasures_ext import Q

# Generated data often has no query in common between qrels and run: that warning is expected here.
pytestmark = pytest.mark.filterwarnings('ignore::irmeasures_ext.errors.NoOverlapWarning')


CUTOFFS = [1, 3, 5, 10, 100]
GAINS = {0: 0, 1: 1, 2: 5, 3: 9}

# (our measure, pytrec_eval measure name, pytrec_eval relevance_level)
TREC_MEASURES = [
    (ir_measures.AP, 'map', 1), (ir_measures.Rprec, 'Rprec', 1), (ir_measures.RR, 'recip_rank', 1),
    (ir_measures.nDCG, 'ndcg', 1), (ir_measures.NumRel, 'num_rel', 1), (ir_measures.NumRet, 'num_ret', 1),
    (ir_measures.NumRet(rel=1), 'num_rel_ret', 1), (ir_measures.AP(rel=2), 'map', 2),
    (ir_measures.RR(rel=3), 'recip_rank', 3), (ir_measures.Rprec(rel=2), 'Rprec', 2),
    (ir_measures.NumRel(rel=2), 'num_rel', 2), (ir_measures.NumRet(rel=2), 'num_rel_ret', 2)]
for k in CUTOFFS:
    TREC_MEASURES += [
        (ir_measures.AP @ k, f'map_cut_{k}', 1), (ir_measures.P @ k, f'P_{k}', 1),
        (ir_measures.R @ k, f'recall_{k}', 1), (ir_measures.Success @ k, f'success_{k}', 1),
        (ir_measures.nDCG @ k, f'ndcg_cut_{k}', 1), (ir_measures.P(rel=2) @ k, f'P_{k}', 2),
        (ir_measures.R(rel=3) @ k, f'recall_{k}', 3), (ir_measures.Success(rel=2) @ k, f'success_{k}', 2),
        (ir_measures.AP(rel=2) @ k, f'map_cut_{k}', 2)]
NDCG_GAINS = ir_measures.nDCG(gains=GAINS)            # gains: pytrec_eval on remapped labels
RR_AT = [ir_measures.RR @ k for k in CUTOFFS]         # recip_rank of the run cut at k
MEASURES = [m for m, _, _ in TREC_MEASURES] + [NDCG_GAINS, *RR_AT]
PATHS = {'provider': via_provider, 'cli': via_cli}


def pytrec_eval_values(qrels: dict, run: dict) -> dict[tuple[str, str], float]:
    """pytrec_eval's values of MEASURES for the qrels queries that retrieve docs, one query at a time.

    Two pytrec_eval 0.5.11 defects shape this call: it can crash (segfault) on a run dict with an
    empty query beside others, so each query is evaluated alone (trec_eval evaluates queries
    independently anyway); and it hangs on a query whose labels are all negative, so negative
    labels are passed as 0, which changes no value: every relevance level here is >= 1, so a label of -1 or
    0 is non-relevant and gains nothing (our provider gets the negatives).
    """
    expected = {}
    for qid in set(qrels) & {q for q, docs in run.items() if docs}:
        judged = {qid: {doc: max(label, 0) for doc, label in qrels[qid].items()}}
        retrieved = {qid: run[qid]}
        for level in {level for _, _, level in TREC_MEASURES}:
            names = {name for _, name, lvl in TREC_MEASURES if lvl == level}
            plain = {n for n in names if not n[-1].isdigit() or n == 'num_rel_ret'}
            cut = {n.rsplit('_', 1)[0] for n in names - plain}
            requested = plain | {f'{n}.{",".join(map(str, CUTOFFS))}' for n in cut}
            values = pytrec_eval.RelevanceEvaluator(judged, requested, relevance_level=level).evaluate(retrieved)[qid]
            expected.update(((str(m), qid), values[name]) for m, name, lvl in TREC_MEASURES if lvl == level)
        remapped = {qid: {doc: GAINS.get(label, label) for doc, label in judged[qid].items()}}
        expected[str(NDCG_GAINS), qid] = pytrec_eval.RelevanceEvaluator(remapped, {'ndcg'}).evaluate(retrieved)[qid][
            'ndcg']
        ranking = reference.trec_ranking(run[qid])
        for measure in RR_AT:
            top = {qid: {doc: run[qid][doc] for doc in ranking[:measure['cutoff']]}}
            expected[str(measure), qid] = pytrec_eval.RelevanceEvaluator(judged, {'recip_rank'}).evaluate(top)[qid][
                'recip_rank']
    return expected


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(qrels_and_run(), st.sampled_from(sorted(PATHS)))
def test_trec_eval_measures_equal_pytrec_eval(data, path):
    qrels, run = data
    if path == 'cli' and not any(run.values()):
        return  # a TREC file needs a line; the provider path covers empty runs
    ours, aggregates = PATHS[path](MEASURES, qrels, run)
    expected = pytrec_eval_values(qrels, run)
    for key, value in expected.items():
        assert math.isclose(ours[key], value, abs_tol=1e-9), (path, key, ours[key], value)
    # Queries of the qrels that retrieve nothing (trec_eval -c): NumRel = R, everything else 0.
    for qid in {q for q in qrels if not run.get(q)}:
        for measure in MEASURES:
            want = sum(label >= measure['rel'] for label in qrels[qid].values()) if measure.NAME == 'NumRel' else 0
            assert ours[str(measure), qid] == want, (path, measure, qid)
    assert {q for _, q in ours} == set(qrels)  # run-only queries are ignored
    for measure in MEASURES:  # means, except NumRel and NumRet: sums (their ir_measures aggregator)
        values = [ours[str(measure), qid] for qid in qrels]
        want = sum(values) if measure.NAME in ('NumRel', 'NumRet') else sum(values) / len(values)
        assert math.isclose(aggregates[str(measure)], want, abs_tol=1e-12), (path, measure)


@settings(max_examples=300, deadline=None)
@given(qrels_and_run(), st.sampled_from([None, 1, 5, 20]))
def test_q_with_beta_zero_is_ap(data, cutoff):
    """Q(β=0) is trec_eval's AP to 1e-12 (docs/measures.md); Q(β=0)@k is NTCIREVAL's AP@k, which divides by
    min(k, R)."""
    qrels, run = data
    q0 = Q(beta=0) if cutoff is None else Q(beta=0) @ cutoff
    ours = via_provider([q0], qrels, run)[0]
    trec = pytrec_eval_values(qrels, run)
    for qid, judged in qrels.items():
        if cutoff is None and run.get(qid):
            assert ours[str(q0), qid] == pytest.approx(trec['AP', qid], abs=1e-12)
        ranking = reference.trec_ranking(run.get(qid, {}))
        assert ours[str(q0), qid] == pytest.approx(reference.q_measure(ranking, judged, beta=0, cutoff=cutoff),
                                                   abs=1e-12)
