"""The DIN-measures of every gcompute line of NTCIREVAL's DIN-NTCIR-eval (issue 47) against plain references on
generated data: each DIN-measure is its D-measure's formula (``tests/reference_ntcir_diversity.py``'s loops) on
DIN's gains (``din_gains``: a navigational intent counts at its first relevant doc only) against the D-measures'
ideal list (``ideal_global_gains``: R and H are the global gain's). NTCIREVAL's own values of these lines:
``tests/test_ntcir_diversity.py`` (``ntcireval_din_per_topic.tsv``).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

import ir_measures
import pytest
import reference_ntcir_diversity as ref
from hypothesis import given, settings
from hypothesis import strategies as st
from test_reference_ntcir_diversity import assert_each_equals_its_reference, intent_data

OfGains = Callable[..., float]  # (G per rank, the ideal list's gains, the cutoff, parameters) -> the value


def _top(ideal: Sequence[float]) -> float:
    """H: the ideal list's largest gain (0 without one)."""
    return max(ideal, default=0.0)


#: Each DIN-measure (our name) -> (its value on a list of gains against an ideal list, the parameters it takes
#: besides ``rel``: ``beta`` for the blended ratio, ``p`` RBP's persistence, ``ncu`` NCU's utility and γ).
DIN_MEASURES: dict[str, tuple[OfGains, frozenset[str]]] = {
    'DIN_nDCG': (ref.ms_ndcg, frozenset()),
    'DIN_Q': (ref.q_measure, frozenset({'beta'})),
    'DIN_nERR': (ref.nerr, frozenset()),
    'DIN_ERR': (lambda gains, ideal, k: ref.err(gains, _top(ideal), k), frozenset()),
    'DIN_RBP': (lambda gains, ideal, k, p=ref.PERSISTENCE: ref.rbp(gains, _top(ideal), k, p), frozenset({'p'})),
    'DIN_EBR': (ref.ebr, frozenset({'beta'})),
    'DIN_AP': (ref.average_precision, frozenset()),
    'DIN_P': (lambda gains, ideal, k: ref.precision(gains, k), frozenset()),
    'DIN_Hit': (lambda gains, ideal, k: float(ref.precision(gains, k) > 0), frozenset()),
    'DIN_nDCG_JK': (ref.jk_ndcg, frozenset()),
    'DIN_RR': (lambda gains, ideal, k: ref.reciprocal_rank(gains, k), frozenset()),
    'DIN_O_measure': (ref.o_measure, frozenset({'beta'})),
    'DIN_P_measure': (ref.p_measure, frozenset({'beta'})),
    'DIN_P_plus': (ref.p_plus, frozenset({'beta'})),
    'DIN_NCU': (ref.rank_biased_ncu, frozenset({'beta', 'ncu'})),
}
#: The DIN-measures that also take no cutoff (gcompute's lines without ``@k``: the whole list).
WHOLE_LIST = {'DIN_Q', 'DIN_ERR', 'DIN_RBP', 'DIN_EBR', 'DIN_AP', 'DIN_RR', 'DIN_O_measure', 'DIN_P_measure',
              'DIN_P_plus', 'DIN_NCU'}


def din_value(name: str, ranking: Sequence[str], judgments: ref.Judgments, probabilities: ref.Probabilities,
              types: ref.Types, cutoff: int, rel: float = 1, **params: float | str) -> float:
    """The reference's value of DIN-measure ``name`` for one topic at cutoff k (:data:`ref.WHOLE_LIST`: none);
    ``params``: ``beta``, ``p``, NCU's ``utility`` and ``gamma``."""
    of, _ = DIN_MEASURES[name]
    return of(ref.din_gains(ranking, judgments, probabilities, types, rel),
              ref.ideal_global_gains(judgments, probabilities, rel), cutoff, **params)


def test_every_din_measure_is_declared_with_its_d_measures_parameters():
    """Each DIN-measure takes what its D-measure takes (the cutoff optional where the D-measure's is), and D-GAP is
    the only D-measure without a DIN counterpart (DIN-NTCIR-eval passes gcompute no ``-gap``)."""
    from irmeasures_ext.measures import DECLARED
    d_measures = {name for name, spec in DECLARED.items() if name.startswith('D_') and not name.startswith('D_sharp')}
    assert {f'DIN_{name[2:]}' for name in d_measures - {'D_GAP'}} == set(DIN_MEASURES)
    for name in DIN_MEASURES:
        din, d = DECLARED[name].SUPPORTED_PARAMS, DECLARED[f'D_{name[4:]}'].SUPPORTED_PARAMS
        assert set(din) == set(d), name
        assert all(din[param].required == d[param].required and din[param].default == d[param].default
                   for param in din), name
        assert (not din['cutoff'].required) == (name in WHOLE_LIST), name


def test_a_navigational_intent_counts_once_by_hand():
    """Intents 1 (P 0.6, informational) and 2 (P 0.4, navigational); a: 1→L2, b: 1→L1 and 2→L3, c: 2→L1; the run
    ranks b, c, a. DIN's gains: b 1.8, c 0 (intent 2 already seen), a 1.2; the ideal list b 1.8, a 1.2, c 0.4 (R 3,
    H 1.8)."""
    import irmeasures_ext
    qrels = irmeasures_ext.intent_qrels(
        [ir_measures.Qrel('q', 'a', 2, '1'), ir_measures.Qrel('q', 'b', 1, '1'), ir_measures.Qrel('q', 'b', 3, '2'),
         ir_measures.Qrel('q', 'c', 1, '2')], {'q': {'1': (0.6, 'inf'), '2': (0.4, 'nav')}})
    run = {'q': {'b': 3.0, 'c': 2.0, 'a': 1.0}}
    values = {measure: value for (measure, _), value in provider_values_of(
        ['DIN_P@2', 'D_P@2', 'DIN_AP', 'DIN_ERR', 'DIN_RBP@2', 'DIN_P_plus', 'DIN_Q'], qrels, run).items()}
    assert values['DIN_P@2'] == 0.5 and values['D_P@2'] == 1.0
    assert values['DIN_AP'] == pytest.approx((1 + 2 / 3) / 3, abs=1e-15)
    # ERR: stop probabilities 1.8/2.8, 0, 1.2/2.8.
    assert values['DIN_ERR'] == pytest.approx(1.8 / 2.8 + (1 / 3) * (1.2 / 2.8) * (1 / 2.8), abs=1e-15)
    assert values['DIN_RBP@2'] == pytest.approx(0.05 * 1.8 / 1.8, abs=1e-15)
    # rp = 1 (the largest DIN gain, 1.8): BR(1) = (1 + 1.8)/(1 + 1.8).
    assert values['DIN_P_plus'] == 1.0
    # Q: BR(1) = 1, BR(3) = (2 + 3.0)/(3 + 3.4); c is not relevant (gain 0).
    assert values['DIN_Q'] == pytest.approx((1 + 5 / 6.4) / 3, abs=1e-15)


def provider_values_of(measures: list[str], qrels, run) -> dict[tuple[str, str], float]:
    import irmeasures_ext
    evaluator = irmeasures_ext.provider.evaluator([ir_measures.parse_measure(m) for m in measures], qrels)
    return {(str(m.measure), m.query_id): m.value for m in evaluator.iter_calc(run)}


@settings(max_examples=100, deadline=None)
@given(intent_data(), st.sampled_from([1, 2, 3, 5, 20]), st.sampled_from([1, 2]), st.sampled_from([1.0, 0.5, 0.0]),
       st.sampled_from([0.95, 0.5]))
def test_the_din_measures_equal_the_references_on_generated_data(data, cutoff, rel, beta, gamma):
    """Every DIN-measure at a cutoff and, where it takes none, on the whole list, plain and ``judged_only``, at
    ``rel`` 1 or 2, with β, RBP's p and NCU's γ varied, equals the reference on each topic to 1e-12."""
    qrels, intents, run = data
    forms = {}
    for name, (_, takes) in DIN_MEASURES.items():
        params: dict[str, float | str] = {'beta': beta} if 'beta' in takes else {}
        params |= {'p': 0.8} if 'p' in takes else {}
        variants = [params] + ([{'utility': 'P', 'gamma': gamma}, {**params, 'gamma': gamma}] if 'ncu' in takes
                               else [])
        for variant in variants:
            text = f'{name}(' + ','.join(f'{key}={value!r}' for key, value in {**variant, 'rel': rel}.items()) + ')'
            depths = [cutoff] + ([ref.WHOLE_LIST] if name in WHOLE_LIST else [])
            for depth in depths:
                measure = ir_measures.parse_measure(text + ('' if depth == ref.WHOLE_LIST else f'@{depth}'))
                for judged_only in (False, True):
                    built = measure(judged_only=True) if judged_only else measure
                    forms[str(built)] = (name, built, judged_only, depth, variant)
    assert_each_equals_its_reference(
        forms, qrels, intents, run, rel,
        lambda name, ranking, judgments, probabilities, types, depth, threshold, variant: din_value(
            name, ranking, judgments, probabilities, types, depth, threshold, **variant))
