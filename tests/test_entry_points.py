"""One input, every public entry point (issue 45 §2): our provider by name, ``ir_measures.calc_aggregate``,
``iter_calc`` and ``evaluator`` with our measures (and ir_measures' own beside them, on labels from 0),
``irmeasures_ext.frames``, and the ``irmeasures-ext`` command, each given the qrels and the run in a form drawn from
records, a generator, a dict-of-dict, DataFrames with ir_measures' and PyTerrier's column names, an Arrow table, and
TREC file paths (``str`` and ``pathlib.Path``), give the same numbers or an error of the same class. The inputs are
drawn by tests/strategies.py, then spoilt one way or none: a doc twice in a query of the run, a doc judged twice
with two labels, a score that is not a number, qrels without a judgment."""
from __future__ import annotations

import contextlib
import io
import json
import math
import tempfile
import warnings
from pathlib import Path

import ir_measures
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import LABELS, REAL_LABELS, qrels_and_run

import irmeasures_ext
from irmeasures_ext import InputError, IrMeasuresExtError, MeanRank, MeasureParamError, Q, nDCG_Z1, nERR
from irmeasures_ext.cli import main
from irmeasures_ext.frames import evaluate_frame

#: Measures of ours: every entry point, ir_measures' pipeline included, gives them to our provider.
MEASURES = [Q @ 10, nDCG_Z1 @ 5, MeanRank, nERR @ 10, Q(beta=0.5) @ 3]
#: ir_measures' own, which its pipeline gives to pytrec_eval (ours computes them elsewhere, exact to trec_eval): drawn
#: beside ours for labels from 0 (trec_eval takes integers only, and crashes on a query judged only below -1).
THEIRS = [ir_measures.nDCG @ 10, ir_measures.P @ 5, ir_measures.AP, ir_measures.RR]
FAULTS = ['none', 'none', 'duplicate doc', 'conflicting labels', 'NaN score', 'no judgment']
FORMS = ['records', 'generator', 'dict-of-dict', 'DataFrame', "PyTerrier's DataFrame", 'Arrow table', 'str path',
         'Path']
QRELS_FORMS = RUN_FORMS = FORMS
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
    (folder / 'qrels.txt').write_text(''.join(f'{q} 0 {d} {label}\n' for q, d, label in qrels_rows), encoding='utf-8')
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


def via_command(measures: list, qrels: str, run: str) -> tuple[str, object]:
    """The ``irmeasures-ext`` command on the files (in-process): its per-query values, or 'error' (exit status 2)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([qrels, run, *map(str, measures), '-q', '-n', '-o', 'jsonl'])
    if status:
        assert status == 2 and err.getvalue().startswith('irmeasures-ext: error: '), err.getvalue()
        return 'error', None
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    return 'values', {(record['measure'], record['query_id']): record['value'] for record in records}


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(spoilt_rows(), st.sampled_from(QRELS_FORMS), st.sampled_from(RUN_FORMS),
       st.sampled_from([True, False, False, False]))
def test_every_entry_point_gives_the_same_numbers_or_the_same_error(data, qrels_form, run_form, with_command):
    """The values of our provider given records (per query, and aggregated), or the class of its error, from
    every entry point and form (the command for a quarter of the examples: it is the slowest)."""
    qrels_rows, run_rows, fault, measures = data
    if 'dict-of-dict' in (qrels_form, run_form) and fault in ('duplicate doc', 'conflicting labels'):
        qrels_form = run_form = 'records'  # (a dict-of-dict holds one value per doc: it cannot hold the fault)
    with tempfile.TemporaryDirectory() as directory, warnings.catch_warnings():
        warnings.simplefilter('ignore')  # (no overlap, listed by ascending score, labels above every threshold...)
        folder = Path(directory)
        files = write_files(qrels_rows, run_rows, folder)

        def qrels():
            return form(qrels_rows, 'qrels', qrels_form, folder)

        def run():
            return form(run_rows, 'run', run_form, folder)

        def per_query(metrics) -> dict:
            return {(str(metric.measure), metric.query_id): metric.value for metric in metrics}

        records = form(qrels_rows, 'qrels', 'records', folder), form(run_rows, 'run', 'records', folder)
        kind, want = outcome(lambda: irmeasures_ext.provider.calc_aggregate(measures, *records))
        kind_per_query, want_per_query = outcome(
            lambda: per_query(irmeasures_ext.provider.evaluator(measures, records[0]).iter_calc(records[1])))
        assert kind == kind_per_query
        if fault == 'none':
            assert kind == 'values', want
        elif fault in ('duplicate doc', 'conflicting labels', 'no judgment'):
            assert (kind, want) == ('error', InputError)
        aggregates = {
            'our provider': lambda: irmeasures_ext.provider.calc_aggregate(measures, qrels(), run()),
            'ir_measures.calc_aggregate': lambda: ir_measures.calc_aggregate(measures, qrels(), run()),
            'ir_measures.evaluator': lambda: ir_measures.evaluator(measures, qrels()).calc_aggregate(run()),
        }
        per_queries = {
            'ir_measures.iter_calc': lambda: per_query(ir_measures.iter_calc(measures, qrels(), run())),
            'our provider iter_calc': lambda: per_query(irmeasures_ext.provider.iter_calc(measures, qrels(), run())),
            'frames': lambda: {(row.measure, row.query_id): row.value
                               for row in evaluate_frame(measures, qrels(), run()).itertuples()},
        }
        for name, call in aggregates.items():
            got_kind, got = outcome(call)
            assert got_kind == kind and (same_values(got, want) if kind == 'values' else got == want), (name, got)
        for name, call in per_queries.items():
            got_kind, got = outcome(call)
            assert got_kind == kind and (same_values(got, want_per_query) if kind == 'values'
                                         else got == want_per_query), (name, got)
        if with_command:
            got_kind, got = via_command(measures, *files)
            assert got_kind == kind and (kind == 'error' or same_values(got, want_per_query)), got


def test_the_forms_are_what_they_say():
    """The forms of the property test, checked once (a form that silently fell back would test nothing)."""
    rows = [('q', 'a', 1)]
    with tempfile.TemporaryDirectory() as directory:
        folder = Path(directory)
        assert isinstance(form(rows, 'qrels', 'generator', folder), type(iter([])))
        assert list(form(rows, 'qrels', "PyTerrier's DataFrame", folder).columns) == ['qid', 'docno', 'label']
        assert isinstance(form(rows, 'run', 'Path', folder), Path)
        assert form(rows, 'run', 'dict-of-dict', folder) == {'q': {'a': 1}}


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
