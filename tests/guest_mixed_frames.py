"""What ir_measures' entry points give DataFrames that mix its column names with PyTerrier's
(tests/interop/test_guest.py): each (frame, entry point) with its error's class and message, or its values.
irmeasures_ext's converters read a DataFrame only when it has all of PyTerrier's names for its kind and not all of
ir_measures' (irmeasures_ext.guest, change 5): a mix is left to ir_measures. The test calls :func:`outcomes` in its
own process (the plugin installed) and runs this file as a script with ``IRMEASURES_EXT_NO_AUTOLOAD=1`` (without: it
imports nothing of irmeasures_ext), which prints them as JSON."""
import ast
import json
import re
import sys

import ir_measures
import pandas as pd

QRELS = [('q1', 'a', 1), ('q1', 'b', 0), ('q2', 'c', 2)]
RUN = [('q1', 'a', 2.0), ('q1', 'b', 1.0), ('q2', 'c', 1.0), ('q2', 'd', 3.0)]

#: Frames whose names are neither all ir_measures' nor all PyTerrier's: each of ir_measures' names for qrels and
#: runs replaced by PyTerrier's in turn, PyTerrier's qrels without ``label``, and every name of both but one.
MIXED_QRELS = {'query_id docno relevance': ['query_id', 'docno', 'relevance'],
               'qid doc_id relevance': ['qid', 'doc_id', 'relevance'],
               'query_id doc_id label': ['query_id', 'doc_id', 'label'],
               'qid docno relevance': ['qid', 'docno', 'relevance'],
               'qid docno score (a run as qrels)': ['qid', 'docno', 'score']}
MIXED_RUNS = {'query_id docno score': ['query_id', 'docno', 'score'],
              'qid doc_id score': ['qid', 'doc_id', 'score'],
              'qid docno label (qrels as a run)': ['qid', 'docno', 'label']}
#: Measures of ir_measures' providers (pytrec_eval, judged, msmarco, cwl_eval, compat) through its pipeline.
MEASURES = ['AP', 'P@5', 'nDCG@10', 'RR@10', 'Judged@5', 'Compat(p=0.8)']


def _outcome(call) -> list:
    try:
        result = call()
    except Exception as error:  # noqa: BLE001  (the outcome compared is the error itself)
        return ['error', f'{type(error).__module__}.{type(error).__qualname__}', _stable(str(error))]
    return ['values', sorted((str(key), value) for key, value in result.items()) if isinstance(result, dict)
            else sorted((metric.query_id, str(metric.measure), metric.value) for metric in result)]


def _stable(message: str) -> str:
    """``message`` with the columns ir_measures names as missing sorted: it lists a set, whose order changes from
    one process to another (``PYTHONHASHSEED``)."""
    return re.sub(r'(?<=missing columns: )\[[^\]]*\]', lambda names: str(sorted(ast.literal_eval(names[0]))), message)


def outcomes() -> dict:
    """Each mixed frame given as qrels (with a plain run) or as a run (with plain qrels) to ir_measures' converters,
    ``calc_aggregate``, ``iter_calc`` and the pytrec_eval provider: the outcome of each."""
    measures = [ir_measures.parse_measure(text) for text in MEASURES]
    results = {}
    cases = [('qrels', name, columns) for name, columns in MIXED_QRELS.items()] + \
            [('run', name, columns) for name, columns in MIXED_RUNS.items()]
    for kind, name, columns in cases:
        def frame(columns=columns, kind=kind):
            return pd.DataFrame(QRELS if kind == 'qrels' else RUN, columns=columns)

        def inputs(frame=frame, kind=kind):
            return (frame(), [ir_measures.ScoredDoc(*row) for row in RUN]) if kind == 'qrels' else \
                ([ir_measures.Qrel(*row) for row in QRELS], frame())

        converter = ir_measures.util.QrelsConverter if kind == 'qrels' else ir_measures.util.RunConverter
        results[f'{kind} {name}'] = {
            'converter': _outcome(lambda converter=converter, frame=frame: converter(frame()).as_dict_of_dict()),
            'calc_aggregate': _outcome(lambda inputs=inputs: ir_measures.calc_aggregate(measures, *inputs())),
            'iter_calc': _outcome(lambda inputs=inputs: list(ir_measures.iter_calc(measures, *inputs()))),
            'pytrec_eval': _outcome(lambda inputs=inputs: ir_measures.pytrec_eval.calc_aggregate(measures[:3],
                                                                                                   *inputs())),
        }
    return results


if __name__ == '__main__':
    assert 'irmeasures_ext' not in sys.modules, 'run with IRMEASURES_EXT_NO_AUTOLOAD=1'
    print(json.dumps(outcomes()))
