"""``irmeasures-ext ntcireval``: NTCIREVAL 190111's golden per-topic values and NEV2mean means reproduced through the
command line, its output format and errors: the ad hoc measures (``-g``: ``tests/data/ntcireval_full``), and the
diversity measures (``-I``: NTCIREVAL's values of ``tests/data/diversity`` and ``tests/data/ntcireval_diversity_ours``,
and the plain references with ``-beta``).
"""
from __future__ import annotations

import csv
import re
import subprocess
import sys
from functools import partial

import pytest
import reference_ntcir_diversity as ref
from din_references import DIN_MEASURES, din_value
from ntcireval_diversity import (
    DIN_LINES,
    DIVERSITY,
    NTCIREVAL_LINES,
    OURS_DATA,
    REFUSED,
    din_rows,
    gcompute_rows,
    without_refused,
)
from ntcireval_diversity import RUN as DIVERSITY_RUN
from ntcireval_diversity import TOLERANCE as DIVERSITY_TOLERANCE
from ntcireval_golden import EC_QRELS, EC_RUN, QRELS, RUN, golden, undefined

from irmeasures_ext.cli import main
from irmeasures_ext.cli.ntcireval import AFTER_CUTOFFS, AT_EACH_CUTOFF, BEFORE_CUTOFFS, DIVERSITY_BEFORE_CUTOFFS

# --- the ad hoc measures (-g) -------------------------------------------------------------------------------------

CUTOFFS = '1,5,10,20,100,1000'
GAINS = ('1:2:3', '1:3:7')
BETAS = (0.0, 0.5, 1.0, 2.0)
TOLERANCE = 1e-9


def topics_of(qrels) -> list[str]:
    """The qrels topics, read from the file (NEV2mean divides by their number)."""
    return sorted({line.split()[0] for line in qrels.read_text().splitlines() if line.strip()})


TOPICS = topics_of(QRELS)

#: Each golden mode: the command line options that ask for it, and whether it is on the EC files. The
#: parameter modes (GOLDEN_BASE) hold only the rows their option changes; the others are the default's.
MODES: dict[str, tuple[tuple[str, ...], bool]] = {
    'default': ((), False),
    'condensed': (('-j',), False),
    'condensed_bpref': (('-j', '-bpref'), False),
    'truncate10': (('-truncate', '10'), False),
    'ec': (('-ec',), True),
    'ec_condensed': (('-ec', '-j'), True),
    'rbp0.8': (('-rbp', '0.8'), False),
    'gamma0.5': (('-gamma', '0.5'), False),
    'logb10': (('-logb', '10'), False),
    'logb0': (('-logb', '0'), False),
    'stop1:1:4': (('-s', '1:1:4'), False),
    'gap': (('-gap',), False),
    'rbup0.9': (('-rbup', '0.9'), False),
}
PARAMETER_MODES = ('rbp0.8', 'gamma0.5', 'logb10', 'logb0', 'stop1:1:4', 'gap', 'rbup0.9')


def run_main(capsys, *argv: object) -> tuple[int, str, str]:
    status = main(['ntcireval', *map(str, argv)])
    out, err = capsys.readouterr()
    return status, out, err


def tsv_rows(out: str) -> dict[tuple[str, str], float]:
    """``{(qid, name): value}`` of ``-q -o tsv`` output, checked to hold each pair once."""
    rows: dict[tuple[str, str], float] = {}
    for line in out.splitlines():
        qid, name, value = line.split('\t')
        assert (qid, name) not in rows, line
        rows[qid, name] = float(value)
    return rows


def golden_rows(mode: str, gains: str, beta: float) -> dict[str, dict[str, float]]:
    """NTCIREVAL's printed name (``AP@0010``) -> {qid: value} in ``mode`` for these gains and beta (for a
    parameter mode, the default's rows with those its option changes replaced)."""
    rows = golden_rows('default', gains, beta) if mode in PARAMETER_MODES else {}
    for setting, values in golden().items():
        if setting.mode == mode and setting.gains in (None, gains) and setting.beta in (None, beta):
            name = setting.measure + ('' if setting.cutoff is None else f'@{setting.cutoff:04d}')
            rows[name] = values
    return rows


def base_name(name: str) -> str:
    return re.sub(r'@\d{4,}$', '@k', name)


def check_against_golden(rows: dict[tuple[str, str], float], mode: str, gains: str, beta: float) -> int:
    """Every per-topic row equals NTCIREVAL's (to 1e-9), every golden row is printed and no other (so
    nothing for the topics NTCIREVAL leaves undefined), and the ``all`` rows are NEV2mean's means over the
    qrels topics; returns the number of per-topic values compared."""
    expected = golden_rows(mode, gains, beta)
    topics = topics_of(EC_QRELS if MODES[mode][1] else QRELS)
    assert {name for _, name in rows} == set(expected), mode
    compared = 0
    for name, values in expected.items():
        per_topic = {qid: value for (qid, row_name), value in rows.items() if row_name == name and qid != 'all'}
        assert per_topic.keys() == values.keys(), name
        worst = max(abs(value - values[qid]) for qid, value in per_topic.items())
        assert worst <= TOLERANCE, (name, worst)
        assert abs(rows['all', name] - sum(values.values()) / len(topics)) <= TOLERANCE, name
        compared += len(per_topic)
    return compared


def golden_settings(mode: str) -> list[tuple[str, float]]:
    """The (gains, beta) to run a mode with: every pair, or, for a parameter mode, those its rows tell apart."""
    if mode not in PARAMETER_MODES:
        return [(gains, beta) for gains in GAINS for beta in BETAS]
    pairs = {(setting.gains or GAINS[0], 1.0 if setting.beta is None else setting.beta)
             for setting in golden() if setting.mode == mode}
    return sorted(pairs)


@pytest.mark.parametrize('mode', sorted(MODES))
def test_every_mode_equals_ntcireval(capsys, mode):
    """Every golden value of every measure of the mode, for each gains map and beta, through the command."""
    options, on_classes = MODES[mode]
    files = (EC_QRELS, EC_RUN) if on_classes else (QRELS, RUN)
    compared = 0
    for gains, beta in golden_settings(mode):
        status, out, err = run_main(capsys, *files, '-g', gains, '-beta', beta, '-cutoffs', CUTOFFS, *options,
                                    '-q', '-o', 'tsv', '-p', 12, '--score-precision', 'float64')
        assert (status, err) == (0, '')
        compared += check_against_golden(tsv_rows(out), mode, gains, beta)
    own = sum(len(values) for setting, values in golden().items() if setting.mode == mode)
    assert compared >= own > 1000


def test_every_golden_row_is_compared():
    """The runs of the test above cover every golden setting of every mode."""
    for mode in MODES:
        pairs = golden_settings(mode)
        for setting in golden():
            if setting.mode == mode:
                assert any(setting.gains in (None, gains) and setting.beta in (None, beta) for gains, beta in pairs)


def test_undefined_topics_print_nothing(capsys):
    status, out, _ = run_main(capsys, QRELS, RUN, '-g', '1:2:3', '-q', '-o', 'tsv')
    printed = {line.split('\t')[0] for line in out.splitlines()}
    assert undefined()['default'] >= {'q001', 'q002', 'q003', 'q004', 'q005', 'q006'}
    assert printed == (set(TOPICS) - undefined()['default']) | {'all'}


@pytest.mark.parametrize('mode', ['default', 'condensed_bpref'])
def test_print_order_is_ntcirevals(capsys, mode):
    """Per topic, the names in the order NTCIREVAL printed them (the golden file keeps its order)."""
    out = run_main(capsys, QRELS, RUN, '-g', '1:2:3', '-cutoffs', CUTOFFS, *MODES[mode][0], '-q', '-o', 'tsv')[1]
    ours = [line.split('\t')[1] for line in out.splitlines() if line.startswith('q119\t')]
    assert ours == list(golden_rows(mode, '1:2:3', 1.0))  # (dicts keep the file's order)
    assert [line.split('\t')[1] for line in out.splitlines() if line.startswith('all\t')] == ours


def test_every_flag_prints_every_name_once(capsys):
    """With -gap, -rbup and -bpref every name is printed, once, in the command's order (GAP's and iRBU@k's
    places are not in the golden file, whose gap and rbup0.9 rows hold only those measures)."""
    out = run_main(capsys, QRELS, RUN, '-g', '1:2:3', '-cutoffs', '5', '-gap', '-rbup', '0.9', '-j', '-bpref')[1]
    names = [line.split('=')[0] for line in out.splitlines()]
    assert names == [name.replace('@k', '@0005') for name in (*BEFORE_CUTOFFS, *AT_EACH_CUTOFF, *AFTER_CUTOFFS)]
    assert len(names) == 14 + 12 + 7


def test_text_output_is_ntcirevals_lines(capsys):
    """``QID NAME=`` padded to 21 characters, then 4 decimals (the golden values rounded)."""
    status, out, _ = run_main(capsys, QRELS, RUN, '-g', '1:3:7', '-beta', 2, '-cutoffs', '10', '-q',
                                '--score-precision', 'float64')
    lines = out.splitlines()
    assert 'q119 Q-measure=           0.5913' in lines
    assert 'q119 MSnDCG@0010=         0.5641' in lines
    expected = golden_rows('default', '1:3:7', 2.0)
    for line in lines:
        qid, rest = line.split(' ', 1)
        name, value = rest[:21].rstrip().removesuffix('='), rest[21:]
        assert rest[:21] == f'{name}='.ljust(21) and re.fullmatch(r'\d\.\d{4}', value), line
        reference = sum(expected[name].values()) / len(TOPICS) if qid == 'all' else expected[name][qid]
        assert abs(float(value) - reference) <= 5e-5 + 1e-12, line


def test_means_only_without_q(capsys):
    options = ('-g', '1:2:3', '-cutoffs', '5', '-p', 12, '--score-precision', 'float64')
    status, out, _ = run_main(capsys, QRELS, RUN, *options)
    lines = out.splitlines()
    expected = {name: values for name, values in golden_rows('default', '1:2:3', 1.0).items()
                if '@' not in name or name.endswith('@0005')}
    assert [line.split('=')[0] for line in lines] == list(expected)
    for line in lines:
        name, value = line.split('=')
        assert abs(float(value) - sum(expected[name].values()) / len(TOPICS)) < 1e-12, name
    tsv = run_main(capsys, QRELS, RUN, *options, '-o', 'tsv')[1].splitlines()
    assert [row.split('\t') for row in tsv] == [[line.split('=')[0], line.split()[-1]] for line in lines]


def test_command_in_a_subprocess():
    result = subprocess.run([sys.executable, '-m', 'irmeasures_ext', 'ntcireval', str(QRELS), str(RUN), '-g', '1:3:7',
                             '-beta', '0.5', '-cutoffs', CUTOFFS, '-j', '-bpref', '-q', '-o', 'tsv', '-p', '12',
                             '--score-precision', 'float64'], capture_output=True, text=True, timeout=120)
    assert (result.returncode, result.stderr) == (0, '')
    check_against_golden(tsv_rows(result.stdout), 'condensed_bpref', '1:3:7', 0.5)


def test_ranking_options_apply(capsys):
    """The golden run ranks by scores as doubles; as float32, q068-q070's scores tie (docs/ties.md)."""
    as_float32 = tsv_rows(run_main(capsys, QRELS, RUN, '-g', '1:2:3', '-q', '-o', 'tsv', '-p', 12)[1])
    expected = golden_rows('default', '1:2:3', 1.0)
    differ = {qid for (qid, name), value in as_float32.items() if qid != 'all' and
              abs(value - expected[name][qid]) > TOLERANCE}
    assert differ and differ <= {'q068', 'q069', 'q070'}
    by_rank = tsv_rows(run_main(capsys, QRELS, RUN, '-g', '1:2:3', '-q', '-o', 'tsv', '--ties', 'rank')[1])
    assert by_rank['all', 'AP'] != as_float32['all', 'AP']  # (the rank column puts tied docs in another order)


@pytest.mark.parametrize('ties', ['optimistic', 'pessimistic', 'expected'])
def test_tie_policies_some_measures_refuse(capsys, ties):
    """P-measure, for one, has no best/worst order nor closed-form mean over tied docs: refused by name."""
    status, out, err = run_main(capsys, QRELS, RUN, '-g', '1:2:3', '--ties', ties)
    assert (status, out) == (2, '')
    assert err.startswith(f'irmeasures-ext: error: P_measure(gains={{1:1.0,2:2.0,3:3.0}}) is not supported under '
                          f'ties={ties} (') and err.count('\n') == 1


@pytest.mark.parametrize('argv, message', [
    (['-g', '1:x:3'], '-g 1:x:3: expected numbers separated by ":" (one per level from L1), e.g. 1:2:3'),
    (['-g', ''], '-g : expected numbers separated by ":" (one per level from L1), e.g. 1:2:3'),
    (['-g', '1:-2:3'], '-g 1:-2:3: every value must be a finite number >= 0'),
    (['-g', '1:0:3'], '-g 1:0:3: a gain of 0 is not supported (NTCIREVAL then leaves that level out of AP and Q but '
                      'counts it in R, RR and P@k; our measures do not reproduce that)'),
    (['-g', '1:2:3', '-beta', '-1'], '-beta must be a finite number >= 0, got -1'),
    (['-g', '1:2:3', '-s', '1:a'], '-s 1:a: expected numbers separated by ":" (one per level from L1), e.g. 1:2:3'),
    (['-g', '1:2:3', '-s', '0'], '-s 0: stop values must be positive and non-decreasing from L1 (as NTCIREVAL '
                                 'requires)'),
    (['-g', '1:2:3', '-s', '0:0:0'], '-s 0:0:0: stop values must be positive and non-decreasing from L1 (as '
                                     'NTCIREVAL requires)'),
    (['-g', '1:2:3', '-s', '2:1:4'], '-s 2:1:4: stop values must be positive and non-decreasing from L1 (as '
                                     'NTCIREVAL requires)'),
    (['-g', '1:2'], f"{QRELS}:77: label 3 of doc 'LA154623' in query 'q008' is above L2, the highest level "
                    '"-g 1:2" declares (give one gain per level, L1 to the highest)'),
])
def test_bad_values_are_one_line_errors(capsys, argv, message):
    status, out, err = run_main(capsys, QRELS, RUN, *argv)
    assert (status, out) == (2, '')
    assert err == f'irmeasures-ext: error: {message}\n'


@pytest.mark.parametrize('argv, message', [
    (['-cutoffs', '1,2,3,4,5,6,7,8,9,10'], 'argument -cutoffs: 10 cutoffs; NTCIREVAL takes at most 9'),
    (['-cutoffs', '10,x'], "argument -cutoffs: '10,x': expected positive integers separated by \",\", e.g. 10,1000"),
    (['-cutoffs', '0'], "argument -cutoffs: '0': expected positive integers separated by \",\", e.g. 10,1000"),
    (['-cutoffs', '10,10'], "argument -cutoffs: '10,10': a cutoff is given twice"),
    (['-cutoffs', '²'], "argument -cutoffs: '²': expected positive integers separated by \",\", e.g. 10,1000"),
    (['-cutoffs', '١٠'], "argument -cutoffs: '١٠': expected positive integers separated by \",\", e.g. 10,1000"),
    (['-truncate', '1' + '0' * 30], f"argument -truncate: expected an integer from 1 to 9223372036854775807, got "
                                    f"'1{'0' * 30}'"),
    (['-truncate', '١٠'], "argument -truncate: expected an integer from 1 to 9223372036854775807, got '١٠'"),
    (['-p', '-2'], "argument -p: expected decimal places (0 to 100), or -1 for all digits, got '-2'"),
    (['-p', 'x'], "argument -p: expected decimal places (0 to 100), or -1 for all digits, got 'x'"),
    (['-o', 'jsonl'], "argument -o: invalid choice: 'jsonl' (choose from 'text', 'tsv')"),
])
def test_usage_errors(capsys, argv, message):
    status, out, err = run_main(capsys, QRELS, RUN, '-g', '1:2:3', *argv)
    assert (status, out) == (2, '')
    assert err == f"irmeasures-ext: error: {message}\ntry 'irmeasures-ext ntcireval --help'\n"


def test_gains_are_required(capsys):
    status, out, err = run_main(capsys, QRELS, RUN)
    assert (status, out) == (2, '')
    assert err.splitlines()[0] == 'irmeasures-ext: error: -g GAINS is required (or -I FILE: the diversity measures)'


def test_missing_files(capsys, tmp_path):
    missing = tmp_path / 'nope.txt'
    for argv in ([missing, RUN], [QRELS, missing]):
        status, out, err = run_main(capsys, *argv, '-g', '1:2:3')
        assert (status, out) == (2, '')
        assert err.startswith('irmeasures-ext: error: ') and str(missing) in err and err.count('\n') == 1


def test_bpref_needs_condensed_lists(capsys):
    status, out, err = run_main(capsys, QRELS, RUN, '-g', '1:2:3', '-bpref')
    assert (status, out) == (2, '')
    assert err == ('irmeasures-ext: error: -bpref computes the bpref family on condensed lists, as NTCIREVAL\'s '
                   '"compute -j" after "label -j": give -j too\n')


def test_bpref_with_classes_is_refused(capsys):
    status, out, err = run_main(capsys, EC_QRELS, EC_RUN, '-g', '1:2:3', '-ec', '-j', '-bpref')
    assert (status, out) == (2, '')
    assert err == ('irmeasures-ext: error: -bpref cannot be combined with -ec: with equivalence classes NTCIREVAL '
                   'counts no judged non-relevant docs (N = 0), so "compute -ec -j" computes no bpref family\n')


@pytest.mark.parametrize('argv, message', [
    (['-rbp', '1'], 'RBP_NTCIR: p must be a number with 0 <= p < 1, got 1.0'),
    (['-gamma', '2'], 'NCU: gamma must be a number from 0 to 1, got 2.0'),
    (['-rbup', '-0.5'], 'iRBU: u must be a number with 0 <= u <= 1, got -0.5'),
    (['-logb', '1'], 'nDCG_JK: logb must be 0 (natural log) or a finite number > 1, got 1.0'),
])
def test_bad_option_values_name_the_measure(capsys, argv, message):
    status, out, err = run_main(capsys, QRELS, RUN, '-g', '1:2:3', *argv)
    assert (status, out) == (2, '')
    assert err == f'irmeasures-ext: error: {message} (from the command line options)\n'


def test_truncate_is_a_positive_integer(capsys):
    status, out, err = run_main(capsys, QRELS, RUN, '-g', '1:2:3', '-truncate', '0')
    assert (status, out) == (2, '')
    assert err.startswith("irmeasures-ext: error: argument -truncate: expected an integer from 1 to "
                          "9223372036854775807, got '0'\n")


@pytest.mark.parametrize('class_id', ['0', '-1'])
def test_class_ids_below_one_name_their_line(capsys, tmp_path, class_id):
    """NTCIREVAL's -ec numbers classes from 1 and refuses others (the provider takes 0 too)."""
    qrels = tmp_path / 'qrels.txt'
    qrels.write_text(f'q1 0 a 1 1\nq1 0 b 0 {class_id}\n')
    status, out, err = run_main(capsys, qrels, RUN, '-g', '1:2:3', '-ec')
    assert (status, out) == (2, '')
    assert err == (f"irmeasures-ext: error: {qrels}:2: class id {class_id} of doc 'b' in query 'q1' is not a positive "
                   "integer: NTCIREVAL's -ec numbers classes from 1\n")


def test_classes_need_qrels_with_classes(capsys):
    status, out, err = run_main(capsys, QRELS, RUN, '-g', '1:2:3', '-ec')
    assert (status, out) == (2, '')
    assert err.startswith('irmeasures-ext: error: ') and 'classes' in err and err.count('\n') == 1


def test_negative_labels_are_refused_with_j(capsys, tmp_path):
    """-j with a negative label would condense our measures' lists and ir_measures' differently: refused
    (NTCIREVAL reads none); without -j a negative label is a judged non-relevant doc, as in trec_eval."""
    qrels = tmp_path / 'qrels.txt'
    qrels.write_text('q1 0 a 1\nq1 0 b -1\n')
    run = tmp_path / 'run.txt'
    run.write_text('q1 Q0 b 1 2 t\nq1 Q0 a 2 1 t\n')
    status, out, err = run_main(capsys, qrels, run, '-g', '1:2:3', '-j')
    assert (status, out) == (2, '')
    assert err == (f"irmeasures-ext: error: {qrels}:2: label -1 of doc 'b' in query 'q1' is negative, which -j "
                   'cannot take (NTCIREVAL reads no negative labels; label such docs 0 or leave them out)\n')
    status, out, _ = run_main(capsys, qrels, run, '-g', '1:2:3', '-o', 'tsv')
    assert status == 0 and 'RR\t0.5000\n' in out


# --- the diversity measures (-I) on tests/data/diversity ----------------------------------------------------------

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
    argv = ['ntcireval', qrels, DIVERSITY_RUN, '-I', intents, '-cutoffs', '5,1000', '-q', '-o', 'tsv', '-p', '12',
            '-rbp', '0.99']
    assert main(argv + ([] if gamma is None else ['-Igamma', str(gamma)])) == 0
    rows = [line.split('\t') for line in capsys.readouterr().out.splitlines()]
    per_topic = [row for row in rows if row[0] != 'all']
    # The lines printed once (D-GAP only with -gap): compared by the next test and
    # test_the_diversity_mode_prints_gcomputes_lines.
    once = len(DIVERSITY_BEFORE_CUTOFFS) - 1
    assert len(per_topic) == (once + 2 * (len(NTCIREVAL_LINES) + 1)) * 147  # (q006: no relevant doc, no line)
    for topic, name, value in per_topic:
        if name.startswith(('IA-RBP', 'DIN-RBP')) or name in {line for line, _, _ in DIVERSITY_BEFORE_CUTOFFS}:
            continue
        ours, cutoff = name.split('@')
        command, theirs = NTCIREVAL_LINES[ours]
        expected = float(printed[command, f'{theirs}@{cutoff}', topic])
        assert abs(float(value) - expected) <= DIVERSITY_TOLERANCE, (topic, name)



@pytest.mark.parametrize('cutoff', [5, 1000])
def test_the_ntcireval_diversity_mode_prints_every_line_of_din_ntcir_eval(tmp_path, capsys, cutoff):
    """``irmeasures-ext ntcireval QRELS RUN -I DINprob -cutoffs K -truncate K -q -o tsv -p 12`` prints each line of
    ``ntcireval_din_per_topic.tsv`` (DIN-NTCIR-eval's gcompute lines on the list cut at K, as DIN-..., and irec's)
    with NTCIREVAL's value for K = 5 and 1000: 21 lines of 147 topics."""
    qrels = without_refused(DIVERSITY / 'Dqrels.txt', tmp_path)
    intents = without_refused(DIVERSITY / 'DINprob.txt', tmp_path)
    golden = {(DIN_LINES[row['line']][1].replace('@k', f'@{cutoff:04d}'), row['qid']): float(row['value'])
              for row in din_rows() if int(row['cutoff']) == cutoff and row['qid'] != REFUSED}
    argv = ['ntcireval', qrels, DIVERSITY_RUN, '-I', intents, '-cutoffs', str(cutoff), '-truncate', str(cutoff), '-q',
            '-o', 'tsv', '-p', '12']
    assert main(argv) == 0
    printed = {(name, topic): float(value) for topic, name, value in
               (line.split('\t') for line in capsys.readouterr().out.splitlines()) if topic != 'all'}
    assert len(golden) == 21 * 147 and set(golden) <= set(printed)
    wrong = [(key, printed[key], value) for key, value in golden.items()
             if abs(printed[key] - value) > DIVERSITY_TOLERANCE]
    assert not wrong, wrong[:5]



def test_the_ntcireval_diversity_modes_warnings_are_printed_once(capsys):
    """With -truncate, I-rec@n is computed in a second pass over the whole run: the inputs' warnings (an intent
    without qrels lines) are printed once all the same."""
    ours = OURS_DATA
    argv = ['ntcireval', str(ours / 'Dqrels.txt'), str(ours / 'run.txt'), '-I', str(ours / 'DINprob.txt')]
    assert main(argv) == 0
    warned = capsys.readouterr().err
    assert warned.count('this intent has no qrels line') == 1  # (t8's, and t41's counted in it)
    assert main([*argv, '-truncate', '5']) == 0
    assert capsys.readouterr().err == warned



def test_the_ntcireval_diversity_mode_refuses_ad_hoc_options(capsys):
    assert main(['ntcireval', str(DIVERSITY / 'Dqrels.txt'), DIVERSITY_RUN, '-I', str(DIVERSITY / 'DINprob.txt'), '-g',
                 '1:2:3', '-ec']) == 2
    assert capsys.readouterr().err.strip().endswith('error: -g -ec: not taken with -I (the diversity measures: their '
                                                    'gains are the levels)')  # (-rbp is: D-RBP's persistence)
    assert main(['ntcireval', str(DIVERSITY / 'Dqrels.txt'), DIVERSITY_RUN]) == 2
    assert 'error: -g GAINS is required (or -I FILE: the diversity measures)' in capsys.readouterr().err


# --- the diversity measures (-I) on tests/data/ntcireval_diversity_ours -------------------------------------------

@pytest.mark.parametrize('cutoff', [5, 1000])
def test_the_diversity_mode_prints_gcomputes_lines(capsys, cutoff):
    """``irmeasures-ext ntcireval Dqrels run -I DINprob -cutoffs K -truncate K -gap`` (and ``-gamma 0.8``) print
    NTCIREVAL's values of gcompute's lines without ``@K``, GAP@K and I-rec@n (read past K) for K = 5 and 1000."""
    golden = {(command, name.replace(f'@{cutoff:04d}', '@k'), topic): value for command, name, topic, value in (
        (row['command'], row['measure'], row['qid'], float(row['value'])) for row in gcompute_rows()
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
                assert abs(float(value) - golden[(*lines[name], topic)]) <= DIVERSITY_TOLERANCE, (extra, topic, name,
                                                                                                  value)



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
    # DIN-NTCIR-eval's gcompute lines: the D-lines' measures on DIN's gains (tests/din_references.py)
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
