"""``irmeasures-ext fuse`` training a supervised method (--train-qrels, --train-runs) and tuning a method (--optimize,
--qrels, --grid, --folds, --seed, --test, --correction), end to end through the installed command: the run written
and the report printed equal the Python API's (irmeasures_ext.fusion's train, fuse, optimize, cross_validate), and
are recomputed independently (MAPFuse from pytrec_eval's AP; RRF and weighted CombSUM from their definitions, each
setting scored by pytrec_eval, the best the first of the best; the folds from the seed; the comparison by scipy's
paired t-test and Holm's correction by hand). Each refusal exits 2 with one line naming the problem."""
import math
import random
import shutil
import subprocess
import sys
from pathlib import Path

import ir_measures
import numpy as np
import pandas as pd
import pytest
from ir_measures import AP, nDCG
from scipy import stats

from irmeasures_ext import fusion
from irmeasures_ext.cli import fuse as fuse_command

COMMAND = shutil.which('irmeasures-ext', path=str(Path(sys.executable).parent))
QUERIES = [f'q{i:02d}' for i in range(1, 17)]
TRAINING, TESTING = QUERIES[:8], QUERIES[8:]


def generated():
    """Two runs (the second with negative scores) of every query, no tied scores in a list, and qrels with a
    relevant doc in every query."""
    rng = random.Random(7)
    docs = [f'd{j:02d}' for j in range(30)]
    runs = {'a': {}, 'b': {}}
    qrels = {}
    for query in QUERIES:
        for name, size, shift in (('a', 20, 0), ('b', 18, 5000)):
            picked = zip(rng.sample(docs, size), rng.sample(range(10_000), size), strict=True)
            runs[name][query] = {doc: (value - shift) / 1000 for doc, value in picked}
        labels = {doc: rng.choice([0, 0, 0, 1, 2]) for doc in docs}
        labels['d00'] = max(labels['d00'], 1)
        qrels[query] = labels
    return runs, qrels


RUNS, QRELS = generated()


def of(data, queries):
    return {query: data[query] for query in queries}


def write_run(path, run):
    path.write_text(''.join(f'{q} Q0 {d} {i} {s!r} {path.stem}\n' for q, docs in run.items()
                            for i, (d, s) in enumerate(sorted(docs.items(), key=lambda item: -item[1]), 1)))


@pytest.fixture(scope='module')
def folder(tmp_path_factory):
    """a.txt, b.txt (every query), a-train.txt, b-train.txt (the training queries), a-test.txt, b-test.txt (the
    others), qrels.txt (every query) and train-qrels.txt (the training queries)."""
    folder = tmp_path_factory.mktemp('fuse-training')
    for name, run in RUNS.items():
        write_run(folder / f'{name}.txt', run)
        write_run(folder / f'{name}-train.txt', of(run, TRAINING))
        write_run(folder / f'{name}-test.txt', of(run, TESTING))
    for name, queries in (('qrels', QUERIES), ('train-qrels', TRAINING)):
        (folder / f'{name}.txt').write_text(''.join(f'{q} 0 {d} {label}\n' for q in queries
                                                    for d, label in QRELS[q].items()))
    return folder


def fuse(folder, *arguments):
    assert COMMAND, 'the console script is installed beside the interpreter'
    return subprocess.run([COMMAND, 'fuse', *map(str, arguments)], capture_output=True, text=True, cwd=folder,
                          timeout=120)


def succeeded(done):
    assert done.returncode == 0, done.stderr
    return done


def read_run(path):
    """{query: {doc: score}} and the (query, doc) order of a TREC file."""
    run, order = {}, []
    for line in open(path):
        query, _, doc, _, score, _ = line.split()
        run.setdefault(query, {})[doc] = float(score)
        order.append((query, doc))
    return run, order


def as_run(frame):
    run = {}
    for query, doc, score in frame[['query_id', 'doc_id', 'score']].itertuples(index=False):
        run.setdefault(query, {})[doc] = score
    return run


def assert_same_run(path, frame):
    """The TREC file at ``path`` holds ``frame`` (the API's fused run) line for line."""
    run, order = read_run(path)
    assert order == list(zip(frame['query_id'], frame['doc_id'], strict=True))
    assert run == as_run(frame)


def tables(stdout):
    """The tab-separated tables of stdout (separated by a blank line), as DataFrames of strings."""
    lines = [[line.split('\t') for line in block.splitlines()] for block in stdout.strip('\n').split('\n\n')]
    return [pd.DataFrame(rows[1:], columns=rows[0]) for rows in lines]


def assert_same_report(printed, report):
    """A report printed with all digits (-p -1) equals the API's."""
    assert list(printed.columns) == list(report.columns)
    for column in report.columns:
        expected = [':'.join(map(repr, value)) if isinstance(value, tuple) else
                    str(value) if isinstance(value, (int, np.integer)) else repr(float(value))
                    for value in report[column]]
        assert printed[column].tolist() == expected, column


def assert_same_comparison(printed, comparison):
    assert list(printed.columns) == list(comparison.columns)
    for column in comparison.columns:
        for text, value in zip(printed[column], comparison[column], strict=True):
            if pd.isna(value):
                assert text == ''
            else:
                assert text == (str(value) if isinstance(value, (str, int, np.integer)) else repr(float(value))), column


# --- plain implementations from the definitions -------------------------------------------------------------

def ranks(docs):
    """1-based ranks by descending score, tied docs by descending doc id."""
    ordered = sorted(docs, key=lambda doc: (-docs[doc], tuple(-ord(c) for c in doc)))
    return {doc: rank for rank, doc in enumerate(ordered, 1)}


def rank_fused(runs, queries, weight_of_rank):
    """Σ over the runs of weight_of_rank(run index, rank) for each doc of each query."""
    fused = {}
    for i, run in enumerate(runs):
        for query in queries:
            for doc, rank in ranks(run.get(query, {})).items():
                fused.setdefault(query, {})
                fused[query][doc] = fused[query].get(doc, 0.0) + weight_of_rank(i, rank)
    return fused


def rrf(runs, queries, k):
    return rank_fused(runs, queries, lambda i, rank: 1 / (k + rank))


def wsum(runs, queries, weights):
    """Σ weight × min-max normalised score."""
    fused = {}
    for weight, run in zip(weights, runs, strict=True):
        for query in queries:
            docs = run.get(query, {})
            low, high = min(docs.values()), max(docs.values())
            for doc, score in docs.items():
                fused.setdefault(query, {})
                fused[query][doc] = fused[query].get(doc, 0.0) + weight * (score - low) / (high - low)
    return fused


def pytrec(measure, queries, run):
    """``measure``'s mean over ``queries`` by pytrec_eval (ir_measures' provider), not ours."""
    return ir_measures.pytrec_eval.calc_aggregate([measure], of(QRELS, queries), of(run, queries))[measure]


def first_best(fusion_of, settings, measure, queries):
    """The first of the settings scoring best (by pytrec_eval) over ``queries``, and its score."""
    scores = [pytrec(measure, queries, fusion_of(setting)) for setting in settings]
    best = next(i for i, score in enumerate(scores) if score >= max(scores) - 1e-12)
    return settings[best], scores[best]


def assert_close_runs(run, expected):
    assert set(run) == set(expected)
    for query in run:
        assert run[query] == pytest.approx(expected[query], abs=1e-9), query


# --- training -----------------------------------------------------------------------------------------------

def test_mapfuse_trained_on_the_training_runs_equals_its_definition_and_the_api(folder):
    succeeded(fuse(folder, 'a-test.txt', 'b-test.txt', '-o', 'mapfuse.txt', '-m', 'mapfuse',
                   '--train-qrels', 'train-qrels.txt', '--train-runs', 'a-train.txt', 'b-train.txt'))
    run, _ = read_run(folder / 'mapfuse.txt')
    maps = [pytrec(AP, TRAINING, of(RUNS[name], TRAINING)) for name in ('a', 'b')]
    assert_close_runs(run, rank_fused(list(RUNS.values()), TESTING, lambda i, rank: maps[i] / rank))
    trained = fusion.train(folder / 'train-qrels.txt', [folder / 'a-train.txt', folder / 'b-train.txt'], 'mapfuse')
    assert_same_run(folder / 'mapfuse.txt', fusion.fuse([folder / 'a-test.txt', folder / 'b-test.txt'], 'mapfuse',
                                                        params=trained))


@pytest.mark.parametrize('method,norm,params', [
    ('posfuse', 'min-max', {}),
    ('probfuse', 'min-max', {'n_segments': 4}),
    ('slidefuse', 'zmuv', {'w': 2}),
    ('segfuse', 'none', {}),
    ('bayesfuse', 'rank', {}),
])
def test_each_supervised_method_with_its_training_params_equals_the_api(folder, method, norm, params):
    output = f'{method}.txt'
    succeeded(fuse(folder, 'a-test.txt', 'b-test.txt', '-o', output, '-m', method, '-n', norm,
                   *(f'--param={name}={value}' for name, value in params.items()),
                   '--train-qrels', 'train-qrels.txt', '--train-runs', 'a-train.txt', 'b-train.txt'))
    norm = None if norm == 'none' else norm
    trained = fusion.train(folder / 'train-qrels.txt', [folder / 'a-train.txt', folder / 'b-train.txt'], method,
                           norm, params)
    assert_same_run(folder / output, fusion.fuse([folder / 'a-test.txt', folder / 'b-test.txt'], method, norm,
                                                 trained))


def test_fusing_training_queries_is_refused_unless_allowed(folder):
    done = fuse(folder, 'a.txt', 'b.txt', '-o', 'leak.txt', '-m', 'posfuse',
                '--train-qrels', 'train-qrels.txt', '--train-runs', 'a-train.txt', 'b-train.txt')
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    assert '8 of the queries to fuse are training queries' in done.stderr and 'q01 q02' in done.stderr
    assert '--allow-train-test-overlap' in done.stderr and not (folder / 'leak.txt').exists()
    succeeded(fuse(folder, 'a.txt', 'b.txt', '-o', 'leak.txt', '-m', 'posfuse', '--allow-train-test-overlap',
                   '--train-qrels', 'train-qrels.txt', '--train-runs', 'a-train.txt', 'b-train.txt'))
    trained = fusion.train(folder / 'train-qrels.txt', [folder / 'a-train.txt', folder / 'b-train.txt'], 'posfuse')
    assert_same_run(folder / 'leak.txt', fusion.fuse([folder / 'a.txt', folder / 'b.txt'], 'posfuse', params=trained))


# --- tuning -------------------------------------------------------------------------------------------------

def test_cross_validation_writes_the_run_the_report_and_the_comparison(folder):
    grid = [1, 5, 20, 60]
    done = succeeded(fuse(folder, 'a.txt', 'b.txt', '-o', 'fused-cv.txt', '--optimize', 'nDCG@10', '--qrels',
                          'qrels.txt', '--grid', 'k=1,5,20,60', '--folds', '4', '--seed', '3', '-p', '-1'))
    report, comparison = tables(done.stdout)
    validated = fusion.cross_validate(folder / 'qrels.txt', {'a': folder / 'a.txt', 'b': folder / 'b.txt'}, 'rrf',
                                      'nDCG@10', {'k': grid}, folds=4, seed=3)
    assert_same_report(report, validated.report)
    assert_same_comparison(comparison, validated.comparison(test='t', correction='holm'))
    assert_same_run(folder / 'fused-cv.txt', validated.run)

    # independently: the folds from the seed, each fold's best k by a plain loop, its test queries fused with it
    order = np.random.default_rng(3).permutation(len(QUERIES))
    written, _ = read_run(folder / 'fused-cv.txt')
    runs = list(RUNS.values())
    for fold, test in enumerate(np.array_split(order, 4)):
        test = sorted(QUERIES[i] for i in test)
        train = [query for query in QUERIES if query not in test]
        k, score = first_best(lambda k, train=train: rrf(runs, train, k), grid, nDCG @ 10, train)
        row = report.iloc[fold]
        assert (int(row['k']), int(row['train_queries']), int(row['test_queries'])) == (k, 12, 4)
        assert float(row['train_score']) == pytest.approx(score, abs=1e-12)
        assert_close_runs(of(written, test), rrf(runs, test, k))
        assert float(row['test_score']) == pytest.approx(pytrec(nDCG @ 10, test, rrf(runs, test, k)), abs=1e-12)

    # the comparison: pytrec_eval's per-query values, scipy's paired t-test, Holm's correction by hand
    def per_query(run):
        values = {m.query_id: m.value for m in ir_measures.pytrec_eval.iter_calc([nDCG @ 10], QRELS, run)}
        return np.array([values[query] for query in QUERIES])
    fused = per_query(written)
    p_values = [stats.ttest_rel(per_query(run), fused).pvalue for run in runs]
    low, high = sorted(p_values)
    holm = {low: min(1, 2 * low), high: min(1, max(2 * low, high))}
    rows = comparison.set_index('run')
    assert float(rows.loc['fused', 'mean']) == pytest.approx(fused.mean(), abs=1e-12)
    for name, run, p_value in zip(('a', 'b'), runs, p_values, strict=True):
        assert float(rows.loc[name, 'diff']) == pytest.approx(per_query(run).mean() - fused.mean(), abs=1e-12)
        assert float(rows.loc[name, 'p_value']) == pytest.approx(p_value, rel=1e-9)
        assert float(rows.loc[name, 'p_adjusted']) == pytest.approx(holm[p_value], rel=1e-9)


def test_optimize_without_folds_fuses_only_the_queries_outside_the_qrels(folder):
    weights = [(0.2, 0.8), (0.5, 0.5), (0.8, 0.2)]
    done = succeeded(fuse(folder, 'a.txt', 'b.txt', '-o', 'fused-tuned.txt', '-m', 'wsum', '--optimize', 'AP',
                          '--qrels', 'train-qrels.txt', '--grid', 'weights=0.2:0.8,0.5:0.5,0.8:0.2', '-p', '-1'))
    [report] = tables(done.stdout)
    best = fusion.optimize(folder / 'train-qrels.txt', [folder / 'a.txt', folder / 'b.txt'], 'wsum', 'AP',
                           {'weights': weights})
    assert_same_report(report, best.report)
    assert_same_run(folder / 'fused-tuned.txt', best.fuse())
    runs = list(RUNS.values())
    chosen, score = first_best(lambda w: wsum(runs, TRAINING, w), weights, AP, TRAINING)
    assert report['weights'].tolist() == ['0.2:0.8', '0.5:0.5', '0.8:0.2']
    assert [float(x) for x in report['score']] == pytest.approx(
        [pytrec(AP, TRAINING, wsum(runs, TRAINING, w)) for w in weights], abs=1e-12)
    written, _ = read_run(folder / 'fused-tuned.txt')
    assert_close_runs(written, wsum(runs, TESTING, chosen))
    assert f'best setting weights={chosen[0]!r}:{chosen[1]!r}: AP {score:.4f} on the 8 queries' in done.stderr


def test_the_default_grid_is_ranx_s(folder):
    done = succeeded(fuse(folder, 'a.txt', 'b.txt', '-o', 'fused-default.txt', '--optimize', 'P@5', '--qrels',
                          'train-qrels.txt'))
    [report] = tables(done.stdout)
    assert report['k'].tolist() == [str(k) for k in range(10, 101, 10)]
    assert all(len(score.split('.')[1]) == 4 for score in report['score'])  # (-p: 4 places by default)


def test_a_supervised_method_cross_validated_with_a_test_and_correction_equals_the_api(folder):
    done = succeeded(fuse(folder, 'a.txt', 'b.txt', '-o', 'fused-probfuse.parquet', '-m', 'probfuse', '--optimize',
                          'P@5', '--qrels', 'qrels.txt', '--grid', 'n_segments=2,5', '--folds', '2', '--test',
                          'wilcoxon', '--correction', 'bonferroni', '-p', '-1'))
    report, comparison = tables(done.stdout)
    validated = fusion.cross_validate(folder / 'qrels.txt', {'a': folder / 'a.txt', 'b': folder / 'b.txt'},
                                      'probfuse', 'P@5', {'n_segments': [2, 5]}, folds=2)
    assert_same_report(report, validated.report)
    assert_same_comparison(comparison, validated.comparison(test='wilcoxon', correction='bonferroni'))
    written = pd.read_parquet(folder / 'fused-probfuse.parquet')
    pd.testing.assert_frame_equal(written[['query_id', 'doc_id', 'score']], validated.run, check_dtype=False)


def test_the_supervised_choices_are_the_package_s():
    assert set(fuse_command.SUPERVISED) == set(fusion.SUPERVISED)
    assert not set(fuse_command.METHODS) & set(fuse_command.SUPERVISED)


# --- refusals -----------------------------------------------------------------------------------------------

TRAIN = ['--train-qrels', 'train-qrels.txt', '--train-runs', 'a-train.txt', 'b-train.txt']
TUNE = ['--optimize', 'nDCG@10', '--qrels', 'qrels.txt']


@pytest.mark.parametrize('arguments,message', [
    (['-m', 'posfuse'], 'posfuse is a supervised method: train it with --train-qrels'),
    (['-m', 'rrf', *TRAIN], 'rrf is not trained'),
    (['-m', 'posfuse', '--train-qrels', 'train-qrels.txt'], 'training needs both --train-qrels'),
    (['-m', 'posfuse', '--train-runs', 'a-train.txt', 'b-train.txt'], 'training needs both --train-qrels'),
    (['-m', 'posfuse', '--train-qrels', 'train-qrels.txt', '--train-runs', 'a-train.txt'],
     'give one training run per run to fuse, in their order: got 1 --train-runs for 2 runs'),
    (['-m', 'posfuse', '--train-qrels', 'train-qrels.txt', '--train-runs', 'a-train.txt', 'missing.txt'],
     'missing.txt: no such run file'),
    (['-m', 'probfuse', *TRAIN, '--allow-train-test-overlap'], "training probfuse takes the parameters ['n_segments']"),
    (['--allow-train-test-overlap'], '--allow-train-test-overlap lets the queries to fuse'),
    (['--optimize', 'nDCG@10'], '--optimize tunes on judged queries: give --qrels QRELS'),
    (['--qrels', 'qrels.txt'], '--qrels is for tuning: give --optimize MEASURE too'),
    (['--grid', 'k=1,2'], '--grid is for tuning'),
    (['--folds', '3'], '--folds is for tuning'),
    ([*TUNE, '--seed', '1'], '--seed is for the cross-validation: give --folds K too'),
    ([*TUNE, '--test', 'wilcoxon'], '--test is for the cross-validation'),
    ([*TUNE, '--correction', 'bh'], '--correction is for the cross-validation'),
    ([*TUNE, '--folds', '2', '--seed', '-1'], '--seed must be a whole number ≥ 0'),
    ([*TUNE, '--param', 'k=10'], '--optimize searches the parameters: give their values as --grid'),
    ([*TUNE, '-m', 'wsum', '--weights', '0.5', '0.5'], '--optimize searches the parameters'),
    ([*TUNE, '-m', 'posfuse', *TRAIN], '--optimize trains a supervised method itself'),
    (TUNE, 'every query of the runs is in --qrels qrels.txt, which --optimize tunes on'),
    ([*TUNE, '--folds', '2', '--grid', 'k'], "--grid 'k': give NAME=V1,V2,..."),
    ([*TUNE, '--folds', '2', '--grid', 'k=1,x'], "--grid 'k=1,x': give NAME=V1,V2,..."),
    ([*TUNE, '--folds', '2', '--grid', 'k=1', '--grid', 'k=2'], '--grid k=...: given twice'),
    ([*TUNE, '--folds', '2', '--grid', 'gamma=1'], 'rrf takes no parameter gamma'),
    ([*TUNE, '--folds', '2', '-m', 'wsum', '--grid', 'weights=1:0:0'], 'weights must be 2 finite numbers'),
    ([*TUNE, '--folds', '1'], 'folds must be a whole number from 2 to the number of qrels queries (16)'),
    (['--optimize', 'nDCG@x', '--qrels', 'qrels.txt', '--folds', '2'], "cannot tune for the measure 'nDCG@x'"),
])
def test_refusals_end_with_one_line_and_exit_2(folder, arguments, message):
    output = folder / 'refused.txt'
    done = fuse(folder, 'a.txt', 'b.txt', '-o', output, *arguments)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1 and message in done.stderr, done.stderr
    assert not output.exists() and not done.stdout


def test_cross_validation_refuses_runs_it_cannot_tell_apart(folder, tmp_path):
    for name in ('fused.txt', 'one/a.txt', 'two/a.txt'):
        (tmp_path / name).parent.mkdir(exist_ok=True)
        shutil.copy(folder / 'a.txt', tmp_path / name)
    for runs in (['fused.txt', 'one/a.txt'], ['one/a.txt', 'two/a.txt']):
        done = fuse(tmp_path, *runs, '-o', 'cv.txt', '--optimize', 'P@5', '--qrels', folder / 'qrels.txt', '--folds', 2)
        assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
        assert 'compares the fused run ("fused") with each run by its file name' in done.stderr
        assert not (tmp_path / 'cv.txt').exists()


def test_the_numbers_parsed_are_the_ones_given():
    assert fuse_command._grid(['k=1,60', 'weights=0.3:0.7', 'gamma=0.5,1.0']) == {
        'k': [1, 60], 'weights': [(0.3, 0.7)], 'gamma': [0.5, 1.0]}
    assert math.isclose(fuse_command._param('sigma=0.01')[1], 0.01)
