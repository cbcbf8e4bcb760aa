"""ir_measures' providers on one generated input, as JSON (tests/interop/test_guest.py's property test).

The test imports :func:`evaluate` and computes the side "with the plugin" in its own process; it runs this
file as a script, with ``IRMEASURES_EXT_NO_AUTOLOAD=1``, for the side "without": one input per line of JSON
on standard input, its results as one line of JSON on standard output. Imports nothing of irmeasures_ext.
"""
import json
import re
import sys
import tempfile

import ir_measures
import pandas as pd


def _judged_retrieved(qrels: pd.DataFrame, run: pd.DataFrame) -> float:
    return float(run['doc_id'].isin(qrels['doc_id']).sum())


#: A measure of ir_measures' ``runtime`` provider (``ir_measures.define_byquery``; it registers no name).
JUDGED_RETRIEVED = ir_measures.define_byquery(_judged_retrieved, name='GuestJudgedRetrieved')

#: ir_measures' own measures asked of each provider (all of a provider's in one call); ``DefaultPipeline``:
#: ``ir_measures.calc`` itself.
MEASURES = {
    'pytrec_eval': ['AP', 'AP@5', 'AP(judged_only=True)', 'P@5', 'P(rel=2)@5', 'R@5', 'RR', 'Rprec', 'nDCG',
                    'nDCG@5', 'Bpref', 'NumRel', 'NumRet', 'NumRet(rel=1)', 'NumQ', 'Success@5', 'infAP', 'SetP',
                    'SetR', 'SetF', 'SetAP', 'IPrec@0.2'],
    'cwl_eval': ['P@5', 'RR', 'AP', 'RBP(rel=1,p=0.8)', 'BPM(T=1.0,max_rel=4)@5', 'SDCG(max_rel=4)@5',
                 'NERR8(max_rel=4)@5', 'NERR9(max_rel=4)@5', 'NERR10(p=0.8,max_rel=4)', 'NERR11(T=1.0,max_rel=4)',
                 'INST(T=1.0,max_rel=4)', 'INSQ(T=1.0,max_rel=4)'],
    'trectools': ['P@5', 'RR', 'Rprec', 'AP', 'nDCG@5', 'Bpref', 'RBP(p=0.8)'],
    'pyndeval': ['ERR_IA@5', 'nERR_IA@5', 'alpha_DCG@5', 'alpha_nDCG@5', 'NRBP', 'nNRBP', 'AP_IA', 'P_IA@5',
                 'StRecall@5'],
    'gdeval': ['ERR@5', "nDCG(dcg='exp-log2')@5"],
    'judged': ['Judged@5', 'Judged@10'],
    'msmarco': ['RR@10', 'RR(rel=2)@10'],
    'compat': ['Compat(p=0.8)', 'Compat(p=0.95,normalize=False)'],
    'accuracy': ['Accuracy@5'],
    'ranx': ['P@5', 'AP', 'RR', 'nDCG@5', 'Rprec', 'R@5', 'SetP', 'SetR', 'NumRet(rel=1)', 'Success@5'],
    'runtime': [],
    'DefaultPipeline': ['AP', 'nDCG@5', 'P@5', 'RR@10', 'Judged@5', 'Compat(p=0.8)', 'ERR_IA@5'],
}


def measures_of(name: str) -> list:
    """The measures :data:`MEASURES` names for the provider ``name``."""
    extra = [JUDGED_RETRIEVED @ 5] if name == 'runtime' else []
    return [ir_measures.parse_measure(text) for text in MEASURES[name]] + extra


def provider_of(name: str):
    return ir_measures.DefaultPipeline if name == 'DefaultPipeline' else ir_measures.providers.registry[name]


def inputs_of(example: dict) -> tuple:
    """The qrels and run of ``example`` (lists of ``[query_id, doc_id, label, intent]`` and
    ``[query_id, doc_id, score]``) in its ``form``: records, a generator of them, a dict-of-dict or a DataFrame."""
    qrels = [ir_measures.Qrel(*row) for row in example['qrels']]
    run = [ir_measures.ScoredDoc(*row) for row in example['run']]
    if example['form'] == 'generator':
        return (qrel for qrel in qrels), (doc for doc in run)
    if example['form'] == 'dict':
        qrels_dict: dict = {}
        run_dict: dict = {}
        for qrel in qrels:
            qrels_dict.setdefault(qrel.query_id, {})[qrel.doc_id] = qrel.relevance
        for doc in run:
            run_dict.setdefault(doc.query_id, {})[doc.doc_id] = doc.score
        return qrels_dict, run_dict
    if example['form'] == 'frame':
        return (pd.DataFrame(qrels, columns=list(ir_measures.Qrel._fields)),
                pd.DataFrame(run, columns=list(ir_measures.ScoredDoc._fields)))
    return qrels, run


def evaluate(example: dict) -> dict:
    """Each provider's results on ``example`` (see :func:`inputs_of`): its values (``repr``, per query sorted) or
    its error (class and message, temporary files' names and addresses left out), or that it is not available."""
    results = {}
    for name in MEASURES:
        provider = provider_of(name)
        if not provider.is_available():
            results[name] = {'available': False}
            continue
        qrels, run = inputs_of(example)
        try:
            computed = provider.calc(measures_of(name), qrels, run)
        except Exception as error:  # noqa: BLE001  (compared between the two processes)
            results[name] = {'error': [f'{type(error).__module__}.{type(error).__qualname__}', _stable(str(error))]}
            continue
        results[name] = {'aggregated': sorted([str(m), repr(v)] for m, v in computed.aggregated.items()),
                         'per_query': sorted([m.query_id, str(m.measure), repr(m.value)] for m in computed.per_query)}
    return results


def _stable(message: str) -> str:
    """``message`` without what differs from one process to another (temporary files, addresses)."""
    message = re.sub(re.escape(tempfile.gettempdir()) + r'/tmp\w+', '<tmp>', message)
    return re.sub(r' at 0x[0-9a-fA-F]+', '', message)


def main() -> None:
    for line in sys.stdin:
        print(json.dumps({'results': evaluate(json.loads(line)), 'irmeasures_ext': 'irmeasures_ext' in sys.modules}),
              flush=True)


if __name__ == '__main__':
    main()
