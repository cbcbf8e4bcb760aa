"""ranx's own unit tests of fusion and normalisation (tests/data/ranx_fusion/ranx_test_cases.json, ported as data)
run on irmeasures_ext.fusion: every fusion, training and normalisation case, compared as the ranx test compares
(``exact``: ==, ``isclose``: relative 1e-9, ``round2``: to 2 decimals). A supervised method's fusion case is given
the parameters ranx's training test expects. A query ranx fuses to an empty list (no run has a doc for it) is absent
from ours."""
import json

import pytest
from conftest import DATA

from irmeasures_ext.fusion import METHODS, NORMS, SUPERVISED, fuse, normalized, train
from irmeasures_ext.fusion.trained import UNRANKED_LOG_ODDS

PORTED = json.loads((DATA / 'ranx_fusion' / 'ranx_test_cases.json').read_text())
#: ranx's function name -> its ``fuse`` method name, where they differ.
METHOD_OF = {'comb_sum': 'sum', 'comb_anz': 'anz', 'comb_max': 'max', 'comb_med': 'med', 'comb_min': 'min',
             'comb_mnz': 'mnz', 'comb_gmnz': 'gmnz', 'weighted_bordafuse': 'w_bordafuse',
             'weighted_condorcet': 'w_condorcet'}
FUSION = [case for case in PORTED['cases'] if case['kind'] == 'fuse']
TRAINING = [case for case in PORTED['cases'] if case['kind'] == 'train']
NORMALISATION = [case for case in PORTED['cases'] if case['kind'] == 'norm']


def runs_of(case: dict) -> list[dict]:
    return [PORTED['fixtures'][case['fixture']][run] for run in case['runs']]


def trained(case: dict) -> dict:
    """The parameters of a fusion case: its arguments and what its training gives (the expected result of the
    training case of the same function and arguments; a long array's segments, where the test asserts only a
    negative value past the ranks used, as BayesFuse's floor)."""
    if 'train' not in case:
        return case.get('args', {})
    train = case['train']
    result = case.get('expected_train') or next(
        other['expected_train'] for other in TRAINING
        if other['function'] == train['function'] and other.get('args', []) == train.get('args', []))
    return case.get('args', {}) | {train['param']: [expanded(value) for value in result]}


def expanded(value):
    """A trained value, its segments written out (``negative``: ln(0.001/0.999))."""
    if not isinstance(value, dict):
        return value
    table = [0.0] * value['length']
    for start, end, segment in value['segments']:
        table[start:end] = [UNRANKED_LOG_ODDS if segment == 'negative' else segment] * (end - start)
    return table


def as_dict(frame) -> dict[str, dict[str, float]]:
    found: dict[str, dict[str, float]] = {}
    for query, doc, score in frame.itertuples(index=False):
        found.setdefault(query, {})[doc] = score
    return found


def assert_as_ranx_compares(got: dict, expected: dict, compare: str) -> None:
    expected = {query: docs for query, docs in expected.items() if docs}
    assert got.keys() == expected.keys()
    for query, docs in expected.items():
        assert got[query].keys() == docs.keys()
        if compare == 'exact':
            assert got[query] == docs
        elif compare == 'round2':
            assert {doc: round(score, 2) for doc, score in got[query].items()} == docs
        else:
            assert got[query] == pytest.approx(docs, rel=1e-9)


def test_every_case_is_ported():
    assert (len(PORTED['cases']), len(FUSION), len(TRAINING), len(NORMALISATION)) == (48, 35, 5, 8)
    assert {METHOD_OF.get(case['function'], case['function']) for case in FUSION} == set(METHODS) | set(SUPERVISED)
    assert {case['function'] for case in NORMALISATION} <= set(NORMS)


@pytest.mark.parametrize('case', FUSION, ids=[case['id'] for case in FUSION])
def test_fusion_case(case):
    method = METHOD_OF.get(case['function'], case['function'])
    fused = fuse(runs_of(case), method, norm=None, params=trained(case))
    assert_as_ranx_compares(as_dict(fused), case['expected'], case['compare'])


@pytest.mark.parametrize('case', NORMALISATION, ids=[case['id'] for case in NORMALISATION])
def test_normalisation_case(case):
    for frame, expected in zip(normalized(runs_of(case), case['function']), case['expected'], strict=True):
        assert_as_ranx_compares(as_dict(frame), expected, case['compare'])


@pytest.mark.parametrize('case', TRAINING, ids=[case['id'] for case in TRAINING])
def test_training_case(case):
    """ranx's training tests; BayesFuse's asserts only a negative value past rank 10 (ours: ln(0.001/0.999))."""
    fixture = PORTED['fixtures'][case['fixture']]
    method = case['function'].removesuffix('_train')
    params = {'n_segments': case['args'][0]} if method == 'probfuse' else {'w': 1} if method == 'slidefuse' else {}
    [name] = set(train(fixture['qrels'], runs_of(case), method, None, params)) - set(params)
    got = train(fixture['qrels'], runs_of(case), method, None, params)[name]
    for table, expected in zip(got, case['expected_train'], strict=True):
        if isinstance(expected, dict):
            assert len(table) == expected['length']
            for start, end, value in expected['segments']:
                assert table[start:end] == ([UNRANKED_LOG_ODDS] * (end - start) if value == 'negative' else
                                            pytest.approx([value] * (end - start), rel=1e-9))
        else:
            assert table == (expected if case['compare'] == 'exact' else pytest.approx(expected, rel=1e-9))
