"""One input, every public entry point (issue 45 §2): our provider by name, ``ir_measures.calc_aggregate``,
``iter_calc`` and ``evaluator`` with our measures (and ir_measures' own beside them, on labels from 0),
``irmeasures_ext.frames``, the Dask engine (``irmeasures_ext.dask``), ``irmeasures_ext.compare``, the tie report
(its trec_eval column: the default tie policy), PyTerrier's ``pt.Experiment``, and the ``irmeasures-ext`` command
(its evaluation, ``compare`` and ``ties``), each given the qrels and the run in a form drawn from records, a
generator, a dict-of-dict, DataFrames with ir_measures' and PyTerrier's column names, an Arrow table, and TREC file
paths (``str`` and ``pathlib.Path``), give the same numbers or an error of the same class. The inputs are drawn by
tests/strategies.py, then spoilt one way or none: a doc twice in a query of the run, a doc judged twice with two
labels, a score that is not a number, qrels without a judgment.

Then the same for diversity qrels (a doc judged per intent, with a label per intent or one for all): the diversity
measures of ndeval (which ir_measures' own pipeline gives to pyndeval: an independent implementation, whose values
the ir_measures entry points and PyTerrier are held to, :func:`through_pyndeval`) and of NTCIREVAL (which need the
intents' probabilities: ``irmeasures_ext.intent_qrels``), beside an ad hoc measure of ours or not; spoilt one way or
none: a doc twice in a query of the run, a doc judged twice for an intent with two labels, a score that is not a
number, qrels without a judgment, an intent judged relevant without a probability. Left out, each where it is (and
said why): a spoilt input in a form ir_measures reads itself where its pipeline gives every measure to pyndeval (no
measure of ours to check it)."""
from __future__ import annotations

import contextlib
import functools
import io
import json
import math
import tempfile
import warnings
from pathlib import Path

import dask
import dask.dataframe as dd
import ir_measures
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ir_measures.measures.base import MeanAgg
from strategies import DOC_IDS, LABELS, QUERY_IDS, REAL_LABELS, SCORES, qrels_and_run

import irmeasures_ext
from irmeasures_ext import InputError, IrMeasuresExtError, MeanRank, MeasureParamError, Q, nDCG_Z1, nERR
from irmeasures_ext import dask as ext_dask
from irmeasures_ext.cli import main
from irmeasures_ext.engine.kernels import kernel_of
from irmeasures_ext.frames import evaluate_frame
from irmeasures_ext.frames import iter_calc as frames_iter_calc
from irmeasures_ext.measures.base import Ranking
from irmeasures_ext.reports.tie_report import tie_report

try:
    import pyterrier as pt
except ImportError:  # (the test extra installs it)
    pt = None

#: Measures of ours: every entry point, ir_measures' pipeline included, gives them to our provider.
MEASURES = [Q @ 10, nDCG_Z1 @ 5, MeanRank, nERR @ 10, Q(beta=0.5) @ 3]
#: ir_measures' own, which its pipeline gives to pytrec_eval (ours computes them elsewhere, exact to trec_eval): drawn
#: beside ours for labels from 0 (trec_eval takes integers only, and crashes on a query judged only below -1).
THEIRS = [ir_measures.nDCG @ 10, ir_measures.P @ 5, ir_measures.AP, ir_measures.RR]
FAULTS = ['none', 'none', 'duplicate doc', 'conflicting labels', 'NaN score', 'no judgment']
FORMS = ['records', 'generator', 'dict-of-dict', 'DataFrame', "PyTerrier's DataFrame", 'Arrow table', 'str path',
         'Path']
QRELS_FORMS = RUN_FORMS = FORMS
#: How a Dask run is partitioned: split at row counts (queries straddle partitions), its rows shuffled (queries
#: interleaved across partitions), or indexed by the query id (divisions known: each query in one partition).
DASK_LAYOUTS = ['rows', 'interleaved', 'indexed']
TOLERANCE = 1e-12


@st.composite
def spoilt_rows(draw):
    """Qrels rows ``(query, doc, label)`` and run rows ``(query, doc, score)``, and the fault put in them."""
    qrels, run = draw(qrels_and_run(draw(st.sampled_from([st.integers(0, 4), LABELS, LABELS | REAL_LABELS]))))
    qrels_rows = [(q, d, label) for q, docs in qrels.items() for d, label in docs.items()]
    run_rows = [(q, d, score) for q, docs in run.items() for d, score in docs.items()]
    fault = draw(st.sampled_from(FAULTS))
    if fault == 'duplicate doc' and run_rows:
        run_rows.append(draw(st.sampled_from(run_rows))[:2] + (-1.0,))
    elif fault == 'conflicting labels':
        query_id, doc_id, label = draw(st.sampled_from(qrels_rows))
        qrels_rows.append((query_id, doc_id, label + 1))
    elif fault == 'NaN score' and run_rows:
        index = draw(st.integers(0, len(run_rows) - 1))
        run_rows[index] = run_rows[index][:2] + (math.nan,)
    elif fault == 'no judgment':
        qrels_rows = []
    else:
        fault = 'none'
    measures = list(MEASURES)
    if all(isinstance(label, int) and label >= 0 for _, _, label in qrels_rows) and draw(st.booleans()):
        measures += THEIRS
    return qrels_rows, run_rows, fault, measures


def form(rows: list[tuple], kind: str, name: str, folder: Path):
    """``rows`` of a ``kind`` of input in the form ``name`` (a new object each time: a generator is read once)."""
    value = 'relevance' if kind == 'qrels' else 'score'
    if name == 'records':
        return [(ir_measures.Qrel if kind == 'qrels' else ir_measures.ScoredDoc)(*row) for row in rows]
    if name == 'generator':
        return iter(form(rows, kind, 'records', folder))
    if name == 'dict-of-dict':
        docs: dict = {}
        for query_id, doc_id, number in rows:
            docs.setdefault(query_id, {})[doc_id] = number
        return docs
    if name == 'DataFrame':
        return pd.DataFrame(rows, columns=['query_id', 'doc_id', value])
    if name == "PyTerrier's DataFrame":
        return pd.DataFrame(rows, columns=['qid', 'docno', 'label' if kind == 'qrels' else 'score'])
    if name == 'Arrow table':
        columns = list(zip(*rows, strict=True)) or [[], [], []]
        return pa.table({'query_id': pa.array(columns[0], pa.string()), 'doc_id': pa.array(columns[1], pa.string()),
                         value: pa.array(columns[2], pa.float64())})
    path = folder / f'{kind}.txt'
    return str(path) if name == 'str path' else path


def write_files(qrels_rows: list[tuple], run_rows: list[tuple], folder: Path) -> tuple[str, str]:
    """The TREC files of the qrels (``query 0 doc label``, or ``query intent doc label`` for rows of 4) and run."""
    lines = [f'{q} 0 {d} {label}\n' if len(row) == 3 else f'{q} {row[1]} {row[2]} {row[3]}\n'
             for row in qrels_rows for q, d, label in [(row[0], row[-2], row[-1])]]
    (folder / 'qrels.txt').write_text(''.join(lines), encoding='utf-8')
    (folder / 'run.txt').write_text(''.join(f'{q} Q0 {d} {i} {score!r} tag\n'
                                            for i, (q, d, score) in enumerate(run_rows, 1)), encoding='utf-8')
    return str(folder / 'qrels.txt'), str(folder / 'run.txt')


def outcome(call) -> tuple[str, object]:
    """('values', what ``call`` returns) or ('error', the class of the error it raises: ours by kind)."""
    try:
        return 'values', call()
    except (MeasureParamError, InputError) as error:
        return 'error', MeasureParamError if isinstance(error, MeasureParamError) else InputError
    except IrMeasuresExtError:
        return 'error', IrMeasuresExtError


def same_values(got: dict, want: dict) -> bool:
    return got.keys() == want.keys() and all(
        math.isnan(want[key]) if math.isnan(got[key]) else abs(got[key] - want[key]) <= TOLERANCE for key in want)


def check(name: str, call, kind: str, want) -> None:
    """``call`` (entry point ``name``) gives the values ``want`` if ``kind`` is 'values', else raises the error class
    ``want``."""
    got_kind, got = outcome(call)
    assert got_kind == kind and (same_values(got, want) if kind == 'values' else got == want), (name, got, want)


def by_name(values: dict) -> dict:
    return {str(measure): value for measure, value in values.items()}


def per_query(metrics) -> dict:
    return {(str(metric.measure), metric.query_id): metric.value for metric in metrics}


# --- the entry points other than ir_measures' and our provider's ---------------------------------------------------

def command(argv: list[str]) -> tuple[str, str | None]:
    """The ``irmeasures-ext`` command run in-process: ('values', its standard output), or ('error', None) for exit
    status 2 with our one-line message."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(argv)
    if status:
        assert status == 2 and 'irmeasures-ext: error: ' in err.getvalue(), err.getvalue()
        return 'error', None
    return 'values', out.getvalue()


def via_command(measures: list, qrels: str, run: str, *options: str) -> tuple[str, object]:
    """The ``irmeasures-ext`` command's per-query values (jsonl), or 'error'."""
    kind, out = command([qrels, run, *map(str, measures), '-q', '-n', '-o', 'jsonl', *options])
    if kind == 'error':
        return kind, None
    records = [json.loads(line) for line in out.splitlines()]
    return 'values', {(record['measure'], record['query_id']): record['value'] for record in records}


def via_ties_command(measures: list, qrels: str, run: str, *options: str) -> tuple[str, object]:
    """``irmeasures-ext ties``: each measure's mean in its trec_eval column (the default tie policy), or 'error'."""
    kind, out = command(['ties', qrels, run, *map(str, measures), '-p', '-1', *options])
    if kind == 'error':
        return kind, None
    lines = [line.split('\t') for line in out.splitlines()]
    assert lines[0][:2] == ['measure', 'trec_eval'], lines[0]
    return 'values', {cells[0]: float(cells[1]) for cells in lines[1:]}


def via_compare_command(measures: list, qrels: str, run: str, *options: str) -> tuple[str, object]:
    """``irmeasures-ext compare`` of the run with itself under two names: each run's mean of each measure (jsonl),
    or 'error'."""
    kind, out = command(['compare', qrels, run, run, *map(str, measures), '--names', 'a,b', '-p', '-1',
                         '-o', 'jsonl', *options])
    if kind == 'error':
        return kind, None
    records = [json.loads(line) for line in out.splitlines()]
    return 'values', {(record['run'], record['measure']): math.nan if record['mean'] is None else record['mean']
                      for record in records}


def compared_means(measures: list, per_query_values: dict, runs: tuple[str, ...]) -> dict:
    """What ``compare`` gives each of ``runs`` (the same run under several names) for each measure: the mean of the
    measure's per-query values, without the queries where it has none (NaN: compare's tests pair the runs' values
    query by query, irmeasures_ext/comparison/table.py ``RunValues.complete``); NaN for no query left. (Every measure
    of these tests is aggregated by the mean.)"""
    means = {}
    for measure in measures:
        assert isinstance(measure.aggregator(), MeanAgg), measure
        values = [value for (name, _), value in per_query_values.items()
                  if name == str(measure) and not math.isnan(value)]
        means.update({(run, str(measure)): math.fsum(values) / len(values) if values else math.nan for run in runs})
    return means


def via_compare(measures: list, qrels, runs: dict) -> dict:
    """``irmeasures_ext.compare``: each run's mean (the measure's own aggregate) of each measure."""
    table = irmeasures_ext.compare(qrels, runs, measures)
    return {(row.run, row.measure): row.mean for row in table.itertuples()}


def via_tie_report(measures: list, qrels, run) -> dict:
    """The tie report's value of each measure under the default tie policy (its trec_eval column)."""
    return {str(row.measure): row.values['trec_eval'] for row in tie_report(measures, qrels, run,
                                                                            {'trec_eval': Ranking()})}


def dask_run(frame: pd.DataFrame, layout: str, npartitions: int) -> dd.DataFrame:
    """The pandas run ``frame`` as a dask DataFrame laid out as ``layout`` (:data:`DASK_LAYOUTS`)."""
    if layout == 'indexed':
        return dd.from_pandas(frame.set_index(frame.columns[0]), npartitions=npartitions)
    if layout == 'interleaved':
        frame = frame.sample(frac=1, random_state=npartitions)
    return dd.from_pandas(frame, npartitions=npartitions, sort=False)


def via_dask_per_query(measures: list, qrels, run: dd.DataFrame) -> dict:
    frame = ext_dask.per_query(measures, qrels, run).compute()
    return {(row.measure, row.query_id): row.value for row in frame.itertuples()}


def via_pyterrier(measures: list, qrels: pd.DataFrame, run: pd.DataFrame) -> dict:
    """``pt.Experiment`` of the run (a transformer of its rows) over the qrels' queries as topics, per query."""
    topics = pd.DataFrame({'qid': list(dict.fromkeys(qrels['qid'])), 'query': 'text'})
    table = pt.Experiment([pt.Transformer.from_df(run)], topics, qrels, eval_metrics=measures, perquery=True)
    return {(row.measure, row.qid): row.value for row in table.itertuples()}


# --- ad hoc qrels ------------------------------------------------------------------------------------------------

@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spoilt_rows(), st.sampled_from(QRELS_FORMS), st.sampled_from(RUN_FORMS),
       st.sampled_from([True, False, False, False]), st.sampled_from(DASK_LAYOUTS), st.integers(1, 3),
       st.sampled_from(['DataFrame', "PyTerrier's DataFrame"]), st.booleans())
def test_every_entry_point_gives_the_same_numbers_or_the_same_error(data, qrels_form, run_form, with_command,
                                                                    dask_layout, npartitions, dask_names,
                                                                    with_pyterrier):
    """The values of our provider given records (per query, and aggregated), or the class of its error, from
    every entry point and form (the commands for a quarter of the examples, PyTerrier for half)."""
    qrels_rows, run_rows, fault, measures = data
    if 'dict-of-dict' in (qrels_form, run_form) and fault in ('duplicate doc', 'conflicting labels'):
        qrels_form = run_form = 'records'  # (a dict-of-dict holds one value per doc: it cannot hold the fault)
    with tempfile.TemporaryDirectory() as directory, warnings.catch_warnings(), \
            dask.config.set(scheduler='synchronous'):
        warnings.simplefilter('ignore')  # (no overlap, listed by ascending score, labels above every threshold...)
        folder = Path(directory)
        files = write_files(qrels_rows, run_rows, folder)

        def qrels():
            return form(qrels_rows, 'qrels', qrels_form, folder)

        def run():
            return form(run_rows, 'run', run_form, folder)

        records = form(qrels_rows, 'qrels', 'records', folder), form(run_rows, 'run', 'records', folder)
        kind, want = outcome(lambda: irmeasures_ext.provider.calc_aggregate(measures, *records))
        kind_per_query, want_per_query = outcome(
            lambda: per_query(irmeasures_ext.provider.evaluator(measures, records[0]).iter_calc(records[1])))
        assert kind == kind_per_query
        if fault == 'none':
            assert kind == 'values', want
        elif fault in ('duplicate doc', 'conflicting labels', 'no judgment'):
            assert (kind, want) == ('error', InputError)
        runs = ('a', 'b')
        want_compare = compared_means(measures, want_per_query, runs) if kind == 'values' else want
        aggregates, per_queries = entry_points(measures, qrels, run, lambda: dask_run(
            form(run_rows, 'run', dask_names, folder), dask_layout, npartitions))
        if qrels_form == run_form == 'records':
            del aggregates['our provider']  # (the reference's own call)
        for name, call in aggregates.items():
            check(name, call, kind, want)
        for name, call in per_queries.items():
            check(name, call, kind_per_query, want_per_query)
        check('irmeasures_ext.compare', lambda: via_compare(measures, qrels(), {name: run() for name in runs}),
              kind, want_compare)
        check('tie report', lambda: via_tie_report(measures, qrels(), run()), kind,
              by_name(want) if kind == 'values' else want)
        if with_pyterrier and pt is not None:
            check_pyterrier(measures, qrels_rows, run_rows, fault)
        if with_command:
            got_kind, got = via_command(measures, *files)
            assert got_kind == kind and (kind == 'error' or same_values(got, want_per_query)), got
            got_kind, got = via_ties_command(measures, *files)
            assert got_kind == kind and (kind == 'error' or same_values(got, by_name(want))), got
            got_kind, got = via_compare_command(measures, *files)
            assert got_kind == kind and (kind == 'error' or same_values(got, want_compare)), got


def entry_points(measures: list, qrels, run, dask_frame) -> tuple[dict, dict]:
    """The calls of every Python entry point on fresh inputs (``qrels()``, ``run()``, ``dask_frame()``): those that
    aggregate, and those that give per-query values, by name."""
    aggregates = {
        'our provider': lambda: irmeasures_ext.provider.calc_aggregate(measures, qrels(), run()),
        'ir_measures.calc_aggregate': lambda: ir_measures.calc_aggregate(measures, qrels(), run()),
        'ir_measures.evaluator': lambda: ir_measures.evaluator(measures, qrels()).calc_aggregate(run()),
        'irmeasures_ext.dask.calc_aggregate': lambda: ext_dask.calc_aggregate(measures, qrels(), dask_frame()),
    }
    per_queries = {
        'ir_measures.iter_calc': lambda: per_query(ir_measures.iter_calc(measures, qrels(), run())),
        'our provider iter_calc': lambda: per_query(irmeasures_ext.provider.iter_calc(measures, qrels(), run())),
        'frames.evaluate_frame': lambda: {(row.measure, row.query_id): row.value
                                          for row in evaluate_frame(measures, qrels(), run()).itertuples()},
        'frames.iter_calc': lambda: per_query(frames_iter_calc(measures, qrels(), run())),
        'irmeasures_ext.dask.per_query': lambda: via_dask_per_query(measures, qrels(), dask_frame()),
    }
    return aggregates, per_queries


def check_pyterrier(measures: list, qrels_rows: list[tuple], run_rows: list[tuple], fault: str) -> None:
    """``pt.Experiment`` per query gives our provider's values of the run's rows of the topics (the qrels' queries:
    PyTerrier evaluates what the transformer gives for the topics), or its error class; for diversity qrels (rows
    of 4), ndeval's measures as pyndeval computes them (:func:`through_pyndeval`)."""
    judged = {row[0] for row in qrels_rows}
    topics_rows = [row for row in run_rows if row[0] in judged]
    if fault == 'no judgment' or not topics_rows:
        return  # (PyTerrier refuses these itself, with a ValueError of its own: no topic, no result for the topics)
    diversity = bool(qrels_rows) and len(qrels_rows[0]) == 4
    qrels_records = diversity_form(qrels_rows, 'records', Path()) if diversity else form(qrels_rows, 'qrels',
                                                                                         'records', Path())
    run_records = form(topics_rows, 'run', 'records', Path())
    kind, want = outcome(lambda: per_query(irmeasures_ext.provider.iter_calc(measures, qrels_records, run_records)))
    if diversity and kind == 'values' and refused_by_pyndeval(measures, qrels_rows):
        kind, want = 'error', InputError
    elif diversity and kind == 'values':
        want = through_pyndeval(measures, {}, want, {row[0] for row in topics_rows})[1]
    as_pyterrier = diversity_form if diversity else functools.partial(form, kind='qrels')
    check('pt.Experiment', lambda: via_pyterrier(measures, as_pyterrier(qrels_rows, name="PyTerrier's DataFrame",
                                                                        folder=Path()),
                                                 form(run_rows, 'run', "PyTerrier's DataFrame", Path())), kind, want)


def test_the_forms_are_what_they_say():
    """The forms of the property test, checked once (a form that silently fell back would test nothing)."""
    rows = [('q', 'a', 1)]
    with tempfile.TemporaryDirectory() as directory:
        folder = Path(directory)
        assert isinstance(form(rows, 'qrels', 'generator', folder), type(iter([])))
        assert list(form(rows, 'qrels', "PyTerrier's DataFrame", folder).columns) == ['qid', 'docno', 'label']
        assert isinstance(form(rows, 'run', 'Path', folder), Path)
        assert form(rows, 'run', 'dict-of-dict', folder) == {'q': {'a': 1}}
    run = pd.DataFrame({'query_id': ['1', '1', '2', '3'], 'doc_id': ['a', 'b', 'a', 'c'], 'score': [1.0, 2, 3, 4]})
    indexed = dask_run(run, 'indexed', 2)
    assert indexed.index.name == 'query_id' and indexed.known_divisions
    assert dask_run(run, 'rows', 2).npartitions == 2 and not dask_run(run, 'interleaved', 3).known_divisions


@pytest.mark.parametrize('qrels_form', QRELS_FORMS)
def test_a_clean_input_in_every_qrels_form(tmp_path, qrels_form):
    """Each form at least once, whatever hypothesis draws, with ir_measures' measures too."""
    qrels_rows, run_rows = [('1', 'a', 2), ('1', 'b', 0), ('2', 'c', 1)], [('1', 'b', 2.0), ('1', 'a', 1.0)]
    write_files(qrels_rows, run_rows, tmp_path)
    measures = MEASURES + THEIRS
    want = irmeasures_ext.provider.calc_aggregate(measures, form(qrels_rows, 'qrels', 'records', tmp_path),
                                                  form(run_rows, 'run', 'records', tmp_path))
    for run_form in RUN_FORMS:
        qrels, run = form(qrels_rows, 'qrels', qrels_form, tmp_path), form(run_rows, 'run', run_form, tmp_path)
        assert same_values(ir_measures.calc_aggregate(measures, qrels, run), want), run_form
        assert same_values(ir_measures.calc_aggregate(THEIRS, form(qrels_rows, 'qrels', qrels_form, tmp_path),
                                                      form(run_rows, 'run', run_form, tmp_path)),
                           {measure: want[measure] for measure in THEIRS}), run_form


# --- diversity qrels ---------------------------------------------------------------------------------------------

#: ndeval's measures: ours compute them, and ir_measures' pipeline gives them to pyndeval (ahead of ours). All of
#: one pyndeval setting (rel, alpha, beta, judged_only): ir_measures 0.4.3's pyndeval provider hands the run to the
#: first setting of a call only, the others getting an empty run (its bug: see measures/test_ndeval_diversity.py), so no
#: ``alpha_nDCG(alpha=0.25)@5`` beside ``alpha_nDCG@10``.
NDEVAL = ['alpha_nDCG@10', 'ERR_IA@20', 'nERR_IA@10', 'P_IA@5', 'StRecall@5', 'AP_IA', 'nNRBP']
#: Whether ir_measures' pipeline gives ndeval's measures to pyndeval (the test extra installs it), else to ours.
PYNDEVAL = ir_measures.providers.registry['pyndeval'].is_available()
#: NTCIREVAL's: ours only, from the intents' probabilities (``irmeasures_ext.intent_qrels``).
NTCIR = ['D_nDCG@5', 'D_sharp_nDCG@5', 'IA_nERR@10', 'DIN_sharp_Q@10', 'I_rec@5']
#: An ad hoc measure of ours beside them: it needs one label per doc, whatever the intents.
AD_HOC = ['Q@10']
INTENTS = ['1', '2', '10', 'a']
#: The forms of a run that ir_measures' converters read themselves (ours read the others for them, and check them:
#: irmeasures_ext/interop.py).
IR_MEASURES_READS = ['records', 'generator', 'dict-of-dict', 'DataFrame']
DIVERSITY_FAULTS = ['none', 'none', 'none', 'duplicate doc', 'conflicting labels', 'NaN score', 'no judgment',
                    'missing probability']
DIVERSITY_QRELS_FORMS = ['records', 'generator', 'DataFrame', "PyTerrier's DataFrame", 'Arrow table', 'str path',
                         'Path']
#: The intents' probabilities: a dict of (probability, type), a DINprob file, a DataFrame.
PROBABILITY_FORMS = ['dict', 'DINprob file', 'DataFrame']
#: Scores that differ as float32 (the default score precision): the run's scores for ndeval's measures, which
#: pyndeval ranks by score, then doc id *ascending* (ours and ndeval -traditional: descending, as trec_eval).
DISTINCT_SCORES = [float(score) for score in range(-3, 40)]


@st.composite
def diversity_rows(draw):
    """Diversity qrels rows ``(query, intent, doc, label)`` (a doc judged for several intents, with a label per
    intent or one for all; a query of one intent), run rows ``(query, doc, score)``, the intents' probabilities
    ``{query: {intent: (probability, type)}}``, the measures, and the fault put in them."""
    measures = draw(st.lists(st.sampled_from(NDEVAL), max_size=3, unique=True))
    measures += draw(st.lists(st.sampled_from(NTCIR), min_size=0 if measures else 1, max_size=2, unique=True))
    measures += draw(st.lists(st.sampled_from(AD_HOC), max_size=1))
    labels = draw(st.sampled_from([st.integers(0, 3), st.integers(0, 3) | REAL_LABELS]))
    one_label_per_doc = draw(st.booleans())
    pool = DOC_IDS + [f'n{i}' for i in range(draw(st.sampled_from([0, 0, 30])))]
    tie_free = any(m in NDEVAL for m in measures)
    scores = st.sampled_from(DISTINCT_SCORES if tie_free else SCORES)
    qrels_rows, run_rows, probabilities = [], [], {}
    for i, query_id in enumerate(draw(st.lists(st.sampled_from(QUERY_IDS), min_size=1, max_size=4, unique=True))):
        side = draw(st.sampled_from(['both', 'both', 'both', 'qrels'] + ([] if i == 0 else ['run'])))
        if side != 'run':
            intents = draw(st.lists(st.sampled_from(INTENTS), min_size=1, max_size=3, unique=True))
            weights = [draw(st.integers(1, 3)) for _ in intents]
            probabilities[query_id] = {intent: (weight / sum(weights), draw(st.sampled_from(['inf', 'nav'])))
                                       for intent, weight in zip(intents, weights, strict=True)}
            for doc in draw(st.lists(st.sampled_from(pool), min_size=1, max_size=12, unique=True)):
                label = draw(labels)
                for intent in draw(st.lists(st.sampled_from(intents), min_size=1, max_size=len(intents), unique=True)):
                    qrels_rows.append((query_id, intent, doc, label if one_label_per_doc else draw(labels)))
        if side != 'qrels':
            retrieved = draw(st.lists(st.sampled_from(pool), max_size=25, unique=True))
            docs_scores = draw(st.lists(scores, min_size=len(retrieved), max_size=len(retrieved),
                                        unique=tie_free))
            run_rows += [(query_id, doc, score) for doc, score in zip(retrieved, docs_scores, strict=True)]
    fault = draw(st.sampled_from(DIVERSITY_FAULTS))
    if fault == 'duplicate doc' and run_rows:
        run_rows.append(draw(st.sampled_from(run_rows))[:2] + (-10.0,))
    elif fault == 'conflicting labels':
        query_id, intent, doc_id, label = draw(st.sampled_from(qrels_rows))
        qrels_rows.append((query_id, intent, doc_id, label + 1))
    elif fault == 'NaN score' and run_rows:
        index = draw(st.integers(0, len(run_rows) - 1))
        run_rows[index] = run_rows[index][:2] + (math.nan,)
    elif fault == 'no judgment':
        qrels_rows = []
    elif fault == 'missing probability' and any(m in NTCIR for m in measures) and any(
            row[3] >= 1 for row in qrels_rows):
        query_id, intent = draw(st.sampled_from([row[:2] for row in qrels_rows if row[3] >= 1]))  # (judged relevant)
        del probabilities[query_id][intent]  # (the others no longer sum to 1 unless the intent was the only one)
        if probabilities[query_id]:
            total = sum(probability for probability, _ in probabilities[query_id].values())
            probabilities[query_id] = {intent: (probability / total, kind)
                                       for intent, (probability, kind) in probabilities[query_id].items()}
        else:
            del probabilities[query_id]
    else:
        fault = 'none'
    return qrels_rows, run_rows, probabilities, [ir_measures.parse_measure(m) for m in measures], fault


def diversity_form(rows: list[tuple], name: str, folder: Path):
    """Diversity qrels ``rows`` ``(query, intent, doc, label)`` in the form ``name`` (the file: write_files')."""
    if name == 'records':
        return [ir_measures.Qrel(query_id, doc_id, label, intent) for query_id, intent, doc_id, label in rows]
    if name == 'generator':
        return iter(diversity_form(rows, 'records', folder))
    columns = list(zip(*rows, strict=True)) or [[], [], [], []]
    if name == 'DataFrame':
        return pd.DataFrame({'query_id': columns[0], 'doc_id': columns[2], 'relevance': columns[3],
                             'iteration': columns[1]})
    if name == "PyTerrier's DataFrame":
        return pd.DataFrame({'qid': columns[0], 'docno': columns[2], 'label': columns[3], 'iteration': columns[1]})
    if name == 'Arrow table':
        return pa.table({'query_id': pa.array(columns[0], pa.string()), 'intent': pa.array(columns[1], pa.string()),
                         'doc_id': pa.array(columns[2], pa.string()), 'relevance': pa.array(columns[3], pa.float64())})
    return form(rows, 'qrels', name, folder)


def probabilities_form(probabilities: dict, name: str, folder: Path):
    """The intents' probabilities ``{query: {intent: (probability, type)}}`` in the form ``name``."""
    rows = [(query_id, intent, probability, kind) for query_id, intents in probabilities.items()
            for intent, (probability, kind) in intents.items()]
    if name == 'dict':
        return probabilities
    if name == 'DataFrame':
        return pd.DataFrame(rows, columns=['query_id', 'intent', 'probability', 'type'])
    path = folder / 'DINprob.txt'
    path.write_text(''.join(f'{q} {intent} {probability!r} {kind}\n' for q, intent, probability, kind in rows),
                    encoding='utf-8')
    return str(path)


def needs_probabilities(measures: list) -> bool:
    return any(str(measure) in NTCIR for measure in measures)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(diversity_rows(), st.sampled_from(DIVERSITY_QRELS_FORMS), st.sampled_from(RUN_FORMS),
       st.sampled_from(PROBABILITY_FORMS), st.booleans(), st.sampled_from([True, False, False, False]),
       st.sampled_from(DASK_LAYOUTS), st.integers(1, 3), st.booleans())
def test_diversity_qrels_give_the_same_numbers_or_the_same_error_everywhere(
        data, qrels_form, run_form, probabilities_kind, with_probabilities, with_command, dask_layout, npartitions,
        with_pyterrier):
    """Diversity qrels in every form that carries intents (wrapped with the intents' probabilities where NTCIREVAL's
    measures need them, and in some other examples too): the values of our provider given records, or the class of
    its error, from every entry point (the commands for a quarter of the examples, PyTerrier for half, with the
    measures that need no probabilities). ir_measures' pipeline computes ndeval's measures with pyndeval."""
    qrels_rows, run_rows, probabilities, measures, fault = data
    with_probabilities = with_probabilities or needs_probabilities(measures)
    assert all(kernel_of(measure).needs_intents for measure in measures if str(measure) not in AD_HOC)
    if run_form == 'dict-of-dict' and fault == 'duplicate doc':
        run_form = 'records'  # (a dict-of-dict holds one score per doc: it cannot hold the fault)
    with tempfile.TemporaryDirectory() as directory, warnings.catch_warnings(), \
            dask.config.set(scheduler='synchronous'), contextlib.redirect_stderr(io.StringIO()):
        warnings.simplefilter('ignore')  # (one intent, no overlap, ...; pyndeval's warning on stderr)
        folder = Path(directory)
        files = write_files(qrels_rows, run_rows, folder)
        in_form = probabilities_form(probabilities, probabilities_kind, folder)

        def qrels():
            drawn = diversity_form(qrels_rows, qrels_form, folder)
            return irmeasures_ext.intent_qrels(drawn, in_form) if with_probabilities else drawn

        def run():
            return form(run_rows, 'run', run_form, folder)

        def records():  # (the reference's: records, and the probabilities as a dict)
            plain = diversity_form(qrels_rows, 'records', folder)
            return irmeasures_ext.intent_qrels(plain, probabilities) if with_probabilities else plain

        run_records = form(run_rows, 'run', 'records', folder)
        kind, want = outcome(lambda: irmeasures_ext.provider.calc_aggregate(measures, records(), run_records))
        kind_per_query, want_per_query = outcome(
            lambda: per_query(irmeasures_ext.provider.evaluator(measures, records()).iter_calc(run_records)))
        assert kind == kind_per_query
        if fault == 'none' and not (any(str(m) in AD_HOC for m in measures) and conflicting(qrels_rows)):
            assert kind == 'values', want
        else:  # (a fault, or an ad hoc measure on a doc with a label per intent: no one label for it)
            assert (kind, want) == ('error', InputError)
        runs = ('a', 'b')
        want_compare = compared_means(measures, want_per_query, runs) if kind == 'values' else want
        aggregates, per_queries = entry_points(measures, qrels, run, lambda: dask_run(
            form(run_rows, 'run', 'DataFrame', folder), dask_layout, npartitions))
        if qrels_form == run_form == 'records' and (not with_probabilities or probabilities_kind == 'dict'):
            del aggregates['our provider']  # (the reference's own call)
        kind_theirs = kind
        if kind == 'values' and refused_by_pyndeval(measures, qrels_rows):
            kind_theirs, want_theirs, want_theirs_per_query = 'error', InputError, InputError
        elif kind == 'values':
            want_theirs, want_theirs_per_query = through_pyndeval(measures, want, want_per_query,
                                                                  {query_id for query_id, _, _ in run_rows})
        else:
            want_theirs, want_theirs_per_query = want, want_per_query
        # Excluded: a spoilt input in a form ir_measures reads itself, all of whose measures its pipeline gives to
        # pyndeval (none to ours): only our provider and readers check a run (a doc twice in a query, a score that is
        # not a number) and qrels (a doc judged twice for an intent with two labels), and pyndeval evaluates them as
        # they are (as pytrec_eval does for ir_measures' own measures); and an empty DataFrame of qrels, which
        # irmeasures_ext.interop leaves to ir_measures on purpose (PyTerrier's batched pt.Experiment hands it a batch
        # of topics without qrels): pyndeval gives every measure NaN. (PyTerrier hands ir_measures the qrels and run
        # as DataFrames with ir_measures' column names: the same for pt.Experiment, below.)
        all_pyndeval = PYNDEVAL and all(str(measure) in NDEVAL for measure in measures)
        unchecked = all_pyndeval and (
            (fault in ('duplicate doc', 'NaN score') and run_form in IR_MEASURES_READS)
            or (fault == 'conflicting labels' and qrels_form in IR_MEASURES_READS and not with_probabilities)
            or (fault == 'no judgment' and qrels_form == 'DataFrame' and not with_probabilities))
        for name, call in aggregates.items():
            if not (unchecked and name.startswith('ir_measures')):
                check(name, call, *((kind_theirs, want_theirs) if name.startswith('ir_measures') else (kind, want)))
        for name, call in per_queries.items():
            if not (unchecked and name.startswith('ir_measures')):
                check(name, call, *((kind_theirs, want_theirs_per_query) if name.startswith('ir_measures')
                                    else (kind_per_query, want_per_query)))
        check('irmeasures_ext.compare', lambda: via_compare(measures, qrels(), {name: run() for name in runs}),
              kind, want_compare)
        check('tie report', lambda: via_tie_report(measures, qrels(), run()), kind,
              by_name(want) if kind == 'values' else want)
        # PyTerrier: the measures that need no intent probabilities (its qrels are a DataFrame, with an iteration
        # column), but where it hands every one to pyndeval a spoilt input (excluded above).
        without_probabilities = [measure for measure in measures if str(measure) not in NTCIR]
        if with_pyterrier and pt is not None and without_probabilities and not (
                PYNDEVAL and all(str(measure) in NDEVAL for measure in without_probabilities)
                and fault in ('duplicate doc', 'NaN score', 'conflicting labels')):
            check_pyterrier(without_probabilities, qrels_rows, run_rows, fault)
        if with_command:
            options = ['--intents', probabilities_form(probabilities, 'DINprob file', folder)] \
                if with_probabilities else []
            got_kind, got = via_command(measures, *files, *options)
            assert got_kind == kind and (kind == 'error' or same_values(got, want_per_query)), got
            got_kind, got = via_ties_command(measures, *files, *options)
            assert got_kind == kind and (kind == 'error' or same_values(got, by_name(want))), got
            got_kind, got = via_compare_command(measures, *files, *options)
            assert got_kind == kind and (kind == 'error' or same_values(got, want_compare)), got


def refused_by_pyndeval(measures: list, qrels_rows: list[tuple]) -> bool:
    """Whether ir_measures' pipeline gives one of ``measures`` to pyndeval while the qrels have a real-valued label:
    irmeasures_ext.interop refuses that in one line (pyndeval binarises at 1, where ours takes every label above 0
    for relevant: an LLM judge's 0.35 would count for nothing there, and count here)."""
    return PYNDEVAL and any(str(measure) in NDEVAL for measure in measures) and any(
        not float(row[-1]).is_integer() for row in qrels_rows)


def through_pyndeval(measures: list, want: dict, want_per_query: dict, answered: set) -> tuple[dict, dict]:
    """What ir_measures' entry points give (aggregated, per query) where its pipeline hands ndeval's measures to
    pyndeval (integer labels: :func:`refused_by_pyndeval` otherwise): our provider's values, but for a qrels query
    the run does not answer, where ours gives the value of an empty ranking and ir_measures the measure's DEFAULT
    (its evaluators give it to the queries a provider does not return: pyndeval returns the run's only). They
    differ where ours is NaN: nNRBP of a query whose intents have no relevant doc. The other measures are ours, as
    our provider gives them."""
    theirs = [measure for measure in measures if str(measure) in NDEVAL]
    if not theirs or not PYNDEVAL:
        return want, want_per_query
    by_name_of = {str(measure): measure for measure in theirs}
    per_query_values = dict(want_per_query)
    for (name, query_id), value in want_per_query.items():
        if name in by_name_of and query_id not in answered and math.isnan(value):
            per_query_values[name, query_id] = by_name_of[name].DEFAULT
    aggregates = dict(want)
    for measure in theirs if want else ():
        values = [value for (name, _), value in per_query_values.items() if name == str(measure)]
        aggregates[measure] = math.fsum(values) / len(values)  # (ndeval's measures: all aggregated by the mean)
    return aggregates, per_query_values


def conflicting(qrels_rows: list[tuple]) -> bool:
    """Whether a doc of the diversity qrels has two labels (for two intents)."""
    labels: dict = {}
    return any(labels.setdefault((query_id, doc_id), label) != label for query_id, _, doc_id, label in qrels_rows)


def test_the_diversity_forms_are_what_they_say(tmp_path):
    rows = [('q', 'i1', 'a', 1), ('q', 'i2', 'a', 2)]
    assert [record.iteration for record in diversity_form(rows, 'records', tmp_path)] == ['i1', 'i2']
    assert list(diversity_form(rows, 'DataFrame', tmp_path).columns) == ['query_id', 'doc_id', 'relevance',
                                                                         'iteration']
    assert 'iteration' in diversity_form(rows, "PyTerrier's DataFrame", tmp_path).columns
    assert diversity_form(rows, 'Arrow table', tmp_path).column('intent').to_pylist() == ['i1', 'i2']
    write_files(rows, [], tmp_path)
    assert (tmp_path / 'qrels.txt').read_text(encoding='utf-8') == 'q i1 a 1\nq i2 a 2\n'
    probabilities = {'q': {'i1': (0.25, 'nav'), 'i2': (0.75, 'inf')}}
    assert Path(probabilities_form(probabilities, 'DINprob file', tmp_path)).read_text(encoding='utf-8') == \
        'q i1 0.25 nav\nq i2 0.75 inf\n'
    assert probabilities_form(probabilities, 'DataFrame', tmp_path).values.tolist() == [['q', 'i1', 0.25, 'nav'],
                                                                                         ['q', 'i2', 0.75, 'inf']]


@pytest.mark.filterwarnings('ignore::irmeasures_ext.errors.RepeatedJudgmentWarning')  # (doc a, for Q@10)
@pytest.mark.parametrize('qrels_form', DIVERSITY_QRELS_FORMS)
def test_a_clean_diversity_input_in_every_qrels_form(tmp_path, qrels_form):
    """Each form of diversity qrels at least once, with and without the intents' probabilities, through
    ir_measures (pyndeval for ndeval's measures) and our provider."""
    qrels_rows = [('1', 'i1', 'a', 2), ('1', 'i2', 'a', 2), ('1', 'i2', 'b', 1), ('1', 'i1', 'c', 0),
                  ('2', 'i1', 'x', 1), ('2', 'i3', 'y', 3)]
    run_rows = [('1', 'c', 3.0), ('1', 'b', 2.0), ('1', 'a', 1.0), ('2', 'y', 2.0), ('2', 'z', 1.0)]
    write_files(qrels_rows, run_rows, tmp_path)
    probabilities = {'1': {'i1': (0.5, 'inf'), 'i2': (0.5, 'nav')}, '2': {'i1': (0.25, 'inf'), 'i3': (0.75, 'inf')}}
    run = form(run_rows, 'run', 'records', tmp_path)
    for measures, wrapped in (([*NDEVAL, *AD_HOC], lambda qrels: qrels),
                              ([*NDEVAL, *NTCIR, *AD_HOC], lambda qrels: irmeasures_ext.intent_qrels(qrels,
                                                                                                     probabilities))):
        measures = [ir_measures.parse_measure(measure) for measure in measures]
        want = irmeasures_ext.provider.calc_aggregate(
            measures, wrapped(diversity_form(qrels_rows, 'records', tmp_path)), run)
        assert not any(math.isnan(value) for value in want.values())
        for calc_aggregate in (ir_measures.calc_aggregate, irmeasures_ext.provider.calc_aggregate):
            assert same_values(calc_aggregate(measures, wrapped(diversity_form(qrels_rows, qrels_form, tmp_path)),
                                              run), want), calc_aggregate


@pytest.mark.filterwarnings('ignore::irmeasures_ext.errors.RepeatedJudgmentWarning')  # (doc a, for Q@10)
def test_intent_qrels_of_a_generator_through_ir_measures_beside_pyndeval():
    """``intent_qrels(a generator, ...)`` with a measure of pyndeval and an ad hoc one of ours: ir_measures' pipeline
    reads the qrels once with their intents for both providers, and ours, needing none, read the generator again:
    "qrels: no records (... a generator ... already read ...)". Now ours take the lines read, without intents."""
    pytest.importorskip('pyndeval', reason='the test extra installs pyndeval')
    records = [ir_measures.Qrel('1', 'a', 1, 'i1'), ir_measures.Qrel('1', 'a', 1, 'i2'),
               ir_measures.Qrel('1', 'b', 0, 'i1'), ir_measures.Qrel('2', 'c', 2, 'i1')]
    probabilities = {'1': {'i1': 0.5, 'i2': 0.5}, '2': {'i1': 1.0}}
    run = [ir_measures.ScoredDoc('1', 'b', 2.0), ir_measures.ScoredDoc('1', 'a', 1.0),
           ir_measures.ScoredDoc('2', 'c', 1.0)]
    measures = [ir_measures.parse_measure('AP_IA'), Q @ 10]
    want = irmeasures_ext.provider.calc_aggregate(measures, records, run)
    assert want == pytest.approx({measures[0]: (1 / 2 + 1) / 2, Q @ 10: (2 / 3 + 1) / 2}, abs=1e-15)
    with contextlib.redirect_stderr(io.StringIO()):  # (pyndeval's warning: some query has one intent)
        got = ir_measures.calc_aggregate(measures, irmeasures_ext.intent_qrels(iter(records), probabilities), run)
    assert same_values(got, want)
