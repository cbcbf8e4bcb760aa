"""``irmeasures_ext.judges.report.judges`` and ``irmeasures-ext judges`` end to end on the shipped sample (issue 46,
part 5): every run's scores equal the plain references of ``tests/reference.py``, the leaderboard's τ_b scipy's
on those scores, the label agreement scikit-learn's κ on the pairs both sets judge (aligned here with dicts);
the command prints the same tables, draws the plot, and refuses bad arguments with one line."""
from __future__ import annotations

import statistics
from pathlib import Path

import pytest
import reference as ref
from conftest import ROOT
from public_paths import main
from scipy.stats import kendalltau
from sklearn.metrics import cohen_kappa_score

import irmeasures_ext.sample
from irmeasures_ext import InputError
from irmeasures_ext.judges.report import judges

SAMPLE = Path(irmeasures_ext.sample.__file__).with_name('judges')
MEASURES = {'AP': ref.average_precision, 'nDCG@10': lambda ranking, judged: ref.trec_ndcg(ranking, judged, 10)}
TOLERANCE = 1e-12


def sample_sets() -> dict[str, dict]:
    return {name: ref.read_trec_qrels(SAMPLE / f'{name}.txt') for name in ('nist', 'llm')}


def sample_runs() -> dict[str, dict]:
    return {path.stem: ref.read_trec_run(path) for path in sorted((SAMPLE / 'runs').iterdir())}


def test_the_sample_is_shipped_with_the_package():
    assert len(sample_runs()) == 10 and all(len(qrels) == 30 for qrels in sample_sets().values())


def test_judges_on_the_sample_equals_the_references():
    sets, runs = sample_sets(), sample_runs()
    report = judges({name: SAMPLE / f'{name}.txt' for name in sets}, str(SAMPLE / 'runs'), list(MEASURES))
    want = {(judge, run, measure): statistics.fmean(function(ref.trec_ranking(runs[run].get(q, {})), judged)
                                                    for q, judged in sets[judge].items())
            for judge in sets for run in runs for measure, function in MEASURES.items()}
    got = {(row.judge, row.run, row.measure): row.value for row in report.scores.itertuples()}
    assert got.keys() == want.keys()
    assert got == pytest.approx(want, abs=TOLERANCE)
    for measure in MEASURES:
        row = report.leaderboard[report.leaderboard.measure == measure].iloc[0]
        assert (row.judge_a, row.judge_b, row.systems) == ('nist', 'llm', len(runs))
        x, y = ([want[(judge, run, measure)] for run in runs] for judge in ('nist', 'llm'))
        assert row.tau_b == pytest.approx(kendalltau(x, y).statistic, abs=TOLERANCE)
    shared = sorted(set((q, d) for q, docs in sets['nist'].items() for d in docs)
                    & set((q, d) for q, docs in sets['llm'].items() for d in docs))
    pair = report.agreement.iloc[0]
    assert (pair.judge_a, pair.judge_b, pair.shared) == ('nist', 'llm', len(shared))
    assert pair.only_b == sum(map(len, sets['llm'].values())) - len(shared)
    labels = [[sets[judge][q][d] for q, d in shared] for judge in ('nist', 'llm')]
    assert pair.kappa == pytest.approx(cohen_kappa_score(*labels), abs=TOLERANCE)
    assert pair.kappa_quadratic == pytest.approx(cohen_kappa_score(*labels, weights='quadratic'), abs=TOLERANCE)
    assert report.holes is None


def test_judges_refuses_one_set_and_an_unknown_reference():
    with pytest.raises(InputError, match='two or more judgement sets'):
        judges({'nist': SAMPLE / 'nist.txt'}, str(SAMPLE / 'runs'), ['AP'])
    with pytest.raises(InputError, match="reference 'umbrela' is not a judgement set"):
        judges({'nist': SAMPLE / 'nist.txt', 'llm': SAMPLE / 'llm.txt'}, str(SAMPLE / 'runs'), ['AP'],
               reference='umbrela')


def sections(text: str) -> dict[str, list[list[str]]]:
    """The command's tables by name (each under a '# name' line)."""
    tables: dict[str, list[list[str]]] = {}
    name = None
    for line in text.splitlines():
        if line.startswith('# '):
            name = line[2:]
            tables[name] = []
        elif line and name is not None:
            tables[name].append(line.split('\t'))
    return tables


def test_the_command_prints_the_tables_of_the_api(tmp_path, capsys):
    qrels = [f'--qrels=nist={SAMPLE / "nist.txt"}', '--qrels', f'llm={SAMPLE / "llm.txt"}']
    assert main(['judges', *qrels, str(SAMPLE / 'runs'), 'AP', 'nDCG@10', '--holes', '5', '-p', '-1']) == 0
    printed = sections(capsys.readouterr().out)
    assert list(printed) == ['agreement', 'leaderboard', 'scores', 'holes']
    report = judges({'nist': SAMPLE / 'nist.txt', 'llm': SAMPLE / 'llm.txt'}, str(SAMPLE / 'runs'),
                    ['AP', 'nDCG@10'], holes_at=5)
    for name in printed:
        table = getattr(report, name)
        assert printed[name][0] == list(table.columns)
        assert len(printed[name]) == len(table) + 1
    scores = {(judge, run, measure): float(value) for judge, run, measure, value in printed['scores'][1:]}
    assert scores == {(row.judge, row.run, row.measure): row.value for row in report.scores.itertuples()}
    figure = tmp_path / 'judges.png'
    assert main(['judges', *qrels, str(SAMPLE / 'runs'), 'AP', '--table', 'leaderboard', '--plot', str(figure)]) == 0
    assert figure.read_bytes().startswith(b'\x89PNG') and 'plot written to' in capsys.readouterr().err
    assert main(['judges', *qrels, str(SAMPLE / 'runs'), 'AP', '--plot', str(figure)]) == 2
    assert 'exists' in capsys.readouterr().err


@pytest.mark.parametrize(('arguments', 'message'), [
    (['--qrels', f'nist={SAMPLE / "nist.txt"}', str(SAMPLE / 'runs'), 'AP'], 'two or more judgement sets'),
    (['--qrels', f'a={SAMPLE / "nist.txt"}', '--qrels', f'a={SAMPLE / "llm.txt"}', str(SAMPLE / 'runs'), 'AP'],
     "the name 'a' is given twice"),
    (['--qrels', f'a={SAMPLE / "nist.txt"}', '--qrels', f'b={SAMPLE / "llm.txt"}', str(SAMPLE / 'runs')],
     'give at least one MEASURE'),
    (['--qrels', f'a={SAMPLE / "nist.txt"}', '--qrels', f'b={SAMPLE / "llm.txt"}', 'AP'], 'give at least one RUN'),
    (['--qrels', f'a={SAMPLE / "nist.txt"}', '--qrels', f'b={SAMPLE / "llm.txt"}', str(SAMPLE / 'runs'), 'AP',
      '--binning', 'x'], "--binning 'x'"),
    (['--qrels', f'a={SAMPLE / "nist.txt"}', '--qrels', f'b={SAMPLE / "llm.txt"}', str(SAMPLE / 'runs'), 'AP',
      '--table', 'holes'], '--table holes needs --holes K'),
    (['--qrels', f'a={SAMPLE / "nist.txt"}', '--qrels', 'b=missing.txt', str(SAMPLE / 'runs'), 'AP'], 'missing.txt'),
])
def test_the_command_refuses_bad_arguments_in_one_line(capsys, arguments, message):
    assert main(['judges', *arguments]) == 2
    error = capsys.readouterr().err
    assert message in error and 'Traceback' not in error and error.startswith('irmeasures-ext')


def test_the_docs_worked_example_is_what_judges_gives():
    """The two tables of the page "Judging the judges" (docs/judging-the-judges.md) hold the sample's values at 3
    decimals."""
    section = (ROOT / 'docs' / 'judging-the-judges.md').read_text(encoding='utf-8')
    tables = [[line.strip('|').split(' | ') for line in block.strip().splitlines()]
              for block in section.split('\n\n') if block.startswith('| ')]
    report = judges({'nist': SAMPLE / 'nist.txt', 'llm': SAMPLE / 'llm.txt'}, str(SAMPLE / 'runs'),
                    ['nDCG@10', 'AP'], reference='nist', decimals=4)
    assert len(tables) == 2
    for table, frame in zip(tables, (report.agreement, report.leaderboard), strict=True):
        header, rows = [cell.strip() for cell in table[0]], table[2:]
        assert len(rows) == len(frame)
        for row, (_, want) in zip(rows, frame.iterrows(), strict=True):
            for column, cell in zip(header, row, strict=True):
                value = want[column]
                assert cell.strip() == (f'{value:.3f}' if isinstance(value, float) else str(value)), column


def test_plot_draws_set_and_run_names_as_written_not_as_math(tmp_path):
    report = judges({'n$\\frac$': SAMPLE / 'nist.txt', 'llm': SAMPLE / 'llm.txt'}, str(SAMPLE / 'runs'), ['AP'])
    assert report.plot(tmp_path / 'j.png').read_bytes().startswith(b'\x89PNG')  # (as math, $\frac$ fails to draw)
    axes = report._figure(None, None).axes[0]
    assert axes.get_xlabel() == 'AP under n\\$\\frac\\$' and axes.get_ylabel() == 'AP under llm'
