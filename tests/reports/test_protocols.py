"""The papers' protocols against plain re-statements of their scripts' arithmetic, and the command line's
tie options, diagnostic and protocol output."""
import contextlib
import io
import math
import random

import ir_datasets
import numpy as np
import pyarrow as pa
import pytest

import irmeasures_ext
from irmeasures_ext import MeanRank, RankVariance
from irmeasures_ext.cli import main
from irmeasures_ext.reports import protocols

N_QUERIES, N_QUOTES = 150, 40  # three batches of 64, the last one partial


def quoter_shaped(seed: int) -> tuple[pa.Table, pa.Table, np.ndarray, np.ndarray]:
    """Every query scores every quote (ids 0..39), scores rounded to one decimal: many ties."""
    rng = np.random.default_rng(seed)
    scores = np.round(rng.random((N_QUERIES, N_QUOTES)), 1).astype(np.float32).astype(np.float64)
    gold = rng.integers(0, N_QUOTES, N_QUERIES)
    queries = [str(q) for q in range(N_QUERIES) for _ in range(N_QUOTES)]
    docs = [str(d) for _ in range(N_QUERIES) for d in range(N_QUOTES)]
    order = rng.permutation(len(queries))  # the run's lines in any order
    run = pa.table({'query_id': pa.array(queries).take(order), 'doc_id': pa.array(docs).take(order),
                    'score': pa.array(scores.ravel()).take(order)})
    qrels = pa.table({'query_id': [str(q) for q in range(N_QUERIES)], 'doc_id': [str(g) for g in gold],
                      'relevance': pa.array([1] * N_QUERIES, pa.int64())})
    return qrels, run, scores, gold


def quoter_script(scores: np.ndarray, gold: np.ndarray) -> dict[str, float]:
    """The arithmetic of QuoteR's test() (rank_gold, get_NDCG, recall, batches of 64), restated plainly."""
    total_mrr, total_ndcg, all_ranks, recall_hits, batches = 0.0, 0.0, [], [0] * 10, 0
    ks = [1, 3, 5, 10, 20, 30, 100, 300, 500, 1000]
    for start in range(0, len(gold), 64):
        predicts, golds = scores[start:start + 64], gold[start:start + 64]
        ranks = [sorted(p, reverse=True).index(p[g]) for p, g in zip(predicts, golds, strict=True)]
        all_ranks.extend(ranks)
        total_mrr += np.average([1.0 / (r + 1) for r in ranks])
        total_ndcg += sum(1.0 / np.log2(r + 2) for r in ranks if r < 5) / len(ranks)
        index = np.argsort(-predicts, axis=1)
        for i, g in enumerate(golds):
            for j, k in enumerate(ks):
                recall_hits[j] += g in index[i][:k]
        batches += 1
    result = {'MRR': total_mrr / batches, 'NDCG': total_ndcg / batches, 'Mean Rank': np.mean(all_ranks),
              'Median Rank': np.median(all_ranks) + 1, 'Variance': np.std(all_ranks)}
    result.update((f'Recall@{k}', hits / len(gold)) for k, hits in zip(ks, recall_hits, strict=True))
    return result


@pytest.mark.parametrize('seed', [1, 2, 3])
def test_quoter_official_equals_the_scripts_arithmetic(seed):
    qrels, run, scores, gold = quoter_shaped(seed)
    ours = protocols.quoter_official(qrels, run)
    expected = quoter_script(scores, gold)
    assert list(ours) == list(expected)
    assert ours == {name: pytest.approx(value, abs=1e-12) for name, value in expected.items()}
    assert ours['Recall@1'] != ours['MRR']  # ties: argsort's order and the gold-favouring rank disagree


def test_quoter_official_ranks_are_the_optimistic_policys():
    """The script's rank (ties in the gold's favour) is the optimistic policy's: its printed "Variance"
    is the standard deviation of the ranks RankVariance takes the variance of."""
    qrels, run, scores, gold = quoter_shaped(5)
    printed = protocols.quoter_official(qrels, run)
    ours = irmeasures_ext.provider.configured(ties='optimistic').calc_aggregate([MeanRank, RankVariance], qrels, run)
    assert ours[MeanRank] == pytest.approx(printed['Mean Rank'] + 1, abs=1e-12)
    assert ours[RankVariance] == pytest.approx(printed['Variance'] ** 2, abs=1e-12)


def test_quoter_official_from_the_command_line(tmp_path):
    qrels, run, scores, gold = quoter_shaped(4)
    (tmp_path / 'qrels').write_text(''.join(f'{q} 0 {d} 1\n' for q, d in zip(*(qrels[n].to_pylist() for n in (
        'query_id', 'doc_id')), strict=True)))
    (tmp_path / 'run').write_text(''.join(f'{q} Q0 {d} 1 {s!r} t\n' for q, d, s in zip(*(run[n].to_pylist() for n in (
        'query_id', 'doc_id', 'score')), strict=True)))
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main([str(tmp_path / 'qrels'), str(tmp_path / 'run'), '--protocol', 'quoter-official', '-p', '-1']) == 0
    printed = dict(line.split('\t') for line in out.getvalue().splitlines())
    assert list(printed)[:5] == ['MRR', 'NDCG', 'Mean Rank', 'Median Rank', 'Variance']
    assert {k: float(v) for k, v in printed.items()} == pytest.approx(quoter_script(scores, gold), abs=1e-12)


def citation_case(seed: int) -> tuple[pa.Table, pa.Table, dict[str, str], dict, dict]:
    rnd = random.Random(seed)
    positives = {f'c{i}': set(rnd.sample([f'p{j}' for j in range(30)], rnd.randint(1, 3))) for i in range(20)}
    citing = {q: rnd.choice(sorted(pos) + ['p40', 'p41']) for q, pos in positives.items()}
    ranked = {q: rnd.sample([f'p{j}' for j in range(45)], 45) for q in positives}  # distinct scores: a ranking
    qrels = pa.table({'query_id': [q for q, pos in positives.items() for _ in pos],
                      'doc_id': [d for pos in positives.values() for d in sorted(pos)],
                      'relevance': pa.array([1] * sum(map(len, positives.values())), pa.int64())})
    run = pa.table({'query_id': [q for q, docs in ranked.items() for _ in docs],
                    'doc_id': [d for docs in ranked.values() for d in docs],
                    'score': [float(100 - i) for docs in ranked.values() for i in range(len(docs))]})
    return qrels, run, citing, positives, ranked


def test_gu_prefetch_equals_its_test_script():
    qrels, run, citing, positives, ranked = citation_case(5)
    recalls = {k: [] for k in protocols.GU_RECALL_AT}
    for q, candidates in ranked.items():  # src/prefetch/test.py: fetch, drop the citing paper unless positive
        candidates = list(candidates)
        if citing[q] in candidates and citing[q] not in positives[q]:
            candidates.remove(citing[q])
        for k in recalls:
            recalls[k].append(len(positives[q] & set(candidates[:k])) / len(positives[q]))
    assert protocols.gu_prefetch(qrels, run, citing) == {
        f'Recall@{k}': pytest.approx(np.mean(values), abs=1e-12) for k, values in recalls.items()}


def test_symtax_equals_its_per_script():
    qrels, run, _, positives, ranked = citation_case(6)
    ranks = []
    for q, candidates in ranked.items():  # per.py: index + 1 of the true paper, 100 if it is missing
        found = [i + 1 for i, doc in enumerate(candidates[:10]) if doc in positives[q]]
        ranks.append(found[0] if found else 100)
    ranks = np.array(ranks)
    got = protocols.symtax(qrels, run.filter(pa.compute.greater(run['score'], 90.0)))  # candidates cut at 10
    assert got['Recall@5'] == pytest.approx(np.mean(ranks <= 5), abs=1e-12)
    assert got['MRR@10'] == pytest.approx(np.mean([1 / r if r <= 10 else 0 for r in ranks]), abs=1e-12)
    assert got['NDCG@10'] == pytest.approx(np.mean([1 / math.log2(r + 1) if r <= 10 else 0 for r in ranks]),
                                           abs=1e-12)


def run_cli(*argv) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([str(a) for a in argv])
    return status, out.getvalue(), err.getvalue()


@pytest.fixture
def tied_files(tmp_path):
    (tmp_path / 'qrels').write_text('q 0 a 1\nq 0 b 0\n')
    (tmp_path / 'run').write_text('q Q0 a 3 1.00000001 t\nq Q0 b 1 1.0 t\nq Q0 c 2 1.0 t\n')
    return tmp_path / 'qrels', tmp_path / 'run'


@pytest.mark.parametrize('options, rr', [
    ([], 1 / 3), (['--ties', 'optimistic'], 1.0), (['--ties', 'pessimistic'], 1 / 3),
    (['--ties', 'expected'], (1 + 1 / 2 + 1 / 3) / 3), (['--ties', 'rank'], 1 / 3),
    (['--score-precision', 'float64'], 1.0), (['--ties', 'pessimistic', '--score-precision', 'float64'], 1.0),
])
def test_command_line_tie_options(tied_files, options, rr):
    status, out, err = run_cli(*tied_files, 'RR', '-p', '-1', *options)
    assert status == 0, err
    assert float(out.split('\t')[1]) == pytest.approx(rr, abs=1e-15)


def test_ties_diagnostic(tied_files):
    """Docs b, c tie at rank 1-2 (trec_eval: c first), a is third; RR by hand under each policy."""
    status, out, err = run_cli('ties', *tied_files, 'RR', 'P@1', 'nERR@2', '-p', '3')
    assert status == 0
    assert out.splitlines() == [
        'measure\ttrec_eval\tpessimistic\texpected\toptimistic\trange\tqueries_tied_at_cutoff\t'
        'queries_tied_relevant\trefused',
        'RR\t0.333\t0.333\t0.611\t1.000\t0.667\t—\t1\t—',
        'P@1\t0.000\t0.000\t0.333\t1.000\t1.000\t1\t1\t—',
        'nERR@2\t0.000\t0.000\t—\t1.000\t1.000\t1\t1\texpected',
    ]
    assert err == ('irmeasures-ext ties: nERR@2 is not supported under ties=expected (no closed form for its mean '
                   'over the orderings of tied docs); its range: ties=optimistic and ties=pessimistic\n')


def test_ties_diagnostic_sets_a_measures_own_policy_aside(tied_files):
    """A measure's own ties= would give one value under every policy (a range of 0): the report ranks it under
    each policy instead, as the same measure without it (test_ties_diagnostic's row, by hand), and says so."""
    status, out, err = run_cli('ties', *tied_files, "nERR(ties='optimistic')@2", "nERR(ties='trec_eval')@2", '-p', '3')
    assert status == 0
    assert out.splitlines()[1:] == ["nERR(ties='optimistic')@2\t0.000\t0.000\t—\t1.000\t1.000\t1\t1\texpected",
                                    "nERR(ties='trec_eval')@2\t0.000\t0.000\t—\t1.000\t1.000\t1\t1\texpected"]
    assert err.splitlines()[:2] == [
        "irmeasures-ext ties: nERR(ties='optimistic')@2: its own ties='optimistic' is set aside: the report ranks it "
        'under each policy',
        'irmeasures-ext ties: nERR@2 is not supported under ties=expected (no closed form for its mean over the '
        'orderings of tied docs); its range: ties=optimistic and ties=pessimistic']


def test_protocol_needs_no_measure_and_gu_needs_a_dataset(tied_files):
    status, _, err = run_cli(*tied_files, 'RR', '--protocol', 'symtax')
    assert (status, err) == (2, 'irmeasures-ext: error: --protocol replaces MEASURE and --suite: give none\n')
    status, _, err = run_cli(*tied_files, '--protocol', 'gu-prefetch')
    assert status == 2 and 'needs QRELS to be a citation-rec ir_datasets id' in err
    status, _, err = run_cli(*tied_files, '--protocol', 'symtax', '--ties', 'expected')
    assert status == 2 and '--ties, --score-precision, --depth and --rel do not apply' in err
    for option in (['-o', 'jsonl'], ['-q']):  # (it printed its tsv lines, the option unsaid)
        status, out, err = run_cli(*tied_files, '--protocol', 'symtax', *option)
        assert (status, out, err) == (2, '', "irmeasures-ext: error: --protocol prints its script's lines, name and "
                                             'value; --output_format jsonl and --by_query (-q) do not apply\n')


def test_ties_options_refused_for_another_provider(tied_files):
    status, _, err = run_cli(*tied_files, 'P@1', '--provider', 'pytrec_eval', '--ties', 'optimistic')
    assert status == 2 and err == ('irmeasures-ext: error: ties, score precision, depth and rel choose how the '
                                   'irmeasures_ext provider ranks; provider pytrec_eval ranks its own way: give none '
                                   'of them with it\n')
    assert ir_datasets  # (imported so the dataset registration runs as in other tests)


def test_every_protocol_of_the_registry_has_its_function():
    """The registry (light: the command's options are known before numpy loads) names a function of the protocols
    module for each protocol, which takes the citing ids where the registry says it needs them."""
    import inspect

    from irmeasures_ext.reports import PROTOCOLS, protocols
    for protocol in PROTOCOLS.values():
        parameters = inspect.signature(getattr(protocols, protocol.function)).parameters
        assert list(parameters)[:2] == ['qrels', 'run'] and ('citing' in parameters) == protocol.needs_citing
