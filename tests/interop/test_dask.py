"""The Dask engine (``irmeasures_ext.dask``) on a 2-process ``distributed.LocalCluster``: aggregates and
per-query values equal our single-process provider's (to 1e-12) and pytrec_eval's where it has the measure,
whatever the partitioning (queries split across partitions, interleaved, indexed, Parquet files); bad input
fails as in one process."""
import faulthandler
import re
import subprocess
import sys
from pathlib import Path

import dask
import dask.dataframe as dd
import distributed
import ir_measures
import numpy as np
import pandas as pd
import pytest
import pytrec_eval

import irmeasures_ext
from irmeasures_ext import MeanRank, MedianRank, NoOverlapWarning, Q, RankVariance, nDCG_Z1
from irmeasures_ext import dask as ext_dask
from irmeasures_ext.errors import DuplicateDocError, InputError, MeasureParamError
from irmeasures_ext.frames import evaluate_frame
from irmeasures_ext.measures import DECLARED

#: Measures of every aggregator (mean, median, variance, sum) and ranked list (full, condensed).
MEASURES = [Q, Q(beta=0.5) @ 10, MedianRank, MeanRank, RankVariance, MeanRank(judged_only=True), nDCG_Z1 @ 5,
            ir_measures.AP, ir_measures.nDCG @ 10, ir_measures.P @ 5, ir_measures.RR, ir_measures.R @ 10,
            ir_measures.Rprec, ir_measures.NumRet]
#: pytrec_eval's name of those it has.
TREC_NAMES = {ir_measures.AP: 'map', ir_measures.nDCG @ 10: 'ndcg_cut_10', ir_measures.P @ 5: 'P_5',
              ir_measures.RR: 'recip_rank', ir_measures.R @ 10: 'recall_10', ir_measures.Rprec: 'Rprec'}


#: Seconds a test of this module may wait (its slowest takes seconds): past them, the run ends with every thread's
#: stack, a failure, where a cluster whose workers never answer would hold the client (and CI) for good.
HANG_SECONDS = 600


@pytest.fixture(autouse=True)
def no_hang():
    faulthandler.dump_traceback_later(HANG_SECONDS, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


@pytest.fixture(scope='module')
def client():
    cluster = distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None)
    with cluster, distributed.Client(cluster) as connected:
        yield connected


def generated(seed: int = 0, n_queries: int = 40) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(qrels, run) DataFrames: graded qrels of ``n_queries`` queries; a run of most of them (a few left
    out: absent queries) and of queries the qrels do not judge, 1-60 docs each, scores with many ties,
    listed query by query."""
    rng = np.random.default_rng(seed)
    qrels = pd.DataFrame([(f'q{q}', f'd{d}', int(rng.choice(4, p=[0.5, 0.25, 0.15, 0.1])))
                          for q in range(n_queries) for d in rng.choice(80, int(rng.integers(1, 15)), replace=False)],
                         columns=['query_id', 'doc_id', 'relevance'])
    run_queries = [q for q in range(n_queries + 5) if q % 7 != 3]  # q3, q10, ... absent; q40.. unjudged
    run = pd.DataFrame([(f'q{q}', f'd{d}', float(rng.integers(0, 6)) / 2)
                        for q in run_queries for d in rng.choice(80, int(rng.integers(1, 60)), replace=False)],
                       columns=['query_id', 'doc_id', 'score'])
    return qrels, run


QRELS, RUN = generated()


def interleaved(run: pd.DataFrame, seed: int = 1) -> pd.DataFrame:
    return run.sample(frac=1, random_state=seed).reset_index(drop=True)


def pieces(frame: pd.DataFrame, starts) -> list[pd.DataFrame]:
    """``frame`` cut before each row of ``starts``."""
    bounds = [0, *starts, len(frame)]
    return [frame.iloc[start:end] for start, end in zip(bounds, bounds[1:], strict=False)]


def pytrec_eval_means(qrels: pd.DataFrame, run: pd.DataFrame) -> dict:
    """pytrec_eval's mean of each TREC_NAMES measure over every qrels query (0 for the run's absent ones,
    as trec_eval -c)."""
    as_dicts = [{query: dict(zip(rows.doc_id, values(rows), strict=True)) for query, rows in frame.groupby('query_id')}
                for frame, values in ((qrels, lambda rows: rows.relevance.astype(int)),
                                      (run, lambda rows: rows.score.astype(float)))]
    judged, retrieved = as_dicts
    names = {name.rsplit('_', 1)[0] + '.10' if name.endswith('_10') else name.replace('P_5', 'P.5')
             for name in TREC_NAMES.values()}
    per_query = pytrec_eval.RelevanceEvaluator(judged, names).evaluate(
        {query: docs for query, docs in retrieved.items() if query in judged})
    return {measure: sum(values.get(name, 0.0) for values in per_query.values()) / len(judged)
            for measure, name in TREC_NAMES.items()}


def assert_equal_to_one_process(run_frame, qrels=QRELS, run=RUN, measures=MEASURES, provider=None):
    got = ext_dask.calc_aggregate(measures, qrels, run_frame, provider=provider)
    expected = (provider or irmeasures_ext.provider).calc_aggregate(measures, qrels, run)
    assert list(got) == list(expected)
    for measure in measures:
        assert got[measure] == pytest.approx(expected[measure], rel=0, abs=1e-12, nan_ok=True), measure
    return got


def test_the_reference_has_straddling_absent_and_tied_queries():
    """The generated case has what the tests claim: queries absent from the run and unjudged ones, ties."""
    assert set(QRELS.query_id) - set(RUN.query_id) and set(RUN.query_id) - set(QRELS.query_id)
    assert RUN.duplicated(['query_id', 'score']).any()


def test_queries_split_across_partitions_give_the_single_process_and_pytrec_eval_values(client):
    frame = dd.from_pandas(RUN, npartitions=6, sort=False)  # split at row counts: queries straddle boundaries
    got = assert_equal_to_one_process(frame)
    for measure, value in pytrec_eval_means(QRELS, RUN).items():
        assert got[measure] == pytest.approx(value, abs=1e-12), measure


def test_interleaved_queries_give_the_single_process_values(client):
    assert_equal_to_one_process(dd.from_pandas(interleaved(RUN), npartitions=5, sort=False))


def test_a_run_indexed_by_query_with_divisions_is_evaluated_as_it_is(client):
    frame = dd.from_pandas(RUN.set_index('query_id'), npartitions=4)
    assert frame.known_divisions
    assert_equal_to_one_process(frame)


def test_a_run_written_query_by_query_is_read_once_and_an_interleaved_one_twice():
    """Counted under Dask's synchronous scheduler: the partitions of a run split between queries, and of one
    split at row counts (each boundary inside a query: those queries are evaluated from the edges), are read
    once; an interleaved run's are read again, shuffled on the query id."""
    first_rows = np.flatnonzero(RUN.query_id.ne(RUN.query_id.shift()))
    whole = dd.concat([dd.from_pandas(part, npartitions=1) for part in pieces(RUN, first_rows[1::9])])
    by_rows = dd.from_pandas(RUN, npartitions=6, sort=False)
    mixed = dd.from_pandas(interleaved(RUN), npartitions=6, sort=False)
    rows_read = []

    def counted(frame: dd.DataFrame) -> dd.DataFrame:
        return frame.map_partitions(lambda part: rows_read.append(len(part)) or part, meta=frame._meta)

    with dask.config.set({'scheduler': 'synchronous', 'dataframe.shuffle.method': 'tasks'}):  # (a client may be up)
        for frame, passes in ((whole, 1), (by_rows, 1), (mixed, 2)):
            rows_read.clear()
            assert_equal_to_one_process(counted(frame))
            assert sum(rows_read) == passes * len(RUN)
        built, partials = ext_dask._evaluated(MEASURES, QRELS, by_rows, None)
    bounds = [part.query_id.iloc[[0, -1]] for part in pieces(RUN, range(0, len(RUN), -(-len(RUN) // 6))[1:])]
    assert len(partials) == 6 + 1 and set(partials[-1].queries) == set(pd.concat(bounds))


def test_every_measure_of_the_provider_equals_one_process_for_absent_queries_too(client):
    """Guards the values of queries the run does not answer, which some measures take from the whole run
    (MeanRank: 1 + the largest candidate count): every measure family, on two partitionings."""
    graded = {'max_level': 3}
    measures = [Q, nDCG_Z1 @ 5, DECLARED['MSnDCG'] @ 5, DECLARED['nDCG_JK'] @ 5, DECLARED['nERR'](**graded) @ 5,
                DECLARED['RBP_NTCIR'](p=0.8, **graded), DECLARED['ERR_NTCIR'](**graded),
                DECLARED['iRBU'](u=0.9, **graded) @ 5, DECLARED['GAP'], MeanRank, MedianRank, RankVariance,
                MeanRank(judged_only=True), MeanRank(ties='pessimistic'),
                *(DECLARED[name]() for name in ('bpref_NTCIR', 'bpref_R', 'bpref_N', 'bpref_relative')),
                *(DECLARED[name](**graded) for name in ('rpref_N', 'rpref_relative', 'rpref_relative2')),
                ir_measures.AP @ 5, ir_measures.nDCG, ir_measures.Success @ 5, ir_measures.RR @ 5,
                ir_measures.NumRel, ir_measures.NumRet(rel=1)]
    assert all(irmeasures_ext.provider.supports(measure) for measure in measures)
    # the longest queries answered first, so that each partition's longest differs from the run's
    sizes = RUN.groupby('query_id').doc_id.transform('size')
    run = RUN.assign(n=sizes).sort_values('n', kind='stable').drop(columns='n')
    for frame in (dd.from_pandas(run, npartitions=7, sort=False), dd.from_pandas(interleaved(run), npartitions=3)):
        assert_equal_to_one_process(frame, run=run, measures=measures)


def test_per_query_values_are_the_single_process_ones_for_every_qrels_query(client):
    frame = dd.from_pandas(interleaved(RUN), npartitions=4, sort=False)
    got = ext_dask.per_query(MEASURES, QRELS, frame)
    assert isinstance(got, dd.DataFrame) and list(got.columns) == ['query_id', 'measure', 'value']
    as_objects = {'query_id': object, 'measure': object}
    got = got.compute().astype(as_objects)
    expected = evaluate_frame(MEASURES, QRELS, RUN).astype(as_objects)
    key = ['measure', 'query_id']
    pd.testing.assert_frame_equal(got.sort_values(key).reset_index(drop=True),
                                  expected.sort_values(key).reset_index(drop=True), rtol=0, atol=1e-12)
    absent = got[got.query_id == 'q3'].set_index('measure').value
    assert absent['AP'] == 0 and absent['MeanRank'] == 1 + RUN[RUN.query_id.isin(QRELS.query_id)].groupby(
        'query_id').size().max()


def test_pyterrier_names_and_the_providers_tie_policy(client):
    pyterrier = RUN.rename(columns={'query_id': 'qid', 'doc_id': 'docno'})
    pyterrier['rank'] = pyterrier.groupby('qid').cumcount()  # the listed order: not the score's
    frame = dd.from_pandas(pyterrier, npartitions=4, sort=False)
    for ties in ('expected', 'rank', 'optimistic'):
        provider = irmeasures_ext.provider.configured(ties=ties, score_precision='float64')
        assert_equal_to_one_process(frame, run=pyterrier, provider=provider)


def test_a_parquet_glob_with_queries_split_across_files(client, tmp_path):
    for number, part in enumerate(pieces(RUN, range(250, len(RUN), 250))):  # split at row counts
        part.to_parquet(tmp_path / f'run-{number}.parquet', index=False)
    assert_equal_to_one_process(str(tmp_path / 'run-*.parquet'))
    assert_equal_to_one_process(tmp_path)  # the folder, as a path


def test_a_duplicate_doc_is_an_error_across_partitions_and_within_one(client):
    one_query = pd.DataFrame({'query_id': ['q1'] * 4, 'doc_id': ['a', 'b', 'c', 'a'], 'score': [4.0, 3, 2, 1]})
    run = pd.concat([RUN, one_query], ignore_index=True)
    for npartitions in (2, 1):
        frame = dd.from_pandas(run.iloc[::-1] if npartitions == 2 else run, npartitions=npartitions, sort=False)
        with pytest.raises(DuplicateDocError, match="duplicate doc 'a' in query 'q1'"):
            ext_dask.calc_aggregate([ir_measures.AP], QRELS, frame)


def test_a_run_answering_no_qrels_query_warns_and_takes_every_default(client):
    run = RUN.assign(query_id='x' + RUN.query_id)
    with pytest.warns(NoOverlapWarning, match=f'none of its {run.query_id.nunique()} queries is in the qrels'):
        assert_equal_to_one_process(dd.from_pandas(run, npartitions=3, sort=False), run=run,
                                    measures=[ir_measures.AP, MedianRank])


def test_a_run_path_that_is_not_parquet_or_not_there_is_named(tmp_path):
    trec_run = tmp_path / 'run.txt'
    trec_run.write_text('q1 Q0 d1 1 1.0 r\n')
    with pytest.raises(InputError, match=f'^run {trec_run}: not Parquet \\(irmeasures_ext.dask reads Parquet runs; '):
        ext_dask.calc_aggregate([ir_measures.AP], QRELS, trec_run)
    for missing in (tmp_path / 'run.parquet', tmp_path / 'part-*.parquet'):
        with pytest.raises(InputError, match=f'^run {re.escape(str(missing))}: no such file or folder$'):
            ext_dask.calc_aggregate([ir_measures.AP], QRELS, str(missing))


def test_a_parquet_run_whose_ir_metadata_is_not_yaml_is_refused_as_a_file_a_glob_and_a_folder(tmp_path):
    import pyarrow as pa
    import pyarrow.parquet as pq

    from irmeasures_ext.errors import MetadataError
    table = pa.Table.from_pandas(RUN, preserve_index=False)
    (tmp_path / 'folder').mkdir()
    for path in (tmp_path / 'run.parquet', tmp_path / 'folder' / 'part-0.parquet'):
        pq.write_table(table.replace_schema_metadata({'ir_metadata': 'tag: [x\n'}), path)
    for run in (tmp_path / 'run.parquet', str(tmp_path / 'ru*.parquet'), tmp_path / 'folder'):
        with pytest.raises(MetadataError, match=r"\(schema metadata 'ir_metadata'\):1: ir_metadata is not valid YAML"):
            ext_dask.calc_aggregate([ir_measures.AP], QRELS, run)
        with pytest.raises(MetadataError, match='ir_metadata is not valid YAML'):  # (as one process refuses it)
            irmeasures_ext.provider.calc_aggregate([ir_measures.AP], QRELS, str(run).replace('ru*', 'run'))


def test_bad_input_is_refused_before_any_work():
    frame = dd.from_pandas(RUN.drop(columns='score'), npartitions=2)
    with pytest.raises(InputError, match=r"run is missing column\(s\) \['score'\]"):
        ext_dask.calc_aggregate([ir_measures.AP], QRELS, frame)
    with pytest.raises(InputError, match='expected a dask DataFrame or the path of Parquet file'):
        ext_dask.per_query([ir_measures.AP], QRELS, RUN)
    with pytest.raises(MeasureParamError, match='does not support measure'):
        ext_dask.calc_aggregate([ir_measures.nDCG(gains={1: 2}, judged_only=True)], QRELS,  # (left to pytrec_eval)
                                dd.from_pandas(RUN, npartitions=2))
    with pytest.raises(MeasureParamError, match='provider must be the irmeasures_ext provider'):
        ext_dask.calc_aggregate([ir_measures.AP], QRELS, dd.from_pandas(RUN, npartitions=2),
                                provider=ir_measures.pytrec_eval)


def test_without_distributed_and_importing_the_package_imports_no_dask():
    """In a process of its own, where no cluster ever was: ``import irmeasures_ext`` and an evaluation
    import no dask; ``irmeasures_ext.dask`` runs on Dask's default scheduler (threads)."""
    script = ('import dask.base, dask.dataframe as dd, test_dask; '
              'test_dask.assert_equal_to_one_process(dd.from_pandas(test_dask.RUN, npartitions=3, sort=False)); '
              'print(dask.base.get_scheduler() is None)')  # (None: Dask's default, threads)
    result = subprocess.run([sys.executable, '-c', script], capture_output=True, text=True, timeout=120,
                            cwd=Path(__file__).parent)
    assert result.stdout.splitlines() == ['True'], result.stderr
    script = ('import sys, irmeasures_ext, ir_measures; '
              'irmeasures_ext.provider.calc_aggregate([ir_measures.AP], {"q": {"a": 1}}, {"q": {"a": 1.0}}); '
              'print(sorted(m for m in sys.modules if "dask" in m))')
    result = subprocess.run([sys.executable, '-c', script], capture_output=True, text=True, timeout=120, check=True)
    assert result.stdout.split() == ['[]']
