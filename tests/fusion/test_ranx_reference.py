"""irmeasures_ext.fusion against ranx 0.3.21 on our generated runs (tests/data/ranx_fusion, see its README): every
reference case (the supervised methods given the parameters ranx trained), the same docs and scores (to 1e-9,
relative for the ~1e10 values of ``max`` norm on negative runs) and the same tie groups as sets, on every query whose
ranx output does not depend on ``PYTHONHASHSEED``; the normalised runs alike. What differs by design is tested in
test_fusion_semantics.py, and left out here: ``zmuv`` on ``main`` (ranx's defect: compared on ``common``), the
rank-based methods on the long runs (ranx ranks ties by quicksort), the queries where ranx fuses
``make_comparable``'s empty lists (:data:`EMPTY_LIST_QUERIES`) and CombMAX's −1e9 for a missing doc
(:func:`test_comb_max_of_the_present_scores`)."""
import gzip
import itertools
import json
import random
from collections import defaultdict

import pytest
from conftest import DATA

from irmeasures_ext.fusion import METHODS, SUPERVISED, fuse, normalized, pool, train

FOLDER = DATA / 'ranx_fusion'
REFERENCE = json.loads(gzip.decompress((FOLDER / 'reference.json.gz').read_bytes()))
NORMALIZED = json.loads(gzip.decompress((FOLDER / 'normalized.json.gz').read_bytes()))
CASES = REFERENCE['cases']
RUN_FILES = {name: [FOLDER / run for run in inputs['runs']] for name, inputs in REFERENCE['meta']['input_sets'].items()}
COMMON_QUERIES_DROPPED = set(REFERENCE['meta']['input_sets']['common']['queries_dropped'])
#: (set, run file) -> the queries ranx's ``make_comparable`` gave an empty list.
EMPTY_LISTS = {('main', run): set(queries)
               for run, queries in REFERENCE['meta']['input_sets']['main']['empty_queries_added'].items()}
EMPTY_LIST_QUERIES = set().union(*EMPTY_LISTS.values())
#: Where ranx fuses an empty list differently from no list (the README's list).
EMPTY_LIST_SENSITIVE = {'bordafuse', 'w_bordafuse', 'condorcet', 'w_condorcet', 'bayesfuse'}
RANK_BASED = {'isr', 'log_isr', 'logn_isr', 'rrf', 'rbc', 'bordafuse', 'w_bordafuse', 'condorcet', 'w_condorcet',
              'posfuse', 'probfuse', 'segfuse', 'slidefuse', 'mapfuse', 'bayesfuse'}


def rewritten(path, folder, order: str):
    """The run file ``path`` with the same lines in another order: ``'lists reordered'``, its queries' lists in the
    reverse order and each tie group's lines reversed (still by descending score); ``'lines shuffled'``, each query's
    lines in a random order (seeded)."""
    lists = defaultdict(list)
    for line in path.read_text().splitlines(keepends=True):
        lists[line.split()[0]].append(line)
    rng = random.Random(51)
    lines = []
    for query in reversed(lists) if order == 'lists reordered' else lists:
        if order == 'lines shuffled':
            rng.shuffle(lists[query])
            lines += lists[query]
        else:
            for _, group in itertools.groupby(lists[query], key=lambda line: float(line.split()[4])):
                lines += reversed(list(group))
    target = folder / path.name
    target.write_text(''.join(lines))
    return target


@pytest.fixture(scope='module')
def reordered_runs(tmp_path_factory):
    """The input sets' run files rewritten in each order of :func:`rewritten`."""
    runs = {}
    for order in ('lists reordered', 'lines shuffled'):
        folder = tmp_path_factory.mktemp(order.replace(' ', '-'))
        runs[order] = {name: [rewritten(path, folder, order) for path in paths] for name, paths in RUN_FILES.items()}
    return runs


@pytest.fixture(autouse=True, params=['whole', 'in parts', 'lists reordered', 'lines shuffled'])
def pooled(request, monkeypatch, reordered_runs):
    """Every case fused in one pool, in pools of a few queries each (as large runs are: pool.PART_ROWS), and from its
    runs' lines in other orders: lists in another order and ties not by descending doc id (ranked on one key), lines
    in no order (ranked by three)."""
    if request.param == 'in parts':
        monkeypatch.setattr(pool, 'PART_ROWS', 60)
    elif request.param != 'whole':
        for name, paths in reordered_runs[request.param].items():
            monkeypatch.setitem(RUN_FILES, name, paths)


def ranx_fused(case_id: str) -> dict[str, dict[str, float]]:
    """ranx's fused run of a case, {qid: {docid: score}}, queries with docs only."""
    case = REFERENCE['cases'][case_id]
    fused = case['fused'] if 'fused' in case else ranx_fused(case['fused_same_as'])
    return {query: docs for query, docs in fused.items() if docs}


def as_dict(frame) -> dict[str, dict[str, float]]:
    """A (query_id, doc_id, score) DataFrame as {qid: {docid: score}}."""
    found: dict[str, dict[str, float]] = defaultdict(dict)
    for query, doc, score in frame.itertuples(index=False):
        found[query][doc] = score
    return dict(found)


def decoded(value):
    """A parameter as ranx was given it (a long array is written as runs of equal values)."""
    if isinstance(value, dict):
        return [item for item, count in value['rle'] for _ in range(count)]
    return [decoded(item) for item in value] if isinstance(value, list) else value


def ours(case: dict) -> dict[str, dict[str, float]]:
    """Our fusion of a case's runs as read (no ``make_comparable``; ``common``: ranx's queries only)."""
    params = {name: decoded(value) for name, value in case['params'].items()}
    fused = as_dict(fuse(RUN_FILES[case['inputs']], case['method'], case['norm'], params))
    dropped = COMMON_QUERIES_DROPPED if case['inputs'] == 'common' else set()
    return {query: docs for query, docs in fused.items() if query not in dropped}


def tie_groups(docs: dict[str, float]) -> set[frozenset[str]]:
    """The docs of one query grouped by equal score."""
    groups = defaultdict(set)
    for doc, score in docs.items():
        groups[score].add(doc)
    return {frozenset(group) for group in groups.values()}


def assert_same(got: dict[str, float], expected: dict[str, float], where: str) -> None:
    """The same docs, scores to 1e-9 (relative beyond 1) and tie groups."""
    assert got.keys() == expected.keys(), where
    assert got == pytest.approx(expected, rel=1e-9, abs=1e-9), where
    assert tie_groups(got) == tie_groups(expected), where


def seed_dependent(case: dict) -> set[str]:
    """The queries whose values ranx changes with PYTHONHASHSEED."""
    variants = case.get('hashseed', {}).values()
    return {query for variant in variants for query in variant.get('queries_values_differ', [])}


def compared_queries(case_id: str) -> set[str]:
    """The queries of a case compared directly: ranx's but those left out (the module's docstring)."""
    case = CASES[case_id]
    queries = set(ranx_fused(case_id)) - seed_dependent(case)
    if case['inputs'] == 'main' and (case['method'] in EMPTY_LIST_SENSITIVE or case['norm'] == 'borda'):
        queries -= EMPTY_LIST_QUERIES
    if case['method'] == 'max' and case['norm'] == 'max':
        queries -= {'q04', 'q05', 'q06', 'q07', 'q08', 'q09'}  # (ranx's −1e9: test_comb_max_of_the_present_scores)
    return queries


def comparable(case_id: str) -> bool:
    case = CASES[case_id]
    return not ((case['norm'] == 'zmuv' and case['inputs'] == 'main')
                or (case['inputs'] == 'long' and case['method'] in RANK_BASED))


COMPARED = [case_id for case_id in CASES if comparable(case_id)]


def test_the_reference_holds_what_this_module_expects():
    assert len(REFERENCE['cases']) == 256 and REFERENCE['meta']['versions']['ranx'] == '0.3.21'
    # 25 methods x (8 norms + zmuv on common), 22 extra parameter cases, 5 long and 4 cond cases
    assert len(CASES) == 25 * 9 + 22 + 9
    assert {case['method'] for case in CASES.values()} == set(METHODS) | set(SUPERVISED)
    assert len(COMPARED) == len(CASES) - 25 - 4


@pytest.mark.parametrize('case_id', COMPARED)
def test_fused_like_ranx(case_id):
    case = CASES[case_id]
    expected, got = ranx_fused(case_id), ours(case)
    queries = compared_queries(case_id)
    assert set(got) >= queries
    for query in sorted(queries):
        assert_same(got[query], expected[query], f'{case_id} {query}')


def test_every_comparable_case_compares_most_queries():
    """Only the documented exclusions: Condorcet on main/common/long and the rank-based methods after borda norm
    (ranx's values depend on the hash seed) compare no query."""
    none_compared = {case_id for case_id in COMPARED if not compared_queries(case_id)}
    condorcet = {case_id for case_id in COMPARED
                 if CASES[case_id]['method'] in {'condorcet', 'w_condorcet'} and CASES[case_id]['inputs'] != 'cond'}
    rank_based_after_borda = {case_id for case_id in COMPARED
                              if CASES[case_id]['norm'] == 'borda' and CASES[case_id]['method'] in RANK_BASED}
    assert none_compared == condorcet | rank_based_after_borda


def test_comb_max_of_the_present_scores():
    """ranx's CombMAX counts a missing doc −1e9, which wins where a doc's scores are all below it (``max`` norm of
    the negative run c); ours is the highest score present, every other value as ranx's."""
    case_id = 'max/max/default/main'
    expected, got = ranx_fused(case_id), ours(CASES[case_id])
    changed = 0
    for query, docs in expected.items():
        assert got[query].keys() == docs.keys()
        for doc, score in docs.items():
            if score == -1e9 and got[query][doc] < -1e9:
                changed += 1
            else:
                assert got[query][doc] == pytest.approx(score, rel=1e-9, abs=1e-9)
    assert changed == 10


NORMALISED = [(input_set, norm) for input_set, norms in NORMALIZED['normalized'].items() for norm in norms
              if (input_set, norm) not in {('main', 'zmuv'), ('long', 'rank'), ('long', 'borda')}]


@pytest.mark.parametrize(('input_set', 'norm'), NORMALISED)
def test_normalised_like_ranx(input_set, norm):
    """Every normalised list ranx gives, but the empty lists of ``make_comparable`` (ours: no list) and the rank
    norms of the long runs (ranx ranks ties by quicksort)."""
    runs = NORMALIZED['normalized'][input_set][norm]
    for run, frame in zip(runs, normalized([FOLDER / name for name in runs], norm), strict=True):
        got = as_dict(frame)
        empty = EMPTY_LISTS.get((input_set, run), set()) if norm == 'borda' else set()
        expected = {query: docs for query, docs in runs[run].items() if docs and query not in empty}
        if input_set == 'common':
            got = {query: docs for query, docs in got.items() if query not in COMMON_QUERIES_DROPPED}
        assert got.keys() == expected.keys()
        for query, docs in expected.items():
            assert got[query] == pytest.approx(docs, rel=1e-9, abs=1e-9), f'{run} {query}'


#: The cases whose parameters ranx trained with fixed settings (not a grid search), but after borda norm (ranx's
#: ranking then depends on the hash seed).
TRAINED = [case_id for case_id, case in CASES.items()
           if case['params_from'].startswith('optimize_fusion') and 'grid' not in case_id and case['norm'] != 'borda']
TRAINING_RUNS = [FOLDER / f'train_{name}.txt' for name in 'abcd']


def test_the_trained_cases():
    """6 methods x (7 norms on main, zmuv on common), probfuse with 1 segment, slidefuse with w 1."""
    assert len(TRAINED) == 6 * 8 + 2


@pytest.mark.parametrize('case_id', TRAINED)
def test_trained_like_ranx(case_id):
    """Our training on the training split, normalised as the case, gives ranx's parameters."""
    case = CASES[case_id]
    expected = {name: decoded(value) for name, value in case['params'].items()}
    settings = {'probfuse': {'n_segments': len(expected.get('probs', [[]])[0])},
                'slidefuse': {'w': expected.get('w')}}.get(case['method'], {})
    got = train(FOLDER / 'qrels_train.txt', TRAINING_RUNS, case['method'], case['norm'], settings)
    assert got.keys() == expected.keys()
    for name, value in expected.items():
        if name in {'w', 'map_scores'}:
            assert got[name] == pytest.approx(value, rel=1e-12)
        else:
            for mine, table in zip(got[name], value, strict=True):
                assert mine == pytest.approx(table, rel=1e-12, abs=1e-15)
