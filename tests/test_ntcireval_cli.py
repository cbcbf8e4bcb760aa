"""``irmeasures-ext ntcireval``: NTCIREVAL 190111's golden per-topic values and NEV2mean means
(tests/data/ntcireval_full), reproduced through the command line; its output format and errors."""
from __future__ import annotations

import re
import subprocess
import sys

import pytest
from ntcireval_golden import QRELS, RUN, golden, undefined

from irmeasures_ext.cli import main
from irmeasures_ext.measures.ntcir_ndcg import nDCG_JK

CUTOFFS = '1,5,10,20,100,1000'
GAINS = ('1:2:3', '1:3:7')
BETAS = (0.0, 0.5, 1.0, 2.0)
#: The NTCIREVAL names the command computes with what irmeasures_ext has (``@k``: at each cutoff).
MAPPED = {'RR', 'AP', 'Q-measure', 'AP@k', 'Q@k', 'nDCG@k', 'MSnDCG@k', 'P@k', 'nERR@k', 'Hit@k'}
TOLERANCE = 1e-9
#: The qrels topics, read from the file (NEV2mean divides by their number).
TOPICS = sorted({line.split()[0] for line in QRELS.read_text().splitlines() if line.strip()})


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
    """NTCIREVAL's printed name (``AP@0010``) -> {qid: value} in ``mode`` for these gains and beta."""
    rows = {}
    for setting, values in golden().items():
        if setting.mode == mode and setting.gains in (None, gains) and setting.beta in (None, beta):
            name = setting.measure + ('' if setting.cutoff is None else f'@{setting.cutoff:04d}')
            rows[name] = values
    return rows


def base_name(name: str) -> str:
    return re.sub(r'@\d{4,}$', '@k', name)


def check_against_golden(rows: dict[tuple[str, str], float], mode: str, gains: str, beta: float) -> None:
    """Every per-topic row equals NTCIREVAL's (to 1e-9), every golden row of a printed name is printed
    (and nothing for the topics NTCIREVAL leaves undefined), and the ``all`` rows are NEV2mean's means."""
    expected = golden_rows(mode, gains, beta)
    printed = {name for _, name in rows}
    assert {base_name(name) for name in printed} == MAPPED
    for name in printed:
        per_topic = {qid: value for (qid, row_name), value in rows.items() if row_name == name and qid != 'all'}
        assert per_topic.keys() == expected[name].keys(), name
        worst = max(abs(value - expected[name][qid]) for qid, value in per_topic.items())
        assert worst <= TOLERANCE, (name, worst)
        assert abs(rows['all', name] - sum(expected[name].values()) / len(TOPICS)) <= TOLERANCE, name


@pytest.mark.parametrize('gains', GAINS)
@pytest.mark.parametrize('beta', BETAS)
def test_default_mode_equals_ntcireval(capsys, gains, beta):
    status, out, err = run_main(capsys, QRELS, RUN, '-g', gains, '-beta', beta, '-cutoffs', CUTOFFS,
                                '-q', '-o', 'tsv', '-p', 12, '--score-precision', 'float64')
    assert (status, err) == (0, '')
    check_against_golden(tsv_rows(out), 'default', gains, beta)


def test_undefined_topics_print_nothing(capsys):
    status, out, _ = run_main(capsys, QRELS, RUN, '-g', '1:2:3', '-q', '-o', 'tsv')
    printed = {line.split('\t')[0] for line in out.splitlines()}
    assert undefined()['default'] >= {'q001', 'q002', 'q003', 'q004', 'q005', 'q006'}
    assert printed == (set(TOPICS) - undefined()['default']) | {'all'}


def test_print_order_is_ntcirevals(capsys):
    """Per topic, the names in the order NTCIREVAL printed them (the golden file keeps its order)."""
    out = run_main(capsys, QRELS, RUN, '-g', '1:2:3', '-cutoffs', CUTOFFS, '-q', '-o', 'tsv')[1]
    ours = [line.split('\t')[1] for line in out.splitlines() if line.startswith('q119\t')]
    expected = list(golden_rows('default', '1:2:3', 1.0))  # (dicts keep the file's order)
    assert ours == [name for name in expected if base_name(name) in MAPPED]
    assert [line.split('\t')[1] for line in out.splitlines() if line.startswith('all\t')] == ours


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
    assert [line.split('=')[0] for line in lines] == ['RR', 'AP', 'Q-measure', 'AP@0005', 'Q@0005', 'nDCG@0005',
                                                      'MSnDCG@0005', 'P@0005', 'nERR@0005', 'Hit@0005']
    mean_ap = sum(golden_rows('default', '1:2:3', 1.0)['AP'].values()) / len(TOPICS)
    assert abs(float(lines[1].split()[-1]) - mean_ap) < 1e-12
    tsv = run_main(capsys, QRELS, RUN, *options, '-o', 'tsv')[1].splitlines()
    assert [row.split('\t') for row in tsv] == [[line.split('=')[0], line.split()[-1]] for line in lines]


@pytest.mark.parametrize('mode, logb', [('logb10', '10'), ('logb0', '0')])
def test_logb(capsys, mode, logb):
    """-logb B is NTCIREVAL's log base of nDCG@k's discount: refused while nDCG_JK has no logb parameter."""
    status, out, err = run_main(capsys, QRELS, RUN, '-g', '1:3:7', '-logb', logb, '-cutoffs', CUTOFFS, '-q',
                                '-o', 'tsv', '-p', 12, '--score-precision', 'float64')
    if 'logb' not in nDCG_JK.SUPPORTED_PARAMS:
        assert (status, out) == (2, '')
        assert err == ("irmeasures-ext: error: -logb is not supported yet: it needs nDCG_JK's logb parameter (the log "
                       "base of nDCG@k's discount), which irmeasures_ext does not have\n")
        return
    rows, expected = tsv_rows(out), golden_rows(mode, '1:3:7', 1.0)
    for name in (name for name in expected if name.startswith('nDCG@')):
        assert all(abs(rows[qid, name] - value) <= TOLERANCE for qid, value in expected[name].items()), name


def test_command_in_a_subprocess():
    result = subprocess.run([sys.executable, '-m', 'irmeasures_ext', 'ntcireval', str(QRELS), str(RUN), '-g', '1:3:7',
                             '-beta', '0.5', '-cutoffs', CUTOFFS, '-q', '-o', 'tsv', '-p', '12',
                             '--score-precision', 'float64'], capture_output=True, text=True, timeout=120)
    assert (result.returncode, result.stderr) == (0, '')
    check_against_golden(tsv_rows(result.stdout), 'default', '1:3:7', 0.5)


def test_ranking_options_apply(capsys):
    """The golden run ranks by scores as doubles; as float32, q068-q070's scores tie (README "Tie rule")."""
    as_float32 = tsv_rows(run_main(capsys, QRELS, RUN, '-g', '1:2:3', '-q', '-o', 'tsv', '-p', 12)[1])
    expected = golden_rows('default', '1:2:3', 1.0)
    differ = {qid for (qid, name), value in as_float32.items() if qid != 'all' and
              abs(value - expected[name][qid]) > TOLERANCE}
    assert differ and differ <= {'q068', 'q069', 'q070'}
    optimistic = tsv_rows(run_main(capsys, QRELS, RUN, '-g', '1:2:3', '-q', '-o', 'tsv', '--ties', 'optimistic')[1])
    assert optimistic['all', 'AP'] > as_float32['all', 'AP']


@pytest.mark.parametrize('argv, message', [
    (['-g', '1:x:3'], '-g 1:x:3: expected numbers separated by ":" (one per level from L1), e.g. 1:2:3'),
    (['-g', ''], '-g : expected numbers separated by ":" (one per level from L1), e.g. 1:2:3'),
    (['-g', '1:-2:3'], '-g 1:-2:3: every value must be a finite number >= 0'),
    (['-g', '1:0:3'], '-g 1:0:3: a gain of 0 is not supported (NTCIREVAL then leaves that level out of AP and Q but '
                      'counts it in R, RR and P@k; our measures do not reproduce that)'),
    (['-g', '1:2:3', '-beta', '-1'], '-beta must be a finite number >= 0, got -1'),
    (['-g', '1:2:3', '-s', '1:a'], '-s 1:a: expected numbers separated by ":" (one per level from L1), e.g. 1:2:3'),
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
    assert err.splitlines()[0] == 'irmeasures-ext: error: the following arguments are required: -g'


def test_missing_files(capsys, tmp_path):
    missing = tmp_path / 'nope.txt'
    for argv in ([missing, RUN], [QRELS, missing]):
        status, out, err = run_main(capsys, *argv, '-g', '1:2:3')
        assert (status, out) == (2, '')
        assert err.startswith('irmeasures-ext: error: ') and str(missing) in err and err.count('\n') == 1


@pytest.mark.parametrize('argv, needs', [
    (['-j'], 'condensed lists (label -j): the judged_only=True parameter on every measure'),
    (['-j', '-bpref'], 'condensed lists (label -j): the judged_only=True parameter on every measure'),
    (['-truncate', '10'], 'the depth cut (label -truncate N) on the provider'),
    (['-ec'], "equivalence classes (-ec): the qrels' class field and classes=True on every measure"),
    (['-rbp', '0.8'], 'RBP and RBP@k (RBP_NTCIR(p=))'),
    (['-gamma', '0.5'], "NCUrb,P and NCUrb,BR (NCU(stopping='rb', gamma=))"),
    (['-s', '1:1:4'], "NCUgu,P and NCUgu,BR (NCU(stopping='gu', stops=))"),
    (['-gap'], 'GAP and GAP@k (GAP)'),
    (['-rbup', '0.9'], 'iRBU@k (iRBU(u=))'),
])
def test_options_without_their_measures_are_refused(capsys, argv, needs):
    status, out, err = run_main(capsys, QRELS, RUN, '-g', '1:2:3', *argv)
    assert (status, out) == (2, '')
    flag = argv[0]
    assert err == f'irmeasures-ext: error: {flag} is not supported yet: it needs {needs}, which irmeasures_ext ' \
                  'does not have\n'


def test_bpref_needs_condensed_lists(capsys):
    status, out, err = run_main(capsys, QRELS, RUN, '-g', '1:2:3', '-bpref')
    assert (status, out) == (2, '')
    assert err == ('irmeasures-ext: error: -bpref computes the bpref family on condensed lists, as NTCIREVAL\'s '
                   '"compute -j" after "label -j": give -j too\n')
