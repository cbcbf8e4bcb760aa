"""NTCIREVAL's intent-aware measures (``irmeasures_ext.engine.kernels.ntcir_diversity``) against NTCIREVAL 190111's
own values, through our provider; then the input forms, the evaluation command, the errors and the modes.

* ``tests/data/diversity/ntcireval_per_topic.tsv``: D-, D#-, DIN-, DIN#-, IA-measures, I-rec, P+Q and P+Q# at 4
  cutoffs and 2 γ, on seeded data built to cover intents without a relevant doc, docs relevant to several intents,
  navigational intents seen twice, topics without a relevant doc, unjudged docs, run-only topics;
  ``ntcireval_din_per_topic.tsv``: every other line DIN-NTCIR-eval prints, gcompute's on DIN's gains and irec's.
  q017's probabilities sum to 0.9000: NTCIREVAL computes with them as they are, and so do we, with a warning
  (test_diversity_rules.py compares its values); the comparisons here leave q017 out of the inputs and of the
  values (``REFUSED``).
* ``tests/data/ntcireval_diversity_ours/`` (this project's own data, seed 20261205): 59 topics with 2–8 intents,
  levels L0–L4, informational and navigational intents (navigational intents with relevant docs at several levels,
  first met at a lower one), an intent judged only L0 and one without any qrels line, docs relevant to several
  intents, judged non-relevant and unjudged docs, runs of 0–300 docs with distinct scores, at cutoffs 5, 10, 20,
  1000 and γ 0.5, 0.25. t6 (every judgment L0) is in the inputs but not in the values: NTCIREVAL refuses a topic
  without a relevant doc.

The ``irmeasures-ext ntcireval -I`` command's lines: test_command.py.
"""
from __future__ import annotations

import ir_measures
import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ntcireval_diversity import (
    DIN_GOLDEN,
    DIN_LINES,
    DIVERSITY,
    GOLDEN,
    OURS,
    OURS_DATA,
    REFUSED,
    RUN,
    TOLERANCE,
    evaluate,
    gcompute_rows,
    mismatches,
    read_golden,
    without_refused,
)
from public_paths import main

import irmeasures_ext
from irmeasures_ext.engine.kernels import ntcir_diversity
from irmeasures_ext.errors import InputError, MeasureParamError
from irmeasures_ext.readers.intent_probabilities import IntentFileError

# --- tests/data/diversity -----------------------------------------------------------------------------------------

def test_every_ntcireval_value_of_the_diversity_data(tmp_path):
    """21,756 values of ``ntcireval_per_topic.tsv``: 28 measures, 4 cutoffs, 147 topics (γ 0.5 and 0.25 for the
    #-measures; RBP at 0.95 and 0.99); and 12,348 of ``ntcireval_din_per_topic.tsv``: DIN-NTCIR-eval's 21 other
    lines, 4 cutoffs K, 147 topics, those without ``@k`` on the list cut at K (the depth cut K), I-rec@n on the
    whole run. Its I-rec@K lines are D-NTCIR-eval's."""
    qrels = irmeasures_ext.intent_qrels(without_refused(DIVERSITY / 'Dqrels.txt', tmp_path),
                                        without_refused(DIVERSITY / 'DINprob.txt', tmp_path))
    values = evaluate(sorted({measure for measure, _ in GOLDEN}), qrels)
    assert len(GOLDEN) == 21904 - 21904 // 148
    assert not mismatches(values, GOLDEN), mismatches(values, GOLDEN)[:5]
    assert sorted(DIN_GOLDEN) == [5, 10, 20, 1000] and sum(map(len, DIN_GOLDEN.values())) == 12432 - 12432 // 148
    for cutoff, golden in DIN_GOLDEN.items():
        values = evaluate(sorted({measure for measure, _ in golden} - {'I_rec_n'}), qrels, depth=cutoff)
        values.update(evaluate(['I_rec_n'], qrels))
        assert not mismatches(values, golden), (cutoff, mismatches(values, golden)[:5])
        irec = {key: value for key, value in golden.items() if key[0].startswith('I_rec@')}
        assert len(irec) == 147 and all(GOLDEN[key] == value for key, value in irec.items())


def test_iprob_gives_the_type_agnostic_values(tmp_path):
    """With Iprob (every intent informational), the D-, IA-measures and I-rec are the same; each DIN-measure becomes
    its D-measure."""
    qrels = irmeasures_ext.intent_qrels(without_refused(DIVERSITY / 'qrels.txt', tmp_path),
                                        without_refused(DIVERSITY / 'Iprob.txt', tmp_path))
    agnostic = {key: value for key, value in GOLDEN.items()
                if key[0].split('(')[0].split('@')[0] in ('D_nDCG', 'D_Q', 'D_nERR', 'D_RBP', 'D_EBR', 'I_rec',
                                                          'IA_nERR', 'IA_Q', 'IA_EBR')}
    din = [str(ir_measures.parse_measure(measure.replace('@k', '@10'))) for measure, _ in
           [*DIN_LINES.values(), ('DIN_nDCG@k', ''), ('DIN_Q@k', '')] if measure.startswith('DIN_')]
    assert len(din) == 21
    values = evaluate(sorted({measure for measure, _ in agnostic} | set(din) | {m.replace('DIN_', 'D_') for m in din}),
                      qrels)
    assert not mismatches(values, agnostic)
    assert all(values[measure, topic] == values[measure.replace('DIN_', 'D_'), topic] for measure in din
               for _, topic in values)


def probability_forms(tmp_path) -> dict:
    lines = [line.split() for line in (DIVERSITY / 'DINprob.txt').read_text(encoding='utf-8').splitlines()
             if not line.startswith(f'{REFUSED} ')]
    table = pa.table({'query_id': [f[0] for f in lines], 'intent': [f[1] for f in lines],
                      'probability': [float(f[2]) for f in lines], 'type': [f[3] for f in lines]})
    as_dict: dict = {}
    for query_id, intent, probability, kind in lines:
        as_dict.setdefault(query_id, {})[intent] = (float(probability), kind)
    pandas = pytest.importorskip('pandas')
    import pyarrow.feather as feather
    import pyarrow.parquet as pq
    pq.write_table(table, tmp_path / 'probabilities.parquet')
    feather.write_feather(table, tmp_path / 'probabilities.arrow')
    return {'DINprob file': without_refused(DIVERSITY / 'DINprob.txt', tmp_path), 'Arrow table': table,
            'DataFrame': pandas.DataFrame(table.to_pydict()), 'dict': as_dict,
            'Parquet file': str(tmp_path / 'probabilities.parquet'), 'Arrow IPC file': tmp_path / 'probabilities.arrow'}


def test_every_form_of_probabilities_and_qrels(tmp_path):
    measures = ['D_sharp_nDCG@10', 'DIN_Q@20', 'IA_nERR@5', 'PplusQ_sharp(gamma=0.25)@1000']
    golden = {key: value for key, value in GOLDEN.items() if key[0] in measures}
    qrels_records = [q for q in ir_measures.read_trec_qrels(str(DIVERSITY / 'qrels.txt')) if q.query_id != REFUSED]
    for form, probabilities in probability_forms(tmp_path).items():
        for qrels in (qrels_records, without_refused(DIVERSITY / 'Dqrels.txt', tmp_path)):
            values = evaluate(measures, irmeasures_ext.intent_qrels(qrels, probabilities))
            assert not mismatches(values, golden), form


def test_the_command(tmp_path, capsys):
    qrels = without_refused(DIVERSITY / 'Dqrels.txt', tmp_path)
    intents = without_refused(DIVERSITY / 'DINprob.txt', tmp_path)
    assert main([qrels, RUN, 'D_sharp_nDCG@10', 'IA_nERR@20', '--intents', intents, '-q', '-p', '12']) == 0
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    for measure in ('D_sharp_nDCG@10', 'IA_nERR@20'):
        assert f'q001\t{measure}\t{GOLDEN[measure, "q001"]:.12f}' in lines
    assert 'this intent has no qrels line (44 such intent(s)' in captured.err


@pytest.mark.parametrize('text, message', [
    ('q1 1 0.5 inf\nq1 2 0.5 web\n', r"probabilities.txt:2: intent type 'web' is not inf or nav"),
    ('q1 1 0.5\nq1 2 half\n', r"probabilities.txt:2: probability 'half' of intent '2' is not a number from 0 to 1"),
    ('q1 1 0.5\nq1 1 0.5\n', r"probabilities.txt:2: intent '1' of query 'q1' is listed twice \(first at "
                             r'.*probabilities.txt:1\)'),
    ('q1 1 0.5 inf\nq1 2 0.5\n', r'probabilities.txt:2: expected 4 fields'),
    ('q1 1 1.5\n', r"probabilities.txt:1: probability '1.5' of intent '1' is not a number from 0 to 1"),
])
def test_bad_probability_files_name_the_line(tmp_path, text, message):
    path = tmp_path / 'probabilities.txt'
    path.write_text(text, encoding='utf-8')
    with pytest.raises(IntentFileError, match=message):
        irmeasures_ext.intent_qrels([ir_measures.Qrel('q1', 'a', 1, '1')], str(path))


@pytest.mark.parametrize('level', [2, 0.5])  # (a real level above 0 is relevant too)
def test_a_relevant_intent_without_probability_is_refused(level):
    qrels = [ir_measures.Qrel('q1', 'a', 1, '1'), ir_measures.Qrel('q1', 'b', level, '2'),
             ir_measures.Qrel('q1', 'b', 0, '3')]  # (intent 3, judged only 0, needs no probability)
    with pytest.raises(IntentFileError) as refused:
        evaluate(['D_nDCG@10'], irmeasures_ext.intent_qrels(qrels, {'q1': {'1': 1.0}}), {'q1': {'a': 1.0}})
    assert str(refused.value) == ("intent '2' of query 'q1' has relevant judgments but no probability in the intent "
                                  'probabilities (1 such intent(s)): list each intent of the qrels with its '
                                  'probability')


def test_measures_need_probabilities_except_i_rec():
    qrels = [ir_measures.Qrel('q1', 'a', 1, '1'), ir_measures.Qrel('q1', 'b', 2, '2')]
    with pytest.raises(InputError) as refused:
        evaluate(['IA_Q@10'], qrels, {'q1': {'a': 1.0}})
    assert str(refused.value) == ("NTCIREVAL's diversity measures need the intents' probabilities P(i|q): give the "
                                  "qrels as irmeasures_ext.intent_qrels(qrels, 'Iprob.txt' or 'DINprob.txt') (on the "
                                  'command line: --intents FILE)')
    assert evaluate(['I_rec@1', 'I_rec@2'], qrels, {'q1': {'a': 2.0, 'b': 1.0}}) == {('I_rec@1', 'q1'): 0.5,
                                                                                   ('I_rec@2', 'q1'): 1.0}


#: The measures that take no cutoff too (NTCIREVAL's gcompute lines without ``@k``): the others require one.
WHOLE_LIST = {'D_RR', 'D_O_measure', 'D_P_measure', 'D_P_plus', 'D_NCU', 'D_GAP', 'D_AP', 'D_Q', 'D_RBP', 'D_ERR',
              'D_EBR', 'I_rec_n', 'DIN_RR', 'DIN_O_measure', 'DIN_P_measure', 'DIN_P_plus', 'DIN_NCU', 'DIN_AP',
              'DIN_Q', 'DIN_RBP', 'DIN_ERR', 'DIN_EBR', 'SUMp'}


def test_which_measures_take_no_cutoff():
    """NTCIREVAL's lines without ``@k`` (on the list as the script cut it) are our measures without a cutoff; every
    other measure of the family requires one (IA-RBP, D#-RBP, ... as before)."""
    family = {name for name, measure in irmeasures_ext.measures.DECLARED.items()
              if type(measure).__module__ == 'irmeasures_ext.measures.ntcir_diversity'}
    assert WHOLE_LIST < family and len(family) == 49
    qrels = irmeasures_ext.intent_qrels([ir_measures.Qrel('q', 'a', 1, '1')], {'q': {'1': 1.0}})
    for name in sorted(family - WHOLE_LIST):
        with pytest.raises(MeasureParamError, match=f'{name}.*cutoff'):
            evaluate([name], qrels, {'q': {'a': 1.0}})
    assert set(evaluate(sorted(WHOLE_LIST), qrels, {'q': {'a': 1.0}})) == {(name, 'q') for name in WHOLE_LIST}


def test_the_largest_gain_is_found_as_ntcireval_reads_the_gains():
    """P-measure and P-plus stop at rp, the first rank of the list's largest gain. Doc a, relevant to intents of
    P 0.1 and 0.2, and doc b, to one of 0.3, have one gain (0.1 + 0.2 = 0.3, as NTCIREVAL's glabel passes the gains
    to gcompute with 12 decimals), but not as doubles: ranked b, x (unjudged), a, rp is 1. Ideal: c (0.4), a, b;
    BR(1) = (1 + 0.3)/(1 + 0.4) (NTCIREVAL 190111 prints 0.928571428571 for both)."""
    qrels = irmeasures_ext.intent_qrels(
        [ir_measures.Qrel('q', 'a', 1, '1'), ir_measures.Qrel('q', 'a', 1, '2'), ir_measures.Qrel('q', 'b', 1, '3'),
         ir_measures.Qrel('q', 'c', 1, '4')], {'q': {'1': 0.1, '2': 0.2, '3': 0.3, '4': 0.4}})
    assert 0.1 + 0.2 != 0.3
    values = evaluate(['D_P_measure', 'D_P_plus'], qrels, {'q': {'b': 3.0, 'x': 2.0, 'a': 1.0}})
    assert values == pytest.approx({('D_P_measure', 'q'): 1.3 / 1.4, ('D_P_plus', 'q'): 1.3 / 1.4}, abs=1e-15)


def test_hand_computed_case():
    """One topic, intents 1 (P 0.6, informational) and 2 (P 0.4, navigational); qrels a: 1→L2, b: 1→L1, 2→L3,
    c: 2→L1; the run ranks b, c, a. GG: a 1.2, b 0.6 + 1.2 = 1.8, c 0.4; ideal b, a, c."""
    qrels = irmeasures_ext.intent_qrels(
        [ir_measures.Qrel('q', 'a', 2, '1'), ir_measures.Qrel('q', 'b', 1, '1'), ir_measures.Qrel('q', 'b', 3, '2'),
         ir_measures.Qrel('q', 'c', 1, '2')], {'q': {'1': (0.6, 'inf'), '2': (0.4, 'nav')}})
    values = evaluate(['D_nDCG@2', 'D_Q@3', 'DIN_nDCG@2', 'I_rec@1', 'D_sharp_nDCG@2', 'IA_Q@3'], qrels,
                      {'q': {'b': 3.0, 'c': 2.0, 'a': 1.0}})
    log3 = 1.584962500721156
    assert values['D_nDCG@2', 'q'] == pytest.approx((1.8 + 0.4 / log3) / (1.8 + 1.2 / log3), abs=1e-15)
    # D-Q@3: BR(1) = (1 + 1.8)/(1 + 1.8), BR(2) = (2 + 2.2)/(2 + 3.0), BR(3) = (3 + 3.4)/(3 + 3.4); R = 3.
    assert values['D_Q@3', 'q'] == pytest.approx((1 + 4.2 / 5 + 1) / 3, abs=1e-15)
    # DIN: intent 2 is navigational: c, its second relevant doc, gains 0.
    assert values['DIN_nDCG@2', 'q'] == pytest.approx(1.8 / (1.8 + 1.2 / log3), abs=1e-15)
    assert values['I_rec@1', 'q'] == 1.0
    assert values['D_sharp_nDCG@2', 'q'] == pytest.approx(0.5 + 0.5 * values['D_nDCG@2', 'q'], abs=1e-15)
    # IA-Q@3: intent 1 (ideal a 2, b 1): b at 1: BR (1+1)/(1+2); a at 3: (2+3)/(3+3); /2. Intent 2 (ideal b 3, c 1):
    # b at 1: (1+3)/(1+3); c at 2: (2+4)/(2+4); /2.
    expected = 0.6 * (2 / 3 + 5 / 6) / 2 + 0.4 * (1 + 1) / 2
    assert values['IA_Q@3', 'q'] == pytest.approx(expected, abs=1e-15)


def test_tie_policies_and_parameters():
    qrels = irmeasures_ext.intent_qrels([ir_measures.Qrel('q', 'a', 1, '1')], {'q': {'1': 1.0}})
    run = {'q': {'a': 1.0, 'b': 1.0}}
    # trec_eval's rule (doc id descending): b, unjudged, then a.
    assert evaluate(['D_nDCG@2'], qrels, run) == {('D_nDCG@2', 'q'): pytest.approx(1 / 1.584962500721156, abs=1e-15)}
    for ties in ('optimistic', 'expected'):
        with pytest.raises(MeasureParamError, match=f'D_nDCG@2 is not supported under ties={ties}'):
            evaluate(['D_nDCG@2'], qrels, run, ties=ties)
    with pytest.raises(MeasureParamError, match='gamma must be a number with 0 <= gamma <= 1'):
        irmeasures_ext.D_sharp_Q(gamma=1.5)
    with pytest.raises(MeasureParamError, match='D_Q: beta must be a finite number >= 0, got -1'):
        irmeasures_ext.D_Q(beta=-1)
    with pytest.raises(MeasureParamError, match="D_NCU: beta applies only with utility='BR', not utility='P'"):
        irmeasures_ext.D_NCU(utility='P', beta=0.5)
    with pytest.raises(MeasureParamError, match=r"D_nDCG: unknown parameter\(s\) \['beta'\]"):
        irmeasures_ext.D_nDCG(beta=0.5)  # (only the measures built on the blended ratio take β)


def test_judged_only_is_the_measure_on_the_run_without_unjudged_docs(tmp_path):
    """judged_only=True (the condensed list; a doc with any qrels line is judged, L0 too) equals the measure on the
    run from which the docs without a qrels line were removed, for every measure of this family and ndeval's."""
    qrels = irmeasures_ext.intent_qrels(without_refused(DIVERSITY / 'Dqrels.txt', tmp_path),
                                        without_refused(DIVERSITY / 'DINprob.txt', tmp_path))
    judged = {(q.query_id, q.doc_id) for q in ir_measures.read_trec_qrels(str(DIVERSITY / 'qrels.txt'))}
    run = [doc for doc in ir_measures.read_trec_run(RUN)]
    condensed_run = [doc for doc in run if (doc.query_id, doc.doc_id) in judged]
    assert 0 < len(condensed_run) < len(run)
    names = [name for _, name in OURS.items()] + [measure.split('@')[0] for measure, _ in DIN_LINES.values()
                                                  if measure.startswith('DIN_')] + ['alpha_nDCG', 'nERR_IA', 'P_IA']
    measures = [ir_measures.parse_measure(f'{name}@10') for name in dict.fromkeys(names)] + [
        ir_measures.parse_measure('AP_IA')]
    condensed = evaluate([m(judged_only=True) for m in measures], qrels, run)
    plain = evaluate(measures, qrels, condensed_run)
    assert len(condensed) == len(plain) == 148 * len(measures)
    for (measure, topic), value in plain.items():
        key = (str(ir_measures.parse_measure(measure)(judged_only=True)), topic)
        assert condensed[key] == pytest.approx(value, abs=1e-12), key
    whole = evaluate(measures, qrels, run)  # (and the condensed list changes values of the whole run)
    topics = {topic for _, topic in whole}
    assert sum(abs(condensed[str(m(judged_only=True)), topic] - whole[str(m), topic]) > 1e-9
               for m in measures for topic in topics) > 100


def test_classes_are_refused_by_name():
    qrels = irmeasures_ext.intent_qrels([ir_measures.Qrel('q', 'a', 1, '1')], {'q': {'1': 1.0}})
    for name in ('D_nDCG@5', 'alpha_nDCG@5'):
        with pytest.raises(MeasureParamError, match=f'{name}.*classes'):
            evaluate([name], qrels, {'q': {'a': 1.0}}, classes=True)


def test_the_depth_cut_is_the_measure_on_the_run_cut_at_the_depth(tmp_path):
    """configured(depth=N) (trec_eval's -M, NTCIREVAL's label -truncate) equals the measure on each query's first N
    docs, in the tie rule's order, for both diversity families."""
    qrels = irmeasures_ext.intent_qrels(without_refused(DIVERSITY / 'Dqrels.txt', tmp_path),
                                        without_refused(DIVERSITY / 'DINprob.txt', tmp_path))
    run: dict = {}
    for doc in ir_measures.read_trec_run(RUN):
        run.setdefault(doc.query_id, {})[doc.doc_id] = doc.score
    cut = {topic: {doc: docs[doc] for doc in sorted(docs, key=lambda d: (docs[d], d.encode()), reverse=True)[:3]}
           for topic, docs in run.items()}
    measures = ['D_sharp_nDCG@10', 'IA_Q@10', 'PplusQ@10', 'DIN_Q@5', 'alpha_nDCG@10', 'NRBP', 'AP_IA', 'D_Q', 'D_GAP',
                'D_NCU', 'D_P_measure', 'I_rec_n', 'DIN_P_plus', 'DIN_NCU', 'DIN_ERR@5']
    assert evaluate(measures, qrels, run, depth=3) == evaluate(measures, qrels, cut)
    assert evaluate(measures, qrels, run, depth=3) != evaluate(measures, qrels, run)


# --- tests/data/ntcireval_diversity_ours --------------------------------------------------------------------------

#: Known disagreements with NTCIREVAL: {(our measure string, topic): why}; none.
KNOWN_DISAGREEMENTS: dict[tuple[str, str], str] = {}


def test_every_ntcireval_value_of_our_own_data():
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


def read_gcompute() -> dict[int, dict[tuple[str, str], float]]:
    """``{K: {(our measure string, topic): NTCIREVAL's value}}`` of ``ntcireval_gcompute_per_topic.tsv``."""
    golden: dict[int, dict[tuple[str, str], float]] = {}
    for row in gcompute_rows():
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
