"""What NTCIREVAL 190111's diversity evaluation accepts, refuses and averages, and what we do alike (issue 47,
parts 3-5).

* Intent probabilities that do not sum to 1: NTCIREVAL computes with them as they are written (no
  renormalisation), and so do we, with one warning (:class:`ProbabilitySumWarning`) where a query's sum is not 1
  to the precision its probabilities are written with; ``renormalise=True`` (``--renormalise-intents``) divides
  them by their sum. q017 of ``tests/data/diversity`` (sum 0.9000) gets NTCIREVAL's values.
* Levels and gains NTCIREVAL cannot take: its ``DIN-splitqrels`` reads levels L0 to L9 only, and its ``compute``
  stops on gains that decrease from L1 up ("Bad gain/stop values"), on more than 15 levels ("maxrl overflow") and
  on as many stop values as levels but not ("gain/stop rel levels mismatch"): the ``ntcireval`` command refuses
  them, saying so; our measures take them.
* Means: NTCIREVAL's ``NEV2mean`` divides by the topics of the intent file (a topic without qrels lines, q007,
  counts 0); ours by the qrels topics, unless ``ntcireval -I ... --ntcireval-means``. Checked against the mean of
  NTCIREVAL's own per-topic values, with what it printed for q006 and q007 (``ntcireval_undefined_topics.tsv``).
"""
from __future__ import annotations

import csv
import re
import warnings

import ir_measures
import pytest
from conftest import DATA
from ntcireval_diversity import NTCIREVAL_LINES, TOLERANCE, evaluate, mismatches, read_din_golden, read_golden
from public_paths import main

import irmeasures_ext
from irmeasures_ext.errors import IrMeasuresExtError, MeasureParamError, ProbabilitySumWarning, UnjudgedIntentWarning
from irmeasures_ext.readers.intent_probabilities import IntentFileError, read_intent_probabilities

DIVERSITY = DATA / 'diversity'
RUN = str(DIVERSITY / 'run.txt')
#: A query whose probabilities sum to 0.9 (q1), one to 0.3 + 0.3 + 0.3 (1 to one decimal: each may be 1/3
#: rounded), one to 0.9 again (q3).
SUMS = 'q1 1 0.5\nq1 2 0.4\nq2 1 0.3\nq2 2 0.3\nq2 3 0.3\nq3 1 0.6\nq3 2 0.3\n'
SUMS_WARNING = ("the intent probabilities of query 'q1' sum to 0.9, not 1 to the precision they are written with "
                "(2 such queries): NTCIREVAL's measures take them as they are, and so do ours (renormalise=True, on "
                "the command line --renormalise-intents, divides each by its query's sum)")


def write(tmp_path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding='utf-8')
    return str(path)


def perfect(tmp_path) -> tuple[str, str]:
    """Dqrels judging doc a relevant to every intent of q1, q2, q3 (and b to none), and a run ranking a first: every
    intent's nERR is 1, so IA-nERR is the sum of the probabilities."""
    qrels = ''.join(''.join(f'q{q} {intent} a L1\n' for intent in range(1, 3 + (q == 2))) + f'q{q} 0 b L0\n'
                    for q in (1, 2, 3))
    run = ''.join(f'q{q} Q0 a 1 2 r\nq{q} Q0 b 2 1 r\n' for q in (1, 2, 3))
    return write(tmp_path, 'Dqrels.txt', qrels), write(tmp_path, 'run.txt', run)


def ia_nerr(qrels, run: str) -> dict[str, float]:
    return {query: value for (_, query), value in evaluate(['IA_nERR@10'], qrels, run).items()}


def test_probabilities_are_taken_as_written_with_one_warning(tmp_path):
    probabilities = write(tmp_path, 'Iprob.txt', SUMS)
    qrels, run = perfect(tmp_path)
    with pytest.warns(ProbabilitySumWarning) as warned:
        given = irmeasures_ext.intent_qrels(qrels, probabilities)
    assert [str(warning.message) for warning in warned] == [f'{probabilities}:1: {SUMS_WARNING}']
    assert warned[0].filename == __file__  # (the user's call)
    assert ia_nerr(given, run) == pytest.approx({'q1': 0.9, 'q2': 0.9, 'q3': 0.9}, abs=1e-15)


@pytest.mark.parametrize('text', [
    'q 1 0.3333\nq 2 0.3333\nq 3 0.3333\n',  # 0.9999: 4 decimals, within 3 x 0.00005 of 1
    'q 1 0.333333\nq 2 0.333333\nq 3 0.333333\n',
    'q 1 0.3334\nq 2 0.3333\nq 3 0.3332\n',
    'q 1 0.3\nq 2 0.3\nq 3 0.3\n',  # 0.9: 1 decimal, within 3 x 0.05 of 1
    'q 1 0.0834\nq 2 0.0834\nq 3 0.0834\nq 4 0.0834\nq 5 0.0833\nq 6 0.0833\nq 7 0.0833\nq 8 0.0833\n'
    'q 9 0.0833\nq 10 0.0833\nq 11 0.0833\nq 12 0.0833\n',
    'q 1 1\n', 'q 1 .5\nq 2 5e-1\n', 'q 1 0.25\nq 2 0.75\nq 3 0\n',
])
def test_sums_that_are_1_to_the_written_precision_are_taken_silently(tmp_path, text):
    with warnings.catch_warnings():
        warnings.simplefilter('error', ProbabilitySumWarning)
        read = read_intent_probabilities(write(tmp_path, 'Iprob.txt', text))
    assert list(read.probability) == [float(line.split()[2]) for line in text.splitlines()]  # (as written)


@pytest.mark.parametrize('text, total', [
    ('q 1 0.5\nq 2 0.4\n', '0.9'),  # off by 0.1: 2 x 0.05 exactly, which no rounding of two 1/2s gives
    ('q 1 0.50\nq 2 0.49\n', '0.99'),
    ('q 1 0.3333\nq 2 0.3333\nq 3 0.3332\n', '0.9998'),
    ('q 1 1\nq 2 0.5\n', '1.5'),  # (a probability written 0 or 1 is exact)
    ('q 1 0\nq 2 0\n', '0'),
])
def test_sums_that_are_not_1_to_the_written_precision_warn(tmp_path, text, total):
    probabilities = write(tmp_path, 'Iprob.txt', text)
    with pytest.warns(ProbabilitySumWarning, match=re.escape(f"{probabilities}:1: the intent probabilities of "
                                                             f"query 'q' sum to {total}, not 1 to the precision "
                                                             'they are written with (1 such query)')):
        read_intent_probabilities(probabilities)


def test_numbers_have_the_precision_of_their_shortest_form():
    """A dict or table holds numbers: their written precision is that of Python's shortest repr."""
    with warnings.catch_warnings():
        warnings.simplefilter('error', ProbabilitySumWarning)
        read_intent_probabilities({'q': {'1': 1 / 3, '2': 1 / 3, '3': 1 / 3}})
        read_intent_probabilities({'q': {'1': 0.1 + 0.2, '2': 0.7}})
        read_intent_probabilities({'q': {'1': 0.3333, '2': 0.3333, '3': 0.3333}})
        read_intent_probabilities({'q': {'1': 0.123456789, '2': 1 - 0.123456789}})
    with pytest.warns(ProbabilitySumWarning, match="intent probabilities of query 'q': the intent probabilities of "
                                                   "query 'q' sum to 0.9, not 1"):
        read_intent_probabilities({'q': {'1': 0.5, '2': 0.4}})


def test_renormalising_divides_by_the_sum(tmp_path):
    probabilities = write(tmp_path, 'Iprob.txt', SUMS)
    qrels, run = perfect(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter('error', ProbabilitySumWarning)
        renormalised = irmeasures_ext.intent_qrels(qrels, probabilities, renormalise=True)
        read = read_intent_probabilities(probabilities, renormalise=True)
    assert list(read.probability) == pytest.approx([5 / 9, 4 / 9, 1 / 3, 1 / 3, 1 / 3, 2 / 3, 1 / 3], abs=1e-15)
    assert ia_nerr(renormalised, run) == pytest.approx({'q1': 1.0, 'q2': 1.0, 'q3': 1.0}, abs=1e-15)
    with pytest.raises(IntentFileError) as refused:
        read_intent_probabilities(write(tmp_path, 'zero.txt', 'q 1 0.5\nq 2 0.5\nr 1 0\n'), renormalise=True)
    assert str(refused.value) == (f"{tmp_path / 'zero.txt'}:3: the intent probabilities of query 'r' sum to 0, "
                                  'which cannot be renormalised')
    with pytest.warns(ProbabilitySumWarning):  # (read already: renormalised all the same)
        already = read_intent_probabilities({'q': {'1': 0.25, '2': 0.5}})
    assert list(read_intent_probabilities(already, renormalise=True).probability) == [1 / 3, 2 / 3]
    with pytest.raises(IrMeasuresExtError, match="renormalise must be True or False, got 'yes'"):
        irmeasures_ext.intent_qrels(qrels, probabilities, renormalise='yes')


def test_the_commands_take_them_and_renormalise_on_request(tmp_path, capsys):
    probabilities = write(tmp_path, 'Iprob.txt', SUMS)
    qrels, run = perfect(tmp_path)
    assert main([qrels, run, 'IA_nERR@10', '--intents', probabilities, '-q']) == 0
    captured = capsys.readouterr()
    assert 'q1\tIA_nERR@10\t0.9000' in captured.out.splitlines()
    assert captured.err == f'irmeasures-ext: warning: {probabilities}:1: {SUMS_WARNING}\n'
    assert main([qrels, run, 'IA_nERR@10', '--intents', probabilities, '-q', '--renormalise-intents']) == 0
    captured = capsys.readouterr()
    assert 'q1\tIA_nERR@10\t1.0000' in captured.out.splitlines() and captured.err == ''
    argv = ['ntcireval', qrels, run, '-I', probabilities, '-cutoffs', '10', '-q', '-o', 'tsv']
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert 'q1\tIA-nERR@0010\t0.9000' in captured.out.splitlines()
    assert captured.err == f'irmeasures-ext: warning: {probabilities}:1: {SUMS_WARNING}\n'
    assert main([*argv, '--renormalise-intents']) == 0
    captured = capsys.readouterr()
    assert 'q1\tIA-nERR@0010\t1.0000' in captured.out.splitlines() and captured.err == ''


@pytest.mark.parametrize('argv, message', [
    ([str(DIVERSITY / 'qrels.txt'), RUN, 'P@10', '--renormalise-intents'],
     '--renormalise-intents renormalises the intent probabilities of --intents FILE: give --intents too'),
    (['ntcireval', RUN, RUN, '-g', '1:2:3', '--renormalise-intents'],
     '--renormalise-intents renormalises the intent probabilities of -I FILE: give -I too'),
])
def test_renormalising_needs_the_probabilities(capsys, argv, message):
    assert main(argv) == 2
    assert capsys.readouterr().err == f'irmeasures-ext: error: {message}\n'


def test_q017_whose_probabilities_sum_to_0_9_gets_ntcirevals_values():
    """q017's 4 probabilities sum to 0.9000 (DINprob.txt, lines 74-77): NTCIREVAL computes with them as they are,
    and so do we, every value of its 148 (measure, cutoff, γ) rows equal to NTCIREVAL's."""
    golden = {key: value for key, value in read_golden(refused='').items() if key[1] == 'q017'}
    assert len(golden) == 148
    with pytest.warns(ProbabilitySumWarning) as warned:
        qrels = irmeasures_ext.intent_qrels(str(DIVERSITY / 'Dqrels.txt'), str(DIVERSITY / 'DINprob.txt'))
    assert [str(warning.message) for warning in warned] == [
        f"{DIVERSITY / 'DINprob.txt'}:74: the intent probabilities of query 'q017' sum to 0.9000, not 1 to the "
        "precision they are written with (1 such query): NTCIREVAL's measures take them as they are, and so do "
        "ours (renormalise=True, on the command line --renormalise-intents, divides each by its query's sum)"]
    values = evaluate(sorted({measure for measure, _ in golden}), qrels)
    assert not mismatches(values, golden), mismatches(values, golden)[:5]
    # and DIN-NTCIR-eval's other 21 lines at K = 1000 (the whole list: no topic's run is longer)
    din = {key: value for key, value in read_din_golden(refused='')[1000].items() if key[1] == 'q017'}
    values = evaluate(sorted({measure for measure, _ in din}), qrels)
    assert len(din) == 21 and not mismatches(values, din), mismatches(values, din)[:5]


# Part 4: levels and gains.

@pytest.mark.parametrize('argv, message', [
    (['-g', '5:1:5'], '-g 5:1:5: the gain of L1 (5) is above that of L2 (1), which NTCIREVAL\'s compute refuses ("Bad '
                      'gain/stop values"): give gains that do not decrease from L1 up'),
    (['-g', '2:1:3'], '-g 2:1:3: the gain of L1 (2) is above that of L2 (1), which NTCIREVAL\'s compute refuses ("Bad '
                      'gain/stop values"): give gains that do not decrease from L1 up'),
    (['-g', '1:3:2', '-s', '1:1:1'], '-g 1:3:2: the gain of L2 (3) is above that of L3 (2), which NTCIREVAL\'s compute '
                                     'refuses ("Bad gain/stop values"): give gains that do not decrease from L1 up'),
    (['-g', '1:2:3', '-s', '1:2'], '-s 1:2: 2 stop values for the 3 levels of -g 1:2:3, which NTCIREVAL\'s compute '
                                   'refuses ("gain/stop rel levels mismatch"): give one stop value per level'),
    (['-g', ':'.join(map(str, range(1, 17)))],
     f'-g {":".join(map(str, range(1, 17)))}: 16 levels, which NTCIREVAL\'s compute refuses ("maxrl overflow": it '
     'takes at most 15)'),
    (['-g', ':'.join(['1'] * 15), '-s', ':'.join(['1'] * 16)],
     f'-s {":".join(["1"] * 16)}: 16 levels, which NTCIREVAL\'s compute refuses ("maxrl_stop overflow": it takes at '
     'most 15)'),
])
def test_gains_ntcirevals_compute_refuses_are_refused(capsys, argv, message):
    qrels = str(DATA / 'ntcireval' / 'qrels.txt')
    assert main(['ntcireval', qrels, str(DATA / 'ntcireval' / 'run.txt'), *argv]) == 2
    assert capsys.readouterr() == ('', f'irmeasures-ext: error: {message}\n')


def test_gains_ntcirevals_compute_takes_are_taken(capsys):
    """Equal gains, and 15 levels, are NTCIREVAL's: computed."""
    files = [str(DATA / 'ntcireval' / 'qrels.txt'), str(DATA / 'ntcireval' / 'run.txt')]
    for gains in ('1:1:3', '1:2:2', ':'.join(map(str, range(1, 16)))):
        assert main(['ntcireval', *files, '-g', gains, '-cutoffs', '10']) == 0, capsys.readouterr().err
        assert capsys.readouterr().out.startswith('RR=')


@pytest.mark.parametrize('labels, problem', [
    (('L1', 'L1', 'L10', 'L2'), "label 10 of doc 'b' in query 'q1' is above L9"),
    (('1', '1', '12', '2'), "label 12 of doc 'b' in query 'q1' is above L9"),
    (('1', '1', '1.5', '2'), "label 1.5 of doc 'b' in query 'q1' is not a level"),
])
def test_levels_ntcirevals_scripts_cannot_read_are_refused(tmp_path, capsys, labels, problem):
    """NTCIREVAL's DIN-splitqrels reads levels L0 to L9: it leaves any other label (L10, 1.5) out of the global gains,
    and writes it in the intent's Irelv file with the gain of the line before; the command refuses them, naming the
    line. Our measures take any label, its gain the label."""
    lines = zip(('1 a', '1 b', '2 b', '2 c'), labels, strict=True)
    qrels = write(tmp_path, 'Dqrels.txt', ''.join(f'q1 {judged} {label}\n' for judged, label in lines))
    probabilities = write(tmp_path, 'Iprob.txt', 'q1 1 0.5\nq1 2 0.5\n')
    run = write(tmp_path, 'run.txt', 'q1 Q0 b 1 3 r\nq1 Q0 a 2 2 r\nq1 Q0 c 3 1 r\n')
    assert main(['ntcireval', qrels, run, '-I', probabilities]) == 2
    captured = capsys.readouterr()
    assert captured.out == ''
    assert captured.err == (f"irmeasures-ext: error: {qrels}:3: {problem}: NTCIREVAL's DIN-splitqrels reads levels "
                            "L0 to L9 only (it leaves another label out of the D- and DIN-measures' gains, and gives "
                            "it another line's gain in the IA-measures' and P+Q's): write levels L0 to L9 (our "
                            'measures take any label: irmeasures-ext QRELS RUN D_nDCG@10 --intents FILE)\n')
    values = evaluate(['D_nDCG@2'], irmeasures_ext.intent_qrels(qrels, probabilities), run)
    gain = float(labels[2].lstrip('L'))
    # b: 0.5 + 0.5 * gain, c: 1, a: 0.5; ideal: b, c (or c, b).
    ideal = max(0.5 + 0.5 * gain, 1.0) + min(0.5 + 0.5 * gain, 1.0) / 1.584962500721156
    assert values['D_nDCG@2', 'q1'] == pytest.approx((0.5 + 0.5 * gain + 0.5 / 1.584962500721156) / ideal,
                                                     abs=1e-15)


# Part 5: the means.

def nev2mean_sums() -> tuple[dict[tuple[str, str], float], int]:
    """``{(NTCIREVAL's command, printed name): the sum of its printed values}`` over the topics of DINprob.txt at
    γ 0.5: the rows of ntcireval_per_topic.tsv, and what the scripts printed for q006 and q007 (no relevant doc;
    q007 has no qrels line) in ntcireval_undefined_topics.tsv; and how many topics DINprob.txt lists (NEV2mean's
    divisor: the lines of the topic list)."""
    topics = {line.split()[0] for line in (DIVERSITY / 'DINprob.txt').read_text(encoding='utf-8').splitlines()}
    sums: dict[tuple[str, str], float] = {}
    with open(DIVERSITY / 'ntcireval_per_topic.tsv', encoding='utf-8') as lines:
        for row in csv.DictReader(lines, delimiter='\t'):
            if row['gamma'] in ('-', '0.5') and row['qid'] in topics:
                key = (row['command'], row['measure'])
                sums[key] = sums.get(key, 0.0) + float(row['value'])
    printed = 0
    with open(DIVERSITY / 'ntcireval_undefined_topics.tsv', encoding='utf-8') as lines:
        for row in csv.DictReader(lines, delimiter='\t'):
            assert row['qid'] in ('q006', 'q007') and row['intent'] == '-'
            for name, value, gamma in re.findall(r'([A-Za-z#+-]+@\d{4})=([0-9.]+)(?: \(gamma ([0-9.]+)\))?',
                                                 row['reason']):
                assert float(value) == 0, row  # (computed by gawk from empty strings)
                if gamma in ('', '0.5'):
                    key = (row['command'], name)
                    sums[key] = sums.get(key, 0.0) + float(value)
                    printed += 1
    assert printed > 100  # (NEV2mean adds nothing for them, and counts the topics)
    return sums, len(topics)


def printed_means(capsys, *options: str) -> dict[str, float]:
    argv = ['ntcireval', str(DIVERSITY / 'Dqrels.txt'), RUN, '-I', str(DIVERSITY / 'DINprob.txt'), '-cutoffs',
            '5,10,20,1000', '-o', 'tsv', '-p', '-1', '-rbp', '0.99', *options]
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', UnjudgedIntentWarning)
        assert main(argv) == 0
    rows = [line.split('\t') for line in capsys.readouterr().out.splitlines()]
    assert all(len(row) == 2 for row in rows)
    return {name: float(value) for name, value in rows}


def test_ntcireval_means_are_nev2means_over_the_intent_files_topics(capsys):
    """``--ntcireval-means``: every mean is NEV2mean's, computed from NTCIREVAL's printed per-topic values over the
    150 topics of DINprob.txt (q007, without qrels lines, counts 0). Without it, the means are over the 149 qrels
    topics."""
    sums, topics = nev2mean_sums()
    assert topics == 150
    ntcireval = printed_means(capsys, '--ntcireval-means')
    ours = printed_means(capsys)
    compared = 0
    for name, value in ntcireval.items():
        printed = re.fullmatch(r'(.+)@(\d{4})', name)
        if printed is None or printed[1] not in NTCIREVAL_LINES:  # (IA-RBP's not: p 0.95 in NTCIREVAL's values)
            continue
        command, theirs = NTCIREVAL_LINES[printed[1]]
        if (command, f'{theirs}@{printed[2]}') not in sums:  # (lines whose values are in another file)
            continue
        expected = sums[command, f'{theirs}@{printed[2]}']
        assert abs(value - expected / topics) <= TOLERANCE, name
        assert abs(ours[name] - expected / (topics - 1)) <= TOLERANCE, name
        compared += 1
    assert compared == 4 * 27
    assert abs(ntcireval['D-nDCG@0010'] - ours['D-nDCG@0010']) > 1e-3


def test_ntcireval_means_need_the_intent_file(capsys):
    assert main(['ntcireval', RUN, RUN, '-g', '1:2:3', '--ntcireval-means']) == 2
    assert capsys.readouterr().err == ('irmeasures-ext: error: --ntcireval-means: only with -I (the ad hoc means are '
                                       "NEV2mean's already: over the qrels topics, NTCIREVAL's topic list)\n")


def test_python_means_are_over_the_qrels_topics():
    """ir_measures' means (and the command's by default) are over the qrels topics: q2, listed in the intent
    probabilities without a qrels line, is left out."""
    qrels = irmeasures_ext.intent_qrels([ir_measures.Qrel('q1', 'a', 1, '1'), ir_measures.Qrel('q1', 'b', 1, '2')],
                                        {'q1': {'1': 0.5, '2': 0.5}, 'q2': {'1': 1.0}})
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', UnjudgedIntentWarning)
        mean = ir_measures.calc_aggregate([irmeasures_ext.I_rec @ 10], qrels, {'q1': {'a': 2, 'b': 1}, 'q2': {'a': 1}})
    assert mean == {irmeasures_ext.I_rec @ 10: 1.0}


# Part 2: SUMp.

def sump_golden() -> dict[str, float]:
    """NTCIREVAL's SUMp per topic (``ntcireval_sump_per_topic.tsv``: three scripts, four cutoffs, one value)."""
    values: dict[str, set[float]] = {}
    with open(DIVERSITY / 'ntcireval_sump_per_topic.tsv', encoding='utf-8') as lines:
        for row in csv.DictReader(lines, delimiter='\t'):
            values.setdefault(row['qid'], set()).add(float(row['value']))
    assert all(len(printed) == 1 for printed in values.values())  # (whatever the script and the cutoff)
    return {qid: printed.pop() for qid, printed in values.items()}


def test_sump_is_ntcirevals_on_every_topic(tmp_path, capsys):
    """SUMp, the sum of the probabilities of the intents with a relevant doc, per topic (148: 1 where every intent
    has one, 0.9 for q017, whose probabilities sum to 0.9, below 1 where an intent has none; none for q006, without
    a relevant doc, and q007, without qrels) through the provider, and its line in ``ntcireval -I`` (each topic's,
    and the mean)."""
    golden = sump_golden()
    assert len(golden) == 148 and golden['q017'] == 0.9 and sum(value < 1 for value in golden.values()) > 2
    with pytest.warns(ProbabilitySumWarning):
        qrels = irmeasures_ext.intent_qrels(str(DIVERSITY / 'Dqrels.txt'), str(DIVERSITY / 'DINprob.txt'))
    values = evaluate([irmeasures_ext.SUMp], qrels)
    assert not mismatches(values, {('SUMp', qid): value for qid, value in golden.items()})
    argv = ['ntcireval', str(DIVERSITY / 'Dqrels.txt'), str(DIVERSITY / 'run.txt'), '-I',
            str(DIVERSITY / 'DINprob.txt'), '-cutoffs', '10', '-q', '-o', 'tsv', '-p', '12']
    assert main(argv) == 0
    printed = {topic: float(value) for topic, name, value in (line.split('\t') for line in
                                                              capsys.readouterr().out.splitlines()) if name == 'SUMp'}
    # (q006: no line, but a topic of the qrels, counted 0 in the mean: ours, of the qrels' 149 topics)
    assert printed == pytest.approx({**golden, 'all': sum(golden.values()) / 149}, abs=1e-12)


# Part 2: the per-intent values.

#: gcompute's per-intent lines (``ntcireval_per_intent.tsv``'s columns, ``@k`` for the row's cutoff), each with a
#: measure of ours that computes it on an intent's own qrels (the measure's top level: the intent's).
PER_INTENT_MEASURES = {
    'RR': 'RR', 'O-measure': 'O_measure', 'P-measure': 'P_measure', 'P-plus': 'P_plus', 'AP': 'AP',
    'Q-measure': 'Q', 'NCUrb,P': 'NCU(stopping="rb",utility="P")',
    'NCUrb,BR': 'NCU(stopping="rb")', 'RBP': 'RBP_NTCIR', 'ERR': 'ERR_NTCIR',
    'EBR': 'EBR', 'AP@k': 'Q(beta=0)@{k}', 'Q@k': 'Q@{k}', 'nDCG@k': 'nDCG_JK@{k}', 'MSnDCG@k': 'MSnDCG@{k}',
    'P@k': 'P@{k}', 'RBP@k': 'RBP_NTCIR@{k}', 'ERR@k': 'ERR_NTCIR@{k}', 'nERR@k': 'nERR@{k}', 'EBR@k': 'EBR@{k}',
    'Hit@k': 'Success@{k}'}


def per_intent_golden() -> list[dict[str, str]]:
    with open(DIVERSITY / 'ntcireval_per_intent.tsv', encoding='utf-8') as lines:
        return list(csv.DictReader(lines, delimiter='\t'))


def diversity_qrels():
    with pytest.warns(ProbabilitySumWarning):  # (q017's probabilities sum to 0.9)
        return irmeasures_ext.intent_qrels(str(DIVERSITY / 'Dqrels.txt'), str(DIVERSITY / 'DINprob.txt'))


@pytest.mark.parametrize('cutoff', [5, 10, 20, 1000])
def test_per_intent_frame_is_ntcirevals_per_intent_lines(cutoff):
    """Each intent with a relevant doc (539 at K = 10: none for q008's intent 2, which has none, nor for q006 and
    q007; q009, absent from the run, scores 0), with its probability (q017's as written, summing to 0.9) and type:
    all 21 of gcompute's lines equal NTCIREVAL's on the run cut at K."""
    golden = [row for row in per_intent_golden() if int(row['cutoff']) == cutoff]
    measures = {name: ours.format(k=cutoff) for name, ours in PER_INTENT_MEASURES.items()}
    frame = irmeasures_ext.per_intent_frame(list(measures.values()), diversity_qrels(), RUN, depth=cutoff)
    by_measure = {name: frame[frame.measure == str(ir_measures.parse_measure(ours))] for name, ours in measures.items()}
    keys = by_measure['RR'][['query_id', 'intent', 'probability', 'type']]
    assert [tuple(key) for key in keys.itertuples(index=False)] == [
        (row['qid'], row['intent'], float(row['prob']), row['type']) for row in golden]
    assert ('q008', '2') not in {(row['qid'], row['intent']) for row in golden}
    for name, rows in by_measure.items():
        expected = [float(row[name]) for row in golden]
        assert rows.value.tolist() == pytest.approx(expected, abs=TOLERANCE), name


def test_the_ia_measures_weigh_the_per_intent_values():
    """IA-M@k = Σ P(i|q)·M_i@k: the per-intent values weighted by their probabilities give NTCIREVAL's IA-Q@10 and
    PplusQ@10 (Q_i for an informational intent, P-plus_i for a navigational one) of every topic."""
    frame = irmeasures_ext.per_intent_frame(['Q@10', 'P_plus'], diversity_qrels(), RUN, depth=10)
    q, p_plus = (frame[frame.measure == name].reset_index(drop=True) for name in ('Q@10', 'P_plus'))
    weighted = {'IA_Q@10': q.probability * q.value,
                'PplusQ@10': q.probability * q.value.where(q.type == 'inf', p_plus.value)}
    golden = read_golden(refused='')
    for name, values in weighted.items():
        sums = values.groupby(q.query_id).sum()
        expected = {qid: golden[(name, qid)] for qid in sums.index}
        assert sums.to_dict() == pytest.approx(expected, abs=TOLERANCE), name


@pytest.mark.parametrize('cutoff', [5, 1000])
def test_ntcireval_per_intent_prints_ntcirevals_lines(capsys, monkeypatch, cutoff):
    """``ntcireval -I ... -cutoffs K -truncate K --per-intent``: before the topics' lines, every per-intent line
    NTCIREVAL's IA and P+Q scripts print at K, under its names, as QID INTENT TYPE PROB NAME VALUE; the run and
    qrels files are read once each."""
    from irmeasures_ext.readers.trec import TrecSource
    argv = ['ntcireval', str(DIVERSITY / 'Dqrels.txt'), RUN, '-I', str(DIVERSITY / 'DINprob.txt'), '-cutoffs',
            str(cutoff), '-truncate', str(cutoff), '--per-intent', '-o', 'tsv', '-p', '-1']
    reads, read = [], TrecSource.read
    monkeypatch.setattr(TrecSource, 'read', lambda source, layout: reads.append(source.name) or read(source, layout))
    assert main(argv) == 0
    assert sorted(reads) == sorted([str(DIVERSITY / 'Dqrels.txt'), RUN])
    out, err = capsys.readouterr()
    assert err.count("query 'q017' sum to 0.9000") == 1  # (the inputs' warnings once, not again per intent)
    lines = [line.split('\t') for line in out.splitlines()]
    printed = {(qid, intent, name): (prob, kind, float(value)) for qid, intent, kind, prob, name, value
               in (line for line in lines if len(line) == 6)}
    expected = {(row['qid'], row['intent'], name.replace('@k', f'@{cutoff:04d}')):
                (float(row['prob']), row['type'], float(row[name]))
                for row in per_intent_golden() if int(row['cutoff']) == cutoff for name in PER_INTENT_MEASURES}
    assert printed.keys() == expected.keys()
    for key, (prob, kind, value) in printed.items():
        assert (float(prob), kind) == expected[key][:2] and value == pytest.approx(expected[key][2], abs=TOLERANCE), key
    assert len(lines[len(printed)]) == 2 and lines[len(printed)][0] == 'D-RR'  # (then the means, as without it)


def test_per_intent_needs_the_intents_probabilities(capsys, tmp_path):
    """Per-intent values without intent probabilities are refused in one line, in Python and on the command line;
    an intent the qrels judge relevant without a probability is named with its qrels line, as for the measures."""
    with pytest.raises(IrMeasuresExtError, match=r"^per-intent values need the intents' probabilities and types: "
                                                  r'give the qrels as irmeasures_ext.intent_qrels'):
        irmeasures_ext.per_intent_frame(['Q@10'], str(DIVERSITY / 'qrels.txt'), RUN)
    qrels, run = perfect(tmp_path)
    with pytest.raises(IntentFileError, match=r"Dqrels.txt:2: intent '2' of query 'q1' has relevant judgments"):
        irmeasures_ext.per_intent_frame(['Q@10'], irmeasures_ext.intent_qrels(qrels, {'q1': {'1': 1.0}}), run)
    assert main(['ntcireval', RUN, RUN, '-g', '1:2:3', '--per-intent']) == 2
    assert capsys.readouterr().err == ('irmeasures-ext: error: --per-intent prints the values of each intent of -I '
                                       'FILE: give -I too\n')


def test_per_intent_frame_takes_real_labels_and_the_tie_policies(tmp_path):
    """Real-valued labels (each intent's top label its measures' top level), ``rel`` choosing the intents, and the
    tie policy ``rank``; hand-computed."""
    qrels = write(tmp_path, 'qrels.txt', 'q 1 a 0.5\nq 1 b 2\nq 2 a 1.5\nq 0 c 0\n')
    given = irmeasures_ext.intent_qrels(qrels, {'q': {'1': 0.75, '2': 0.25}})
    run = write(tmp_path, 'run.txt', 'q Q0 a 1 1 r\nq Q0 c 2 1 r\nq Q0 b 3 0 r\n')  # (a and c tie at score 1)
    frame = irmeasures_ext.per_intent_frame(['nERR@3', 'RR'], given, run)
    # ranked c, a, b (the tie rule: doc id descending). Intent 1: a 0.5, b 2, so H = 2 and p = g / 3; intent 2: a
    # 1.5, so H = 1.5 and p = 1.5 / 2.5, nERR@3 = 1/2 · p / p. RR counts a real-valued label above 0.
    err, ideal = 1 / 2 * 0.5 / 3 + 1 / 3 * (1 - 0.5 / 3) * 2 / 3, 2 / 3 + 1 / 2 * (1 - 2 / 3) * 0.5 / 3
    assert frame.to_dict('list') == {
        'query_id': ['q'] * 4, 'intent': ['1', '2'] * 2, 'probability': [0.75, 0.25] * 2, 'type': ['inf'] * 4,
        'measure': ['nERR@3', 'nERR@3', 'RR', 'RR'], 'value': pytest.approx([err / ideal, 0.5, 0.5, 0.5], abs=1e-15)}
    by_rank = irmeasures_ext.per_intent_frame(['RR'], given, run, ties='rank')  # (a at rank 1)
    assert by_rank.value.tolist() == [1.0, 1.0]
    only_two = irmeasures_ext.per_intent_frame(['RR'], given, run, rel=2)  # (intent 2's top label is 1.5)
    assert only_two[['intent', 'value']].to_dict('list') == {'intent': ['1'], 'value': [0.5]}
    none = irmeasures_ext.per_intent_frame(['RR'], given, run, rel=3)
    assert none.empty and list(none.columns) == ['query_id', 'intent', 'probability', 'type', 'measure', 'value']
    with pytest.raises(MeasureParamError, match=r'^per_intent_frame: rel must be a number above 0'):
        irmeasures_ext.per_intent_frame(['RR'], given, run, rel=0)
