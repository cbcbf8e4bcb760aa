"""NTCIREVAL's intent-aware measures against NTCIREVAL 190111's own values on this project's own data
(``tests/data/ntcireval_diversity_ours/``, seed 20261205): 59 topics with 2–8 intents, levels L0–L4, informational
and navigational intents (navigational intents with relevant docs at several levels, first met at a lower one), an
intent judged only L0 and one without any qrels line, docs relevant to several intents, judged non-relevant and
unjudged docs, runs of 0–300 docs with distinct scores, at cutoffs 5, 10, 20, 1000 and γ 0.5, 0.25.

t6 (every judgment L0) is in the inputs but not in the values: NTCIREVAL refuses a topic without a relevant doc.
"""
from __future__ import annotations

import csv

import ir_measures
import numpy as np
import pytest
from conftest import DATA
from hypothesis import given, settings
from hypothesis import strategies as st
from public_paths import main
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
