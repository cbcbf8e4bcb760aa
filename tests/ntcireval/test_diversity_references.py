"""The plain NTCIREVAL diversity references (tests/reference_ntcir_diversity.py) equal NTCIREVAL 190111's own
per-topic values, and the package's provider equals the references on generated data.

* ``tests/data/diversity/ntcireval_per_topic.tsv`` holds the values that NTCIREVAL's diversity scripts printed
  with 12 decimals (see ``tests/data/diversity/README.md`` and ``README.upstream.md``) for 148 topics, 4 cutoffs
  and γ = 0.5 and 0.25, from ``Dqrels.txt``, ``DINprob.txt`` and ``run.txt`` in trec_eval's order (score
  descending, then doc id descending byte-wise). Every row is compared, q017 too (its probabilities sum to 0.9:
  NTCIREVAL uses them as given, and so do the references), with rel = 1 and an absolute tolerance of 2e-12 (the
  print rounding, plus for a #-measure the rounding of its two printed parts). These tests import nothing of
  irmeasures_ext.
* The generated-data test (hypothesis) evaluates every measure of the family with ``irmeasures_ext.provider``
  on ``irmeasures_ext.intent_qrels`` (also with ``judged_only=True``: the reference then ranks the run without
  the docs that have no qrels line) and compares each topic's value with the reference's, to 1e-12.
* The DIN-measures of every gcompute line of NTCIREVAL's DIN-NTCIR-eval against their plain references
  (``tests/din_references.py``) on generated data; NTCIREVAL's own values of these lines: test_diversity_values.py
  (``ntcireval_din_per_topic.tsv``).
"""
from __future__ import annotations

import csv
import math
import warnings
from collections.abc import Callable

import pytest
import reference_ntcir_diversity as ref
from conftest import DATA
from din_references import DIN_MEASURES, din_value
from hypothesis import given, settings
from hypothesis import strategies as st

DIVERSITY = DATA / 'diversity'
TOLERANCE = 2e-12  # (NTCIREVAL prints 12 decimals; a #-measure adds the rounding of its two printed parts)
REL = 1

QRELS = ref.read_dqrels(DIVERSITY / 'Dqrels.txt')
PROBABILITIES, TYPES = ref.read_dinprob(DIVERSITY / 'DINprob.txt')
RUN = ref.read_trec_run(DIVERSITY / 'run.txt')

#: NTCIREVAL's (script, printed name before '@') -> the measure (the package's name) and RBP's persistence (the
#: D-NTCIR-eval2 script passes 0.99).
MEASURES = {('D-NTCIR-eval', 'MSnDCG'): ('D_nDCG', None), ('D-NTCIR-eval', 'Q'): ('D_Q', None),
            ('D-NTCIR-eval', 'nERR'): ('D_nERR', None), ('D-NTCIR-eval', 'I-rec'): ('I_rec', None),
            ('D-NTCIR-eval', 'D#-nDCG'): ('D_sharp_nDCG', None), ('D-NTCIR-eval', 'D#-Q'): ('D_sharp_Q', None),
            ('D-NTCIR-eval', 'ERR'): ('D_ERR', None), ('D-NTCIR-eval', 'RBP'): ('D_RBP', 0.95),
            ('D-NTCIR-eval', 'EBR'): ('D_EBR', None), ('D-NTCIR-eval2', 'RBP'): ('D_RBP', 0.99),
            ('D-NTCIR-eval', 'AP'): ('D_AP', None), ('D-NTCIR-eval', 'P'): ('D_P', None),
            ('D-NTCIR-eval', 'Hit'): ('D_Hit', None), ('D-NTCIR-eval', 'nDCG'): ('D_nDCG_JK', None),
            ('D-NTCIR-eval2', 'D#-ERR'): ('D_sharp_ERR', None), ('D-NTCIR-eval2', 'D#-RBP'): ('D_sharp_RBP', 0.99),
            ('D-NTCIR-eval2', 'D#-EBR'): ('D_sharp_EBR', None),
            ('DIN-NTCIR-eval', 'MSnDCG'): ('DIN_nDCG', None), ('DIN-NTCIR-eval', 'Q'): ('DIN_Q', None),
            ('DIN-NTCIR-eval', 'DIN#-nDCG'): ('DIN_sharp_nDCG', None),
            ('DIN-NTCIR-eval', 'DIN#-Q'): ('DIN_sharp_Q', None), ('D-NTCIR-IAeval', 'IA-MSnDCG'): ('IA_MSnDCG', None),
            ('D-NTCIR-IAeval', 'IA-nERR'): ('IA_nERR', None), ('D-NTCIR-IAeval2', 'IA-Q'): ('IA_Q', None),
            ('D-NTCIR-IAeval2', 'IA-ERR'): ('IA_ERR', None), ('D-NTCIR-IAeval2', 'IA-RBP'): ('IA_RBP', 0.95),
            ('D-NTCIR-IAeval2', 'IA-EBR'): ('IA_EBR', None),
            ('DIN-NTCIR-PQeval', 'PplusQ'): ('PplusQ', None), ('NEVIAPQ2sharpnev', 'PplusQ#'): ('PplusQ_sharp', None)}
#: measure -> (reference function, whether it takes the intent types).
REFERENCES = {'I_rec': (ref.i_rec, False), 'D_nDCG': (ref.d_ndcg, False), 'D_Q': (ref.d_q, False),
              'D_nERR': (ref.d_nerr, False), 'D_ERR': (ref.d_err, False), 'D_RBP': (ref.d_rbp, False),
              'D_EBR': (ref.d_ebr, False), 'D_AP': (ref.d_ap, False), 'D_P': (ref.d_p, False),
              'D_Hit': (ref.d_hit, False), 'D_nDCG_JK': (ref.d_ndcg_jk, False),
              'D_sharp_nDCG': (ref.d_sharp_ndcg, False),
              'D_sharp_Q': (ref.d_sharp_q, False), 'D_sharp_ERR': (ref.d_sharp_err, False),
              'D_sharp_RBP': (ref.d_sharp_rbp, False), 'D_sharp_EBR': (ref.d_sharp_ebr, False),
              'DIN_nDCG': (ref.din_ndcg, True), 'DIN_Q': (ref.din_q, True),
              'DIN_sharp_nDCG': (ref.din_sharp_ndcg, True), 'DIN_sharp_Q': (ref.din_sharp_q, True),
              'IA_MSnDCG': (ref.ia_msndcg, False), 'IA_nERR': (ref.ia_nerr, False), 'IA_Q': (ref.ia_q, False),
              'IA_ERR': (ref.ia_err, False), 'IA_RBP': (ref.ia_rbp, False), 'IA_EBR': (ref.ia_ebr, False),
              'PplusQ': (ref.pplus_q, True), 'PplusQ_sharp': (ref.pplus_q_sharp, True),
              'D_RR': (ref.d_rr, False), 'D_O_measure': (ref.d_o_measure, False),
              'D_P_measure': (ref.d_p_measure, False), 'D_P_plus': (ref.d_p_plus, False),
              'D_NCU': (ref.d_ncu, False), 'D_GAP': (ref.d_gap, False), 'I_rec_n': (ref.i_rec_at_n, False)}
#: The measures of gcompute's lines without ``@k`` (and I-rec@n), which the scripts do not pick out: checked
#: against ``tests/data/ntcireval_diversity_ours/ntcireval_gcompute_per_topic.tsv``.
GCOMPUTE_ONLY = {'D_RR', 'D_O_measure', 'D_P_measure', 'D_P_plus', 'D_NCU', 'D_GAP', 'I_rec_n'}
#: The measures that also take no cutoff (the whole list).
WHOLE_LIST = {'D_RR', 'D_O_measure', 'D_P_measure', 'D_P_plus', 'D_NCU', 'D_GAP', 'D_AP', 'D_Q', 'D_RBP', 'D_ERR',
              'D_EBR'}
SHARP = {'D_sharp_nDCG', 'D_sharp_Q', 'D_sharp_ERR', 'D_sharp_RBP', 'D_sharp_EBR', 'DIN_sharp_nDCG', 'DIN_sharp_Q',
         'PplusQ_sharp'}
PERSISTENT = {'D_RBP', 'D_sharp_RBP', 'IA_RBP'}
#: The measures built on the blended ratio, which take its patience β (D_NCU only with utility='BR').
BLENDED = {'D_Q', 'D_EBR', 'D_O_measure', 'D_P_measure', 'D_P_plus', 'D_NCU', 'D_sharp_Q', 'D_sharp_EBR', 'DIN_Q',
           'DIN_sharp_Q', 'IA_Q', 'IA_EBR', 'PplusQ', 'PplusQ_sharp'}


def reference_value(name: str, ranking: list[str], judgments: ref.Judgments, probabilities: ref.Probabilities,
                    types: ref.Types, cutoff: int, rel: int, gamma: float | None = None,
                    persistence: float | None = None, ncu: dict[str, float | str] | None = None,
                    beta: float | None = None) -> float:
    """The reference's value of measure ``name`` (the package's name, e.g. ``D_sharp_Q``) for one topic
    (``ncu``: D_NCU's ``utility`` and ``gamma``; ``beta``: the patience of a measure of :data:`BLENDED`)."""
    function, typed = REFERENCES[name]
    assert (gamma is not None) == (name in SHARP), (name, gamma)
    extra = ({} if gamma is None else {'gamma': gamma}) | ({} if persistence is None else {'p': persistence})
    extra |= (ncu or {}) | ({} if beta is None else {'beta': beta})
    if name == 'I_rec':
        return function(ranking, judgments, cutoff, rel)
    if name == 'I_rec_n':
        return function(ranking, judgments, rel)
    if typed:
        return function(ranking, judgments, probabilities, types, cutoff, rel, **extra)
    return function(ranking, judgments, probabilities, cutoff, rel, **extra)


# ---------------------------------------------------------------- (a) NTCIREVAL's own values


def read_golden() -> dict[str, list[tuple[int, float | None, float | None, str, float]]]:
    """``{measure: [(cutoff, gamma or None, RBP's p or None, topic, NTCIREVAL's value), ...]}`` of every row."""
    golden: dict = {}
    with open(DIVERSITY / 'ntcireval_per_topic.tsv', encoding='utf-8') as lines:
        reader = csv.DictReader(lines, delimiter='\t')
        assert reader.fieldnames == ['command', 'measure', 'cutoff', 'gamma', 'qid', 'value']
        for row in reader:
            printed, cutoff = row['measure'].split('@')
            assert int(cutoff) == int(row['cutoff']), row
            gamma = None if row['gamma'] == '-' else float(row['gamma'])
            name, persistence = MEASURES[row['command'], printed]
            golden.setdefault(name, []).append((int(cutoff), gamma, persistence, row['qid'], float(row['value'])))
    return golden


GOLDEN = read_golden()


def mismatches(name: str, rank_by=ref.tie_rule_ranking, types=TYPES) -> list[str]:
    wrong = []
    for cutoff, gamma, persistence, topic, expected in GOLDEN[name]:
        ranking = rank_by(RUN[topic]) if topic in RUN else []
        value = reference_value(name, ranking, QRELS.get(topic, {}), PROBABILITIES[topic], types[topic], cutoff,
                                REL, gamma, persistence)
        if not abs(value - expected) <= TOLERANCE:
            wrong.append(f'{topic} @{cutoff} gamma={gamma}: reference {value!r}, NTCIREVAL {expected!r}')
    return wrong


@pytest.mark.parametrize('name', sorted(set(REFERENCES) - GCOMPUTE_ONLY))
def test_reference_equals_ntcireval_on_every_row(name):
    wrong = mismatches(name)
    assert not wrong, f'{len(wrong)} rows differ:\n' + '\n'.join(wrong[:20])


def test_the_file_covers_every_measure_cutoff_gamma_and_topic():
    """Each measure has a value for 4 cutoffs (× 2 γ for the #-measures) × the 148 topics with a relevant doc
    (q017 included; q006 and q007 have none, NTCIREVAL refuses them), for RBP at each persistence the scripts
    pass: the test above checks all 21,904 rows."""
    topics = {topic for rows in GOLDEN.values() for _, _, _, topic, _ in rows}
    assert len(topics) == 148 and 'q017' in topics and 'q009' in topics and 'q009' not in RUN
    assert set(PROBABILITIES) - topics == {'q006', 'q007'}
    assert all(not ref.intents_with_relevant_doc(QRELS.get(topic, {})) for topic in ('q006', 'q007'))
    assert set(GOLDEN) == set(REFERENCES) - GCOMPUTE_ONLY
    for name, rows in GOLDEN.items():
        gammas = [0.5, 0.25] if name in SHARP else [None]
        persistences = {'D_RBP': [0.95, 0.99], 'D_sharp_RBP': [0.99], 'IA_RBP': [0.95]}.get(name, [None])
        assert sorted((cutoff, gamma or 0, p or 0, topic) for cutoff, gamma, p, topic, _ in rows) == sorted(
            (cutoff, gamma or 0, p or 0, topic) for cutoff in (5, 10, 20, 1000) for gamma in gammas
            for p in persistences for topic in topics)
    assert sum(len(rows) for rows in GOLDEN.values()) == 21904
    assert math.isclose(sum(PROBABILITIES['q017'].values()), 0.9)


#: gcompute's lines of ``ntcireval_gcompute_per_topic.tsv``: (command, printed name) -> (measure, its parameters).
GCOMPUTE_LINES = {('D-NTCIR-eval', 'RR'): ('D_RR', {}), ('D-NTCIR-eval', 'O-measure'): ('D_O_measure', {}),
                  ('D-NTCIR-eval', 'P-measure'): ('D_P_measure', {}), ('D-NTCIR-eval', 'P-plus'): ('D_P_plus', {}),
                  ('D-NTCIR-eval', 'AP'): ('D_AP', {}), ('D-NTCIR-eval', 'Q-measure'): ('D_Q', {}),
                  ('D-NTCIR-eval', 'NCUrb,P'): ('D_NCU', {'ncu': {'utility': 'P'}}),
                  ('D-NTCIR-eval', 'NCUrb,BR'): ('D_NCU', {}),
                  ('D-NTCIR-eval', 'RBP'): ('D_RBP', {'persistence': 0.95}), ('D-NTCIR-eval', 'ERR'): ('D_ERR', {}),
                  ('D-NTCIR-eval', 'EBR'): ('D_EBR', {}), ('D-NTCIR-eval', 'I-rec@n'): ('I_rec_n', {}),
                  ('D-NTCIR-eval2', 'RBP'): ('D_RBP', {'persistence': 0.99}), ('gcompute -gap', 'GAP'): ('D_GAP', {}),
                  ('gcompute -gamma 0.8', 'NCUrb,P'): ('D_NCU', {'ncu': {'utility': 'P', 'gamma': 0.8}}),
                  ('gcompute -gamma 0.8', 'NCUrb,BR'): ('D_NCU', {'ncu': {'gamma': 0.8}})}


def test_reference_equals_gcompute_on_the_list_cut_at_k():
    """The references reproduce all 4,012 values of ``ntcireval_diversity_ours/ntcireval_gcompute_per_topic.tsv``:
    each line without ``@k`` is the measure on the whole of the run cut at K; GAP@K the measure at cutoff K;
    I-rec@n reads the whole run."""
    ours = DATA / 'ntcireval_diversity_ours'
    qrels, run = ref.read_dqrels(ours / 'Dqrels.txt'), ref.read_trec_run(ours / 'run.txt')
    probabilities, types = ref.read_dinprob(ours / 'DINprob.txt')
    checked, wrong = 0, []
    with open(ours / 'ntcireval_gcompute_per_topic.tsv', encoding='utf-8') as lines:
        for row in csv.DictReader(lines, delimiter='\t'):
            cutoff, topic = int(row['cutoff']), row['qid']
            ranking = ref.tie_rule_ranking(run.get(topic, {}))
            if row['measure'] == f'GAP@{cutoff:04d}':
                name, params, depth = 'D_GAP', {}, cutoff
            else:
                name, params = GCOMPUTE_LINES[row['command'], row['measure']]
                depth, ranking = ref.WHOLE_LIST, ranking if name == 'I_rec_n' else ranking[:cutoff]
            value = reference_value(name, ranking, qrels[topic], probabilities[topic], types[topic], depth, REL,
                                    **params)
            checked += 1
            if not abs(value - float(row['value'])) <= TOLERANCE:
                wrong.append((row['command'], row['measure'], cutoff, topic, value, row['value']))
    assert checked == 4012 and not wrong, wrong[:10]


def test_the_data_checks_the_order_and_the_intent_types():
    """Negative controls: ranking tied docs by doc id ascending, or taking every intent as informational,
    makes the references disagree with NTCIREVAL (the type-agnostic D-measures then still agree)."""
    assert mismatches('D_nDCG', rank_by=lambda scores: sorted(scores, key=lambda doc: (-scores[doc], doc)))
    informational = {topic: dict.fromkeys(types, 'inf') for topic, types in TYPES.items()}
    for name in ('DIN_nDCG', 'DIN_Q', 'DIN_sharp_Q', 'PplusQ', 'PplusQ_sharp'):
        assert mismatches(name, types=informational), name
    assert not mismatches('D_Q', types=informational)


def test_small_example_by_hand():
    """One topic, intents 1 (P 0.6, informational) and 2 (P 0.4, navigational); a: 1→L2, b: 1→L1 and 2→L3,
    c: 2→L1, z: 2→L0; the ranking b, c, x (unjudged), a. GG: a 1.2, b 0.6 + 1.2 = 1.8, c 0.4; ideal b, a, c."""
    judgments = {'a': {'1': 2}, 'b': {'1': 1, '2': 3}, 'c': {'2': 1}, 'z': {'2': 0}}
    probabilities, types = {'1': 0.6, '2': 0.4}, {'1': 'inf', '2': 'nav'}
    ranking = ['b', 'c', 'x', 'a']
    assert ref.global_gains(ranking, judgments, probabilities) == pytest.approx([1.8, 0.4, 0, 1.2])
    assert ref.ideal_global_gains(judgments, probabilities) == pytest.approx([1.8, 1.2, 0.4])
    assert ref.din_gains(ranking, judgments, probabilities, types) == pytest.approx([1.8, 0, 0, 1.2])
    log3 = math.log2(3)
    assert ref.d_ndcg(ranking, judgments, probabilities, 2) == pytest.approx((1.8 + 0.4 / log3) / (1.8 + 1.2 / log3))
    # D-Q@4: BR(1) = (1 + 1.8)/(1 + 1.8), BR(2) = (2 + 2.2)/(2 + 3.0), BR(4) = (3 + 3.4)/(4 + 3.4); R = 3.
    assert ref.d_q(ranking, judgments, probabilities, 4) == pytest.approx((1 + 4.2 / 5 + 6.4 / 7.4) / 3)
    # D-nERR@2: p = GG/2.8; run 1.8/2.8 + (1/2)(1/2.8)(0.4/2.8), ideal 1.8/2.8 + (1/2)(1/2.8)(1.2/2.8).
    assert ref.d_nerr(ranking, judgments, probabilities, 2) == pytest.approx(
        (1.8 / 2.8 + 0.2 / 2.8 ** 2) / (1.8 / 2.8 + 0.6 / 2.8 ** 2))
    assert ref.i_rec(ranking, judgments, 1) == 1.0 and ref.i_rec(['a'], judgments, 1) == 0.5
    assert ref.i_rec(ranking, judgments, 1, rel=2) == 0.5 and ref.i_rec(ranking, judgments, 4, rel=2) == 1.0
    assert ref.i_rec(['c'], judgments, 5, rel=2) == 0.0
    assert ref.din_ndcg(ranking, judgments, probabilities, types, 2) == pytest.approx(1.8 / (1.8 + 1.2 / log3))
    # DIN-Q@4: c gains 0 (intent 2 already seen): BR(1) = 1, BR(4) = (2 + 3.0)/(4 + 3.4).
    assert ref.din_q(ranking, judgments, probabilities, types, 4) == pytest.approx((1 + 5 / 7.4) / 3)
    assert ref.d_sharp_ndcg(ranking, judgments, probabilities, 2, gamma=0.25) == pytest.approx(
        0.25 + 0.75 * ref.d_ndcg(ranking, judgments, probabilities, 2))
    # Intent 1 (ideal a 2, b 1): b at 1: BR (1 + 1)/(1 + 2); a at 4: (2 + 3)/(4 + 3). Intent 2 (ideal b 3, c 1):
    # b at 1: (1 + 3)/(1 + 3); c at 2: (2 + 4)/(2 + 4).
    q_1, q_2 = (2 / 3 + 5 / 7) / 2, 1.0
    assert ref.ia_q(ranking, judgments, probabilities, 4) == pytest.approx(0.6 * q_1 + 0.4 * q_2)
    # P-plus of intent 2 on b, c, x: its top level 3 at rank 1, BR(1) = 1.
    assert ref.pplus_q(ranking, judgments, probabilities, types, 4) == pytest.approx(0.6 * q_1 + 0.4 * 1.0)
    # P-plus of intent 2 on c, b: rp = 2 (level 3); BR(1) = (1 + 1)/(1 + 3), BR(2) = (2 + 4)/(2 + 4).
    assert ref.p_plus([1.0, 3.0], [3.0, 1.0], 5) == pytest.approx((0.5 + 1) / 2)
    assert ref.p_plus([1.0, 3.0], [3.0, 1.0], 1) == pytest.approx(0.5)
    # rp is the first of the largest gains as gcompute reads them (12 decimals): 0.1 + 0.2 ties with 0.3.
    assert ref.p_measure([0.3, 0.0, 0.1 + 0.2], [0.4, 0.1 + 0.2, 0.3], 5) == pytest.approx(1.3 / 1.4)
    assert ref.p_plus([0.3, 0.0, 0.1 + 0.2], [0.4, 0.1 + 0.2, 0.3], 5) == pytest.approx(1.3 / 1.4)
    assert ref.ia_msndcg(ranking, judgments, probabilities, 1) == pytest.approx(0.6 * 1 / 2 + 0.4 * 1)
    # IA-nERR@1: intent 1 (H 2): (1/3)/(2/3); intent 2 (H 3): (3/4)/(3/4).
    assert ref.ia_nerr(ranking, judgments, probabilities, 1) == pytest.approx(0.6 * 0.5 + 0.4)
    # rel = 2: intent 1 keeps a (2), intent 2 keeps b (3); c and b's level 1 count nothing.
    assert ref.ideal_global_gains(judgments, probabilities, rel=2) == pytest.approx([1.2, 1.2])
    for name in REFERENCES:
        gamma = 0.5 if name in SHARP else None
        assert reference_value(name, [], judgments, probabilities, types, 5, 1, gamma) == 0.0
        assert reference_value(name, ranking, {'x': {'1': 0}}, probabilities, types, 5, 1, gamma) == 0.0
    # RBP@2 (p 0.95, H 1.8): 0.05·(1.8 + 0.95·0.4)/1.8; IA-ERR@1: intent 1 (H 2) (1/3), intent 2 (H 3) 3/4.
    assert ref.d_rbp(ranking, judgments, probabilities, 2) == pytest.approx(0.05 * (1.8 + 0.95 * 0.4) / 1.8)
    assert ref.ia_err(ranking, judgments, probabilities, 1) == pytest.approx(0.6 / 3 + 0.4 * 3 / 4)
    # D-EBR@1: BR(1) = 1, stop 1.8/2.8.
    assert ref.d_ebr(ranking, judgments, probabilities, 1) == pytest.approx(1.8 / 2.8)


# ---------------------------------------------------------------- (b) the provider against the references

TOPICS = ['q1', 'q2', 'q10', 'Q']
INTENTS = ['1', '2', '10', 'a']
#: Judged docs: ids whose byte order differs from their numeric order, a case variant, a non-ASCII one.
DOCS = ['d1', 'd2', 'd9', 'd10', 'D1', 'é', 'a', 'x' * 11 + 'y']
UNJUDGED = ['d3', 'd11', 'Z', 'ü']  # (never judged; the docs of DOCS not drawn for a topic are unjudged too)
FIXED_PROBABILITIES = [(1.0,), (0.5, 0.5), (0.25, 0.75), (0.125, 0.375, 0.5), (0.25, 0.25, 0.25, 0.25)]
INTEGER_LEVELS = st.sampled_from([1, 2, 3, 0])
LEVELS = st.sampled_from([INTEGER_LEVELS, st.sampled_from([1, 2, 3, 0, 0.5, 2.5])])
TIED_SCORES = [0.0, 1.0, 2.5]
NON_RELEVANT = '0'  # NTCIREVAL's intent of a doc judged only non-relevant (L0), which has no probability


@st.composite
def probabilities_of(draw, count: int) -> list[float]:
    """``count`` positive probabilities summing to 1: a fixed set in some order, or normalised integers."""
    fixed = [probabilities for probabilities in FIXED_PROBABILITIES if len(probabilities) == count]
    if fixed and draw(st.booleans()):
        return list(draw(st.permutations(fixed[0])))
    weights = draw(st.lists(st.integers(1, 9), min_size=count, max_size=count))
    probabilities = [weight / sum(weights) for weight in weights]
    assert abs(sum(probabilities) - 1) <= 1e-9
    return probabilities


@st.composite
def intent_data(draw):
    """``(qrels, intents, run)``: qrels ``{topic: {doc: {intent: level}}}``, intents ``{topic: {intent:
    (P(i|q), 'inf' or 'nav')}}`` and a run ``{topic: {doc: score}}``. Docs judged for several intents, intents
    with no relevant doc or no qrels line, docs judged only non-relevant, unjudged retrieved docs, real levels,
    topics missing from the run or with an empty ranking, a topic only in the run; scores distinct or tied."""
    levels = draw(LEVELS)
    qrels, intents, run = {}, {}, {}
    for topic in draw(st.lists(st.sampled_from(TOPICS), min_size=1, max_size=3, unique=True)):
        listed = draw(st.lists(st.sampled_from(INTENTS), min_size=1, max_size=4, unique=True))
        probabilities = draw(probabilities_of(len(listed)))
        types = draw(st.lists(st.sampled_from(['inf', 'nav']), min_size=len(listed), max_size=len(listed)))
        intents[topic] = {intent: (probability, kind)
                          for intent, probability, kind in zip(listed, probabilities, types, strict=True)}
        judged = draw(st.permutations(DOCS))[:draw(st.integers(1, len(DOCS)))]
        qrels[topic] = {}
        for doc in judged:
            if draw(st.integers(0, 7)) == 0:
                qrels[topic][doc] = {NON_RELEVANT: 0}
            else:
                qrels[topic][doc] = draw(st.dictionaries(st.sampled_from(listed), levels, min_size=1,
                                                           max_size=min(3, len(listed))))
        side = draw(st.sampled_from(['ranked'] * 6 + ['absent', 'empty']))
        if side == 'ranked':
            retrieved = draw(st.permutations(DOCS + UNJUDGED))[:draw(st.integers(1, len(DOCS + UNJUDGED)))]
            if draw(st.booleans()):
                scores = [float(score) for score in draw(st.permutations(range(len(retrieved))))]
            else:
                scores = draw(st.lists(st.sampled_from(TIED_SCORES), min_size=len(retrieved),
                                       max_size=len(retrieved)))
            run[topic] = dict(zip(retrieved, scores, strict=True))
        elif side == 'empty':
            run[topic] = {}
    if not any(run.values()) or draw(st.booleans()):
        run['only in the run'] = {'d1': 1.0, 'Z': 0.5}
    return qrels, intents, run


def provider_values(measures: list, qrels: dict, intents: dict, run: dict) -> dict[tuple[str, str], float]:
    """``{(str(measure), topic): value}`` of ``irmeasures_ext.provider`` on the generated data."""
    import ir_measures  # (imported here: the tests of NTCIREVAL's values above import nothing of the package)

    import irmeasures_ext
    from irmeasures_ext.errors import NoOverlapWarning, UnjudgedIntentWarning
    records = [ir_measures.Qrel(topic, doc, level, intent) for topic, docs in qrels.items()
               for doc, by_intent in docs.items() for intent, level in by_intent.items()]
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', UnjudgedIntentWarning)  # (an intent listed without a qrels line)
        warnings.simplefilter('ignore', NoOverlapWarning)  # (no topic of the qrels ranked)
        evaluator = irmeasures_ext.provider.evaluator(measures, irmeasures_ext.intent_qrels(records, intents))
        return {(str(m.measure), m.query_id): m.value for m in evaluator.iter_calc(run)}


@settings(max_examples=150, deadline=None)
@given(intent_data(), st.sampled_from([1, 2, 3, 5, 20]), st.sampled_from([1, 2]), st.sampled_from([0.5, 0.25]),
       st.sampled_from([1.0, 0.5, 2.0, 0.0]))
def test_the_provider_equals_the_references_on_generated_data(data, cutoff, rel, gamma, beta):
    import ir_measures
    qrels, intents, run = data
    measures = {}
    for name in REFERENCES:
        params = (f'gamma={gamma},' if name in SHARP else '') + ('p=0.8,' if name in PERSISTENT else '') + f'rel={rel}'
        blended = f'beta={beta},' if name in BLENDED else ''  # (not for D_NCU(utility='P'), which takes none)
        forms = [(f'{name}({blended}{params})' + ('' if name == 'I_rec_n' else f'@{cutoff}'), cutoff, {})]
        if name in WHOLE_LIST:
            forms.append((f'{name}({blended}{params})', ref.WHOLE_LIST, {}))
        if name == 'D_NCU':
            forms.append((f"D_NCU(utility='P',gamma={gamma},{params})@{cutoff}", cutoff,
                          {'utility': 'P', 'gamma': gamma}))
            forms += [(f'D_NCU(gamma={ends},{blended}{params})', ref.WHOLE_LIST, {'gamma': ends})
                      for ends in (0.0, 1.0)]
        for text, depth, ncu in forms:
            measure = ir_measures.parse_measure(text)
            measures[str(measure)] = (name, measure, False, depth, ncu)
            measures[str(measure(judged_only=True))] = (name, measure(judged_only=True), True, depth, ncu)
    assert_each_equals_its_reference(
        measures, qrels, intents, run, rel,
        lambda name, ranking, judgments, probabilities, types, depth, threshold, ncu: reference_value(
            name, ranking, judgments, probabilities, types, depth, threshold, gamma if name in SHARP else None,
            0.8 if name in PERSISTENT else None, ncu, beta if name in BLENDED else None))


def assert_each_equals_its_reference(forms: dict, qrels: dict, intents: dict, run: dict, rel: int,
                                     expected_of: Callable[..., float]) -> None:
    """Our provider's value of each form (key -> (name, measure, judged_only, depth, extra)) on each topic equals
    ``expected_of(name, ranking, judgments, probabilities, types, depth, threshold, extra)``: the plain reference on
    the topic's ranking (condensed for ``judged_only``) at the threshold the measure is computed with."""
    values = provider_values([measure for _, measure, _, _, _ in forms.values()], qrels, intents, run)
    assert set(values) == {(key, topic) for key in forms for topic in qrels}
    # (the default rel=1 on real-valued levels counts every level above 0: irmeasures_ext/engine/relevance.py)
    levels = {level for docs in qrels.values() for by_intent in docs.values() for level in by_intent.values()}
    threshold = math.ulp(0.0) if rel == 1 and any(not float(level).is_integer() for level in levels) else rel
    for key, (name, _, judged_only, depth, extra) in forms.items():
        for topic, judgments in qrels.items():
            ranking = ref.tie_rule_ranking(run.get(topic, {}))
            if judged_only:
                ranking = [doc for doc in ranking if doc in judgments]
            probabilities = {intent: probability for intent, (probability, _) in intents[topic].items()}
            types = {intent: kind for intent, (_, kind) in intents[topic].items()}
            expected = expected_of(name, ranking, judgments, probabilities, types, depth, threshold, extra)
            assert values[key, topic] == pytest.approx(expected, abs=1e-12), (key, topic, values[key, topic],
                                                                              expected)


# --- the DIN-measures against their references on generated data --------------------------------------------------

#: The DIN-measures that also take no cutoff (gcompute's lines without ``@k``: the whole list).
DIN_WHOLE_LIST = {'DIN_Q', 'DIN_ERR', 'DIN_RBP', 'DIN_EBR', 'DIN_AP', 'DIN_RR', 'DIN_O_measure', 'DIN_P_measure',
                  'DIN_P_plus', 'DIN_NCU'}


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
        assert (not din['cutoff'].required) == (name in DIN_WHOLE_LIST), name


def test_a_navigational_intent_counts_once_by_hand():
    """Intents 1 (P 0.6, informational) and 2 (P 0.4, navigational); a: 1→L2, b: 1→L1 and 2→L3, c: 2→L1; the run
    ranks b, c, a. DIN's gains: b 1.8, c 0 (intent 2 already seen), a 1.2; the ideal list b 1.8, a 1.2, c 0.4 (R 3,
    H 1.8)."""
    import ir_measures

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
    import ir_measures

    import irmeasures_ext
    evaluator = irmeasures_ext.provider.evaluator([ir_measures.parse_measure(m) for m in measures], qrels)
    return {(str(m.measure), m.query_id): m.value for m in evaluator.iter_calc(run)}


@settings(max_examples=100, deadline=None)
@given(intent_data(), st.sampled_from([1, 2, 3, 5, 20]), st.sampled_from([1, 2]), st.sampled_from([1.0, 0.5, 0.0]),
       st.sampled_from([0.95, 0.5]))
def test_the_din_measures_equal_the_references_on_generated_data(data, cutoff, rel, beta, gamma):
    """Every DIN-measure at a cutoff and, where it takes none, on the whole list, plain and ``judged_only``, at
    ``rel`` 1 or 2, with β, RBP's p and NCU's γ varied, equals the reference on each topic to 1e-12."""
    import ir_measures
    qrels, intents, run = data
    forms = {}
    for name, (_, takes) in DIN_MEASURES.items():
        params: dict[str, float | str] = {'beta': beta} if 'beta' in takes else {}
        params |= {'p': 0.8} if 'p' in takes else {}
        variants = [params] + ([{'utility': 'P', 'gamma': gamma}, {**params, 'gamma': gamma}] if 'ncu' in takes
                               else [])
        for variant in variants:
            text = f'{name}(' + ','.join(f'{key}={value!r}' for key, value in {**variant, 'rel': rel}.items()) + ')'
            depths = [cutoff] + ([ref.WHOLE_LIST] if name in DIN_WHOLE_LIST else [])
            for depth in depths:
                measure = ir_measures.parse_measure(text + ('' if depth == ref.WHOLE_LIST else f'@{depth}'))
                for judged_only in (False, True):
                    built = measure(judged_only=True) if judged_only else measure
                    forms[str(built)] = (name, built, judged_only, depth, variant)
    assert_each_equals_its_reference(
        forms, qrels, intents, run, rel,
        lambda name, ranking, judgments, probabilities, types, depth, threshold, variant: din_value(
            name, ranking, judgments, probabilities, types, depth, threshold, **variant))
