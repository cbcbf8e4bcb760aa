"""The notebooks under notebooks/ run end to end, offline, and produce their key outputs.

Each notebook is executed with nbclient on a python3 (ipykernel) kernel in its own folder, as
Jupyter and ``jupyter nbconvert --execute`` run it; a check cell appended to it asserts on the
notebook's own variables, and the test checks that a matplotlib figure was produced and that the
checkout's notebooks/ folder is as it was (the notebooks write only into temporary folders).
Committed notebooks must carry no outputs.
"""
import os
import shutil
import subprocess
import sys
from pathlib import Path

import nbclient
import nbformat
import pytest
from conftest import ROOT

pytestmark = pytest.mark.slow

NOTEBOOKS = ROOT / 'notebooks'
CELL_TIMEOUT = 600  # seconds: a guard against a hung kernel, not a speed check

CHECKS = {
    '01_quickstart.ipynb': '''
assert abs(results[Q(beta=0)] - results[AP]) < 1e-12
assert results[MeanRank] >= 1 and results[MedianRank] >= 1
assert curve_a[0] > curve_b[0] and curve_a[-1] < curve_b[-1]   # AP prefers A, large beta prefers B
assert 0 < flip_beta < betas[-1]
assert q_at(flip_beta * 0.9, run_a) > q_at(flip_beta * 0.9, run_b)
assert q_at(flip_beta * 1.1, run_a) < q_at(flip_beta * 1.1, run_b)
assert per_query.shape[0] == 25
''',
    '02_quoter_evaluation.ipynb': '''
assert len(topics) == len(test_qrels) > 100
assert list(experiment['name']) == list(systems)
assert any(str(c).endswith(' p-value') for c in experiment.columns)
assert experiment.set_index('name').loc['BM25', 'RR'] > experiment.set_index('name').loc['random', 'RR']
assert 1 <= gold_ranks['BM25'].min() and gold_ranks['BM25'].max() <= len(pool) + 1
''',
    '03_crosscheck.ipynb': '''
assert len(agreement) >= 15 and (agreement.queries == 61).all()
assert in_run.abs_diff.max() <= 1e-9
assert tie_rule.loc['RR@10', 'queries that differ'] > 0
assert abs(ours_rr[example] - msmarco_rr[example]) > 0
''',
    '04_comparing_runs.ipynb': '''
assert set(table.run) == set(runs) and len(table) == len(runs) * len(QUOTER)
strong = table[(table.run == 'hybrid') & (table.baseline == 'BM25')].set_index('measure')
assert strong.loc['RR', 'p_adjusted'] < 0.05 and strong.loc['RR', 'diff'] > 0
assert strong.loc['MeanRank', 'diff'] < 0 and strong.loc['MeanRank', 'wins'] > strong.loc['MeanRank', 'losses']
weak = table[(table.run == 'random') & (table.baseline == 'BM25')].set_index('measure')
assert weak.loc['MeanRank', 'losses'] > weak.loc['MeanRank', 'wins']
assert '†' in markdown.getvalue() or '<sup>' in markdown.getvalue()
assert (report.discriminative_power.pairs == 6).all()
assert png.startswith(b'\\x89PNG') and not figure.exists()  # drawn in a temporary folder, since removed
''',
    '05_judging_the_judges.ipynb': '''
assert {'nist', 'llm'} <= set(labels.judge_a) and (labels.shared > 0).all() and labels.kappa.iloc[0] < 0.6
board = report.leaderboard.set_index(['measure', 'judge_b'])
assert board.loc[('AP', 'llm'), 'tau_b'] < board.loc[('nDCG@10', 'llm'), 'tau_b']
assert gain[neural].mean() > gain.drop(neural).mean()
assert (interval.lower <= interval.estimate).all() and (interval.estimate <= interval.upper).all()
assert (holes_table.low <= holes_table.high).all()
assert (holes_table[holes_table.judge == 'nist'].unjudged > 0).all()  # (pooled to depth 10: holes at k = 20)
assert (holes_table[holes_table.judge == 'llm'].unjudged == 0).all()  # (pooled to depth 20: none)
assert set(nist_filled.judge) == {'nist', 'llm'} and len(umbrela) == 20
assert png.startswith(b'\\x89PNG')
''',
    '06_reproducibility.ipynb': '''
perfect = exact.set_index(['measure', 'statistic', 'run'])['value']
assert len(perfect) == 8 * len(MEASURES)  # (per measure: rmse, nrmse, p_value of each run; er, delta_ri)
assert (perfect.xs('rmse', level='statistic') == 0).all() and (perfect.xs('nrmse', level='statistic') == 0).all()
assert (perfect.xs('er', level='statistic') == 1).all() and (perfect.xs('delta_ri', level='statistic') == 0).all()
assert (perfect.xs('p_value', level='statistic') == 1).all()  # (repro_eval's rule for equal scores)
assert same.loc['all', ['ktu', 'ktu_repro_eval', 'rbo_ext']].tolist() == [1.0, 1.0, 1.0]
assert 0.9 < same.loc['all', 'rbo_repro_eval'] < 1  # (identical 50-doc lists: 1000 depths summed)
assert (table.xs('rmse', level='statistic')[['baseline', 'advanced']] > 0).all().all()
assert (table.xs('rmse', level='statistic').baseline < table.xs('rmse', level='statistic').advanced).all()
assert table.loc[('AP', 'p_value'), 'baseline'] < 0.05 and ap_baseline.reproduced.mean() < ap_baseline.original.mean()
assert (abs(table.xs('er', level='statistic').advanced_vs_baseline - 1) < 0.2).all()
assert abs(rmse_by_hand - table.loc[('AP', 'rmse'), 'baseline']) < 1e-12
assert len(scores) == 25 * 2 * len(MEASURES) and set(scores.run) == {'baseline', 'advanced'}
assert abs(rmse_shuffled - table.loc[('AP', 'rmse'), 'baseline']) < 1e-12  # (paired by topic, not by position)
assert list(shuffled.index) != list(by_topic.index)
assert 0 < means.loc['advanced', 'ktu'] < means.loc['baseline', 'ktu'] < 1
assert means.loc['advanced', 'rbo_ext'] < means.loc['baseline', 'rbo_ext'] < 1
assert set(replication.statistic) == {'p_value', 'er', 'delta_ri'} and replication.value.notna().all()
assert [axes.get_title().split(chr(10))[0] for axes in figure.axes] == MEASURES
assert figure.axes[0].get_xlim() == (0.0, 1.0) and len(figure.axes[0].collections) == 2
assert png.startswith(b'\\x89PNG') and '| AP | rmse |' in result.stdout
assert not folder.exists()
''',
}


def execute(name):
    """Runs the notebook, with its check cell, in its own folder."""
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    notebook.cells.append(nbformat.v4.new_code_cell(CHECKS[name]))
    client = nbclient.NotebookClient(notebook, timeout=CELL_TIMEOUT, kernel_name='python3',
                                     resources={'metadata': {'path': str(NOTEBOOKS)}})
    client.execute()
    return notebook


def snapshot(folder):
    """Every file and folder under ``folder``: its size and modification time (None for a folder)."""
    return {path: None if path.is_dir() else (path.stat().st_size, path.stat().st_mtime_ns)
            for path in folder.rglob('*')}


def remove_new(before, after):
    """Removes what appeared since ``before`` (the test leaves the checkout as it was, even failing)."""
    for path in sorted(set(after) - set(before), reverse=True):
        if path.is_dir():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


def outputs(notebook):
    return [output for cell in notebook.cells if cell.cell_type == 'code' for output in cell.outputs]


def test_every_notebook_has_a_check():
    assert sorted(path.name for path in NOTEBOOKS.glob('*.ipynb')) == sorted(CHECKS)


@pytest.mark.parametrize('name', sorted(CHECKS))
def test_notebook_is_committed_without_outputs(name):
    notebook = nbformat.read(NOTEBOOKS / name, as_version=4)
    nbformat.validate(notebook)
    for cell in notebook.cells:
        if cell.cell_type == 'code':
            assert cell.outputs == [] and cell.execution_count is None, f'{name}: strip the outputs'


@pytest.mark.parametrize('name', sorted(CHECKS))
def test_notebook_runs_end_to_end(name):
    before = snapshot(NOTEBOOKS)
    try:
        notebook = execute(name)
    finally:
        after = snapshot(NOTEBOOKS)
        remove_new(before, after)
    assert after == before, f'{name} changed the checkout: {sorted(map(str, set(after) ^ set(before)))}'
    produced = outputs(notebook)
    assert not [o for o in produced if o.output_type == 'error']
    assert any('image/png' in o.get('data', {}) for o in produced), 'no figure was produced'


def test_the_readmes_command_runs_a_notebook_with_what_the_extra_installs(tmp_path):
    """notebooks/README.md's command (nbclient's ``jupyter execute``; nbclient is in the [notebooks] extra, Jupyter's
    editor is not) runs a notebook and writes the executed copy, with its figure, beside it (here on a copy)."""
    command = "jupyter execute --output='{notebook_name}-run' notebooks/01_quickstart.ipynb"
    assert command in ' '.join((NOTEBOOKS / 'README.md').read_text(encoding='utf-8').split())
    shutil.copytree(NOTEBOOKS, tmp_path / 'notebooks')
    env = {**os.environ, 'PATH': f'{Path(sys.executable).parent}{os.pathsep}{os.environ.get("PATH", "")}'}
    result = subprocess.run(['bash', '-c', command], cwd=tmp_path, env=env, capture_output=True, text=True,
                            timeout=CELL_TIMEOUT)
    assert result.returncode == 0, result.stderr
    executed = nbformat.read(tmp_path / 'notebooks' / '01_quickstart-run.ipynb', as_version=4)
    assert any('image/png' in o.get('data', {}) for o in outputs(executed)), 'no figure was produced'
