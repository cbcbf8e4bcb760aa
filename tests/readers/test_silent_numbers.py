"""Issue 39 §1: inputs that gave a silently wrong number now give the right one or one clear message, on
every entry point: hive partition values read as text, qrels without a judgment refused, identical
repeated qrels lines counted once with a warning naming both lines, and the files of a Parquet folder
checked to hold the same columns."""
import warnings

import ir_measures
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import irmeasures_ext
from irmeasures_ext import InputError, Q
from irmeasures_ext.cli import main
from irmeasures_ext.errors import RepeatedJudgmentWarning
from irmeasures_ext.measures import ExtMeasure
from irmeasures_ext.readers.columnar import ColumnarFileError

pytestmark = pytest.mark.filterwarnings('ignore::irmeasures_ext.errors.NoOverlapWarning')
PROVIDER = irmeasures_ext.provider


def dask_calc_aggregate(measures, qrels, run):
    from irmeasures_ext import dask as on_dask
    return on_dask.calc_aggregate(measures, qrels, run)


def frames_calc_aggregate(measures, qrels, run):
    return irmeasures_ext.frames.evaluate_frame(measures, qrels, run).aggregates()


def ir_measures_calc_aggregate(measures, qrels, run):
    """ir_measures' default pipeline, given only measures of ours (it gives ir_measures' own to its providers,
    which read neither Arrow tables nor paths)."""
    return ir_measures.calc_aggregate([m for m in measures if isinstance(m, ExtMeasure)], qrels, run)


ENTRY_POINTS = {'provider': PROVIDER.calc_aggregate, 'ir_measures (our measure)': ir_measures_calc_aggregate,
                'evaluate_frame': frames_calc_aggregate, 'dask': dask_calc_aggregate}


# --- hive partitions ---------------------------------------------------------------------------------------

@pytest.mark.parametrize('entry', ['provider', 'ir_measures (our measure)', 'dask'])
@pytest.mark.parametrize('key', ['qid', 'query_id'])
def test_hive_partition_values_are_ids_as_written(tmp_path, entry, key):
    """``qid=007`` is query '007', not 7 (pyarrow infers integers); '7', '0.5', '-1' and '1e3' keep their text."""
    values = {'007': 'a', '7': 'b', '0.5': 'c', '-1': 'd', '1e3': 'e'}
    for query_id, doc_id in values.items():
        (tmp_path / 'run' / f'{key}={query_id}').mkdir(parents=True)
        pq.write_table(pa.table({'doc_id': [doc_id, 'z'], 'score': [2.0, 1.0]}),
                       tmp_path / 'run' / f'{key}={query_id}' / 'part-0.parquet')
    qrels = {query_id: {doc_id: 1} for query_id, doc_id in values.items()}  # each query's doc ranked first
    got = ENTRY_POINTS[entry]([Q, ir_measures.NumRet], qrels, str(tmp_path / 'run'))
    assert got[Q] == 1.0 and got.get(ir_measures.NumRet, 10) == 10


# --- qrels without a judgment ------------------------------------------------------------------------------

def empty_qrels_forms(tmp_path):
    frame = pd.DataFrame({'query_id': pd.Series([], dtype=str), 'doc_id': pd.Series([], dtype=str),
                          'relevance': pd.Series([], dtype='int64')})
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), tmp_path / 'qrels.parquet')
    consumed = ir_measures.read_trec_qrels(str(irmeasures_ext.sample.QRELS))
    list(consumed)
    return {'DataFrame': (frame, 'qrels: an empty table'),
            'Arrow table': (pa.Table.from_pandas(frame, preserve_index=False), 'qrels: an empty table'),
            'dict-of-dict': ({}, 'qrels: an empty dict-of-dict'),
            'dict-of-dict of empty queries': ({'q': {}}, 'qrels: an empty dict-of-dict'),
            'consumed generator': (consumed, r'qrels: no records \(an empty iterable, or a generator such as '
                                             r'read_trec_qrels\(...\) already read'),
            'Parquet file': (str(tmp_path / 'qrels.parquet'), f'{tmp_path / "qrels.parquet"}: no rows')}


FORMS = ['DataFrame', 'Arrow table', 'dict-of-dict', 'dict-of-dict of empty queries', 'consumed generator',
         'Parquet file']


# (ir_measures' pipeline turns a qrels path into an iterator of its characters before a provider sees it)
@pytest.mark.parametrize('entry, form', [(entry, form) for entry in sorted(ENTRY_POINTS) for form in FORMS
                                         if (entry, form) != ('ir_measures (our measure)', 'Parquet file')])
def test_qrels_without_a_judgment_are_refused_everywhere(tmp_path, entry, form):
    qrels, message = empty_qrels_forms(tmp_path)[form]
    run = pd.DataFrame({'query_id': ['q'], 'doc_id': ['a'], 'score': [1.0]})
    if entry == 'dask':
        import dask.dataframe as dd
        run = dd.from_pandas(run, npartitions=1)
    with pytest.raises(InputError, match=f'^{message}.*every measure would be undefined'):
        ENTRY_POINTS[entry]([Q, ir_measures.AP], qrels, run)


def test_qrels_without_a_judgment_on_the_command_line(tmp_path, capsys):
    empty_qrels_forms(tmp_path)
    for name in ('run.txt', 'other.txt'):
        (tmp_path / name).write_text('q Q0 a 1 1.0 r\n')
    for command in ([], ['compare']):
        runs = [str(tmp_path / 'run.txt'), str(tmp_path / 'other.txt')][:2 if command else 1]
        assert main([*command, str(tmp_path / 'qrels.parquet'), *runs, 'AP']) == 2
        assert f'{tmp_path / "qrels.parquet"}: no rows, so every measure would be undefined' in capsys.readouterr().err


# --- identical repeated qrels lines ------------------------------------------------------------------------

@pytest.mark.parametrize('separator', [' ', '\t'])
def test_repeated_identical_qrels_lines_are_counted_once_with_a_warning_naming_both_lines(tmp_path, separator):
    lines = ['q 0 a 1', 'q 0 b 0', 'q 0 c 2', 'q 0 a 1', 'p 0 x 1', 'p 0 x 1', 'p 0 x 1']
    (tmp_path / 'qrels.txt').write_text(''.join(line.replace(' ', separator) + '\n' for line in lines))
    with pytest.warns(RepeatedJudgmentWarning) as warned:
        values = PROVIDER.calc_aggregate([ir_measures.NumRel], str(tmp_path / 'qrels.txt'), {'q': {'a': 1.0}})
    assert values[ir_measures.NumRel] == 3  # a, c and x, each once
    message = str(warned[0].message)
    assert message in (f"{tmp_path / 'qrels.txt'}:6: doc 'x' in query 'p' is judged on 3 lines with the same label: "
                       'counted once (1 more such pair(s)); first at line 5',
                       f"{tmp_path / 'qrels.txt'}:4: doc 'a' in query 'q' is judged on 2 lines with the same label: "
                       'counted once (1 more such pair(s)); first at line 1')
    assert warned[0].filename == __file__  # the user's call, not a frame of the library


def test_repeated_identical_rows_of_a_table_warn_naming_query_and_doc():
    frame = pd.DataFrame({'query_id': ['q', 'q', 'q'], 'doc_id': ['a', 'b', 'a'], 'relevance': [1.5, 0, 1.5]})
    with pytest.warns(RepeatedJudgmentWarning, match="^qrels: doc 'a' in query 'q' is judged on 2 lines with the "
                                                     'same label: counted once$'):
        assert PROVIDER.calc_aggregate([ir_measures.NumRel], frame, {'q': {'a': 1.0}})[ir_measures.NumRel] == 1


def test_qrels_without_repeats_do_not_warn(tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter('error', RepeatedJudgmentWarning)
        PROVIDER.calc_aggregate([ir_measures.AP], {'q': {'a': 1, 'b': 0}}, {'q': {'a': 1.0}})


def test_the_command_prints_the_repeat_as_one_warning_line(tmp_path, capsys):
    (tmp_path / 'qrels.txt').write_text('q 0 a 1\nq 0 a 1\n')
    (tmp_path / 'run.txt').write_text('q Q0 a 1 1.0 r\n')
    assert main([str(tmp_path / 'qrels.txt'), str(tmp_path / 'run.txt'), 'AP']) == 0
    assert capsys.readouterr().err.splitlines() == [
        f"irmeasures-ext: warning: {tmp_path / 'qrels.txt'}:2: doc 'a' in query 'q' is judged on 2 lines with the "
        'same label: counted once; first at line 1']


# --- the files of a Parquet folder -------------------------------------------------------------------------

FOLDERS = {
    'PyTerrier names in the second file': ({'query_id': ['1'], 'doc_id': ['a'], 'score': [1.0]},
                                           {'qid': ['2'], 'docno': ['b'], 'score': [1.0]},
                                           'docno (string), qid (string) instead of doc_id (string), query_id '
                                           '(string)'),
    'a column missing': ({'query_id': ['1'], 'doc_id': ['a'], 'score': [1.0]},
                         {'query_id': ['2'], 'doc_id': ['b']}, 'none instead of score (double)'),
    'integer query ids in the second file': ({'query_id': ['1'], 'doc_id': ['a'], 'score': [1.0]},
                                             {'query_id': [2], 'doc_id': ['b'], 'score': [1.0]},
                                             'query_id (int64) instead of query_id (string)'),
}


@pytest.mark.parametrize('entry', ['provider', 'dask'])
@pytest.mark.parametrize('case', sorted(FOLDERS))
def test_a_folder_whose_files_differ_names_the_file_and_the_difference(tmp_path, entry, case):
    first, second, difference = FOLDERS[case]
    (tmp_path / 'run').mkdir()
    pq.write_table(pa.table(first), tmp_path / 'run' / 'part-0.parquet')
    pq.write_table(pa.table(second), tmp_path / 'run' / 'part-1.parquet')
    with pytest.raises(ColumnarFileError) as raised:
        ENTRY_POINTS[entry]([ir_measures.AP], {'1': {'a': 1}, '2': {'b': 1}}, str(tmp_path / 'run'))
    assert str(raised.value) == (f"{tmp_path / 'run'}: file part-1.parquet has columns other than part-0.parquet: "
                                 f'{difference} (the files of a folder are one table: give them the same columns)')
