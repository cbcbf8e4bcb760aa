"""``irmeasures-ext reproduce`` against repro_eval 0.5.0's values (tests/data/repro_eval, see its README), its output
formats, --per-topic, --plot, bad input; and irmeasures_ext.reproduce.plot (the per-topic plot) on a hand-computed
case."""
import json
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

import ir_datasets
import numpy as np
import pandas as pd
import pytest
from conftest import DATA

from irmeasures_ext.cli import main, reproduce
from irmeasures_ext.errors import InputError, UnansweredTopicsWarning

REF = DATA / 'repro_eval'
RPD = json.loads((REF / 'ref_rpd.json').read_text())
RPL = json.loads((REF / 'ref_rpl.json').read_text())
TOPIC_SCORES = json.loads((REF / 'ref_rpd_topic_scores.json').read_text())
MEASURES = list(RPD['er'])  # (repro_eval's 58 measures, by ir_measures' names)
QRELS, QRELS_B = str(REF / 'qrels_orig.txt'), str(REF / 'qrels_rpl.txt')
ORIGINAL = ['--original', str(REF / 'orig_b.txt'), str(REF / 'orig_a.txt')]
REPRODUCED = ['--reproduced', str(REF / 'rpd_b.txt'), str(REF / 'rpd_a.txt')]
REPLICATED = ['--reproduced', str(REF / 'rpl_b.txt'), str(REF / 'rpl_a.txt'), '--qrels-b', QRELS_B]
REPRODUCTION = ['reproduce', QRELS, *ORIGINAL, *REPRODUCED]
WARNING = 'irmeasures-ext: warning: topics not answered (reproduced advanced: 104)'


def close(ours: float | None, theirs: float) -> bool:
    """Equal to 1e-9, NaN (null in jsonl) to NaN and infinities to themselves."""
    if math.isnan(theirs):
        return ours is None or math.isnan(ours)
    if math.isinf(theirs):
        return ours == theirs
    return ours is not None and abs(ours - theirs) <= 1e-9


def run_main(capsys, *argv):
    """Runs main(argv) in-process; returns (exit status, stdout, stderr lines)."""
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err.splitlines()


def jsonl(capsys, *argv) -> list[dict]:
    status, out, err = run_main(capsys, *argv, '-o', 'jsonl')
    assert status == 0, err
    return [json.loads(line) for line in out.splitlines()]


def by_key(records: list[dict]) -> dict[tuple, float]:
    return {(r['measure'], r['statistic'], r['run']): r['value'] for r in records}


# --- the values: repro_eval's --------------------------------------------------------------------------------

def test_a_reproduction_gives_repro_eval_s_values(capsys):
    values = by_key(jsonl(capsys, *REPRODUCTION, *MEASURES, '--order', 'file', '--topics', 'repro_eval'))
    for statistic, key in (('rmse', 'rmse'), ('nrmse', 'nrmse'), ('p_value', 'ttest_paired_pvalue')):
        for run in ('baseline', 'advanced'):
            for measure, value in RPD[key][run].items():
                assert close(values[measure, statistic, run], value), (measure, statistic, run)
    for statistic, key in (('er', 'er'), ('delta_ri', 'dri')):
        for measure, value in RPD[key].items():
            assert close(values[measure, statistic, 'advanced_vs_baseline'], value), (measure, statistic)
    for run in ('baseline', 'advanced'):  # (the rankings as repro_eval reads them, on its topics)
        assert close(values['ranked lists', 'ktu_repro_eval', run], RPD['ktu_mean'][run])
        assert close(values['ranked lists', 'rbo_repro_eval', run], RPD['rbo_mean'][run])
    assert len(values) == 8 * len(MEASURES) + 2 * len({s for m, s, r in values if m == 'ranked lists'}) and \
        {'rbo_ext', 'ktu_repro_eval'} <= {s for m, s, r in values if m == 'ranked lists'}


def test_by_default_ktu_and_rbo_count_an_unanswered_topic_0_over_the_original_topics(capsys):
    values = by_key(jsonl(capsys, *REPRODUCTION, 'AP', '--order', 'file'))
    per_topic = RPD['ktu_per_topic']['advanced']  # (repro_eval: rpd_a's 10 topics; the original has 11, 104 too)
    assert '104' not in per_topic and len(per_topic) == 10
    assert close(values['ranked lists', 'ktu_repro_eval', 'advanced'], sum(per_topic.values()) / 11)
    assert close(values['ranked lists', 'rbo_repro_eval', 'advanced'],
                 sum(RPD['rbo_per_topic']['advanced'].values()) / 11)
    assert close(values['ranked lists', 'ktu_repro_eval', 'baseline'], RPD['ktu_mean']['baseline'])  # (all answered)


def test_a_replication_gives_repro_eval_s_values(capsys):
    values = by_key(jsonl(capsys, 'reproduce', QRELS, *ORIGINAL, *REPLICATED, *MEASURES))
    for run in ('baseline', 'advanced'):
        for measure, value in RPL['ttest_unpaired_pvalue'][run].items():
            assert close(values[measure, 'p_value', run], value), (measure, run)
    for statistic, key in (('er', 'er'), ('delta_ri', 'dri')):
        for measure, value in RPL[key].items():
            assert close(values[measure, statistic, 'advanced_vs_baseline'], value), (measure, statistic)
    assert len(values) == 4 * len(MEASURES)  # (no rankings compared: the topics differ)


# --- the formats ---------------------------------------------------------------------------------------------

def tsv_rows(out: str) -> tuple[list[str], list[list[str]]]:
    header, *rows = [line.split('\t') for line in out.splitlines()]
    return header, rows


def test_tsv_in_full_is_the_wide_table_with_repro_eval_s_values(capsys):
    status, out, err = run_main(capsys, *REPRODUCTION, 'AP', 'IPrec@0.7', 'IPrec@0.8', '-p', '-1')
    header, rows = tsv_rows(out)
    assert status == 0 and header == ['measure', 'statistic', 'baseline', 'advanced', 'advanced_vs_baseline']
    table = {(row[0], row[1]): row[2:] for row in rows}
    assert [key for key in table if key[0] == 'AP'] == [('AP', s) for s in ('rmse', 'nrmse', 'p_value', 'er',
                                                                             'delta_ri')]
    for measure in ('AP', 'IPrec@0.7', 'IPrec@0.8'):
        assert float(table[measure, 'rmse'][0]) == RPD['rmse']['baseline'][measure]  # (repr: round trip exact)
        assert float(table[measure, 'nrmse'][1]) == RPD['nrmse']['advanced'][measure]
        assert table[measure, 'er'][:2] == ['', '']
        assert close(float(table[measure, 'delta_ri'][2]), RPD['dri'][measure])
    assert table['IPrec@0.7', 'delta_ri'][2] == '-inf' and table['IPrec@0.8', 'delta_ri'][2] == 'nan'
    assert table['IPrec@0.8', 'p_value'][0] == 'nan'  # (NaN written, where a missing value is empty)
    agreement = [key for key in table if key[0] == 'ranked lists']
    assert agreement and rows[-len(agreement):] == [[*key, *table[key]] for key in agreement]
    assert all(table[key][2] == '' and table[key][0] != '' for key in agreement)


def test_tsv_places_and_p_values_significant_digits(capsys):
    status, out, _ = run_main(capsys, *REPRODUCTION, 'AP', '-p', '3')
    table = {(row[0], row[1]): row[2:] for row in tsv_rows(out)[1]}
    assert table['AP', 'rmse'][0] == format(RPD['rmse']['baseline']['AP'], '.3f')
    assert table['AP', 'p_value'][1] == format(RPD['ttest_paired_pvalue']['advanced']['AP'], '.3g')
    assert table['AP', 'er'][2] == format(RPD['er']['AP'], '.3f')


def test_markdown(capsys):
    status, out, _ = run_main(capsys, *REPRODUCTION, 'AP', '-o', 'markdown')
    lines = out.splitlines()
    assert lines[0] == '| measure | statistic | baseline | advanced | advanced_vs_baseline |'
    assert lines[1] == '|---|---|---|---|---|'
    rmse = RPD['rmse']
    assert f"| AP | rmse | {rmse['baseline']['AP']:.4f} | {rmse['advanced']['AP']:.4f} |  |" in lines
    assert f"| AP | er |  |  | {RPD['er']['AP']:.4f} |" in lines


def test_latex(capsys):
    status, out, _ = run_main(capsys, *REPRODUCTION, 'AP', '-o', 'latex')
    lines = out.splitlines()
    assert lines[:4] == ['\\begin{tabular}{llrrr}', '\\toprule',
                         'measure & statistic & baseline & advanced & advanced\\_vs\\_baseline \\\\', '\\midrule']
    assert lines[-2:] == ['\\bottomrule', '\\end{tabular}']
    assert f"AP & delta\\_ri &  &  & {RPD['dri']['AP']:.4f} \\\\" in lines
    assert any(line.startswith('ranked lists & rbo\\_ext & ') for line in lines)


def test_latex_typesets_every_character_as_written():
    # (each escaped once: the braces of \textbackslash{} are not escaped again; |, < and > are other glyphs in OT1)
    from irmeasures_ext.comparison.output import latex_escape
    assert latex_escape('a\\b_{c}%&#$^~|<>d') == (r'a\textbackslash{}b\_\{c\}\%\&\#\$\^{}\~{}\textbar{}\textless{}'
                                                 r'\textgreater{}d')


def test_per_topic_jsonl_scores_side_by_side_and_agreement_as_repro_eval(capsys):
    records = jsonl(capsys, *REPRODUCTION, 'AP', 'nDCG@10', '--per-topic', '--order', 'file', '--topics',
                    'repro_eval')
    scores = [r for r in records if r['table'] == 'scores']
    agreement = [r for r in records if r['table'] == 'agreement']
    assert len(scores) + len(agreement) == len(records)
    assert list(scores[0]) == ['table', 'measure', 'run', 'query_id', 'original', 'reproduced']
    assert [r['measure'] for r in scores] == ['AP'] * 20 + ['nDCG@10'] * 20  # (10 qrels topics, 2 runs)
    for r in scores:
        short = r['run'][0]  # (b, a)
        assert close(r['original'], TOPIC_SCORES[f'orig_{short}'][r['query_id']][r['measure']])
        assert close(r['reproduced'], TOPIC_SCORES[f'rep_{short}'][r['query_id']][r['measure']])
    assert [r['reproduced'] for r in scores if r['run'] == 'advanced' and r['query_id'] == '104'] == [0.0, 0.0]
    for r in agreement:
        key = 'per_topic' if r['query_id'] != 'all' else 'mean'
        expected = RPD[f'ktu_{key}'][r['run']]
        assert close(r['ktu_repro_eval'], expected[r['query_id']] if key == 'per_topic' else expected)
    assert {r['query_id'] for r in agreement if r['run'] == 'advanced'} == set(RPD['ktu_per_topic']['advanced']) | {
        'all'}


def test_per_topic_text_tables_one_after_another(capsys):
    status, out, err = run_main(capsys, *REPRODUCTION, 'AP', '--per-topic')
    assert status == 0
    scores, agreement = out.split('\n\n')
    scores_lines, agreement_lines = scores.splitlines(), agreement.splitlines()
    assert scores_lines[:2] == ['# scores', 'measure\trun\tquery_id\toriginal\treproduced']
    assert scores_lines[2] == f"AP\tbaseline\t101\t{TOPIC_SCORES['orig_b']['101']['AP']:.4f}\t" \
                              f"{TOPIC_SCORES['rep_b']['101']['AP']:.4f}"
    assert len(scores_lines) == 2 + 20
    assert agreement_lines[0] == '# agreement' and agreement_lines[1].startswith('run\tquery_id\t')
    assert [line.split('\t')[:2] for line in agreement_lines[2:]] == [
        [run, topic] for run in ('baseline', 'advanced') for topic in [*map(str, range(101, 112)), 'all']]
    assert sum(line.startswith(WARNING) for line in err) == 1
    status, out, _ = run_main(capsys, *REPRODUCTION, 'AP', '--per-topic', '-o', 'latex')
    assert out.startswith('% scores\n\\begin{tabular}{lllrr}\n') and '\n\n% agreement\n\\begin{tabular}{ll' in out


# --- the plot ------------------------------------------------------------------------------------------------

def test_plot_writes_a_png_and_says_so(capsys, tmp_path):
    path = tmp_path / 'reproduction.png'
    status, out, err = run_main(capsys, *REPRODUCTION, 'AP', 'P@10', '--plot', path)
    assert status == 0 and path.read_bytes().startswith(b'\x89PNG\r\n\x1a\n')
    assert f'irmeasures-ext: plot written to {path}' in err
    assert sum(line.startswith(WARNING) for line in err) == 1
    assert out.startswith('measure\tstatistic\t')


@pytest.mark.parametrize('per_topic', [[], ['--per-topic']])
def test_the_table_and_the_plot_evaluate_each_run_once(capsys, tmp_path, monkeypatch, per_topic):
    from irmeasures_ext.evaluation import Evaluation
    evaluated = []
    results = Evaluation.results
    monkeypatch.setattr(Evaluation, 'results', lambda self, run: evaluated.append(run) or results(self, run))
    status, out, err = run_main(capsys, *REPRODUCTION, 'AP', *per_topic, '--plot', tmp_path / 'plot.png')
    assert status == 0 and (tmp_path / 'plot.png').exists()
    assert len(evaluated) == 4 and len({id(run) for run in evaluated}) == 4


def test_plot_refuses_an_existing_file_before_evaluating_and_replaces_it_with_overwrite(capsys, tmp_path):
    path = tmp_path / 'mine.png'
    path.write_bytes(b'not a plot')
    status, out, err = run_main(capsys, *REPRODUCTION, 'AP', '--plot', path)
    assert (status, out) == (2, '') and path.read_bytes() == b'not a plot'
    assert err == [f'irmeasures-ext: error: {path}: exists; give another file name, or replace it with --overwrite '
                   '(overwrite=True in Python)']
    status, out, err = run_main(capsys, *REPRODUCTION, 'AP', '--plot', path, '--overwrite')
    assert status == 0 and path.read_bytes().startswith(b'\x89PNG')


def test_a_bad_plot_suffix_is_refused_before_any_input_is_read(capsys, tmp_path):
    bad_run = tmp_path / 'bad.txt'
    bad_run.write_text('101 Q0 d1 1 x r\n')
    status, out, err = run_main(capsys, 'reproduce', QRELS, '--original', bad_run, bad_run, *REPRODUCED, 'AP',
                                '--plot', tmp_path / 'plot.txt')
    assert (status, out, len(err)) == (2, '', 1)
    assert err[0].startswith(f'irmeasures-ext: error: {tmp_path / "plot.txt"}: the plot is written as ')
    assert list(tmp_path.iterdir()) == [bad_run]


def test_without_matplotlib_the_error_names_the_extra(capsys, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, 'matplotlib.backends.backend_agg', None)
    status, out, err = run_main(capsys, *REPRODUCTION, 'AP', '--plot', tmp_path / 'plot.png')
    assert (status, out) == (2, '') and len(err) == 1 and "--plot needs matplotlib: pip install '.[plot]'" in err[0]
    from irmeasures_ext.reproduce.plot import plot_topic_scores
    needs = r"plot_topic_scores needs matplotlib: pip install '\.\[plot\]'"
    with pytest.raises(ModuleNotFoundError, match=needs) as raised:
        plot_topic_scores(pd.DataFrame([('AP', 'baseline', '1', 0.5, 0.5)], columns=PAIRED_COLUMNS))
    assert raised.value.name == 'matplotlib.backends.backend_agg'  # (the module missing, for tools that read it)


@pytest.mark.parametrize('option', [['--per-topic'], ['--plot', 'plot.png'], ['--topics', 'original'],
                                    ['--order', 'file']])
def test_a_replication_refuses_what_pairs_topics(capsys, option):
    status, out, err = run_main(capsys, 'reproduce', QRELS, *ORIGINAL, *REPLICATED, 'AP', *option)
    assert (status, out) == (2, '') and err == [
        f'irmeasures-ext: error: {option[0]} compares a reproduction topic by topic; in a replication (--qrels-b) '
        'the reproduced runs answer other topics']


# --- bad input -----------------------------------------------------------------------------------------------

def test_a_missing_run_file(capsys, tmp_path):
    missing = tmp_path / 'missing.txt'
    status, out, err = run_main(capsys, 'reproduce', QRELS, '--original', REF / 'orig_b.txt', missing, *REPRODUCED,
                                'AP')
    assert (status, out) == (2, '') and err == [
        f'irmeasures-ext: error: {missing}: no such run file (--original and --reproduced take two runs each: '
        'BASELINE ADVANCED)']


@pytest.mark.filterwarnings('ignore::irmeasures_ext.errors.NoOverlapWarning')  # (before the error)
def test_an_original_run_answering_no_topic_is_refused_as_in_python(capsys, tmp_path):
    from irmeasures_ext import reproduce as api
    empty = tmp_path / 'empty.txt'
    empty.write_text('')
    error = f'the original baseline run ({empty}) answers no topic of the qrels: there is nothing to reproduce'
    status, out, err = run_main(capsys, 'reproduce', QRELS, '--original', empty, REF / 'orig_a.txt', *REPRODUCED,
                                'AP')
    assert (status, out) == (2, '') and err[-1] == f'irmeasures-ext: error: {error}'
    for call in (lambda: api.reproducibility(QRELS, empty, REF / 'orig_a.txt', REF / 'rpd_b.txt', REF / 'rpd_a.txt',
                                             ['AP']),
                 lambda: api.replicability(QRELS, empty, REF / 'orig_a.txt', QRELS_B, REF / 'rpl_b.txt',
                                           REF / 'rpl_a.txt', ['AP'])):
        with pytest.raises(InputError) as raised:
            call()
        assert str(raised.value) == error


def test_a_missing_qrels_file(capsys, tmp_path):
    status, out, err = run_main(capsys, 'reproduce', tmp_path / 'nothing', *ORIGINAL, *REPRODUCED, 'AP')
    assert (status, out) == (2, '') and err == [f'irmeasures-ext: error: {tmp_path / "nothing"}: no such file, nor '
                                                'an ir_datasets id']


def test_a_bad_run_line_is_named_by_file_and_line(capsys, tmp_path):
    run = tmp_path / 'run.txt'
    lines = (REF / 'rpd_a.txt').read_text().splitlines(keepends=True)
    lines[6] = '101 Q0 doc1 7 high r\n'
    run.write_text(''.join(lines))
    status, out, err = run_main(capsys, 'reproduce', QRELS, *ORIGINAL, '--reproduced', REF / 'rpd_b.txt', run, 'AP')
    assert (status, out, len(err)) == (2, '', 1)
    assert err[0].startswith(f'irmeasures-ext: error: {run}:7: ') and 'high' in err[0]


@pytest.mark.parametrize('runs,message', [
    ([str(REF / 'orig_b.txt')], 'argument --original: expected 2 arguments'),
    ([str(REF / 'orig_b.txt'), str(REF / 'orig_a.txt'), str(REF / 'rpd_a.txt')],
     f"{REF / 'rpd_a.txt'}: a run among the measures; --original and --reproduced take two runs each (BASELINE "
     'ADVANCED)'),
])
def test_a_wrong_number_of_runs(capsys, runs, message):
    status, out, err = run_main(capsys, 'reproduce', QRELS, '--original', *runs, *REPRODUCED, 'AP')
    assert (status, out) == (2, '') and err[0] == f'irmeasures-ext: error: {message}'
    assert len(err) == 1 or err[1] == "try 'irmeasures-ext reproduce --help'"  # (argparse's usage error: a hint)


@pytest.mark.filterwarnings('ignore::irmeasures_ext.errors.UnansweredTopicsWarning')
def test_no_measure_gives_the_rankings_agreement_as_in_python_and_a_replication_or_plot_needs_one(capsys, tmp_path):
    from irmeasures_ext import reproduce as api
    values = by_key(jsonl(capsys, *REPRODUCTION))
    expected = api.reproducibility(QRELS, *ORIGINAL[1:], *REPRODUCED[1:], [], ranked_lists=True)
    assert values == {(row.measure, row.statistic, row.run): row.value for row in expected.itertuples()}
    assert {measure for measure, _, _ in values} == {'ranked lists'} and len(values) == 8
    for option, named in ((['--qrels-b', QRELS_B], 'a replication (--qrels-b)'),
                          (['--plot', str(tmp_path / 'p.png')], '--plot')):
        status, _, err = run_main(capsys, *REPRODUCTION, *option)
        assert (status, err) == (2, [f'irmeasures-ext: error: {named} compares the scores of measures: give at least '
                                     'one MEASURE or --suite NAME'])
    assert not (tmp_path / 'p.png').exists()


def test_an_unknown_measure(capsys):
    status, _, err = run_main(capsys, *REPRODUCTION, 'nDGC@10')
    assert status == 2 and len(err) == 1 and err[0].startswith("irmeasures-ext: error: unknown measure 'nDGC'")


def test_trec_eval_names_and_a_suite(capsys):
    values = by_key(jsonl(capsys, *REPRODUCTION, 'ndcg_cut.10', 'map', '--suite', 'quoter'))
    assert close(values['nDCG@10', 'rmse', 'baseline'], RPD['rmse']['baseline']['nDCG@10'])
    assert close(values['AP', 'er', 'advanced_vs_baseline'], RPD['er']['AP'])
    assert {'nDCG@10', 'AP', 'RR', 'MeanRank'} <= {m for m, _, _ in values}


def test_standard_input_for_one_run_only(capsys, monkeypatch):
    import io
    monkeypatch.setattr(sys, 'stdin', io.TextIOWrapper(io.BytesIO((REF / 'rpd_a.txt').read_bytes())))
    values = by_key(jsonl(capsys, 'reproduce', QRELS, *ORIGINAL, '--reproduced', REF / 'rpd_b.txt', '-', 'AP'))
    assert close(values['AP', 'rmse', 'advanced'], RPD['rmse']['advanced']['AP'])
    status, _, err = run_main(capsys, 'reproduce', QRELS, '--original', '-', '-', *REPRODUCED, 'AP')
    assert (status, err) == (2, ['irmeasures-ext: error: only one run may be "-" (standard input)'])
    status, _, err = run_main(capsys, 'reproduce', QRELS, *ORIGINAL, *REPLICATED[:-1], '-', 'AP')
    assert (status, err) == (2, ['irmeasures-ext: error: the qrels cannot be "-" (standard input): only a run can'])


def test_qrels_by_ir_datasets_id_read_once_for_the_table_and_the_plot(capsys, tmp_path):
    dataset_id = 'irmeasures-ext-test/reproduce'
    if dataset_id not in ir_datasets.registry:
        ir_datasets.registry.register(dataset_id, ir_datasets.create_dataset(qrels_trec=QRELS))
    path = tmp_path / 'plot.png'
    records = jsonl(capsys, 'reproduce', dataset_id, *ORIGINAL, *REPRODUCED, 'AP', '--plot', path)
    assert close(by_key(records)['AP', 'rmse', 'advanced'], RPD['rmse']['advanced']['AP'])
    assert path.read_bytes().startswith(b'\x89PNG')


def test_the_console_script_end_to_end(tmp_path):
    script = shutil.which('irmeasures-ext', path=str(Path(sys.executable).parent))
    assert script, 'the console script is installed beside the interpreter'
    result = subprocess.run([script, *REPRODUCTION, 'AP', '--plot', str(tmp_path / 'plot.png')],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[1] == f"AP\trmse\t{RPD['rmse']['baseline']['AP']:.4f}\t" \
                                            f"{RPD['rmse']['advanced']['AP']:.4f}\t"
    assert sum(line.startswith(WARNING) for line in result.stderr.splitlines()) == 1
    assert (tmp_path / 'plot.png').read_bytes().startswith(b'\x89PNG')


def test_the_parser_s_choices_are_the_library_s():
    from irmeasures_ext import reproduce as library
    assert (reproduce.TOPIC_SETS, reproduce.ORDERS) == (library.TOPIC_SETS, library.ORDERS)


# --- irmeasures_ext.reproduce.plot ---------------------------------------------------------------------------

PAIRED_COLUMNS = ['measure', 'run', 'query_id', 'original', 'reproduced']
# P@1 by hand: baseline original 0, 1 and reproduced 0, 0; advanced original 1, 1 and reproduced 1, 0.
HAND_QRELS = {'1': {'a': 1, 'b': 0}, '2': {'c': 1, 'd': 0}}
HAND_RUNS = ({'1': {'b': 2.0, 'a': 1.0}, '2': {'c': 2.0, 'd': 1.0}},
             {'1': {'a': 2.0, 'b': 1.0}, '2': {'c': 2.0, 'd': 1.0}},
             {'1': {'b': 2.0, 'a': 1.0}, '2': {'d': 2.0, 'c': 1.0}},
             {'1': {'a': 2.0, 'b': 1.0}, '2': {'d': 2.0, 'c': 1.0}})


def test_paired_topic_scores_by_hand():
    from irmeasures_ext.reproduce.plot import paired_topic_scores
    frame = paired_topic_scores(HAND_QRELS, *HAND_RUNS, ['P@1', 'RR'])
    assert list(frame.columns) == PAIRED_COLUMNS
    assert frame.values.tolist() == [
        ['P@1', 'baseline', '1', 0.0, 0.0], ['P@1', 'baseline', '2', 1.0, 0.0],
        ['P@1', 'advanced', '1', 1.0, 1.0], ['P@1', 'advanced', '2', 1.0, 0.0],
        ['RR', 'baseline', '1', 0.5, 0.5], ['RR', 'baseline', '2', 1.0, 0.5],
        ['RR', 'advanced', '1', 1.0, 1.0], ['RR', 'advanced', '2', 1.0, 0.5]]


def test_paired_topic_scores_with_a_relevance_threshold():
    from irmeasures_ext.reproduce.plot import paired_topic_scores
    runs = [{'1': {'b': 2.0, 'a': 1.0}}] * 4  # (b, labelled 1, first: relevant at the default threshold, not at 2)
    for rel, expected in ((None, 1.0), (2, 0.0)):
        frame = paired_topic_scores({'1': {'a': 2, 'b': 1}}, *runs, ['P@1'], rel=rel)
        assert frame[['original', 'reproduced']].values.tolist() == [[expected, expected]] * 2


def test_ranked_lists_must_be_a_bool_before_any_run_is_read():
    from irmeasures_ext.reproduce import reproducibility
    with pytest.raises(InputError, match="ranked_lists must be True or False, got 'no'"):
        reproducibility(HAND_QRELS, 'no such file', *HAND_RUNS[1:], ['P@1'], ranked_lists='no')
    with pytest.raises(InputError, match="order must be one of trec_eval, file, got 'x'"):
        reproducibility(HAND_QRELS, 'no such file', *HAND_RUNS[1:], ['P@1'], order='x')


def test_plot_topic_scores_draws_each_topic_original_against_reproduced(tmp_path):
    from irmeasures_ext.reproduce.plot import paired_topic_scores, plot_topic_scores
    figure = plot_topic_scores(paired_topic_scores(HAND_QRELS, *HAND_RUNS, ['P@1', 'RR']))
    assert len(figure.axes) == 2
    axes = figure.axes[0]
    assert axes.get_title() == 'P@1\nRMSE: baseline 0.707, advanced 0.707'  # (√(1/2): one topic of two off by 1)
    baseline, advanced = axes.collections
    assert baseline.get_offsets().tolist() == [[0.0, 0.0], [1.0, 0.0]]
    assert advanced.get_offsets().tolist() == [[1.0, 1.0], [1.0, 0.0]]
    assert not np.array_equal(baseline.get_paths()[0].vertices, advanced.get_paths()[0].vertices)  # (two markers)
    assert not baseline.get_clip_on() and not advanced.get_clip_on()  # (a point on an edge drawn whole)
    assert axes.get_xlim() == axes.get_ylim() == (0.0, 1.0)
    assert axes.get_xlabel() == 'original' and axes.get_ylabel() == 'reproduced'
    assert [text.get_text() for text in axes.get_legend().get_texts()] == ['baseline', 'advanced', 'y = x']
    diagonal = axes.lines[0]
    assert tuple(diagonal.get_xy1()) == (0.0, 0.0) and diagonal.get_slope() == 1
    assert figure.axes[1].get_title() == 'RR\nRMSE: baseline 0.354, advanced 0.354'  # (√(0.25/2))


def test_plot_topic_scores_beyond_0_1_and_into_a_file(tmp_path):
    from irmeasures_ext.reproduce.plot import plot_topic_scores
    scores = pd.DataFrame([('MeanRank', 'baseline', '1', 2.0, 4.0), ('MeanRank', 'advanced', '1', 1.0, 1.0)],
                          columns=PAIRED_COLUMNS)
    path = tmp_path / 'plot.svg'
    figure = plot_topic_scores(scores, path)
    assert path.read_text().lstrip().startswith('<?xml')
    low, high = figure.axes[0].get_xlim()
    assert low < 1 and high > 4 and figure.axes[0].get_ylim() == (low, high)
    assert np.isclose(low, 1 - 0.15) and np.isclose(high, 4 + 0.15)  # (a margin of 5% of the range 1-4)
    with pytest.raises(ValueError, match='exists'):
        plot_topic_scores(scores, path)


def test_plot_topic_scores_bad_input():
    from irmeasures_ext.reproduce.plot import plot_topic_scores
    with pytest.raises(InputError, match='no column original, reproduced'):
        plot_topic_scores(pd.DataFrame({'measure': ['AP'], 'run': ['baseline'], 'query_id': ['1']}))
    with pytest.raises(InputError) as raised:
        plot_topic_scores(pd.DataFrame(columns=PAIRED_COLUMNS))
    assert str(raised.value) == 'no per-topic scores to plot'


def scores_of(*rows: tuple) -> pd.DataFrame:
    return pd.DataFrame(list(rows), columns=PAIRED_COLUMNS)


@pytest.mark.parametrize('scores, message', [
    ([('AP', 'baseline', 'q1', 0.5, 0.5)], "the per-topic scores are a list; expected paired_topic_scores' table (a "
                                           'DataFrame with the columns measure, run, query_id, original, reproduced)'),
    (scores_of(('AP', 'baseline', 'q1', 0.5, 0.5), ('AP', 'baseline', 'q1', 0.5, 0.9)),
     "the per-topic scores hold topic 'q1' twice for AP (baseline)"),  # (its RMSE would count it twice)
    (scores_of(('AP', 'bm25', 'q1', 0.5, 0.5)),  # (drawn as nothing)
     "the per-topic scores hold run 'bm25': the runs of a reproduction are baseline and advanced"),
    (scores_of(('AP', 'baseline', 'q1', 0.5, 'a')),
     "the per-topic scores' column reproduced holds something other than numbers"),
    (scores_of(('AP', 'baseline', 'q1', 0.5, 0.5), ('AP', 'advanced', 'q2', float('-inf'), 0.5)),
     "the per-topic scores hold original score -inf for topic 'q2' of AP (advanced): not a finite number"),
    (scores_of(('AP', 'baseline', 'q1', 0.5, '0.5')), "the per-topic scores' column reproduced holds something other "
                                                        'than numbers ('),  # (object or str values: pandas' version)
    (scores_of(('AP', 'baseline', 'q1', 0.5, True)), "the per-topic scores' column reproduced holds something other "
                                                       'than numbers (bool values)'),
    (scores_of(('AP', 'baseline', 'q1', 0.5, 1j)), "the per-topic scores' column reproduced holds something other "
                                                     'than numbers (complex128 values)'),
    (scores_of(('AP', 'baseline', 'q1', 0.5, 0.5), (None, 'baseline', 'q2', 0.5, 0.5)),
     'the per-topic scores have a row without its measure'),
    (pd.concat([scores_of(('AP', 'baseline', 'q1', 0.5, 0.5)), scores_of(('AP', 'baseline', 'q1', 0.5, 0.5))],
               axis=1), 'the per-topic scores have 2 columns named measure'),
    (scores_of(('AP', 'baseline', 'q1', 0.5, 0.5)).assign(reproduced=pd.Series(['0.5'], dtype=object)),
     "the per-topic scores' column reproduced holds something other than numbers (object values)"),
])
def test_plot_topic_scores_refuses_what_paired_topic_scores_does_not_make(scores, message):
    from irmeasures_ext.reproduce.plot import plot_topic_scores
    with pytest.raises(InputError) as raised:
        plot_topic_scores(scores)
    assert str(raised.value).startswith(message)



@pytest.mark.parametrize('reproduced', [[0.5, 1, None], [0, 1, 1], [0.5, 1.0, pd.NA], [None, None, None]],
                         ids=['floats, an int and None', 'ints', 'floats and NA', 'nothing'])
def test_plot_topic_scores_takes_numbers_in_an_object_column(reproduced):
    from irmeasures_ext.reproduce.plot import plot_topic_scores
    scores = scores_of(*[('AP', 'baseline', f'q{i}', 0.5, 0.0) for i in range(3)])
    scores['reproduced'] = pd.Series(reproduced, dtype=object)
    points = plot_topic_scores(scores).axes[0].collections[0].get_offsets()
    drawn = [[0.5, float(value)] for value in reproduced if value is not None and value is not pd.NA]
    assert np.ma.getdata(points[~np.ma.getmaskarray(points).any(axis=1)]).tolist() == drawn  # (NaN: masked)


@pytest.mark.parametrize('n_measures', range(1, 8))
def test_every_title_and_label_is_within_the_figure_beside_a_panel_of_larger_numbers(n_measures):
    # (square panels of scores in [0, 1] beside one of ranks up to 7000: tight_layout cut the titles' first lines,
    # and one row of two or three panels 4.3 inches high cut them and the x labels. Measured once drawn: the layout
    # is made then)
    import random

    from irmeasures_ext.reproduce.plot import plot_topic_scores
    rng = random.Random(3)
    spans = [('AP', (0, 1)), ('MeanRank', (1, 7000.5)), ('P(rel=2)@5', (0, 1))] * 3
    scores = scores_of(*[(f'{measure}-{i}', run, f't{topic}', *(rng.uniform(*span) for _ in range(2)))
                         for i, (measure, span) in enumerate(spans[:n_measures])
                         for run in ('baseline', 'advanced') for topic in range(8)])
    figure = plot_topic_scores(scores)
    figure.canvas.draw()
    box, (width, height) = figure.get_tightbbox(figure.canvas.get_renderer()), figure.get_size_inches()
    assert 0 <= box.x0 and box.x1 <= width and 0 <= box.y0 and box.y1 <= height, (box, width, height)


def test_plot_topic_scores_lays_out_three_panels_a_row_and_spans_0_1_without_a_number():
    from irmeasures_ext.reproduce.plot import plot_topic_scores
    nothing = float('nan')
    figure = plot_topic_scores(scores_of(*[(measure, 'baseline', 'q1', *([nothing] * 2 if measure == 'M4' else [3, 2]))
                                           for measure in ('M1', 'M2', 'M3', 'M4')]))
    assert [axes.get_title().split()[0] for axes in figure.axes] == ['M1', 'M2', 'M3', 'M4']  # (two unused: gone)
    assert [(axes.get_subplotspec().rowspan.start, axes.get_subplotspec().colspan.start) for axes in figure.axes] == [
        (0, 0), (0, 1), (0, 2), (1, 0)]
    assert figure.get_size_inches().tolist() == pytest.approx([3 * 4.3, 2 * 4.6])
    assert figure.axes[0].get_xlim() != (0.0, 1.0) and figure.axes[3].get_xlim() == (0.0, 1.0)  # (M4: NaN only)


def test_a_topic_twice_is_named_whatever_the_index():
    from irmeasures_ext.reproduce.plot import paired_topic_scores, plot_topic_scores
    scores = paired_topic_scores(HAND_QRELS, *HAND_RUNS, ['P@1', 'RR'])
    with pytest.raises(InputError) as raised:
        plot_topic_scores(pd.concat([scores, scores.iloc[[1]]]))  # (the index holds 1 twice)
    assert str(raised.value) == "the per-topic scores hold topic '2' twice for P@1 (baseline)"


@pytest.mark.filterwarnings('ignore::irmeasures_ext.errors.NoOverlapWarning')  # (the failed reproduction's)
def test_a_reproduction_answering_no_topic_gives_nan_where_a_measure_is_undefined(tmp_path):
    from irmeasures_ext.reproduce import reproducibility
    from irmeasures_ext.reproduce.plot import paired_topic_scores, plot_topic_scores
    nothing = {'9': {'a': 1.0}}  # (MeanRank is undefined for a run retrieving nothing of the qrels' topics)
    with pytest.warns(UnansweredTopicsWarning):
        frame = reproducibility(HAND_QRELS, HAND_RUNS[0], HAND_RUNS[1], nothing, HAND_RUNS[1], ['MeanRank', 'P@1'])
        scores = paired_topic_scores(HAND_QRELS, HAND_RUNS[0], HAND_RUNS[1], nothing, HAND_RUNS[1], ['MeanRank'])
    got = {(row.measure, row.statistic, row.run): row.value for row in frame.itertuples()}
    assert all(math.isnan(got['MeanRank', statistic, 'baseline']) for statistic in ('rmse', 'nrmse', 'p_value'))
    assert math.isnan(got['MeanRank', 'er', 'advanced_vs_baseline'])
    assert got['MeanRank', 'rmse', 'advanced'] == 0.0 and got['P@1', 'rmse', 'baseline'] == math.sqrt(0.5)
    assert scores['reproduced'].isna().tolist() == [True, True, False, False]
    axes = plot_topic_scores(scores, tmp_path / 'p.png').axes[0]  # (NaN: not drawn; the axes from the rest)
    assert axes.get_title() == 'MeanRank\nRMSE: baseline nan, advanced 0.000'
    low, high = axes.get_xlim()
    assert np.isclose(low, 1 - 0.05) and np.isclose(high, 2 + 0.05)


def test_plot_topic_scores_path_and_overwrite_are_checked(tmp_path):
    from irmeasures_ext.reproduce.plot import plot_topic_scores
    scores = scores_of(('AP', 'baseline', 'q1', 0.5, 0.5))
    with pytest.raises(ValueError, match="the plot's path must be a file name \\(a str or a path\\), got int"):
        plot_topic_scores(scores, 5)
    with pytest.raises(InputError, match="overwrite must be True or False, got 'yes'"):
        plot_topic_scores(scores, overwrite='yes')  # (checked without a path too)
    existing = tmp_path / 'p.png'
    existing.write_bytes(b'mine')
    with pytest.raises(ValueError, match="overwrite must be True or False, got 'no'"):  # (a truthy text)
        plot_topic_scores(scores, existing, overwrite='no')
    assert existing.read_bytes() == b'mine'
    plot_topic_scores(scores, existing, overwrite=np.True_)
    assert existing.read_bytes().startswith(b'\x89PNG')


def test_a_measure_name_is_drawn_as_written_not_as_math(tmp_path):
    from irmeasures_ext.reproduce.plot import plot_topic_scores
    figure = plot_topic_scores(scores_of(('a$\\frac$', 'baseline', 'q1', 0.5, 0.5)), tmp_path / 'p.png')
    assert figure.axes[0].get_title().startswith(r'a\$\frac\$')  # (as math, $\frac$ fails to draw)


# --- one answer, one warning -----------------------------------------------------------------------------------

def write_runs(folder: Path, rename: dict[str, str] | None = None) -> list[Path]:
    """The reference qrels and four runs in ``folder``, each topic renamed as ``rename`` says."""
    paths = []
    for name in ('qrels_orig', 'orig_b', 'orig_a', 'rpd_b', 'rpd_a'):
        lines = (REF / f'{name}.txt').read_text().splitlines()
        renamed = [' '.join([(rename or {}).get(line.split()[0], line.split()[0]), *line.split()[1:]])
                   for line in lines]
        paths.append(folder / f'{name}.txt')
        paths[-1].write_text('\n'.join(renamed) + '\n')
    return paths


def test_a_topic_named_all_leaves_the_means_of_the_rankings_as_in_python(capsys, tmp_path):
    from irmeasures_ext import reproduce as api
    qrels, *runs = write_runs(tmp_path, {'101': 'all'})
    with pytest.warns(UnansweredTopicsWarning):
        frame = api.reproducibility(qrels, *runs, ['AP'], ranked_lists=True)
        per_topic = api.ranked_list_agreement(runs[0], runs[2])
    records = by_key(jsonl(capsys, 'reproduce', qrels, '--original', *runs[:2], '--reproduced', *runs[2:], 'AP',
                           '-p', '-1'))
    python = {(row.measure, row.statistic, row.run): row.value for row in frame.itertuples()}
    assert records == pytest.approx(python, abs=0, nan_ok=True)
    # (the mean of the eleven topics, the one named 'all' among them: not that topic's value)
    topics = per_topic.iloc[:-1]
    assert 'all' in set(topics.query_id) and len(topics) == 11
    assert records['ranked lists', 'rbo_ext', 'baseline'] == pytest.approx(topics.rbo_ext.mean(), abs=1e-15)
    assert records['ranked lists', 'rbo_ext', 'baseline'] != topics.set_index('query_id').rbo_ext['all']


@pytest.mark.parametrize('per_topic', [[], ['--per-topic']])
def test_the_command_warns_once_of_the_scores_and_the_rankings(capsys, per_topic):
    status, out, err = run_main(capsys, *REPRODUCTION, 'AP', *per_topic)
    warned = [line for line in err if line.startswith('irmeasures-ext: warning: ')]
    assert status == 0 and warned == [
        f'{WARNING}: each is evaluated as a ranking of no documents (0 in every measure of the ranking); and in the '
        "rankings (reproduced advanced: 104): each counts 0 in the rankings' KTU, RBO and RBO_ext"]


def test_a_topic_of_the_original_rankings_outside_the_qrels_is_named_where_it_counts_0(tmp_path):
    # (topic 999: in the original baseline run only, not in the qrels; its KTU and RBO count 0 in the means)
    from irmeasures_ext import reproduce as api
    original = tmp_path / 'orig_b.txt'
    original.write_text((REF / 'orig_b.txt').read_text() + '999 Q0 a 1 2.0 r\n999 Q0 b 2 1.0 r\n')
    with pytest.warns(UnansweredTopicsWarning) as caught:
        frame = api.reproducibility(QRELS, original, REF / 'orig_a.txt', REF / 'rpd_b.txt', REF / 'rpd_a.txt', ['AP'],
                                    ranked_lists=True)
    assert [str(w.message) for w in caught if w.category is UnansweredTopicsWarning] == [
        'topics not answered (reproduced advanced: 104): each is evaluated as a ranking of no documents (0 in every '
        'measure of the ranking); and in the rankings (reproduced baseline: 999; reproduced advanced: 104): each '
        "counts 0 in the rankings' KTU, RBO and RBO_ext"]
    with pytest.warns(UnansweredTopicsWarning):
        per_topic = api.ranked_list_agreement(original, REF / 'rpd_b.txt').iloc[:-1]
    assert per_topic.set_index('query_id').loc['999'].tolist() == [0.0] * 4 and len(per_topic) == 12
    ktu = frame.set_index(['measure', 'statistic', 'run']).value['ranked lists', 'ktu', 'baseline']
    assert ktu == pytest.approx(per_topic.ktu.mean(), abs=1e-15)


def test_errors_of_the_rankings_name_the_runs_and_their_files(tmp_path):
    from irmeasures_ext import reproduce as api
    original = tmp_path / 'orig_b.txt'
    original.write_text(''.join(line for line in (REF / 'orig_b.txt').read_text().splitlines(keepends=True)
                                if not line.startswith('103 ')))
    with pytest.raises(InputError) as raised:
        api.reproducibility(QRELS, original, REF / 'orig_a.txt', REF / 'rpd_b.txt', REF / 'rpd_a.txt', ['AP'],
                            ranked_lists=True, topics='repro_eval')
    assert str(raised.value) == (f'the original baseline run ({original}) does not answer topics 103 of the '
                                 f'reproduced baseline run ({REF / "rpd_b.txt"})')


def test_rel_gives_python_s_values_of_real_valued_labels(capsys, tmp_path):
    from irmeasures_ext import reproduce as api
    qrels = tmp_path / 'qrels.txt'
    qrels.write_text('1 0 a 0.5\n1 0 b 1.7\n1 0 c 0.2\n2 0 d 0.6\n2 0 e 0.1\n')
    original, reproduced = tmp_path / 'original.txt', tmp_path / 'reproduced.txt'
    original.write_text('1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n1 Q0 c 3 1 r\n2 Q0 d 1 2 r\n2 Q0 e 2 1 r\n')
    reproduced.write_text('1 Q0 c 1 3 r\n1 Q0 b 2 2 r\n1 Q0 a 3 1 r\n2 Q0 e 1 2 r\n2 Q0 d 2 1 r\n')
    runs = ['--original', original, original, '--reproduced', reproduced, reproduced]
    for extra, call in (([], lambda rel: api.reproducibility(qrels, original, original, reproduced, reproduced,
                                                             ['AP', 'P@1'], ranked_lists=True, rel=rel)),
                        (['--qrels-b', qrels], lambda rel: api.replicability(qrels, original, original, qrels,
                                                                              reproduced, reproduced, ['AP', 'P@1'],
                                                                              rel=rel))):
        records = by_key(jsonl(capsys, 'reproduce', qrels, *runs, 'AP', 'P@1', '--rel', '0.5', '-p', '-1', *extra))
        expected = {(row.measure, row.statistic, row.run): row.value for row in call(0.5).itertuples()}
        assert set(records) == set(expected) and all(close(records[key], expected[key]) for key in expected)
        default = call(None).value.tolist()  # (the threshold changes them)
        assert not all(close(records[key], value) for key, value in zip(expected, default, strict=True))


def test_markdown_escapes_a_bar_in_a_topic_id(capsys, tmp_path):
    qrels, *runs = write_runs(tmp_path, {'101': 'a|b'})
    status, out, _ = run_main(capsys, 'reproduce', qrels, '--original', *runs[:2], '--reproduced', *runs[2:], 'AP',
                              '--per-topic', '-o', 'markdown')
    rows = [line for line in out.splitlines() if line.startswith('|')]
    cells = [len(re.split(r'(?<!\\)\|', row)) for row in rows]
    assert status == 0 and len(set(cells)) == 2  # (the scores' rows, the agreement's: each with its own columns)
    assert any('| a\\|b |' in row for row in rows)


def test_a_measure_is_a_measure_beside_a_folder_of_its_name(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / 'AP').mkdir()
    (tmp_path / 'run.txt').write_text('101 Q0 a 1 1 r\n')
    assert by_key(jsonl(capsys, *REPRODUCTION, 'AP'))['AP', 'rmse', 'baseline'] == RPD['rmse']['baseline']['AP']
    status, _, err = run_main(capsys, *REPRODUCTION, 'AP', 'run.txt')
    assert status == 2 and err[-1].endswith('run.txt: a run among the measures; --original and --reproduced take '
                                            'two runs each (BASELINE ADVANCED)')


def test_per_topic_is_each_run_s_agreement_and_the_paired_scores(tmp_path):
    from irmeasures_ext import reproduce as api
    experiment = api.Experiment(QRELS, REF / 'orig_b.txt', REF / 'orig_a.txt', ['AP'])
    with pytest.warns(UnansweredTopicsWarning):
        tables = experiment.per_topic(REF / 'rpd_b.txt', REF / 'rpd_a.txt')
        scores = experiment.paired_topic_scores(REF / 'rpd_b.txt', REF / 'rpd_a.txt')
        expected = [api.ranked_list_agreement(REF / f'orig_{r}.txt', REF / f'rpd_{r}.txt').assign(run=run)
                    for r, run in (('b', 'baseline'), ('a', 'advanced'))]
    pd.testing.assert_frame_equal(tables['scores'], scores)
    for row in tables['scores'].itertuples():  # (repro_eval's scores; 0 where the run does not answer the topic)
        short = row.run[0]
        assert close(row.original, TOPIC_SCORES[f'orig_{short}'][row.query_id]['AP'])
        assert close(row.reproduced, TOPIC_SCORES[f'rep_{short}'].get(row.query_id, {'AP': 0.0})['AP'])
    agreement = tables['agreement']
    assert list(agreement.index) == list(range(len(agreement)))
    pd.testing.assert_frame_equal(agreement, pd.concat(expected, ignore_index=True)[agreement.columns])


@pytest.mark.parametrize('order', ['file', 'trec_eval'])
def test_the_rankings_order_reaches_the_reproduction_s_lists(tmp_path, order):
    # (the reproduced runs' lines reversed within each topic: in file order their lists are reversed, by score not)
    from irmeasures_ext import reproduce as api
    reversed_runs = []
    for name in ('rpd_b', 'rpd_a'):
        lines = (REF / f'{name}.txt').read_text().splitlines()
        by_topic: dict[str, list[str]] = {}
        for line in lines:
            by_topic.setdefault(line.split()[0], []).append(line)
        reversed_runs.append(tmp_path / f'{name}.txt')
        reversed_runs[-1].write_text(''.join(f'{line}\n' for topic in by_topic.values() for line in topic[::-1]))
    with pytest.warns(UnansweredTopicsWarning):
        frame = api.reproducibility(QRELS, REF / 'orig_b.txt', REF / 'orig_a.txt', *reversed_runs, ['AP'],
                                    ranked_lists=True, order=order)
        expected = api.ranked_list_agreement(REF / 'orig_b.txt', reversed_runs[0], order=order).iloc[-1]
    means = frame[frame.measure == 'ranked lists'].set_index(['statistic', 'run']).value
    assert [means[statistic, 'baseline'] for statistic in expected.index[1:]] == expected.iloc[1:].tolist()


def test_the_rankings_errors_name_runs_given_as_paths(tmp_path):
    from irmeasures_ext import reproduce as api
    empty = tmp_path / 'empty.txt'
    empty.write_text('')
    with pytest.raises(InputError) as raised:
        api.ranked_list_agreement(str(REF / 'rpd_a.txt'), str(REF / 'orig_b.txt'), topics='repro_eval')
    assert str(raised.value) == (f'the original run ({REF / "rpd_a.txt"}) does not answer topics 104 of the reproduced '
                                 f'run ({REF / "orig_b.txt"})')
    with pytest.raises(InputError) as raised:
        api.ranked_list_agreement(empty, REF / 'orig_b.txt')
    assert str(raised.value) == f'the original run ({empty}) answers no topic: there are no ranked lists to compare'
    with pytest.raises(InputError) as raised:
        api.ranked_list_agreement(REF / 'orig_b.txt', REF / 'rpd_b.txt', depth=10 ** 7 + 1)
    assert str(raised.value) == 'depth must be at most 10,000,000, got 10000001'


@pytest.mark.parametrize('count,named', [(20, ''), (21, ' and 1 more'), (25, ' and 5 more')])
def test_a_warning_names_twenty_topics_then_how_many_more(count, named):
    from irmeasures_ext.reproduce.agreement import warn_unanswered
    topics = [f't{i:02d}' for i in range(count)]
    with pytest.warns(UnansweredTopicsWarning) as caught:
        warn_unanswered(rankings={'reproduced': topics})
    assert str(caught[0].message) == (f'topics not answered ({"reproduced: " + " ".join(topics[:20]) + named}): '
                                      "each counts 0 in the rankings' KTU, RBO and RBO_ext")


def test_experiment_agreement_names_the_original_run_and_its_file():
    from irmeasures_ext import reproduce as api
    experiment = api.Experiment(QRELS, REF / 'rpd_a.txt', REF / 'orig_a.txt', ['AP'])
    with pytest.raises(InputError) as raised:
        experiment.agreement(REF / 'orig_b.txt', 'baseline', topics='repro_eval')
    assert str(raised.value) == (f'the original baseline run ({REF / "rpd_a.txt"}) does not answer topics 104 of the '
                                 f'reproduced run ({REF / "orig_b.txt"})')


def test_a_run_s_column_named_source_is_not_its_file_name():
    from irmeasures_ext import reproduce as api
    original = pd.DataFrame({'query_id': ['1'], 'doc_id': ['a'], 'score': [1.0], 'source': ['x']})
    reproduced = pd.DataFrame({'query_id': ['1', '2'], 'doc_id': ['a', 'b'], 'score': [1.0, 1.0]})
    with pytest.raises(InputError) as raised:
        api.ranked_list_agreement(original, reproduced, topics='repro_eval')
    assert str(raised.value) == 'the original run does not answer topics 2 of the reproduced run'


@pytest.mark.parametrize('options,error', [
    ({'topics': 'bogus'}, "topics must be one of original, repro_eval, got 'bogus'"),
    ({'order': 'bogus'}, "order must be one of trec_eval, file, got 'bogus'")])
@pytest.mark.parametrize('ranked_lists', [False, True])
def test_the_rankings_options_are_checked_with_or_without_the_rankings(options, error, ranked_lists):
    from irmeasures_ext import reproduce as api
    experiment = api.Experiment(QRELS, REF / 'orig_b.txt', REF / 'orig_a.txt', ['AP'])
    with pytest.raises(InputError) as raised:
        experiment.reproducibility(REF / 'orig_b.txt', REF / 'orig_a.txt', ranked_lists, **options)
    assert str(raised.value) == error


def test_experiment_agreement_warns_of_the_topics_the_reproduction_lacks():
    from irmeasures_ext import reproduce as api
    experiment = api.Experiment(QRELS, REF / 'orig_b.txt', REF / 'orig_a.txt', ['AP'])
    with pytest.warns(UnansweredTopicsWarning) as caught:
        frame = experiment.agreement(REF / 'rpd_a.txt', 'advanced')
    assert [str(w.message) for w in caught if w.category is UnansweredTopicsWarning] == [
        "topics not answered (reproduced: 104): each counts 0 in the rankings' KTU, RBO and RBO_ext"]
    assert frame.set_index('query_id').loc['104'].tolist() == [0.0] * 4


def test_a_replication_names_the_qrels_each_warning_of_the_qrels_is_about(capsys):
    status, _, err = run_main(capsys, 'reproduce', QRELS, *ORIGINAL, *REPLICATED, 'alpha_nDCG@5')
    single = [line for line in err if 'has one intent (subtopic) only' in line]
    assert status == 0 and [line.split(': ')[2] for line in single] == [QRELS, QRELS_B]


@pytest.mark.filterwarnings('ignore::irmeasures_ext.errors.UnansweredTopicsWarning')
def test_format_options_read_every_input_and_a_run_listed_by_ascending_score_is_warned_of(capsys, tmp_path):
    # (the TREC files named .parquet: read as TREC only as --format and --qrels-format say)
    renamed = {}
    for path in (QRELS, QRELS_B, *ORIGINAL[1:], *REPRODUCED[1:], *REPLICATED[1:3]):
        renamed[path] = tmp_path / Path(path).with_suffix('.parquet').name
        renamed[path].write_bytes(Path(path).read_bytes())
    expected = by_key(jsonl(capsys, *REPRODUCTION, 'AP'))
    runs = [renamed[path] for path in (*ORIGINAL[1:], *REPRODUCED[1:])]
    args = ['--original', *runs[:2], '--reproduced', *runs[2:]]
    assert by_key(jsonl(capsys, 'reproduce', renamed[QRELS], *args, 'AP', '--format', 'trec')) == expected
    assert by_key(jsonl(capsys, 'reproduce', renamed[QRELS], *ORIGINAL, *REPRODUCED, 'AP', '--qrels-format',
                        'trec')) == expected
    assert run_main(capsys, 'reproduce', renamed[QRELS], *ORIGINAL, *REPRODUCED, 'AP')[0] == 2  # (read as Parquet)
    replicated = [renamed[path] for path in REPLICATED[1:3]]
    assert by_key(jsonl(capsys, 'reproduce', renamed[QRELS], *args[:3], '--reproduced', *replicated, '--qrels-b',
                        renamed[QRELS_B], 'AP', '--format', 'trec')) == by_key(
        jsonl(capsys, 'reproduce', QRELS, *ORIGINAL, *REPLICATED, 'AP'))
    ascending = tmp_path / 'ascending.txt'  # (each topic's lines listed by ascending score: its rank as its score)
    ascending.write_text(''.join(f'{topic} Q0 {doc} {rank} {rank} r\n' for topic, _, doc, rank, *_ in
                                 (line.split() for line in (REF / 'rpd_b.txt').read_text().splitlines())))
    status, _, err = run_main(capsys, 'reproduce', QRELS, *ORIGINAL, '--reproduced', ascending, REPRODUCED[2], 'AP')
    assert status == 0 and any(f'{ascending}: in all ' in line and 'the scores increase down the listed docs' in line
                               for line in err)
