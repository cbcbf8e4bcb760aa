"""NTCIREVAL's intent-aware measures against NTCIREVAL 190111's own values on this project's own data
(``tests/data/ntcireval_diversity_ours/``, seed 20261205): 59 topics with 2–8 intents, levels L0–L4, informational
and navigational intents (navigational intents with relevant docs at several levels, first met at a lower one), an
intent judged only L0 and one without any qrels line, docs relevant to several intents, judged non-relevant and
unjudged docs, runs of 0–300 docs with distinct scores, at cutoffs 5, 10, 20, 1000 and γ 0.5, 0.25.

t6 (every judgment L0) is in the inputs but not in the values: NTCIREVAL refuses a topic without a relevant doc.
"""
from __future__ import annotations

import csv
from functools import partial

import ir_measures
import numpy as np
import pytest
import reference_ntcir_diversity as ref
from conftest import DATA
from hypothesis import given, settings
from hypothesis import strategies as st
from public_paths import main
from test_ntcir_din_measures import DIN_MEASURES, din_value
from test_ntcir_diversity import TOLERANCE, evaluate, read_golden

import irmeasures_ext
from irmeasures_ext.engine.kernels import ntcir_diversity

OURS_DATA = DATA / 'ntcireval_diversity_ours'
#: Known disagreements with NTCIREVAL: {(our measure string, topic): why}; none.
KNOWN_DISAGREEMENTS: dict[tuple[str, str], str] = {}


def test_every_ntcireval_value():
    """7,788 printed values: 59 topics x 4 cutoffs x 33 rows (24 measures, γ 0.5 and 0.25 for the #-measures)."""
    golden = read_golden(OURS_DATA / 'ntcireval_per_topic.tsv', refused='t6')
    assert len({topic for _, topic in golden}) == 59 and 't6' not in {topic for _, topic in golden}
    qrels = irmeasures_ext.intent_qrels(str(OURS_DATA / 'Dqrels.txt'), str(OURS_DATA / 'DINprob.txt'))
    values = evaluate(sorted({measure for measure, _ in golden}), qrels, str(OURS_DATA / 'run.txt'))
    wrong = [(key, values.get(key), value) for key, value in golden.items()
             if key not in KNOWN_DISAGREEMENTS and (key not in values or abs(values[key] - value) > TOLERANCE)]
    assert not wrong, wrong[:10]
    still = [key for key in KNOWN_DISAGREEMENTS if abs(values[key] - golden[key]) <= TOLERANCE]
    assert not still, still


#: gcompute's lines without ``@k`` in the same runs (``ntcireval_gcompute_per_topic.tsv``), NTCIREVAL's (command,
#: printed name) -> our measure: on the list the script cut at K, i.e. without a cutoff under the depth cut K.
GCOMPUTE = {('D-NTCIR-eval', 'RR'): 'D_RR', ('D-NTCIR-eval', 'O-measure'): 'D_O_measure',
            ('D-NTCIR-eval', 'P-measure'): 'D_P_measure', ('D-NTCIR-eval', 'P-plus'): 'D_P_plus',
            ('D-NTCIR-eval', 'AP'): 'D_AP', ('D-NTCIR-eval', 'Q-measure'): 'D_Q',
            ('D-NTCIR-eval', 'NCUrb,P'): "D_NCU(utility='P')", ('D-NTCIR-eval', 'NCUrb,BR'): 'D_NCU',
            ('D-NTCIR-eval', 'RBP'): 'D_RBP', ('D-NTCIR-eval', 'ERR'): 'D_ERR', ('D-NTCIR-eval', 'EBR'): 'D_EBR',
            ('D-NTCIR-eval', 'I-rec@n'): 'I_rec_n', ('D-NTCIR-eval2', 'RBP'): 'D_RBP(p=0.99)',
            ('gcompute -gap', 'GAP'): 'D_GAP', ('gcompute -gap', 'GAP@k'): 'D_GAP@k',
            ('gcompute -gamma 0.8', 'NCUrb,P'): "D_NCU(gamma=0.8,utility='P')",
            ('gcompute -gamma 0.8', 'NCUrb,BR'): 'D_NCU(gamma=0.8)'}


def _gcompute_rows() -> list[dict[str, str]]:
    with open(OURS_DATA / 'ntcireval_gcompute_per_topic.tsv', encoding='utf-8') as lines:
        return list(csv.DictReader(lines, delimiter='\t'))


def read_gcompute() -> dict[int, dict[tuple[str, str], float]]:
    """``{K: {(our measure string, topic): NTCIREVAL's value}}`` of ``ntcireval_gcompute_per_topic.tsv``."""
    golden: dict[int, dict[tuple[str, str], float]] = {}
    for row in _gcompute_rows():
        name = row['measure'].replace(f'@{int(row["cutoff"]):04d}', '@k')
        measure = GCOMPUTE[row['command'], name].replace('@k', f'@{row["cutoff"]}')
        key = (str(ir_measures.parse_measure(measure)), row['qid'])
        assert golden.setdefault(int(row['cutoff']), {}).setdefault(key, float(row['value'])) == float(
            row['value']), key
    return golden


@pytest.mark.parametrize('pairs_at_once', [None, 1, 7])
def test_every_gcompute_line_without_a_cutoff(monkeypatch, pairs_at_once):
    """4,012 printed values (59 topics x cutoffs 5, 10, 20, 1000): RR, O-measure, P-measure, P-plus, AP, Q-measure,
    rank-biased NCU (γ 0.95 and 0.8), RBP (p 0.95 and 0.99), ERR, EBR and GAP, as gcompute prints them on the list
    the scripts cut at K (our depth cut), GAP@K, and I-rec@n, which NTCIREVAL's irec reads from the whole run (past
    K when the topic has more intents)."""
    if pairs_at_once is not None:  # (GAP's grade sums built a row or a few rows at a time)
        monkeypatch.setattr(ntcir_diversity, 'GAP_PAIRS_AT_ONCE', pairs_at_once)
    golden = read_gcompute()
    assert sum(map(len, golden.values())) == 4012
    qrels = irmeasures_ext.intent_qrels(str(OURS_DATA / 'Dqrels.txt'), str(OURS_DATA / 'DINprob.txt'))
    for cutoff, values in golden.items():
        cut = {key: value for key, value in values.items() if key[0] != 'I_rec_n'}
        ours = evaluate(sorted({measure for measure, _ in cut}), qrels, str(OURS_DATA / 'run.txt'), depth=cutoff)
        ours.update(evaluate(['I_rec_n'], qrels, str(OURS_DATA / 'run.txt')))
        wrong = [(key, ours.get(key), value) for key, value in values.items()
                 if key not in ours or abs(ours[key] - value) > TOLERANCE]
        assert not wrong, (cutoff, wrong[:10])


def test_a_cutoff_is_the_list_cut_there():
    """D-RR@k, D-O-measure@k, D-P-measure@k, D-P-plus@k and D-NCU@k (no NTCIREVAL line has them) are the measure on
    the list cut at k: NTCIREVAL's lines at K = k; I-rec@n under the depth cut reads only the top K."""
    golden = read_gcompute()[5]
    qrels = irmeasures_ext.intent_qrels(str(OURS_DATA / 'Dqrels.txt'), str(OURS_DATA / 'DINprob.txt'))
    names = ('D_RR', 'D_O_measure', 'D_P_measure', 'D_P_plus', "D_NCU(utility='P')", 'D_NCU')
    ours = evaluate([f'{name}@5' for name in names], qrels, str(OURS_DATA / 'run.txt'))
    for (measure, topic), value in golden.items():
        if measure in names:
            assert abs(ours[str(ir_measures.parse_measure(measure) @ 5), topic] - value) <= TOLERANCE
    past_five = [topic for (measure, topic), value in golden.items() if measure == 'I_rec_n'
                 and evaluate(['I_rec_n'], qrels, str(OURS_DATA / 'run.txt'), depth=5)['I_rec_n', topic] < value]
    assert past_five  # (topics with more than 5 intents found below rank 5)


@pytest.mark.parametrize('cutoff', [5, 1000])
def test_the_diversity_mode_prints_gcomputes_lines(capsys, cutoff):
    """``irmeasures-ext ntcireval Dqrels run -I DINprob -cutoffs K -truncate K -gap`` (and ``-gamma 0.8``) print
    NTCIREVAL's values of gcompute's lines without ``@K``, GAP@K and I-rec@n (read past K) for K = 5 and 1000."""
    golden = {(command, name.replace(f'@{cutoff:04d}', '@k'), topic): value for command, name, topic, value in (
        (row['command'], row['measure'], row['qid'], float(row['value'])) for row in _gcompute_rows()
        if int(row['cutoff']) == cutoff)}
    printed = {'D-RR': 'RR', 'D-O-measure': 'O-measure', 'D-P-measure': 'P-measure', 'D-P-plus': 'P-plus',
               'D-AP': 'AP', 'D-Q-measure': 'Q-measure', 'D-NCUrb,P': 'NCUrb,P', 'D-NCUrb,BR': 'NCUrb,BR',
               'D-RBP': 'RBP', 'D-ERR': 'ERR', 'D-EBR': 'EBR', 'I-rec@n': 'I-rec@n'}
    for extra, command, names in ((['-gap'], 'gcompute -gap', {'D-GAP': 'GAP', f'D-GAP@{cutoff:04d}': 'GAP@k'}),
                                  (['-gamma', '0.8'], 'gcompute -gamma 0.8', {'D-NCUrb,P': 'NCUrb,P',
                                                                              'D-NCUrb,BR': 'NCUrb,BR'})):
        argv = ['ntcireval', str(OURS_DATA / 'Dqrels.txt'), str(OURS_DATA / 'run.txt'), '-I',
                str(OURS_DATA / 'DINprob.txt'), '-cutoffs', str(cutoff), '-truncate', str(cutoff), '-q', '-o', 'tsv',
                '-p', '12', *extra]
        assert main(argv) == 0
        lines = {name: ('D-NTCIR-eval', theirs) for name, theirs in printed.items()}
        lines.update({name: (command, theirs) for name, theirs in names.items()})  # (-gamma 0.8: NCU's lines)
        rows = [line.split('\t') for line in capsys.readouterr().out.splitlines()]
        compared = [(topic, name) for topic, name, _ in rows if name in lines and topic not in ('all', 't6')]
        assert len(compared) == 59 * len(lines)
        for topic, name, value in rows:
            if (topic, name) in compared:
                assert abs(float(value) - golden[(*lines[name], topic)]) <= TOLERANCE, (extra, topic, name, value)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(1, 6), max_size=30), st.integers(1, 12))
def test_gap_pair_blocks_cover_the_rows_within_the_limit(pairs, limit):
    """D-GAP's grade sums are built a block of rows at a time: the blocks follow each other over every row, each
    holds at most ``limit`` pairs (or one row alone), and each is as long as the limit allows."""
    blocks = ntcir_diversity.pair_blocks(np.array(pairs, dtype=np.int64), limit)
    assert [row for first, last in blocks for row in range(first, last)] == list(range(len(pairs)))
    for first, last in blocks:
        assert sum(pairs[first:last]) <= limit or last == first + 1
        assert last == len(pairs) or sum(pairs[first:last + 1]) > limit


#: The diversity mode's printed names (``@k`` for a cutoff's) -> (the reference function, what it reads besides the
#: ranking and judgments: ``irec`` the cutoff, ``irec_n`` nothing, ``plain`` the probabilities, ``typed`` the
#: probabilities and types; whether it takes β, i.e. whether its value holds a blended ratio; its fixed parameters).
DIVERSITY_REFERENCES = {
    'D-RR': (ref.d_rr, 'plain', False, {}), 'D-O-measure': (ref.d_o_measure, 'plain', True, {}),
    'D-P-measure': (ref.d_p_measure, 'plain', True, {}), 'D-P-plus': (ref.d_p_plus, 'plain', True, {}),
    'D-AP': (ref.d_ap, 'plain', False, {}), 'D-Q-measure': (ref.d_q, 'plain', True, {}),
    'D-NCUrb,P': (ref.d_ncu, 'plain', False, {'utility': 'P'}), 'D-NCUrb,BR': (ref.d_ncu, 'plain', True, {}),
    'D-RBP': (ref.d_rbp, 'plain', False, {}), 'D-ERR': (ref.d_err, 'plain', False, {}),
    'D-EBR': (ref.d_ebr, 'plain', True, {}), 'I-rec@n': (ref.i_rec_at_n, 'irec_n', False, {}),
    'SUMp': (ref.sum_p, 'plain', False, {}),
    'I-rec@k': (ref.i_rec, 'irec', False, {}), 'D-nDCG@k': (ref.d_ndcg, 'plain', False, {}),
    'D-Q@k': (ref.d_q, 'plain', True, {}), 'D-nERR@k': (ref.d_nerr, 'plain', False, {}),
    'D-ERR@k': (ref.d_err, 'plain', False, {}), 'D-RBP@k': (ref.d_rbp, 'plain', False, {}),
    'D-EBR@k': (ref.d_ebr, 'plain', True, {}), 'D-AP@k': (ref.d_ap, 'plain', False, {}),
    'D-P@k': (ref.d_p, 'plain', False, {}), 'D-Hit@k': (ref.d_hit, 'plain', False, {}),
    'D-nDCG_JK@k': (ref.d_ndcg_jk, 'plain', False, {}), 'D#-nDCG@k': (ref.d_sharp_ndcg, 'plain', False, {}),
    'D#-Q@k': (ref.d_sharp_q, 'plain', True, {}), 'D#-ERR@k': (ref.d_sharp_err, 'plain', False, {}),
    'D#-RBP@k': (ref.d_sharp_rbp, 'plain', False, {}), 'D#-EBR@k': (ref.d_sharp_ebr, 'plain', True, {}),
    'DIN-nDCG@k': (ref.din_ndcg, 'typed', False, {}), 'DIN-Q@k': (ref.din_q, 'typed', True, {}),
    'DIN#-nDCG@k': (ref.din_sharp_ndcg, 'typed', False, {}), 'DIN#-Q@k': (ref.din_sharp_q, 'typed', True, {}),
    'IA-MSnDCG@k': (ref.ia_msndcg, 'plain', False, {}), 'IA-nERR@k': (ref.ia_nerr, 'plain', False, {}),
    'IA-Q@k': (ref.ia_q, 'plain', True, {}), 'IA-ERR@k': (ref.ia_err, 'plain', False, {}),
    'IA-RBP@k': (ref.ia_rbp, 'plain', False, {}), 'IA-EBR@k': (ref.ia_ebr, 'plain', True, {}),
    'PplusQ@k': (ref.pplus_q, 'typed', True, {}), 'PplusQ#@k': (ref.pplus_q_sharp, 'typed', True, {}),
    # DIN-NTCIR-eval's gcompute lines: the D-lines' measures on DIN's gains (tests/test_ntcir_din_measures.py)
    **{f'DIN-{line}': (partial(din_value, name), 'typed', 'beta' in DIN_MEASURES[name][1] and fixed != {'utility': 'P'},
                       fixed)
       for line, name, fixed in (
           ('RR', 'DIN_RR', {}), ('O-measure', 'DIN_O_measure', {}), ('P-measure', 'DIN_P_measure', {}),
           ('P-plus', 'DIN_P_plus', {}), ('AP', 'DIN_AP', {}), ('Q-measure', 'DIN_Q', {}),
           ('NCUrb,P', 'DIN_NCU', {'utility': 'P'}), ('NCUrb,BR', 'DIN_NCU', {}), ('RBP', 'DIN_RBP', {}),
           ('ERR', 'DIN_ERR', {}), ('EBR', 'DIN_EBR', {}), ('nERR@k', 'DIN_nERR', {}), ('ERR@k', 'DIN_ERR', {}),
           ('RBP@k', 'DIN_RBP', {}), ('EBR@k', 'DIN_EBR', {}), ('AP@k', 'DIN_AP', {}), ('P@k', 'DIN_P', {}),
           ('Hit@k', 'DIN_Hit', {}), ('nDCG_JK@k', 'DIN_nDCG_JK', {}))}}


def _line(name: str) -> tuple[str, int]:
    """(the key of :data:`DIVERSITY_REFERENCES`, the cutoff) of a printed name (``D-Q@0020``: ``D-Q@k``, 20)."""
    base, _, at = name.partition('@')
    return (name, ref.WHOLE_LIST) if at in ('', 'n') else (f'{base}@k', int(at))


def diversity_reference(name: str, topic: str, beta: float, data: tuple) -> float:
    """The reference's value of the diversity mode's line ``name`` (as printed, e.g. ``D-Q@0020``) for ``topic`` at
    patience ``beta``; ``data``: (qrels, probabilities, types, run) as the references read the files."""
    qrels, probabilities, types, run = data
    line, cutoff = _line(name)
    function, reads, takes_beta, fixed = DIVERSITY_REFERENCES[line]
    ranking, judgments = ref.tie_rule_ranking(run.get(topic, {})), qrels[topic]
    params = {**fixed, **({'beta': beta} if takes_beta else {})}
    if reads == 'irec':
        return function(ranking, judgments, cutoff)
    if reads == 'irec_n':
        return function(ranking, judgments)
    if reads == 'typed':
        return function(ranking, judgments, probabilities[topic], types[topic], cutoff, **params)
    return function(ranking, judgments, probabilities[topic], cutoff, **params)


@pytest.mark.parametrize('beta', [0.5, 2.0, 0.0])
def test_the_diversity_mode_honours_beta(capsys, beta):
    """``irmeasures-ext ntcireval Dqrels run -I DINprob -beta B`` (issue 45): every line whose value holds a blended
    ratio (gcompute's O-measure, P-measure, P-plus, Q-measure, NCUrb,BR, EBR, Q@k and EBR@k over the global gain,
    the D#-, DIN-, DIN#-, IA- and P+Q lines built on them) is computed with β = B, every other line as without
    ``-beta``: each of the 59 topics' values equals the plain references computed with that β, and each β line
    differs from its β = 1 value for some topic."""
    qrels = ref.read_dqrels(OURS_DATA / 'Dqrels.txt')
    probabilities, types = ref.read_dinprob(OURS_DATA / 'DINprob.txt')
    data = (qrels, probabilities, types, ref.read_trec_run(OURS_DATA / 'run.txt'))
    argv = ['ntcireval', str(OURS_DATA / 'Dqrels.txt'), str(OURS_DATA / 'run.txt'), '-I',
            str(OURS_DATA / 'DINprob.txt'), '-cutoffs', '5,20', '-beta', str(beta), '-q', '-o', 'tsv', '-p', '-1']
    assert main(argv) == 0
    rows = [line.split('\t') for line in capsys.readouterr().out.splitlines()]
    per_topic = [(topic, name, float(value)) for topic, name, value in rows if topic != 'all']
    topics = {topic for topic in qrels if ref.intents_with_relevant_doc(qrels[topic])}
    assert {topic for topic, _, _ in per_topic} == topics and len(topics) == 59  # (t6 has no relevant doc)
    assert len(per_topic) == 59 * (24 + 2 * 36)
    changed = set()
    for topic, name, value in per_topic:
        expected = diversity_reference(name, topic, beta, data)
        assert value == pytest.approx(expected, abs=1e-12), (topic, name, value, expected)
        if abs(diversity_reference(name, topic, 1.0, data) - value) > 1e-9:
            changed.add(name)
    assert changed == {name for _, name, _ in per_topic if DIVERSITY_REFERENCES[_line(name)[0]][2]}


@pytest.mark.parametrize('beta', ['-1', '-0.5', 'nan', 'inf'])
def test_the_diversity_mode_refuses_bad_beta_as_the_ad_hoc_mode(capsys, beta):
    """``-beta`` takes a finite number >= 0 in the diversity mode (``-I``) too: the ad hoc mode's one-line error,
    exit status 2, nothing on stdout."""
    files = [str(OURS_DATA / 'Dqrels.txt'), str(OURS_DATA / 'run.txt')]
    assert main(['ntcireval', *files, '-I', str(OURS_DATA / 'DINprob.txt'), '-beta', beta]) == 2
    diversity = capsys.readouterr()
    assert main(['ntcireval', *files, '-g', '1:2:3:4', '-beta', beta]) == 2
    assert (diversity.out, diversity.err) == ('', capsys.readouterr().err)
    assert diversity.err == f'irmeasures-ext: error: -beta must be a finite number >= 0, got {float(beta):g}\n'
