"""Several judgement sets (issue 46): runs evaluated under each set, sets merged with a precedence, the holes each
leaves, and the ``judges`` and ``holes`` commands. Every value is checked against the plain references of
``tests/reference.py`` (written from the definitions), applied here to inputs merged, condensed or filled by
plain dict code of this file."""
from __future__ import annotations

import math
import random
import statistics
from pathlib import Path

import ir_measures
import pandas as pd
import pytest
import reference as ref
from public_paths import main

from irmeasures_ext import InputError, MeasureParamError
from irmeasures_ext.judges.agreement import agreement
from irmeasures_ext.judges.holes import holes
from irmeasures_ext.judges.sets import evaluate_under, filled, judgement_sets, judgements_frame

TOLERANCE = 1e-12
#: Each measure's reference on one query's ranking and judgments.
REFERENCES = {
    'AP': ref.average_precision,
    'P@5': lambda ranking, judged: ref.precision(ranking, judged, 5),
    'nDCG@10': lambda ranking, judged: ref.trec_ndcg(ranking, judged, 10),
    'Q@10': lambda ranking, judged: ref.q_measure(ranking, judged, cutoff=10),
}
MEASURES = list(REFERENCES)


def collection(seed: int, n_queries: int = 6, n_runs: int = 3) -> tuple[dict, dict, dict]:
    """Two judgement sets (NIST: labels 0-3 on a pool; LLM: another view of most of it, plus docs NIST left
    unjudged, and a query NIST has not) and runs that retrieve judged and unjudged docs."""
    rng = random.Random(seed)
    nist: dict[str, dict[str, int]] = {}
    llm: dict[str, dict[str, int]] = {}
    runs: dict[str, dict[str, dict[str, float]]] = {f'run{i}': {} for i in range(n_runs)}
    for q in range(n_queries):
        query_id = f'q{q}'
        docs = [f'd{q}_{i}' for i in range(25)]
        pool = rng.sample(docs, 12)
        nist[query_id] = {doc: rng.choice([0, 0, 1, 2, 3]) for doc in pool}
        llm[query_id] = {doc: min(3, max(0, label + rng.choice([-1, 0, 0, 1]))) for doc, label in nist[query_id].items()
                         if rng.random() < 0.8}
        llm[query_id].update({doc: rng.choice([0, 1, 2]) for doc in rng.sample(docs, 5) if doc not in pool})
        for run in runs.values():
            run[query_id] = {doc: rng.random() for doc in rng.sample(docs, rng.randint(3, 15))}
    llm['q_llm_only'] = {'x': 1}
    return nist, llm, runs


def records(qrels: dict) -> list[tuple]:
    return [(q, d, label) for q, docs in qrels.items() for d, label in docs.items()]


def frame(qrels: dict) -> pd.DataFrame:
    return pd.DataFrame(records(qrels), columns=['query_id', 'doc_id', 'relevance'])


def reference_mean(measure: str, qrels: dict, run: dict) -> float:
    """The measure's mean over the qrels' queries (a query the run does not answer counts with an empty list)."""
    return statistics.fmean(REFERENCES[measure](ref.trec_ranking(run.get(q, {})), judged)
                            for q, judged in qrels.items())


def write_trec(folder: Path, nist: dict, llm: dict, runs: dict) -> tuple[Path, Path, Path]:
    for name, qrels in (('nist', nist), ('llm', llm)):
        (folder / f'{name}.txt').write_text(''.join(f'{q} 0 {d} {label}\n' for q, d, label in records(qrels)))
    (folder / 'runs').mkdir()
    for name, run in runs.items():
        (folder / 'runs' / f'{name}.txt').write_text(''.join(
            f'{q} Q0 {d} 0 {score!r} {name}\n' for q, docs in run.items() for d, score in docs.items()))
    return folder / 'nist.txt', folder / 'llm.txt', folder / 'runs'


@pytest.mark.parametrize('seed', range(3))
def test_every_run_under_every_set_equals_the_references(seed):
    nist, llm, runs = collection(seed)
    sets = {'NIST': frame(nist), 'LLM': [ir_measures.Qrel(*row) for row in records(llm)]}
    scores = evaluate_under(sets, {name: frame_run(run) for name, run in runs.items()}, MEASURES)
    assert list(scores.columns) == ['judge', 'run', 'measure', 'value'] and len(scores) == 2 * len(runs) * 4
    for row in scores.itertuples():
        qrels = nist if row.judge == 'NIST' else llm
        assert row.value == pytest.approx(reference_mean(row.measure, qrels, runs[row.run]), abs=TOLERANCE), row
    per_query = evaluate_under({'NIST': frame(nist), 'LLM': frame(llm)}, {'run0': frame_run(runs['run0'])},
                               ['AP'], per_query=True)
    assert sorted(per_query.loc[per_query.judge == 'LLM', 'query_id']) == sorted(llm)
    for row in per_query.itertuples():
        judged = (nist if row.judge == 'NIST' else llm)[row.query_id]
        assert row.value == pytest.approx(ref.average_precision(ref.trec_ranking(runs['run0'].get(row.query_id, {})),
                                                                judged), abs=TOLERANCE)


def frame_run(run: dict) -> pd.DataFrame:
    return pd.DataFrame([(q, d, s) for q, docs in run.items() for d, s in docs.items()],
                        columns=['query_id', 'doc_id', 'score'])


def test_the_sets_from_a_table_with_a_judge_column_and_their_checks():
    nist, llm, _ = collection(7)
    table = pd.concat([frame(nist).assign(judge='NIST'), frame(llm).assign(judge='LLM')])
    assert list(judgement_sets(table)) == ['NIST', 'LLM']
    got = judgements_frame(table)
    assert list(got.columns) == ['judge', 'query_id', 'doc_id', 'relevance']
    assert sorted(map(tuple, got[got.judge == 'LLM'][['query_id', 'doc_id', 'relevance']].to_numpy().tolist())) == \
        sorted(records(llm))
    with pytest.raises(InputError, match='a mapping name → qrels, or a table with a judge column'):
        judgement_sets(frame(nist))
    with pytest.raises(InputError, match='conflicting|two labels|judged'):
        judgements_frame({'NIST': frame({**nist, 'q0': nist['q0']}).pipe(
            lambda qrels: pd.concat([qrels, qrels.head(1).assign(relevance=9)]))})


@pytest.mark.parametrize('all_queries', [False, True])
def test_filled_takes_each_label_from_the_first_set_that_has_it(all_queries):
    nist, llm, _ = collection(1)
    got = filled({'NIST': frame(nist), 'LLM': frame(llm)}, all_queries=all_queries)
    want = {}
    for judge, qrels in (('NIST', nist), ('LLM', llm)):
        for q, d, label in records(qrels):
            if (all_queries or q in nist) and (q, d) not in want:
                want[(q, d)] = (label, judge)
    assert {(row.query_id, row.doc_id): (row.relevance, row.judge) for row in got.itertuples()} == want
    reversed_order = filled({'NIST': frame(nist), 'LLM': frame(llm)}, precedence=['LLM', 'NIST'])
    assert set(reversed_order.query_id) == set(llm)
    with pytest.raises(InputError, match='precedence'):
        filled({'NIST': frame(nist), 'LLM': frame(llm)}, precedence=['NIST', 'UMBRELA'])


def test_the_filled_qrels_evaluate_as_umbrela_reports_them():
    """The table of each run under the original and the filled qrels."""
    nist, llm, runs = collection(2)
    merged = filled({'NIST': frame(nist), 'LLM': frame(llm)})
    scores = evaluate_under({'NIST': frame(nist), 'NIST+LLM': merged}, {n: frame_run(r) for n, r in runs.items()},
                            ['AP'])
    merged_dict: dict = {}
    for q, d, label in records(llm) + records(nist):  # (NIST's label last: it wins)
        if q in nist:
            merged_dict.setdefault(q, {})[d] = label
    for row in scores[scores.judge == 'NIST+LLM'].itertuples():
        assert row.value == pytest.approx(reference_mean('AP', merged_dict, runs[row.run]), abs=TOLERANCE)


def plain_holes(qrels: dict, run: dict, measure: str, k: int, highest: float) -> dict:
    """The holes row of one run and measure, from the definitions, with dicts."""
    condensed_run = {q: {d: s for d, s in docs.items() if d in qrels.get(q, {})} for q, docs in run.items()}
    filled_qrels = {q: {**{d: highest for d in run.get(q, {}) if d not in judged}, **judged}
                    for q, judged in qrels.items()}
    shares = []
    for q, judged in qrels.items():
        top = ref.trec_ranking(run.get(q, {}))[:k]
        if top:
            shares.append(sum(doc not in judged for doc in top) / len(top))
    value, if_relevant = reference_mean(measure, qrels, run), reference_mean(measure, filled_qrels, run)
    return {'value': value, 'condensed': reference_mean(measure, qrels, condensed_run), 'if_relevant': if_relevant,
            'low': min(value, if_relevant), 'high': max(value, if_relevant),
            'unjudged': statistics.fmean(shares) if shares else math.nan}


@pytest.mark.parametrize(('seed', 'k', 'highest'), [(0, 10, None), (1, 5, None), (2, 3, 1), (3, 1, 2)])
def test_holes_equal_the_plain_holes(seed, k, highest):
    nist, llm, runs = collection(seed)
    table = holes({'NIST': frame(nist), 'LLM': frame(llm)}, {n: frame_run(r) for n, r in runs.items()}, MEASURES,
                  k=k, highest=highest)
    assert len(table) == 2 * len(runs) * len(MEASURES) and table.attrs['k'] == k
    for row in table.itertuples():
        qrels = nist if row.judge == 'NIST' else llm
        top = highest if highest is not None else max(label for judged in qrels.values() for label in judged.values())
        want = plain_holes(qrels, runs[row.run], row.measure, k, top)
        assert {key: getattr(row, key) for key in want} == pytest.approx(want, abs=TOLERANCE), row


def test_holes_refuse_diversity_measures_and_a_bad_depth():
    nist, _, runs = collection(0)
    with pytest.raises(MeasureParamError, match='need intents'):
        holes({'NIST': frame(nist)}, {'a': frame_run(runs['run0'])}, ['alpha_nDCG@10'])
    with pytest.raises(MeasureParamError, match='k must be an integer from 1'):
        holes({'NIST': frame(nist)}, {'a': frame_run(runs['run0'])}, ['AP'], k=0)


def test_the_holes_command_prints_the_table(tmp_path, capsys):
    nist, llm, runs = collection(4)
    nist_path, llm_path, folder = write_trec(tmp_path, nist, llm, runs)
    want = holes({'nist': str(nist_path)}, {n: str(folder / f'{n}.txt') for n in runs}, ['AP', 'P@5'], k=5)
    assert main(['holes', str(nist_path), str(folder), 'AP', 'P@5', '-k', '5', '-p', '-1']) == 0
    lines = [line.split('\t') for line in capsys.readouterr().out.splitlines()]
    assert lines[0] == list(want.columns)
    assert [row[:3] for row in lines[1:]] == want[['judge', 'run', 'measure']].to_numpy().tolist()
    assert [[float(x) for x in row[3:]] for row in lines[1:]] == want.iloc[:, 3:].to_numpy().tolist()
    assert main(['holes', '--qrels', f'N={nist_path}', '--qrels', f'L={llm_path}', str(folder / 'run0.txt'), 'AP',
                 '-o', 'jsonl']) == 0
    judges = [line.split('"judge": "')[1].split('"')[0] for line in capsys.readouterr().out.splitlines()]
    assert judges == ['N', 'L']


def test_compare_gives_each_run_its_holes(tmp_path, capsys):
    """``compare(..., holes_at=k)`` and ``compare --holes K``: each run's rows carry its holes under the qrels."""
    import irmeasures_ext
    nist, llm, runs = collection(5)
    nist_path, _, folder = write_trec(tmp_path, nist, llm, runs)
    table = irmeasures_ext.compare(str(nist_path), {n: frame_run(r) for n, r in runs.items()}, ['AP', 'Q@10'],
                                   holes_at=4)
    assert list(table.columns[-4:]) == ['unjudged', 'condensed', 'low', 'high']
    for row in table.itertuples():
        want = plain_holes(nist, runs[row.run], row.measure, 4, 3)
        assert {key: getattr(row, key) for key in ('unjudged', 'condensed', 'low', 'high')} == pytest.approx(
            {key: want[key] for key in ('unjudged', 'condensed', 'low', 'high')}, abs=TOLERANCE)
    assert main(['compare', str(nist_path), *(str(folder / f'{n}.txt') for n in runs), 'AP', 'Q@10', '--holes', '4',
                 '-p', '-1']) == 0
    lines = [line.split('\t') for line in capsys.readouterr().out.splitlines()]
    assert lines[0][-4:] == ['unjudged', 'condensed', 'low', 'high']
    assert [[float(x) for x in line[-4:]] for line in lines[1:]] == table.iloc[:, -4:].to_numpy().tolist()
    assert main(['compare', str(nist_path), *(str(folder / f'{n}.txt') for n in runs), 'AP', '--holes', '4',
                 '-o', 'latex']) == 2
    assert '--holes adds columns' in capsys.readouterr().err


@pytest.mark.parametrize('call, name', [
    (lambda sets: filled(sets, all_queries='no'), 'all_queries'),  # ('no' is truthy: it would add queries)
    (lambda sets: evaluate_under(sets, {'r': {'q0': {'d0': 1.0}}}, ['AP'], per_query='no'), 'per_query'),
    (lambda sets: agreement(sets, per_query=1), 'per_query'),
])
def test_flags_must_be_bools_not_truthy_values(call, name):
    nist, llm, _ = collection(1)
    with pytest.raises(InputError, match=f'{name} must be True or False, got'):
        call({'NIST': frame(nist), 'LLM': frame(llm)})
