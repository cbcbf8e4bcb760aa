"""NTCIREVAL's intent-aware measures (``irmeasures_ext.engine.kernels.ntcir_diversity``) against NTCIREVAL
190111's own values (``tests/data/diversity/ntcireval_per_topic.tsv``: D-, D#-, DIN-, DIN#-, IA-measures, I-rec,
P+Q and P+Q# at 4 cutoffs and 2 γ, on seeded data built to cover intents without a relevant doc, docs relevant to
several intents, navigational intents seen twice, topics without a relevant doc, unjudged docs, run-only topics;
``ntcireval_din_per_topic.tsv``: every other line DIN-NTCIR-eval prints, gcompute's on DIN's gains and irec's),
then the input forms, the command and the errors.

q017's probabilities sum to 0.9000: NTCIREVAL computes with them as they are, and so do we, with a warning
(``tests/test_ntcireval_diversity_rules.py`` compares its values); the comparisons here leave q017 out of the
inputs and of the values (``REFUSED``).
"""
from __future__ import annotations

import csv
import warnings

import ir_measures
import pyarrow as pa
import pytest
from conftest import DATA
from public_paths import main

import irmeasures_ext
from irmeasures_ext.cli.ntcireval import DIVERSITY_BEFORE_CUTOFFS
from irmeasures_ext.errors import InputError, MeasureParamError, UnjudgedIntentWarning
from irmeasures_ext.readers.intent_probabilities import IntentFileError

DIVERSITY = DATA / 'diversity'
RUN = str(DIVERSITY / 'run.txt')
TOLERANCE = 2e-12  # (NTCIREVAL prints 12 decimals; a #-measure adds the rounding of its two printed parts)
REFUSED = 'q017'
#: NTCIREVAL's (script, printed name) -> our measure (its name, and RBP's persistence: D-NTCIR-eval2 passes 0.99).
OURS = {('D-NTCIR-eval', 'MSnDCG'): 'D_nDCG', ('D-NTCIR-eval', 'Q'): 'D_Q', ('D-NTCIR-eval', 'nERR'): 'D_nERR',
        ('D-NTCIR-eval', 'I-rec'): 'I_rec', ('D-NTCIR-eval', 'D#-nDCG'): 'D_sharp_nDCG',
        ('D-NTCIR-eval', 'D#-Q'): 'D_sharp_Q', ('D-NTCIR-eval', 'ERR'): 'D_ERR', ('D-NTCIR-eval', 'RBP'): 'D_RBP',
        ('D-NTCIR-eval', 'EBR'): 'D_EBR', ('D-NTCIR-eval2', 'RBP'): 'D_RBP(p=0.99)',
        ('D-NTCIR-eval', 'AP'): 'D_AP', ('D-NTCIR-eval', 'P'): 'D_P', ('D-NTCIR-eval', 'Hit'): 'D_Hit',
        ('D-NTCIR-eval', 'nDCG'): 'D_nDCG_JK',
        ('D-NTCIR-eval2', 'D#-ERR'): 'D_sharp_ERR', ('D-NTCIR-eval2', 'D#-RBP'): 'D_sharp_RBP(p=0.99)',
        ('D-NTCIR-eval2', 'D#-EBR'): 'D_sharp_EBR', ('DIN-NTCIR-eval', 'MSnDCG'): 'DIN_nDCG',
        ('DIN-NTCIR-eval', 'Q'): 'DIN_Q',
        ('DIN-NTCIR-eval', 'DIN#-nDCG'): 'DIN_sharp_nDCG', ('DIN-NTCIR-eval', 'DIN#-Q'): 'DIN_sharp_Q',
        ('D-NTCIR-IAeval', 'IA-MSnDCG'): 'IA_MSnDCG', ('D-NTCIR-IAeval', 'IA-nERR'): 'IA_nERR',
        ('D-NTCIR-IAeval2', 'IA-Q'): 'IA_Q', ('D-NTCIR-IAeval2', 'IA-ERR'): 'IA_ERR',
        ('D-NTCIR-IAeval2', 'IA-RBP'): 'IA_RBP', ('D-NTCIR-IAeval2', 'IA-EBR'): 'IA_EBR',
        ('DIN-NTCIR-PQeval', 'PplusQ'): 'PplusQ', ('NEVIAPQ2sharpnev', 'PplusQ#'): 'PplusQ_sharp'}


def read_golden(path=DIVERSITY / 'ntcireval_per_topic.tsv', refused: str = REFUSED) -> dict[tuple[str, str], float]:
    """``{(our measure string, topic): NTCIREVAL's value}`` of every row of an ``ntcireval_per_topic.tsv`` but the
    ``refused`` topic's (a value printed by two scripts must be the same)."""
    golden: dict[tuple[str, str], float] = {}
    with open(path, encoding='utf-8') as lines:
        for row in csv.DictReader(lines, delimiter='\t'):
            name, cutoff = row['measure'].split('@')
            measure = ir_measures.parse_measure(f'{OURS[row["command"], name]}@{int(cutoff)}')
            if row['gamma'] != '-':
                measure = measure(gamma=float(row['gamma']))
            key = (str(measure), row['qid'])
            if row['qid'] != refused:
                assert golden.setdefault(key, float(row['value'])) == float(row['value']), key
    return golden


GOLDEN = read_golden()
#: DIN-NTCIR-eval's lines in ``ntcireval_din_per_topic.tsv`` (``@k`` for the cutoff's) -> (our measure, its line in
#: ``irmeasures-ext ntcireval -I``): gcompute's lines on DIN's gains against the D-measures' ideal list (those
#: without ``@k`` on the list the script cut at K: our measure without a cutoff under the depth cut K; ``nDCG@k`` is
#: Järvelin and Kekäläinen's, as D-NTCIR-eval's), and irec's, which are D-NTCIR-eval's.
DIN_LINES = {'RR': ('DIN_RR', 'DIN-RR'), 'O-measure': ('DIN_O_measure', 'DIN-O-measure'),
             'P-measure': ('DIN_P_measure', 'DIN-P-measure'), 'P-plus': ('DIN_P_plus', 'DIN-P-plus'),
             'AP': ('DIN_AP', 'DIN-AP'), 'Q-measure': ('DIN_Q', 'DIN-Q-measure'),
             'NCUrb,P': ("DIN_NCU(utility='P')", 'DIN-NCUrb,P'), 'NCUrb,BR': ('DIN_NCU', 'DIN-NCUrb,BR'),
             'RBP': ('DIN_RBP', 'DIN-RBP'), 'ERR': ('DIN_ERR', 'DIN-ERR'), 'EBR': ('DIN_EBR', 'DIN-EBR'),
             'I-rec@n': ('I_rec_n', 'I-rec@n'), 'AP@k': ('DIN_AP@k', 'DIN-AP@k'),
             'nDCG@k': ('DIN_nDCG_JK@k', 'DIN-nDCG_JK@k'), 'P@k': ('DIN_P@k', 'DIN-P@k'),
             'RBP@k': ('DIN_RBP@k', 'DIN-RBP@k'), 'ERR@k': ('DIN_ERR@k', 'DIN-ERR@k'),
             'nERR@k': ('DIN_nERR@k', 'DIN-nERR@k'), 'EBR@k': ('DIN_EBR@k', 'DIN-EBR@k'),
             'Hit@k': ('DIN_Hit@k', 'DIN-Hit@k'), 'I-rec@k': ('I_rec@k', 'I-rec@k')}


def din_rows() -> list[dict[str, str]]:
    """The rows of ``ntcireval_din_per_topic.tsv``, each with ``line``: its printed name with ``@k``."""
    with open(DIVERSITY / 'ntcireval_din_per_topic.tsv', encoding='utf-8') as lines:
        rows = list(csv.DictReader(lines, delimiter='\t'))
    assert rows and all(row['command'] == 'DIN-NTCIR-eval' and row['gamma'] == '-' for row in rows)
    return [{**row, 'line': row['measure'].replace(f'@{int(row["cutoff"]):04d}', '@k')} for row in rows]


def read_din_golden(refused: str = REFUSED) -> dict[int, dict[tuple[str, str], float]]:
    """``{K: {(our measure string, topic): NTCIREVAL's value}}`` of ``ntcireval_din_per_topic.tsv`` but the
    ``refused`` topic's."""
    golden: dict[int, dict[tuple[str, str], float]] = {}
    for row in din_rows():
        measure = ir_measures.parse_measure(DIN_LINES[row['line']][0].replace('@k', f'@{row["cutoff"]}'))
        if row['qid'] != refused:
            assert golden.setdefault(int(row['cutoff']), {}).setdefault(
                (str(measure), row['qid']), float(row['value'])) == float(row['value']), row
    return golden


DIN_GOLDEN = read_din_golden()


def without_refused(path, tmp_path) -> str:
    """A copy of an input file without q017's lines."""
    copy = tmp_path / path.name
    copy.write_text(''.join(line for line in path.read_text(encoding='utf-8').splitlines(keepends=True)
                            if not line.startswith(f'{REFUSED} ')), encoding='utf-8')
    return str(copy)


def evaluate(measures, qrels, run=RUN, **configured) -> dict[tuple[str, str], float]:
    provider = irmeasures_ext.provider.configured(**configured) if configured else irmeasures_ext.provider
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', UnjudgedIntentWarning)
        evaluator = provider.evaluator([ir_measures.parse_measure(str(m)) for m in measures], qrels)
    return {(str(m.measure), m.query_id): m.value for m in evaluator.iter_calc(run)}


def mismatches(values: dict, golden: dict) -> list:
    return [(key, values.get(key), value) for key, value in golden.items()
            if key not in values or abs(values[key] - value) > TOLERANCE]


def test_every_ntcireval_value(tmp_path):
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


#: The diversity mode's names (``irmeasures-ext ntcireval -I``) and NTCIREVAL's (script, printed name) of each.
NTCIREVAL_LINES = {'I-rec': ('D-NTCIR-eval', 'I-rec'), 'D-nDCG': ('D-NTCIR-eval', 'MSnDCG'),
                   'D-Q': ('D-NTCIR-eval', 'Q'), 'D-nERR': ('D-NTCIR-eval', 'nERR'), 'D-ERR': ('D-NTCIR-eval', 'ERR'),
                   'D-RBP': ('D-NTCIR-eval2', 'RBP'), 'D-EBR': ('D-NTCIR-eval', 'EBR'),
                   'D-AP': ('D-NTCIR-eval', 'AP'), 'D-P': ('D-NTCIR-eval', 'P'), 'D-Hit': ('D-NTCIR-eval', 'Hit'),
                   'D-nDCG_JK': ('D-NTCIR-eval', 'nDCG'),
                   'D#-nDCG': ('D-NTCIR-eval', 'D#-nDCG'), 'D#-Q': ('D-NTCIR-eval', 'D#-Q'),
                   'D#-ERR': ('D-NTCIR-eval2', 'D#-ERR'), 'D#-RBP': ('D-NTCIR-eval2', 'D#-RBP'),
                   'D#-EBR': ('D-NTCIR-eval2', 'D#-EBR'),
                   'DIN-nDCG': ('DIN-NTCIR-eval', 'MSnDCG'), 'DIN-Q': ('DIN-NTCIR-eval', 'Q'),
                   'DIN#-nDCG': ('DIN-NTCIR-eval', 'DIN#-nDCG'), 'DIN#-Q': ('DIN-NTCIR-eval', 'DIN#-Q'),
                   **{line.split('@')[0]: ('DIN-NTCIR-eval', theirs.split('@')[0]) for theirs, (_, line) in
                      DIN_LINES.items() if line.startswith('DIN-') and line.endswith('@k')},
                   'IA-MSnDCG': ('D-NTCIR-IAeval', 'IA-MSnDCG'), 'IA-nERR': ('D-NTCIR-IAeval', 'IA-nERR'),
                   'IA-Q': ('D-NTCIR-IAeval2', 'IA-Q'), 'IA-ERR': ('D-NTCIR-IAeval2', 'IA-ERR'),
                   'IA-EBR': ('D-NTCIR-IAeval2', 'IA-EBR'), 'PplusQ': ('DIN-NTCIR-PQeval', 'PplusQ'),
                   'PplusQ#': ('NEVIAPQ2sharpnev', 'PplusQ#')}


@pytest.mark.parametrize('gamma', [None, 0.25])
def test_the_ntcireval_diversity_mode_prints_ntcirevals_values(tmp_path, capsys, gamma):
    """``irmeasures-ext ntcireval QRELS RUN -I DINprob -cutoffs 5,1000 -q -o tsv -p 12``: every line is NTCIREVAL's
    value (γ = 0.5, or -Igamma 0.25), to the last printed digit but for the #-measures, which NTCIREVAL's scripts
    combine from its printed parts."""
    qrels = without_refused(DIVERSITY / 'Dqrels.txt', tmp_path)
    intents = without_refused(DIVERSITY / 'DINprob.txt', tmp_path)
    printed = {}
    with open(DIVERSITY / 'ntcireval_per_topic.tsv', encoding='utf-8') as lines:
        for row in [*csv.DictReader(lines, delimiter='\t'), *din_rows()]:
            if row['gamma'] in ('-', str(gamma or 0.5)):
                printed[row['command'], row['measure'], row['qid']] = row['value']
    # -rbp 0.99: D-NTCIR-eval2's persistence; IA-RBP and DIN-RBP, at 0.95 in NTCIREVAL's values, are left out below
    # (DIN-RBP: the next test).
    argv = ['ntcireval', qrels, RUN, '-I', intents, '-cutoffs', '5,1000', '-q', '-o', 'tsv', '-p', '12', '-rbp', '0.99']
    assert main(argv + ([] if gamma is None else ['-Igamma', str(gamma)])) == 0
    rows = [line.split('\t') for line in capsys.readouterr().out.splitlines()]
    per_topic = [row for row in rows if row[0] != 'all']
    # The lines printed once (D-GAP only with -gap): compared by the next test and test_ntcireval_diversity_ours.
    once = len(DIVERSITY_BEFORE_CUTOFFS) - 1
    assert len(per_topic) == (once + 2 * (len(NTCIREVAL_LINES) + 1)) * 147  # (q006: no relevant doc, no line)
    for topic, name, value in per_topic:
        if name.startswith(('IA-RBP', 'DIN-RBP')) or name in {line for line, _, _ in DIVERSITY_BEFORE_CUTOFFS}:
            continue
        ours, cutoff = name.split('@')
        command, theirs = NTCIREVAL_LINES[ours]
        assert abs(float(value) - float(printed[command, f'{theirs}@{cutoff}', topic])) <= TOLERANCE, (topic, name)


@pytest.mark.parametrize('cutoff', [5, 1000])
def test_the_ntcireval_diversity_mode_prints_every_line_of_din_ntcir_eval(tmp_path, capsys, cutoff):
    """``irmeasures-ext ntcireval QRELS RUN -I DINprob -cutoffs K -truncate K -q -o tsv -p 12`` prints each line of
    ``ntcireval_din_per_topic.tsv`` (DIN-NTCIR-eval's gcompute lines on the list cut at K, as DIN-..., and irec's)
    with NTCIREVAL's value for K = 5 and 1000: 21 lines of 147 topics."""
    qrels = without_refused(DIVERSITY / 'Dqrels.txt', tmp_path)
    intents = without_refused(DIVERSITY / 'DINprob.txt', tmp_path)
    golden = {(DIN_LINES[row['line']][1].replace('@k', f'@{cutoff:04d}'), row['qid']): float(row['value'])
              for row in din_rows() if int(row['cutoff']) == cutoff and row['qid'] != REFUSED}
    argv = ['ntcireval', qrels, RUN, '-I', intents, '-cutoffs', str(cutoff), '-truncate', str(cutoff), '-q', '-o',
            'tsv', '-p', '12']
    assert main(argv) == 0
    printed = {(name, topic): float(value) for topic, name, value in
               (line.split('\t') for line in capsys.readouterr().out.splitlines()) if topic != 'all'}
    assert len(golden) == 21 * 147 and set(golden) <= set(printed)
    wrong = [(key, printed[key], value) for key, value in golden.items() if abs(printed[key] - value) > TOLERANCE]
    assert not wrong, wrong[:5]


def test_the_ntcireval_diversity_modes_warnings_are_printed_once(capsys):
    """With -truncate, I-rec@n is computed in a second pass over the whole run: the inputs' warnings (an intent
    without qrels lines) are printed once all the same."""
    ours = DATA / 'ntcireval_diversity_ours'
    argv = ['ntcireval', str(ours / 'Dqrels.txt'), str(ours / 'run.txt'), '-I', str(ours / 'DINprob.txt')]
    assert main(argv) == 0
    warned = capsys.readouterr().err
    assert warned.count('this intent has no qrels line') == 1  # (t8's, and t41's counted in it)
    assert main([*argv, '-truncate', '5']) == 0
    assert capsys.readouterr().err == warned


def test_the_ntcireval_diversity_mode_refuses_ad_hoc_options(capsys):
    assert main(['ntcireval', str(DIVERSITY / 'Dqrels.txt'), RUN, '-I', str(DIVERSITY / 'DINprob.txt'), '-g',
                 '1:2:3', '-ec']) == 2
    assert capsys.readouterr().err.strip().endswith('error: -g -ec: not taken with -I (the diversity measures: their '
                                                    'gains are the levels)')  # (-rbp is: D-RBP's persistence)
    assert main(['ntcireval', str(DIVERSITY / 'Dqrels.txt'), RUN]) == 2
    assert 'error: -g GAINS is required (or -I FILE: the diversity measures)' in capsys.readouterr().err


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
