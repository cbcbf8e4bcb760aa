"""``irmeasures-ext ntcireval``: NTCIREVAL 190111's golden per-topic values and NEV2mean means
(tests/data/ntcireval_full), reproduced through the command line; its output format and errors."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest
from ntcireval_golden import EC_QRELS, EC_RUN, QRELS, RUN, golden, undefined

from irmeasures_ext.cli import main
from irmeasures_ext.cli.ntcireval import AFTER_CUTOFFS, AT_EACH_CUTOFF, BEFORE_CUTOFFS

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
    """The golden run ranks by scores as doubles; as float32, q068-q070's scores tie (README "Tie rule")."""
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
    (['-p', '-2'], "argument -p: '-2': expected decimals >= 0, or -1 for all digits"),
    (['-p', 'x'], "argument -p: 'x': expected decimals >= 0, or -1 for all digits"),
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
