"""Comparing runs against independent references: scipy for the t-test, Wilcoxon and t intervals,
pytrec_eval for the per-query values, exhaustive sign-flip enumeration written here, plain Holm/BH,
Tukey HSD on cases with a known answer and for its p-value properties, and lower-is-better wins."""
from __future__ import annotations

import contextlib
import errno
import gzip
import io
import itertools
import json
import math
import os
import re
import signal
import statistics
import subprocess
import sys
import threading
import warnings

import ir_measures
import matplotlib.figure
import numpy as np
import pandas as pd
import pytest
import scipy.stats

import irmeasures_ext
from irmeasures_ext import ComparisonError, MeanRank, MedianRank
from irmeasures_ext.cli import main
from irmeasures_ext.comparison import stats
from irmeasures_ext.comparison.output import write_markdown
from irmeasures_ext.comparison.plot import check_plot_path, plot_comparison
from irmeasures_ext.comparison.table import COLUMNS, RunValues, comparison_table, evaluate_runs
from irmeasures_ext.engine.aggregates import MEDIAN

NDCG10, P5, RR = ir_measures.parse_measure('nDCG@10'), ir_measures.parse_measure('P@5'), ir_measures.RR


def make_runs(n_queries: int = 40, names=('base', 'better', 'other'), seed: int = 0) -> tuple[dict, dict]:
    """Graded qrels and runs of 12 docs per query; 'better' scores relevant docs higher."""
    rng = np.random.default_rng(seed)
    qrels = {f'q{q}': {f'd{d}': int(rng.integers(0, 3)) for d in range(12)} for q in range(n_queries)}
    runs = {}
    for name in names:
        boost = 0.5 if name == 'better' else 0.0
        runs[name] = {q: {d: round(float(rng.random()) + boost * (label > 0), 3) for d, label in docs.items()}
                      for q, docs in qrels.items()}
    return qrels, runs


def pytrec_values(measure, qrels: dict, run: dict) -> np.ndarray:
    """Per-query values from pytrec_eval (through ir_measures), in sorted query order."""
    values = {m.query_id: m.value for m in ir_measures.pytrec_eval.iter_calc([measure], qrels, run)}
    return np.array([values.get(q, 0.0) for q in sorted(qrels)])


def row(table: pd.DataFrame, run: str, measure, baseline: str | None = None) -> pd.Series:
    rows = table[(table['run'] == run) & (table['measure'] == str(measure))]
    rows = rows[rows['baseline'].isna()] if baseline is None else rows[rows['baseline'] == baseline]
    assert len(rows) == 1
    return rows.iloc[0]


def values_of(*columns: list[float], measure=NDCG10, names=None) -> RunValues:
    matrix = np.column_stack([np.asarray(c, dtype=np.float64) for c in columns])
    names = names or [f'r{i}' for i in range(len(columns))]
    return RunValues(names, [measure], [f'q{i}' for i in range(len(matrix))], {measure: matrix})


# --- against scipy, on per-query values from pytrec_eval ------------------------------------------

def test_t_test_intervals_and_effect_sizes_equal_scipy_on_pytrec_eval_values():
    qrels, runs = make_runs()
    table = irmeasures_ext.compare(qrels, runs, [NDCG10, P5])
    for measure in (NDCG10, P5):
        base = pytrec_values(measure, qrels, runs['base'])
        low, high = scipy.stats.t.interval(0.95, len(base) - 1, loc=base.mean(), scale=scipy.stats.sem(base))
        assert row(table, 'base', measure)[['mean', 'ci_low', 'ci_high']].tolist() == \
            pytest.approx([base.mean(), low, high], abs=1e-12)
        for name in ('better', 'other'):
            values = pytrec_values(measure, qrels, runs[name])
            got = row(table, name, measure, 'base')
            assert got['mean'] == pytest.approx(values.mean(), abs=1e-12)
            assert got['p_value'] == pytest.approx(scipy.stats.ttest_rel(values, base).pvalue, abs=1e-9)
            assert got['p_adjusted'] == got['p_value']  # correction none
            differences = values - base
            assert got['diff'] == pytest.approx(differences.mean(), abs=1e-12)
            assert got['effect_size'] == pytest.approx(differences.mean() / statistics.stdev(differences), abs=1e-12)
            assert (got['wins'], got['losses'], got['ties']) == (
                (differences > 0).sum(), (differences < 0).sum(), (differences == 0).sum())
    assert row(table, 'better', NDCG10, 'base')['p_value'] < 1e-6  # the boosted run is found better


@pytest.mark.parametrize('n', [8, 30, 60])  # scipy: exact distribution below 50 without ties, else normal
def test_wilcoxon_equals_scipy_with_its_defaults(n):
    rng = np.random.default_rng(n)
    x = np.round(rng.random(n), 1)  # rounded: zero differences and tied ranks
    y = np.round(rng.random(n), 1)
    table = comparison_table(values_of(y, x, rng.random(n)), test='wilcoxon')
    assert row(table, 'r1', NDCG10, 'r0')['p_value'] == pytest.approx(scipy.stats.wilcoxon(x, y).pvalue, abs=1e-9)


def test_identical_runs_have_p_value_one_under_every_test():
    same = [0.1, 0.5, 0.5, 0.9]
    for test in ('t', 'wilcoxon', 'randomization', 'tukey-hsd'):
        table = comparison_table(values_of(same, same), test=test)
        got = row(table, 'r1', NDCG10, 'r0')
        assert (got['p_value'], got['diff'], got['effect_size'], got['ties']) == (1.0, 0.0, 0.0, 4), test


# --- randomisation: exhaustive enumeration ---------------------------------------------------------

def enumerated_p(differences: list[float]) -> float:
    """Share of all 2^n sign flips whose |mean| is at least the observed |mean| (exact arithmetic:
    the differences are multiples of 1/8)."""
    observed = abs(sum(differences))
    flips = list(itertools.product([1, -1], repeat=len(differences)))
    return sum(abs(sum(s * d for s, d in zip(signs, differences, strict=True))) >= observed
               for signs in flips) / len(flips)


@pytest.mark.parametrize('seed', range(5))
def test_randomization_is_exact_enumeration_when_small(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 12))
    base, run = rng.integers(0, 8, n) / 8, rng.integers(0, 8, n) / 8
    table = comparison_table(values_of(base, run), test='randomization', samples=2 ** n)
    assert row(table, 'r1', NDCG10, 'r0')['p_value'] == enumerated_p(list(run - base))


def test_randomization_samples_when_enumeration_is_too_large():
    rng = np.random.default_rng(7)
    n = 15  # 32,768 flips > 10,000 samples
    base, run = rng.integers(0, 8, n) / 8, rng.integers(0, 8, n) / 8 + 0.125
    exact = enumerated_p(list(run - base))
    ps = [row(comparison_table(values_of(base, run), test='randomization', seed=seed), 'r1', NDCG10, 'r0')['p_value']
          for seed in (1, 1, 2)]
    assert ps[0] == ps[1] != ps[2]  # reproducible with a seed
    assert all(abs(p - exact) < 0.02 for p in ps)
    assert all((p * 10_001 - 1) == pytest.approx(round(p * 10_001 - 1)) for p in ps)  # (1 + count) / (1 + B)


# --- corrections -----------------------------------------------------------------------------------

def plain_holm(p: list[float]) -> list[float]:
    m, order = len(p), sorted(range(len(p)), key=lambda i: p[i])
    adjusted, running = [0.0] * m, 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p[i]))
        adjusted[i] = running
    return adjusted


def plain_bh(p: list[float]) -> list[float]:
    m, order = len(p), sorted(range(len(p)), key=lambda i: p[i])
    adjusted, running = [0.0] * m, 1.0
    for rank in range(m - 1, -1, -1):
        i = order[rank]
        running = min(running, m * p[i] / (rank + 1))
        adjusted[i] = min(1.0, running)
    return adjusted


@pytest.mark.parametrize('seed', range(10))
def test_corrections_equal_plain_implementations(seed):
    rng = np.random.default_rng(seed)
    p = list(rng.random(int(rng.integers(1, 12))) ** 3)
    if seed % 2:
        p[0] = p[-1]  # equal p-values
    assert stats.adjust(np.array(p), 'holm').tolist() == pytest.approx(plain_holm(p), abs=1e-15)
    assert stats.adjust(np.array(p), 'bh').tolist() == pytest.approx(plain_bh(p), abs=1e-15)
    assert stats.adjust(np.array(p), 'bonferroni').tolist() == pytest.approx([min(1, x * len(p)) for x in p])
    with_nan = stats.adjust(np.array([np.nan, *p]), 'holm')
    assert math.isnan(with_nan[0]) and with_nan[1:].tolist() == pytest.approx(plain_holm(p))


def test_correction_applies_within_each_measures_family():
    qrels, runs = make_runs(names=('base', 'better', 'other', 'fourth'))
    plain = irmeasures_ext.compare(qrels, runs, [NDCG10, RR])
    holm = irmeasures_ext.compare(qrels, runs, [NDCG10, RR], correction='holm')
    for measure in (NDCG10, RR):
        p = [row(plain, name, measure, 'base')['p_value'] for name in ('better', 'other', 'fourth')]
        assert [row(holm, name, measure, 'base')['p_adjusted'] for name in ('better', 'other', 'fourth')] == \
            pytest.approx(plain_holm(p))


# --- Tukey HSD ---------------------------------------------------------------------------------------

def test_tukey_hsd_with_two_runs_is_the_sign_flip_test():
    """With two runs, permuting a query's two values flips the sign of its difference, and the range
    of the two means is |mean difference|: p is the randomisation test's (up to sampling)."""
    rng = np.random.default_rng(3)
    base, run = rng.integers(0, 8, 12) / 8, rng.integers(0, 8, 12) / 8 + 0.125
    p = stats.tukey_hsd(np.column_stack([base, run]), [(0, 1)], 20_000, 5)[0]
    assert p == pytest.approx(enumerated_p(list(run - base)), abs=0.01)


def test_tukey_hsd_known_extremes_and_properties():
    rng = np.random.default_rng(11)
    n = 30
    dominant = np.column_stack([np.ones(n), np.zeros(n), np.zeros(n)])  # run 0 best on every query
    p = stats.tukey_hsd(dominant, [(0, 1), (0, 2), (1, 2)], 2000, 1)
    assert p[0] == p[1] == 0.0 and p[2] == 1.0  # 3 (1/3)^30 chance of such a range; run 1 = run 2
    values = rng.random((n, 4)) + np.array([0.0, 0.05, 0.15, 0.3])
    pairs = [(0, 1), (0, 2), (0, 3), (1, 0)]
    p = stats.tukey_hsd(values, pairs, 3000, 9)
    assert p[0] == p[3]  # symmetric
    gaps = np.abs(values.mean(axis=0)[[1, 2, 3]] - values.mean(axis=0)[0])
    assert list(np.argsort(gaps)) == [0, 1, 2] and p[0] >= p[1] >= p[2]  # monotone in |difference|
    assert stats.tukey_hsd(values, pairs, 3000, 9).tolist() == p.tolist()  # reproducible with the seed
    table = comparison_table(values_of(*values.T), all_pairs=True, test='tukey-hsd', samples=3000, seed=9)
    assert row(table, 'r3', NDCG10, 'r0')['p_value'] == p[2]


# --- intervals -----------------------------------------------------------------------------------------

def test_bootstrap_interval_agrees_with_scipy_percentile_bootstrap():
    rng = np.random.default_rng(4)
    values = rng.random(200)
    low, high = stats.bootstrap_interval(values, 0.05, 20_000, 3)
    reference = scipy.stats.bootstrap((values,), np.mean, method='percentile', n_resamples=20_000,
                                      random_state=3).confidence_interval
    assert (low, high) == pytest.approx((reference.low, reference.high), abs=0.004)
    assert stats.bootstrap_interval(np.full(10, 0.5), 0.05, 100, 1) == (0.5, 0.5)
    table = comparison_table(values_of(values, values + 0.1), ci='bootstrap', seed=3, samples=20_000)
    assert row(table, 'r0', NDCG10)['ci_low'] == pytest.approx(low)



@pytest.mark.parametrize('n', [41, 40])  # the median is one middle value, or the mean of two
def test_bootstrap_interval_of_the_median_agrees_with_scipy(n):
    """Skewed ranks (mean well above the median), several rows at once: each row's interval is scipy's
    percentile bootstrap of its median (medians of integers fall on halves: 0.25 tells them apart)."""
    rng = np.random.default_rng(6)
    rows = np.stack([rng.geometric(0.3, size=41), rng.geometric(0.1, size=41)]).astype(float)[:, :n]
    low, high = stats.bootstrap_interval(rows, 0.1, 20_000, 1, MEDIAN)
    for row_values, row_low, row_high in zip(rows, low, high, strict=True):
        reference = scipy.stats.bootstrap((row_values,), np.median, method='percentile', n_resamples=20_000,
                                          random_state=5, confidence_level=0.9).confidence_interval
        assert (row_low, row_high) == pytest.approx((reference.low, reference.high), abs=0.25)
    assert (low[0], high[0]) == ((1.5, 2.5) if n == 40 else (2.0, 3.0))

# --- lower is better -------------------------------------------------------------------------------------

def test_lower_is_better_measures_win_downwards(capsys, tmp_path):
    qrels = {f'q{i}': {'rel': 1} for i in range(12)}
    good = {q: {'rel': 2.0, 'x': 1.0} for q in qrels}  # rank 1
    bad = {q: {'rel': 0.5, 'x': 1.0, 'y': 2.0, 'z': 3.0} for q in qrels}  # rank 4
    table = irmeasures_ext.compare(qrels, {'bad': bad, 'good': good}, [MeanRank, MedianRank, RR])
    for measure in (MeanRank, MedianRank, RR):
        got = row(table, 'good', measure, 'bad')
        assert (got['wins'], got['losses'], got['ties']) == (12, 0, 0), measure
    assert row(table, 'good', MeanRank, 'bad')['diff'] == -3.0
    out = io.StringIO()
    write_markdown(out, table, 2)
    lines = out.getvalue().splitlines()
    assert lines[3] == '| good | **1.00**† | **1.00**† | **1.00**† |'
    assert 'Lower is better for MeanRank, MedianRank.' in lines[-1]


# --- table layout, formats, command line ---------------------------------------------------------------

@pytest.fixture
def files(tmp_path):
    qrels, runs = make_runs(n_queries=25, names=('bm25', 'dense', 'hybrid'))
    (tmp_path / 'qrels.txt').write_text(''.join(f'{q} 0 {d} {label}\n' for q, docs in qrels.items()
                                                for d, label in docs.items()))
    for name, run in runs.items():
        (tmp_path / f'{name}.run.gz').write_bytes(gzip.compress(''.join(
            f'{q} Q0 {d} 0 {score} {name}\n' for q, docs in run.items() for d, score in docs.items()).encode()))
    return tmp_path, qrels, runs


def run_cli(*args) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(['compare', *map(str, args)])
    return status, out.getvalue(), err.getvalue()


def test_command_line_jsonl_rows_and_keys(files):
    path, qrels, runs = files
    status, out, _ = run_cli(path / 'qrels.txt', *(path / f'{n}.run.gz' for n in runs), 'nDCG@10', 'RR',
                             '-o', 'jsonl', '--baseline', 'dense')
    assert status == 0
    records = [json.loads(line) for line in out.splitlines()]
    assert [list(r) for r in records] == [COLUMNS] * 6
    assert [(r['run'], r['measure'], r['baseline']) for r in records] == [
        ('bm25', 'nDCG@10', 'dense'), ('bm25', 'RR', 'dense'), ('dense', 'nDCG@10', None), ('dense', 'RR', None),
        ('hybrid', 'nDCG@10', 'dense'), ('hybrid', 'RR', 'dense')]
    baseline_row = records[2]
    assert all(baseline_row[k] is None for k in COLUMNS[5:])
    dense = pytrec_values(NDCG10, qrels, runs['dense'])
    hybrid = pytrec_values(NDCG10, qrels, runs['hybrid'])
    assert records[4]['p_value'] == pytest.approx(scipy.stats.ttest_rel(hybrid, dense).pvalue, abs=1e-9)


def test_command_line_formats_for_2_to_20_runs(files, tmp_path):
    path, _, runs = files
    names = list(runs)
    run_files = [path / f'{names[i % 3]}.run.gz' for i in range(20)]
    labels = ','.join(f'run{i}' for i in range(20))
    for count in (2, 20):
        for output_format in ('tsv', 'markdown', 'latex'):
            status, out, err = run_cli(path / 'qrels.txt', *run_files[:count], 'nDCG@10', 'P@5', '--names',
                                       ','.join(labels.split(',')[:count]), '-o', output_format, '--all-pairs')
            assert status == 0, err
            lines = out.splitlines()
            if output_format == 'tsv':
                assert lines[0].split('\t') == COLUMNS
                assert len(lines) == 1 + 2 * count + 2 * count * (count - 1) // 2
            elif output_format == 'markdown':
                assert len(lines) == 2 + count + 2 and lines[-1].startswith('Means over 25 queries')
            else:
                assert lines[0] == r'\begin{table}' and lines[-1] == r'\end{table}'
                assert sum(line.endswith(r'\\') for line in lines) == count + 1


def test_command_line_names_plot_and_errors(files, tmp_path):
    path, _, runs = files
    qrels_file, bm25, dense = path / 'qrels.txt', path / 'bm25.run.gz', path / 'dense.run.gz'
    status, out, _ = run_cli(qrels_file, bm25, dense, 'RR')
    assert status == 0 and [line.split('\t')[0] for line in out.splitlines()[1:]] == ['bm25', 'dense']
    plot = tmp_path / 'figure.png'
    status, _, err = run_cli(qrels_file, bm25, dense, 'RR', 'MeanRank', '--plot', plot)
    assert status == 0 and plot.read_bytes()[:8] == b'\x89PNG\r\n\x1a\n' and str(plot) in err
    before = plot.read_bytes()
    status, _, err = run_cli(qrels_file, bm25, dense, 'RR', '--plot', plot)
    assert status == 2 and 'exists' in err and plot.read_bytes() == before  # nothing overwritten
    assert run_cli(qrels_file, bm25, dense, 'RR', '--plot', plot, '--overwrite')[0] == 0
    for args, message in [
        ((bm25, 'RR'), 'at least 2 runs'),
        ((bm25, dense), 'at least one MEASURE'),
        ((bm25, dense, 'RR', '--test', 'tukey-hsd', '--correction', 'holm'), 'use correction none'),
        ((bm25, path / 'missing.txt', 'RR'), 'missing.txt: no such run file, and not a measure'),
        ((bm25, dense, 'RR', '--baseline', 'nope'), "baseline 'nope' is neither a run name"),
        ((bm25, dense, 'RR', '--baseline', 'bm25', '--all-pairs'), 'either --baseline or --all-pairs'),
        ((bm25, bm25, 'RR'), 'distinct names; repeated: bm25'),
        ((bm25, dense, 'RR', '--alpha', '1.5'), 'alpha must be between 0 and 1'),
        ((bm25, dense, 'RR', '--plot', tmp_path / 'x.docx'), 'x.docx: the plot is written as'),
    ]:
        status, _, err = run_cli(qrels_file, *args)
        assert status == 2 and message in err, (args, err)


def test_measures_report_against_scipy(files):
    path, qrels, runs = files
    status, out, _ = run_cli(path / 'qrels.txt', *(path / f'{n}.run.gz' for n in runs), 'nDCG@10', 'P@5', 'RR',
                             '--measures-report', '-o', 'jsonl')
    assert status == 0
    records = [json.loads(line) for line in out.splitlines()]
    measures = (NDCG10, P5, RR)
    per_query = {m: [pytrec_values(m, qrels, runs[n]) for n in runs] for m in measures}
    means = {m: [v.mean() for v in per_query[m]] for m in measures}
    taus = {(r['measure_a'], r['measure_b']): r['kendall_tau'] for r in records if r['kind'] == 'kendall_tau'}
    for a, b in itertools.combinations(measures, 2):
        assert taus[str(a), str(b)] == pytest.approx(scipy.stats.kendalltau(means[a], means[b]).statistic)
    power = {r['measure']: r for r in records if r['kind'] == 'discriminative_power'}
    for m in measures:
        significant = sum(scipy.stats.ttest_rel(x, y).pvalue < 0.05 for x, y in itertools.combinations(per_query[m], 2))
        assert (power[str(m)]['significant_pairs'], power[str(m)]['pairs']) == (significant, 3)


def test_the_measures_report_says_why_tau_is_undefined_where_every_run_ties(tmp_path):
    """P@5 is 0.2 for every run: no ranking of the runs, so no τ with it; the table says so instead of a blank."""
    qrels = tmp_path / 'qrels.txt'
    qrels.write_text('q1 0 a 1\nq1 0 b 1\nq2 0 c 1\n')
    runs = []
    for name, docs in {'one': 'a x y z w', 'two': 'x a y z w', 'three': 'x y a z w'}.items():
        runs.append(tmp_path / f'{name}.txt')
        runs[-1].write_text(''.join(f'{q} Q0 {d} {i + 1} {9 - i} r\n' for q in ('q1', 'q2')
                                    for i, d in enumerate(docs.split())))
    status, out, err = run_cli(qrels, *runs, 'RR', 'P@5', 'AP', '--measures-report', '-o', 'markdown')
    assert status == 0, err
    assert out.splitlines()[:5] == [
        '| kendall_tau | RR | P@5 | AP |', '| --- | ---: | ---: | ---: |',
        '| RR | 1.0000 | – (all runs tie on P@5) | 1.0000 |',
        '| P@5 | – (all runs tie on P@5) | – (all runs tie on P@5) | – (all runs tie on P@5) |',
        '| AP | 1.0000 | – (all runs tie on P@5) | 1.0000 |']
    status, out, _ = run_cli(qrels, *runs, 'RR', 'P@5', '--measures-report')
    assert out.splitlines()[:3] == ['kendall_tau\tRR\tP@5', 'RR\t1.0000\t– (all runs tie on P@5)',
                                    'P@5\t– (all runs tie on P@5)\t– (all runs tie on P@5)']
    status, out, _ = run_cli(qrels, *runs, 'RR', 'P@5', '--measures-report', '-o', 'jsonl')
    assert json.loads(out.splitlines()[0]) == {'kind': 'kendall_tau', 'measure_a': 'RR', 'measure_b': 'P@5',
                                               'kendall_tau': None, 'undefined': 'all runs tie on P@5'}


def test_runs_evaluate_alike_one_at_a_time_and_concurrently():
    qrels, runs = make_runs(n_queries=15)
    measures = [NDCG10, RR, irmeasures_ext.Q @ 5, ir_measures.Bpref]  # Bpref: another provider
    one, two = (evaluate_runs(qrels, runs, measures, workers=w) for w in (1, 2))
    for measure in measures:
        assert np.array_equal(one.values[measure], two.values[measure])
    assert one.values[ir_measures.Bpref][:, 1] == pytest.approx(pytrec_values(ir_measures.Bpref, qrels, runs['better']))


@pytest.mark.parametrize('workers', [None, 2])
def test_a_warning_of_a_run_evaluated_on_a_worker_thread_points_at_the_users_call(workers):
    """The runs are evaluated in a thread pool: the warning is re-issued on the caller's thread, located at the call
    (not at concurrent/futures/thread.py), once per run it concerns."""
    qrels = {'q1': {'a': 1}, 'q2': {'b': 1}}
    runs = {'elsewhere': {'x': {'a': 1.0}}, 'fine': {'q1': {'a': 1.0}}, 'also elsewhere': {'y': {'b': 1.0}}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        if workers is None:
            irmeasures_ext.compare(qrels, runs, [RR])
        else:
            evaluate_runs(qrels, runs, [RR], workers=workers)
    no_overlap = [w for w in caught if issubclass(w.category, irmeasures_ext.errors.NoOverlapWarning)]
    assert [(w.filename, str(w.message)[:45]) for w in no_overlap] == [
        (__file__, 'the run retrieves nothing for any of the 2 qr')] * 2


def test_api_accepts_dataframes_with_either_column_names_and_refuses_bad_options():
    qrels, runs = make_runs(n_queries=10, names=('a', 'b'))
    frames = [pd.DataFrame([{'qid': q, 'docno': d, 'score': s} for q, docs in run.items() for d, s in docs.items()])
              for run in runs.values()]
    frames[1] = frames[1].rename(columns={'qid': 'query_id', 'docno': 'doc_id'})
    table = irmeasures_ext.compare(qrels, frames, [RR])
    assert list(table['run']) == ['run1', 'run2']
    assert row(table, 'run2', RR, 'run1')['p_value'] == pytest.approx(
        scipy.stats.ttest_rel(pytrec_values(RR, qrels, runs['b']), pytrec_values(RR, qrels, runs['a'])).pvalue)
    for options, message in [({'test': 'z'}, 'test must be one of'), ({'correction': 'fdr'}, 'correction must be'),
                             ({'ci': 'normal'}, 'ci must be one of'), ({'samples': 0}, 'samples must be at least'),
                             ({'names': ['x']}, '1 names for 2 runs'), ({'baseline': 5}, 'index below 2')]:
        with pytest.raises(ComparisonError, match=message):
            irmeasures_ext.compare(qrels, frames, [RR], **options)


def test_median_and_variance_measures_report_their_own_aggregate():
    """MedianRank's value is the median rank (its interval a bootstrap of the median), its test on
    the per-query ranks; RankVariance's value is the variance of the ranks, with no paired test."""
    from irmeasures_ext import RankVariance
    base_ranks, run_ranks = [1, 2, 3, 10, 4], [1, 1, 2, 2, 6]
    qrels = {f'q{i}': {'gold': 1} for i in range(5)}

    def run_with(ranks):  # the gold doc below rank - 1 others
        return {f'q{i}': {'gold': 0.0, **{f'x{j}': float(j + 1) for j in range(rank - 1)}}
                for i, rank in enumerate(ranks)}
    table = irmeasures_ext.compare(qrels, {'base': run_with(base_ranks), 'run': run_with(run_ranks)},
                                   [MedianRank, RankVariance, MeanRank])
    median_row = row(table, 'run', MedianRank, 'base')
    assert (median_row['mean'], median_row['diff']) == (2.0, 2.0 - 3.0)
    assert median_row['ci_low'] <= 2.0 <= median_row['ci_high']
    assert median_row['p_value'] == pytest.approx(scipy.stats.ttest_rel(run_ranks, base_ranks).pvalue, abs=1e-9)
    assert (median_row['wins'], median_row['losses'], median_row['ties']) == (3, 1, 1)
    variance_row = row(table, 'run', RankVariance, 'base')
    assert variance_row['mean'] == pytest.approx(statistics.pvariance(run_ranks))
    assert variance_row['diff'] == pytest.approx(statistics.pvariance(run_ranks) - statistics.pvariance(base_ranks))
    assert math.isnan(variance_row['p_value']) and variance_row[['wins', 'losses', 'ties']].isna().all()
    assert row(table, 'run', MeanRank, 'base')['mean'] == statistics.mean(run_ranks)
    out = io.StringIO()
    write_markdown(out, table, 2)
    assert out.getvalue().splitlines()[-1].startswith(
        'Means (medians for MedianRank; variances for RankVariance) over 5 queries')


# --- the plot -------------------------------------------------------------------------------------

PNG = b'\x89PNG\r\n\x1a\n'


@pytest.fixture
def plot_inputs(files):
    """(the command's QRELS RUN RUN arguments, the folder the plots go to, holding only a good plot.png)."""
    path = files[0]
    folder = path / 'plots'
    folder.mkdir()
    arguments = [path / 'qrels.txt', path / 'bm25.run.gz', path / 'dense.run.gz']
    assert run_cli(*arguments, 'RR', '--plot', folder / 'plot.png')[0] == 0
    return arguments, folder


def fail_while_writing(self, file, **kwargs):
    """Figure.savefig on a full disk: part of the figure is written, then ENOSPC."""
    file = open(file, 'wb') if isinstance(file, (str, os.PathLike)) else file  # noqa: SIM115
    file.write(PNG + b'half a figure')
    file.flush()
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_plot_on_a_full_disk_leaves_the_file_as_it_was(plot_inputs, monkeypatch):
    arguments, folder = plot_inputs
    before = (folder / 'plot.png').read_bytes()
    assert before.startswith(PNG) and len(before) > 10_000
    monkeypatch.setattr(matplotlib.figure.Figure, 'savefig', fail_while_writing)
    status, out, err = run_cli(*arguments, 'RR', '--plot', folder / 'plot.png', '--overwrite')
    assert status == 2 and out.startswith('run\tmeasure')
    assert err.splitlines() == [f'irmeasures-ext: error: {folder / "plot.png"}: cannot write the plot: No space left '
                                'on device; nothing was written there']
    assert (folder / 'plot.png').read_bytes() == before
    assert os.listdir(folder) == ['plot.png']  # no temporary file left
    status, _, err = run_cli(*arguments, 'RR', '--plot', folder / 'new.png')
    assert status == 2 and 'No space left on device' in err and os.listdir(folder) == ['plot.png']


def test_plot_api_on_a_full_disk_leaves_the_file_as_it_was(plot_inputs, monkeypatch):
    _, folder = plot_inputs
    qrels, runs = make_runs(n_queries=10)
    values = evaluate_runs(qrels, runs, [RR])
    table = comparison_table(values)
    before = (folder / 'plot.png').read_bytes()
    monkeypatch.setattr(matplotlib.figure.Figure, 'savefig', fail_while_writing)
    with pytest.raises(ComparisonError, match='cannot write the plot: No space left on device'):
        plot_comparison(values, table, folder / 'plot.png', overwrite=True)
    assert (folder / 'plot.png').read_bytes() == before and os.listdir(folder) == ['plot.png']


def test_plot_interrupted_by_sigterm_leaves_the_file_as_it_was(plot_inputs):
    """SIGTERM arriving while the figure is written: the command ends (status 143), the previous plot
    is kept whole and the half-written file removed."""
    arguments, folder = plot_inputs
    before = (folder / 'plot.png').read_bytes()
    code = ('import os, signal, sys, matplotlib.figure\n'
            'def savefig(self, file, **kwargs):\n'
            '    file = open(file, "wb") if isinstance(file, (str, os.PathLike)) else file\n'
            '    file.write(b"half a figure"); file.flush()\n'
            '    os.kill(os.getpid(), signal.SIGTERM)\n'
            'matplotlib.figure.Figure.savefig = savefig\n'
            'from irmeasures_ext.cli import main\n'
            'sys.exit(main(sys.argv[1:]))')
    result = subprocess.run([sys.executable, '-c', code, 'compare', *map(str, arguments), 'RR', '--plot',
                             str(folder / 'plot.png'), '--overwrite'], capture_output=True, text=True, timeout=120)
    assert result.returncode == 128 + signal.SIGTERM, result.stderr
    assert (folder / 'plot.png').read_bytes() == before and os.listdir(folder) == ['plot.png']


@pytest.mark.parametrize(('target', 'message'), [
    ('missing/plot.png', '{folder}/missing/plot.png: no such folder {folder}/missing'),
    ('plot.png/inner.png', '{folder}/plot.png/inner.png: {folder}/plot.png is not a folder'),
    ('plot.docx', '{folder}/plot.docx: the plot is written as .avif, .eps'),
    ('plot', '{folder}/plot: the plot is written as .avif, .eps'),
    ('plot.png', '{folder}/plot.png: exists; give another file name, or replace it with --overwrite (overwrite=True in '
                 'Python)'),
    ('.', '{folder}: the plot is written as'),
])
def test_plot_target_is_checked_before_anything_is_evaluated(plot_inputs, monkeypatch, target, message):
    arguments, folder = plot_inputs
    before = (folder / 'plot.png').read_bytes()

    def evaluate_nothing(*args, **kwargs):
        raise AssertionError('evaluated before the plot target was checked')
    monkeypatch.setattr(irmeasures_ext.comparison.table, 'evaluate_runs', evaluate_nothing)
    status, out, err = run_cli(*arguments, 'RR', '--plot', f'{folder}/{target}')
    assert (status, out) == (2, '') and len(err.splitlines()) == 1
    assert err.startswith('irmeasures-ext: error: ' + message.format(folder=folder))
    assert (folder / 'plot.png').read_bytes() == before and os.listdir(folder) == ['plot.png']


def test_plot_with_the_measures_report_is_refused(plot_inputs):
    arguments, folder = plot_inputs
    status, out, err = run_cli(*arguments, 'RR', '--measures-report', '--plot', folder / 'other.png')
    assert (status, out) == (2, '')
    assert err == 'irmeasures-ext: error: --plot draws the comparison, not the measures report: give one of them\n'


def drawn_figure(monkeypatch, *plot_arguments, **plot_options):
    """The figure plot_comparison writes, captured from savefig, and drawn."""
    figures = []
    savefig = matplotlib.figure.Figure.savefig

    def capture(self, *args, **kwargs):
        figures.append(self)
        return savefig(self, *args, **kwargs)
    monkeypatch.setattr(matplotlib.figure.Figure, 'savefig', capture)
    plot_comparison(*plot_arguments, **plot_options)
    (figure,) = figures
    figure.canvas.draw()
    return figure


def test_plot_texts_name_each_measure_aggregate_and_fit_in_the_figure(tmp_path, monkeypatch):
    from irmeasures_ext import RankVariance
    qrels, runs = make_runs(n_queries=20, names=('BM25', 'dual-encoder', 'hybrid'))
    measures = [RR, MeanRank, MedianRank, RankVariance, ir_measures.NumRet]
    values = evaluate_runs(qrels, runs, measures)
    figure = drawn_figure(monkeypatch, values, comparison_table(values, baseline='BM25'), tmp_path / 'plot.svg',
                          baseline='BM25')
    assert (tmp_path / 'plot.svg').read_text().lstrip().startswith('<?xml')
    panels = figure.axes
    assert [axes.get_title() for axes in panels[1::2]] == [
        'RR\nmean and 95% interval', 'MeanRank (lower is better)\nmean and 95% interval',
        'MedianRank (lower is better)\nmedian and 95% interval',
        'RankVariance (lower is better)\nvariance and 95% interval', 'NumRet\nsum and 95% interval']
    assert [axes.get_xlabel() for axes in panels[1::2]] == [
        'mean over the queries', 'mean over the queries', 'median over the queries', 'variance over the queries',
        'sum over the queries']
    assert panels[2].get_title() == 'MeanRank (lower is better)\nper-query difference against BM25, sorted'
    renderer = figure.canvas.get_renderer()
    inside = figure.bbox
    for axes in panels:
        for text in (axes.title, axes.xaxis.label, axes.yaxis.label, *axes.get_yticklabels()):
            if text.get_text():
                box = text.get_window_extent(renderer)
                assert (inside.x0 <= box.x0 and box.x1 <= inside.x1 and inside.y0 <= box.y0
                        and box.y1 <= inside.y1), (text.get_text(), box, inside)


def test_plot_from_a_thread_is_written(plot_inputs):
    """Only the main thread may set the SIGTERM handler the command sets while it writes the plot:
    main() called from another thread writes it all the same."""
    arguments, folder = plot_inputs
    statuses = []
    thread = threading.Thread(target=lambda: statuses.append(run_cli(*arguments, 'RR', '--plot', folder / 'new.png')))
    thread.start()
    thread.join()
    assert statuses[0][0] == 0, statuses[0][2]
    assert (folder / 'new.png').read_bytes().startswith(PNG) and sorted(os.listdir(folder)) == ['new.png', 'plot.png']


@pytest.mark.parametrize('test', ['t', 'wilcoxon', 'randomization', 'tukey-hsd'])
def test_qrels_without_queries_are_refused(test):
    """An empty qrels (such as an ir_measures generator already consumed) gave NaN rows, or a bare ValueError
    from the Wilcoxon test; now the error every entry point gives (tests/test_errors.py)."""
    run = [ir_measures.ScoredDoc('q1', 'd1', 1.0)]
    with pytest.raises(irmeasures_ext.InputError, match=r'^qrels: no records \(an empty iterable, or a generator'):
        irmeasures_ext.compare(iter([]), {'a': run, 'b': run}, [ir_measures.RR], test=test)


def test_the_choices_are_registries():
    """Each test, correction and interval is one entry of a registry (its name and description) that the checks, the
    computation, the caption and the command's choices all read: an unknown name is an error naming the choices."""
    from irmeasures_ext.cli.compare import parser
    from irmeasures_ext.comparison import CORRECTIONS, INTERVALS, TESTS
    from irmeasures_ext.comparison.table import P_VALUES, check_options
    assert list(P_VALUES) == list(TESTS)
    choices = {action.dest: action.choices for action in parser()._actions if action.choices}
    assert (choices['test'], choices['correction'], choices['ci']) == (TESTS, CORRECTIONS, INTERVALS)
    with pytest.raises(irmeasures_ext.ComparisonError, match=r"^test must be one of t, wilcoxon, randomization, "
                                                             r"tukey-hsd; got 'sign'$"):
        check_options('sign', 'none', 't', 0.05, 10)


def test_markdown_escapes_a_bar_in_a_run_name():
    qrels = {f'q{i}': {'rel': 1} for i in range(3)}
    runs = {'bm25|rm3': {q: {'rel': 2.0} for q in qrels}, 'dense': {q: {'x': 1.0} for q in qrels}}
    out = io.StringIO()
    write_markdown(out, irmeasures_ext.compare(qrels, runs, [RR]), 2)
    rows = [line for line in out.getvalue().splitlines() if line.startswith('|')]
    assert rows[2].startswith('| bm25\\|rm3 | ') and {len(re.split(r'(?<!\\)\|', r)) for r in rows} == {4}


def test_run_and_measure_names_are_drawn_as_written_not_as_math(tmp_path, monkeypatch):
    qrels, runs = make_runs(n_queries=5, names=('a$\\frac$', 'b$x$'))
    values = evaluate_runs(qrels, runs, [RR])
    figure = drawn_figure(monkeypatch, values, comparison_table(values), tmp_path / 'plot.png')  # ($\frac$: fails)
    left, right = figure.axes
    assert left.get_title() == 'RR\nper-query difference against a\\$\\frac\\$, sorted'
    assert [text.get_text() for text in left.get_legend().get_texts()] == ['b\\$x\\$']
    assert [label.get_text() for label in right.get_yticklabels()] == ['a\\$\\frac\\$', 'b\\$x\\$']


@pytest.mark.parametrize('call, name', [
    (lambda qrels, runs: irmeasures_ext.compare(qrels, runs, [RR], all_pairs='no'), 'all_pairs'),
    (lambda qrels, runs: check_plot_path('p.png', overwrite=1), 'overwrite'),
])
def test_flags_must_be_bools_not_truthy_values(call, name):
    qrels, runs = make_runs(n_queries=3)
    with pytest.raises(ComparisonError, match=f'{name} must be True or False, got'):
        call(qrels, runs)


def test_the_plot_path_must_be_a_file_name():
    with pytest.raises(ComparisonError, match="the plot's path must be a file name \\(a str or a path\\), got int"):
        check_plot_path(5)
