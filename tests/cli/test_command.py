"""The irmeasures-ext command: evaluation, bad input, crosscheck and the datasets subcommand."""
import bz2
import gzip
import io
import itertools
import json
import lzma
import os
import statistics
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import ir_datasets
import ir_measures
import numpy as np
import pytest
import reference
from hypothesis import given, settings
from hypothesis import strategies as st

from irmeasures_ext.cli import crosscheck, main
from irmeasures_ext.cli.output import formatted
from irmeasures_ext.errors import NoOverlapWarning
from irmeasures_ext.names import parse_measures
from irmeasures_ext.sample import QRELS as SAMPLE_QRELS
from irmeasures_ext.sample import RUN as SAMPLE_RUN
from irmeasures_ext.suites import QUOTER

OURS = ir_measures.providers.registry['irmeasures_ext']

QRELS = 'q1 0 d1 1\nq1 0 d2 2\nq1 0 d3 0\nq2 0 d4 1\nq3 0 d9 1\n'
# q1: d2 and d5 tie at 2.0 (trec_eval order: d5 first); q2: d4 and d6 tie (trec_eval: d6 first); q3 not retrieved
RUN = ('q1 Q0 d2 1 2.0 r\nq1 Q0 d5 2 2.0 r\nq1 Q0 d1 3 1.5 r\nq1 Q0 d3 4 1.0 r\n'
       'q2 Q0 d4 1 1.0 r\nq2 Q0 d6 2 1.0 r\nq9 Q0 d1 1 1.0 r\n')


def write(path: Path, text: str) -> str:
    path.write_text(text, encoding='utf-8')
    return str(path)


@pytest.fixture
def files(tmp_path):
    return write(tmp_path / 'qrels.txt', QRELS), write(tmp_path / 'run.txt', RUN)


def run_main(capsys, *argv):
    """Runs main(argv) in-process; returns (exit status, stdout lines, stderr lines)."""
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out.splitlines(), err.splitlines()


def expected(measures, qrels, run, **kwargs):
    return OURS.calc_aggregate([ir_measures.parse_measure(m) for m in measures], qrels, run, **kwargs)


# --- end to end ------------------------------------------------------------------------------------

def test_module_command_end_to_end():
    qrels, run = SAMPLE_QRELS, SAMPLE_RUN
    result = subprocess.run([sys.executable, '-m', 'irmeasures_ext', qrels, run, 'Q@10', '--suite', 'quoter'],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    values = dict(line.split('\t') for line in result.stdout.splitlines())
    assert list(values) == ['Q@10'] + [str(m) for m in QUOTER]
    reference = OURS.calc_aggregate([ir_measures.parse_measure('Q@10'), *QUOTER], str(qrels), str(run))
    assert {str(m): f'{v:.4f}' for m, v in reference.items()} == values


def test_bad_input_end_to_end_is_one_line_without_traceback(tmp_path):
    qrels = write(tmp_path / 'qrels.txt', QRELS)
    result = subprocess.run([sys.executable, '-m', 'irmeasures_ext', qrels, '-', 'RR'], input=RUN + RUN,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert result.stdout == ''
    assert result.stderr.splitlines() == ["irmeasures-ext: error: <stdin>:8: duplicate doc 'd2' in query 'q1' "
                                          '(first at line 1)']



def test_command_flushes_all_output_before_its_quick_exit(tmp_path, capsys):
    """The console script ends with os._exit once its output is flushed: a per-query output far
    larger than a pipe's buffer arrives whole, as main() prints it, and the status is kept."""
    qrels = write(tmp_path / 'qrels.txt', ''.join(f'query{i} 0 d{i % 7} {i % 3}\n' for i in range(5000)))
    run = write(tmp_path / 'run.txt',
                ''.join(f'query{i} Q0 d{j} {j} {10 - j} r\n' for i in range(5000) for j in range(5)))
    result = subprocess.run([sys.executable, '-m', 'irmeasures_ext', qrels, run, '-q', 'AP', 'nDCG@5'],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert len(result.stdout) > 1 << 17
    assert result.stdout.splitlines() == run_main(capsys, qrels, run, '-q', 'AP', 'nDCG@5')[1]


@pytest.mark.parametrize(('argv', 'status', 'handlers_run'), [
    (['QRELS', 'RUN', 'AP'], 0, False),                  # our evaluation: quick exit
    (['QRELS', 'missing-run', 'AP'], 2, False),          # an error: quick exit, status kept
    (['datasets', 'list'], 0, True),                     # ir_datasets loaded: a normal exit
])
def test_command_skips_exit_handlers_only_for_our_subcommands(tmp_path, argv, status, handlers_run):
    qrels, run = write(tmp_path / 'qrels.txt', QRELS), write(tmp_path / 'run.txt', RUN)
    argv = [{'QRELS': qrels, 'RUN': run}.get(arg, arg) for arg in argv]
    code = ('import atexit, sys; atexit.register(lambda: print("exit handler ran", file=sys.stderr)); '
            'from irmeasures_ext.cli import command; command()')
    result = subprocess.run([sys.executable, '-c', code, *argv], capture_output=True, text=True, timeout=120,
                            cwd=tmp_path)
    assert result.returncode == status
    assert ('exit handler ran' in result.stderr) is handlers_run
    assert result.stdout or status


def test_command_reports_output_it_cannot_flush():
    """A write error on the final flush (e.g. a full disk) is one error line and status 2, not a traceback."""
    code = ('import io, sys\n'
            'class Full(io.StringIO):\n'
            '    def flush(self): raise OSError(28, "No space left on device")\n'
            'sys.stdout = Full()\n'
            'from irmeasures_ext.cli import command\n'
            'command()')
    result = subprocess.run([sys.executable, '-c', code, '--version'], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert result.stderr.splitlines() == ['irmeasures-ext: error: cannot write the output: [Errno 28] No space left '
                                          'on device']


def test_command_exits_normally_under_a_profiler(tmp_path):
    """python -m cProfile prints its statistics after the command returns: no quick exit then."""
    files = write(tmp_path / 'qrels.txt', QRELS), write(tmp_path / 'run.txt', RUN)
    result = subprocess.run([sys.executable, '-m', 'cProfile', '-m', 'irmeasures_ext', *files, 'AP'],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith('AP\t') and 'function calls' in result.stdout


@pytest.mark.parametrize(('preset', 'expected'), [(None, '1'), ('2', str(min(2, os.cpu_count() or 1)))])
def test_command_runs_openblas_on_one_thread_unless_told(preset, expected):
    """The command sets OPENBLAS_NUM_THREADS=1 before numpy loads (it uses no BLAS; OpenBLAS's start-up
    threads cost CPU), keeping a value the user set; numpy then reports that many threads. Where cwl_eval is
    installed (the test extra installs it), ``import ir_measures`` loads numpy itself (its cwl_eval provider
    imports cwl, which imports numpy), before the command can set it: the child hides cwl."""
    env = {key: value for key, value in os.environ.items() if key != 'OPENBLAS_NUM_THREADS'}
    if preset is not None:
        env['OPENBLAS_NUM_THREADS'] = preset
    code = ('import sys, os; sys.modules["cwl"] = None; from irmeasures_ext.cli import main; '
            'status = main(sys.argv[1:]); '
            'from threadpoolctl import threadpool_info; '
            'print(os.environ["OPENBLAS_NUM_THREADS"], [i["num_threads"] for i in threadpool_info() '
            'if i["internal_api"] == "openblas"])')
    result = subprocess.run([sys.executable, '-c', code, str(SAMPLE_QRELS), str(SAMPLE_RUN), 'AP'], env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == f'{preset or 1} [{expected}]'



SHUFFLED_RUN = ''.join(RUN.splitlines(keepends=True)[i] for i in (3, 4, 1, 5, 0, 6, 2))


def _status_lines_and_imports(arguments: list[str]) -> list[str]:
    """The command's exit status, how many lines it printed, and whether pandas and pyarrow.compute were
    imported, in a process of its own."""
    code = ('import sys, io, contextlib; from irmeasures_ext.cli import main; out = io.StringIO()\n'
            'with contextlib.redirect_stdout(out): status = main(sys.argv[1:])\n'
            'print(status, len(out.getvalue().splitlines()), "pandas" in sys.modules, '
            '"pyarrow.compute" in sys.modules)')
    result = subprocess.run([sys.executable, '-c', code, *arguments], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    return result.stdout.split()


@pytest.mark.parametrize('options', [[], ['-q'], ['-q', '-o', 'jsonl'], ['-q', '-p', '-1'], ['--ties', 'expected'],
                                     ['--ties', 'optimistic'], ['--score-precision', 'float64']])
@pytest.mark.parametrize('shuffled', [False, True])
def test_evaluation_imports_neither_pandas_nor_pyarrow_compute(tmp_path, options, shuffled):
    """pandas (about 0.2 s to import) loads only for other providers (``pa.scalar``/``pa.array`` of
    Python objects would import it), and pyarrow.compute (about 23 ms) not at all: the evaluation
    calls Arrow's functions through irmeasures_ext._arrow.compute, also for a run whose
    queries are interleaved and whose scores are not in order."""
    qrels, run = write(tmp_path / 'qrels.txt', QRELS), write(tmp_path / 'run.txt', SHUFFLED_RUN if shuffled else RUN)
    status, lines, pandas, arrow_compute = _status_lines_and_imports([qrels, run, 'AP', 'MeanRank', '--suite',
                                                                      'quoter', *options])
    assert (status, pandas, arrow_compute) == ('0', 'False', 'False') and int(lines) >= 8


@pytest.mark.parametrize('options', [[], ['-j'], ['-q'], ['-q', '-o', 'tsv'], ['-j', '-bpref', '-q', '-truncate', '3']])
def test_the_ntcireval_command_imports_neither_pandas_nor_pyarrow_compute(tmp_path, options):
    qrels, run = write(tmp_path / 'qrels.txt', QRELS), write(tmp_path / 'run.txt', SHUFFLED_RUN)
    status, lines, pandas, arrow_compute = _status_lines_and_imports(['ntcireval', qrels, run, '-g', '1:2:3',
                                                                      *options])
    assert (status, pandas, arrow_compute) == ('0', 'False', 'False') and int(lines) >= 20


# --- output -----------------------------------------------------------------------------------------

def test_aggregate_output_in_measure_order(capsys, files):
    status, out, err = run_main(capsys, *files, 'RR', 'P@2 nDCG@10', 'Q(beta=0.5, gains={1: 1, 2: 3})@10')
    assert status == 0 and err == []
    names = ['RR', 'P@2', 'nDCG@10', 'Q(beta=0.5,gains={1:1.0,2:3.0})@10']
    reference = expected(['RR', 'P@2', 'nDCG@10', 'Q(beta=0.5,gains={1:1,2:3})@10'], *files)
    assert out == [f'{name}\t{value:.4f}' for name, value in zip(names, reference.values(), strict=True)]


def test_by_query_with_summary_rows(capsys, files):
    status, out, _ = run_main(capsys, *files, '-q', 'RR', 'MedianRank')
    assert status == 0
    assert out == ['q1\tRR\t0.5000', 'q1\tMedianRank\t2.0000', 'q2\tRR\t0.5000', 'q2\tMedianRank\t2.0000',
                   'q3\tRR\t0.0000', 'q3\tMedianRank\t5.0000', 'all\tRR\t0.3333', 'all\tMedianRank\t2.0000']


def test_no_summary_and_places(capsys, files):
    assert run_main(capsys, *files, '-q', '-n', '-p', '2', 'RR')[1] == ['q1\tRR\t0.50', 'q2\tRR\t0.50', 'q3\tRR\t0.00']
    assert run_main(capsys, *files, '-p', '-1', 'RR')[1] == ['RR\t0.3333333333333333']
    status, _, err = run_main(capsys, *files, '-n', 'RR')
    assert status == 2 and err[0] == 'irmeasures-ext: error: --no_summary (-n) only applies with --by_query (-q)'


# values whose decimals Python rounds at an exact half, or near one, beyond 2**52, not finite, negative zero
EDGE_VALUES = [0.5, 1.5, 2.5, 0.125, 0.375, 5e-05, 0.00015, 1.00005, 0.12345, 9.99995, 0.9999999999, -0.0, -1e-09,
               -2.5, 1e15, 2.0 ** 52 + 1, 1e300, 5e-324, float('nan'), float('inf'), float('-inf'), 999999.99995]


@settings(max_examples=300)
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from(EDGE_VALUES) |
                st.integers(-10 ** 8, 10 ** 8).map(lambda digits: digits / 10 ** 5), min_size=1),
       st.integers(-1, 20))
def test_per_query_values_are_written_as_python_formats_them(values, places):
    """-q formats values in numpy; the reference is Python's format at every number of places."""
    spec = '' if places == -1 else f'.{places}f'
    assert formatted(np.array(values), places).to_pylist() == [format(value, spec) for value in values]


def test_per_query_lines_of_many_queries(capsys, tmp_path):
    """More queries than one chunk of lines; RR 1/1 ... 1/9 (1/8 = 0.125 rounds to even at 2 places)."""
    ranks = [1 + i % 9 for i in range(70_000)]
    qrels = write(tmp_path / 'qrels', ''.join(f'q{i:05d} 0 d{rank} 1\n' for i, rank in enumerate(ranks)))
    run = write(tmp_path / 'run', ''.join(f'q{i:05d} Q0 d{r} {r} {-r} t\n' for i, rank in enumerate(ranks)
                                          for r in range(1, rank + 1)))
    status, out, _ = run_main(capsys, qrels, run, '-q', '-n', '-p', '2', 'RR', 'NumRet')
    assert status == 0 and out == [line for i, rank in enumerate(ranks)
                                   for line in (f'q{i:05d}\tRR\t{1 / rank:.2f}', f'q{i:05d}\tNumRet\t{rank:.2f}')]


def test_jsonl_output(capsys, files):
    _, out, _ = run_main(capsys, *files, '-o', 'jsonl', 'RR')
    assert [json.loads(line) for line in out] == [{'measure': 'RR', 'value': pytest.approx(1 / 3)}]
    _, out, _ = run_main(capsys, *files, '-o', 'jsonl', '-q', 'P@1')
    assert [json.loads(line)['query_id'] for line in out] == ['q1', 'q2', 'q3', 'all']


def test_suites_add_measures_once(capsys, files):
    _, out, _ = run_main(capsys, *files, 'RR', '--suite', 'nci', '--suite', 'citation')
    assert [line.split('\t')[0] for line in out] == [
        'RR', 'R@1', 'R@10', 'R@100', 'RR@100', 'Rprec',  # nci
        'R@5', 'R@20', 'R@50', 'R@300', 'nDCG@5', 'nDCG@10', 'nDCG@20', 'nDCG@50', 'nDCG@300']  # citation, new ones


def test_measure_or_suite_required(capsys, files):
    status, _, err = run_main(capsys, *files)
    assert status == 2 and err[0] == 'irmeasures-ext: error: give at least one MEASURE, --suite NAME or --protocol NAME'


# --- providers --------------------------------------------------------------------------------------

def test_default_provider_is_ours_with_trec_eval_ties(capsys, files):
    """RR@1 by default is ours (doc_id descending): q1 and q2 put the tied non-relevant doc first."""
    _, out, _ = run_main(capsys, *files, '-q', 'RR@1')
    assert out[:3] == ['q1\tRR@1\t0.0000', 'q2\tRR@1\t0.0000', 'q3\tRR@1\t0.0000']
    _, out, _ = run_main(capsys, *files, '-q', '--provider', 'msmarco', 'RR@1')
    assert out[:2] == ['q1\tRR@1\t1.0000', 'q2\tRR@1\t1.0000']


def not_ours() -> ir_measures.measures.Measure:
    """A measure the default pipeline gives to another provider: our provider leaves nDCG with gains and
    judged_only to pytrec_eval (ir_measures maps the labels by the gains before trec_eval drops the negative
    ones)."""
    return ir_measures.nDCG(gains={1: 2}, judged_only=True)


def test_measures_we_do_not_support_fall_back_to_default_pipeline(capsys, files):
    other = not_ours()
    _, out, _ = run_main(capsys, *files, str(other), 'Bpref', 'Q@10')
    qrels, run = ir_measures.read_trec_qrels(files[0]), ir_measures.read_trec_run(files[1])
    reference = ir_measures.calc_aggregate([other, ir_measures.Bpref], qrels, run)
    assert out == [f'{other}\t{reference[other]:.4f}', f'Bpref\t{reference[ir_measures.Bpref]:.4f}',
                   f'Q@10\t{expected(["Q@10"], *files)[ir_measures.parse_measure("Q@10")]:.4f}']


def test_named_provider_computes_everything(capsys, files):
    assert run_main(capsys, *files, '--provider', 'pytrec_eval', 'P@2')[1] == ['P@2\t0.3333']
    status, _, err = run_main(capsys, *files, '--provider', 'pytrec_eval', 'Q@10')
    assert (status, err) == (2, ['irmeasures-ext: error: provider pytrec_eval does not support measure(s) Q@10'])
    other = not_ours()
    status, _, err = run_main(capsys, *files, '--provider', 'irmeasures_ext', str(other))
    assert (status, err) == (2, [f'irmeasures-ext: error: provider irmeasures_ext does not support measure(s) {other}'])


def test_named_provider_still_checks_input(capsys, tmp_path):
    qrels = write(tmp_path / 'qrels', QRELS)
    run = write(tmp_path / 'run', RUN + 'q1 Q0 d1 9 0.1 r\n')
    status, _, err = run_main(capsys, qrels, run, '--provider', 'pytrec_eval', 'P@2')
    assert status == 2 and err == [f"irmeasures-ext: error: {run}:8: duplicate doc 'd1' in query 'q1' "
                                   '(first at line 3)']


def test_help_explains_default_provider(capsys):
    assert main(['--help']) == 0
    text = ' '.join(capsys.readouterr().out.split())
    assert "irmeasures_ext provider for the measures it supports (the fast columnar path" in text
    assert "ir_measures' DefaultPipeline for the others" in text
    assert 'crosscheck' in text and 'datasets' in text


# --- input forms --------------------------------------------------------------------------------------

def test_gzip_bom_crlf_and_trailing_fields(capsys, tmp_path, files):
    qrels = tmp_path / 'qrels.gz'
    qrels.write_bytes(gzip.compress(('\ufeff' + QRELS).replace('\n', '\r\n').encode()))
    run = write(tmp_path / 'run', '\ufeff' + RUN.replace(' r\n', ' r extra fields\r\n'))
    assert run_main(capsys, qrels, run, 'RR', 'Q@10')[1] == run_main(capsys, *files, 'RR', 'Q@10')[1]


def test_run_from_stdin(capsys, monkeypatch, files):
    monkeypatch.setattr(sys, 'stdin', io.TextIOWrapper(io.BytesIO(gzip.compress(RUN.encode()))))
    assert run_main(capsys, files[0], '-', 'RR')[1] == ['RR\t0.3333']


@pytest.mark.parametrize('file_format', [None, 'arrow'])
def test_a_pipe_is_copied_to_a_temporary_file_as_standard_input_is(capsys, tmp_path, files, file_format):
    """``<(...)`` is a pipe: copied in pieces to a temporary file, as "-" is, so that a run of any size is read in
    bounded memory (it was read whole into memory: 2.1 GB for a 17M-line run, 455 MB through "-")."""
    import threading

    import pyarrow as pa

    from irmeasures_ext.cli.common import load_run
    from irmeasures_ext.readers.inputs import read_input
    fifo = tmp_path / 'fifo'
    os.mkfifo(fifo)
    data = RUN.encode()
    if file_format == 'arrow':
        sink = pa.BufferOutputStream()
        table = pa.table({'query_id': [line.split()[0] for line in RUN.splitlines()],
                          'doc_id': [line.split()[2] for line in RUN.splitlines()],
                          'score': [float(line.split()[4]) for line in RUN.splitlines()]})
        with pa.ipc.new_stream(sink, table.schema) as writer:
            writer.write_table(table)
        data = sink.getvalue().to_pybytes()
    writer_thread = threading.Thread(target=lambda: fifo.write_bytes(data), daemon=True)  # (never a hang)
    writer_thread.start()
    source = load_run(str(fifo), file_format)
    writer_thread.join(timeout=60)
    assert source.name == str(fifo) and getattr(source, '_data', None) is None  # a file, not bytes in memory
    assert read_input(source, 'run').table == read_input(source, 'run').table  # (read twice: a copy)
    writer_thread = threading.Thread(target=lambda: fifo.write_bytes(data), daemon=True)  # (never a hang)
    writer_thread.start()
    options = ['--format', file_format, '--qrels-format', 'trec'] if file_format else []
    assert run_main(capsys, files[0], fifo, 'RR', *options)[1] == \
        ['RR\t0.3333']
    writer_thread.join(timeout=60)


def test_a_full_temporary_folder_is_named_with_tmpdir(capsys, monkeypatch, files):
    """Standard input cannot be copied (the disk of $TMPDIR is full): one line saying so, not "standard input
    cannot be read" or a bare errno."""
    import errno

    from irmeasures_ext.engine import stream

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(sys, 'stdin', io.TextIOWrapper(io.BytesIO(RUN.encode())))
    monkeypatch.setattr(stream.tempfile, 'mkdtemp', full)
    status, out, err = run_main(capsys, files[0], '-', 'RR')
    assert (status, out) == (2, [])
    assert err == [f'irmeasures-ext: error: <stdin> is read from a copy in a temporary file under '
                   f'{tempfile.gettempdir()}, which could not be written (No space left on device): set TMPDIR to a '
                   'folder with room']


def test_qrels_from_ir_datasets(capsys, tmp_path, files):
    dataset_id = f'irmeasures-ext-test/{uuid.uuid4().hex}'
    ir_datasets.registry.register(dataset_id, ir_datasets.create_dataset(qrels_trec=files[0]))
    assert run_main(capsys, dataset_id, files[1], 'RR', 'P@2')[1] == run_main(capsys, *files, 'RR', 'P@2')[1]
    no_qrels = f'irmeasures-ext-test/{uuid.uuid4().hex}'
    queries = write(tmp_path / 'queries.tsv', 'q1\ta\n')
    ir_datasets.registry.register(no_qrels, ir_datasets.create_dataset(queries_tsv=queries))
    assert run_main(capsys, no_qrels, files[1], 'RR')[2] == [f"irmeasures-ext: error: ir_datasets id '{no_qrels}' "
                                                             'has no qrels']


# --- usage errors: one line and a hint -----------------------------------------------------------------

@pytest.mark.parametrize(('argv', 'message'), [
    ([], 'the following arguments are required: QRELS, RUN'),
    (['--bogus'], 'the following arguments are required: QRELS, RUN'),
    (['--bogus', 'QRELS', 'RUN', 'RR'], 'unrecognized arguments: --bogus'),
    (['QRELS', 'RUN', 'RR', '--places', 'x'], "argument --places/-p: expected decimal places (0 to 100), or -1 for "
                                             "all digits, got 'x'"),
    (['QRELS', 'RUN', '-n', 'RR'], '--no_summary (-n) only applies with --by_query (-q)'),
    (['QRELS', 'RUN'], 'give at least one MEASURE, --suite NAME or --protocol NAME'),
    (['QRELS', 'AP'], "RUN is missing: 'AP' is a measure, not a file (give QRELS RUN MEASURE...)"),
    (['QRELS', 'nDCG@10', 'AP'], "RUN is missing: 'nDCG@10' is a measure, not a file (give QRELS RUN "
                                'MEASURE...)'),
    (['compare'], 'the following arguments are required: QRELS, RUN|MEASURE'),
    (['compare', 'QRELS', 'RUN', 'RUN', 'RR', '--bogus'], 'unrecognized arguments: --bogus'),
    (['compare', 'QRELS', 'RUN', 'RUN', 'RR', '--seed', 'x'], "argument --seed: invalid int value: 'x'"),
    (['ties', 'QRELS'], 'the following arguments are required: RUN'),
    (['ties', 'QRELS', 'RUN', '--bogus'], 'unrecognized arguments: --bogus'),
    (['crosscheck'], 'the following arguments are required: QRELS, RUN'),
    (['crosscheck', 'QRELS', 'RUN', '--explain-rr', 'x'], "argument --explain-rr: invalid int value: 'x'"),
    (['crosscheck', 'QRELS', 'RUN', '--explain-rr', '0'], '--explain-rr K needs K >= 1'),
])
def test_usage_errors_are_one_line_and_a_hint(capsys, files, argv, message):
    argv = [{'QRELS': files[0], 'RUN': files[1]}.get(arg, arg) for arg in argv]
    command = f'irmeasures-ext {argv[0]}' if argv and argv[0] in ('compare', 'ties', 'crosscheck') else 'irmeasures-ext'
    status, out, err = run_main(capsys, *argv)
    assert (status, out) == (2, [])
    assert err == [f'irmeasures-ext: error: {message}', f"try '{command} --help'"]


def test_usage_error_of_the_command_is_one_line_and_a_hint():
    result = subprocess.run([sys.executable, '-m', 'irmeasures_ext', 'compare', '--bogus'], capture_output=True,
                            text=True, timeout=120)
    assert (result.returncode, result.stdout) == (2, '')
    assert result.stderr.splitlines() == ['irmeasures-ext: error: the following arguments are required: QRELS, '
                                          "RUN|MEASURE", "try 'irmeasures-ext compare --help'"]


# --- bad input: one line naming file, line and problem -------------------------------------------------

BAD_RUNS = {
    'columns': ('q1 Q0 d1 1 2.0\n', ':1: expected 6 fields (qid Q0 docid rank score tag), got 5'),
    'non-numeric score': ('q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 high r\n', ":2: score 'high' is not a number"),
    'nan score': ('q1 Q0 d1 1 nan r\n', ":1: score 'nan' is not finite"),
    'inf score': ('q1 Q0 d1 1 2 r\nq1 Q0 d2 2 -inf r\n', ":2: score '-inf' is not finite"),
    'duplicate doc': (RUN + 'q2 Q0 d4 3 0.5 r\n', ":8: duplicate doc 'd4' in query 'q2' (first at line 5)"),
}
BAD_QRELS = {
    'qrels columns': ('q1 0 d1\n', ':1: expected 4 fields (qid iteration docid relevance), got 3'),
    'non-numeric label': ('q1 0 d1 1\nq1 0 d2 yes\n', ":2: relevance 'yes' is not a number"),
    'conflicting qrels': (QRELS + 'q1 0 d3 1\n', ":6: conflicting labels for doc 'd3' in query 'q1': 1 here, 0 at "
                                                 'line 3'),
    'empty qrels': ('', ': no qrels lines (the file is empty or has only blank lines), so every measure would be '
                        'undefined: give judgments'),
    'blank qrels': ('\n \n', ': no qrels lines (the file is empty or has only blank lines), so every measure would '
                               'be undefined: give judgments'),
}


@pytest.mark.parametrize('text', ['', '\n \n'])
def test_an_empty_run_retrieves_nothing_with_a_warning(capsys, tmp_path, files, text):
    """One rule on every entry point (issue 39 §5): an empty run file, table or dict is a run that retrieves
    nothing: each qrels query takes its value for an unanswered query (0; MeanRank NaN: no candidate count),
    with a NoOverlapWarning; ir_measures gives 0 too. (The command refused an empty file before.)"""
    run = write(tmp_path / 'run.txt', text)
    status, out, err = run_main(capsys, files[0], run, 'AP', 'RR', 'MeanRank')
    assert (status, out) == (0, ['AP\t0.0000', 'RR\t0.0000', 'MeanRank\tnan'])
    assert err == [f'irmeasures-ext: warning: {run}: the run retrieves nothing for any of the 3 qrels queries (the '
                   'run is empty); every measure takes its value for an unanswered query']
    with pytest.warns(NoOverlapWarning, match='the run is empty'):
        api = OURS.calc_aggregate([ir_measures.AP, ir_measures.RR], files[0], {})
    assert api == {ir_measures.AP: 0.0, ir_measures.RR: 0.0}


def assert_one_error_line(capsys, argv, message):
    status, out, err = run_main(capsys, *argv)
    assert (status, out) == (2, [])
    assert err == [f'irmeasures-ext: error: {message}']


@pytest.mark.parametrize('case', BAD_RUNS)
def test_bad_run(capsys, tmp_path, case):
    text, problem = BAD_RUNS[case]
    run = write(tmp_path / 'run.txt', text)
    assert_one_error_line(capsys, [write(tmp_path / 'qrels', QRELS), run, 'RR'], run + problem)


@pytest.mark.parametrize('case', BAD_QRELS)
def test_bad_qrels(capsys, tmp_path, case):
    text, problem = BAD_QRELS[case]
    qrels = write(tmp_path / 'qrels.txt', text)
    assert_one_error_line(capsys, [qrels, write(tmp_path / 'run', RUN), 'RR'], qrels + problem)


@pytest.mark.parametrize('compression, compress', [('gzip', gzip.compress), ('bz2', bz2.compress),
                                                   ('xz', lzma.compress)])
def test_truncated_compressed_runs(capsys, tmp_path, files, compression, compress):
    data = compress(RUN.encode() * 50)
    run = tmp_path / f'run.{compression}'
    run.write_bytes(data[:len(data) // 2])
    status, _, err = run_main(capsys, files[0], run, 'RR')
    assert status == 2 and len(err) == 1
    assert err[0].startswith(f'irmeasures-ext: error: {run}: corrupt or truncated {compression} after line ')


@pytest.mark.parametrize('compress', [gzip.compress, bz2.compress, lzma.compress])
def test_compressed_runs_and_qrels_give_the_plain_files_values(capsys, tmp_path, files, compress):
    qrels, run = tmp_path / 'qrels.z', tmp_path / 'run.z'
    qrels.write_bytes(compress(QRELS.encode()))
    run.write_bytes(compress(RUN.encode()))
    assert run_main(capsys, qrels, run, 'RR', 'AP', 'Q@10')[1] == run_main(capsys, *files, 'RR', 'AP', 'Q@10')[1]


def test_missing_files_and_directories(capsys, tmp_path, files):
    missing = tmp_path / 'missing.txt'
    assert_one_error_line(capsys, [files[0], missing, 'RR'], f'{missing}: no such file')
    assert_one_error_line(capsys, [missing, files[1], 'RR'], f'{missing}: no such file, nor an ir_datasets id')
    assert_one_error_line(capsys, [files[0], tmp_path, 'RR'], f'{tmp_path}: is a directory, expected a TREC file')
    assert_one_error_line(capsys, [tmp_path, files[1], 'RR'], f'{tmp_path}: is a directory, expected a TREC file')


NAME_HINT = '(names are case-sensitive, e.g. nDCG@10, Q@10, RR; trec_eval names such as map or ndcg_cut.10 work too)'


@pytest.mark.parametrize('measure, message', [
    ('Foo@10', "unknown measure 'Foo' (names are case-sensitive, e.g. nDCG@10, Q@10, RR; trec_eval names such as "
               'map or ndcg_cut.10 work too)'),
    ('ndcg@10', "unknown measure 'ndcg@10'; did you mean nDCG@10? ('@k' follows ir_measures' names; trec_eval's give "
                'a cutoff after a dot, e.g. ndcg_cut.10)'),
    ('recall@100', "unknown measure 'recall@100'; did you mean R@100? ('@k' follows ir_measures' names; trec_eval's "
                   'give a cutoff after a dot, e.g. ndcg_cut.10)'),
    ('map@100', "unknown measure 'map@100'; did you mean AP@100? ('@k' follows ir_measures' names; trec_eval's give "
                'a cutoff after a dot, e.g. ndcg_cut.10)'),
    ('q@10', "unknown measure 'q'; did you mean Q@10? (names are case-sensitive, e.g. nDCG@10, Q@10, RR; "
             'trec_eval names such as map or ndcg_cut.10 work too)'),
    # Known aliases and spellings before the closest names (D_Hit for Hit, P_measure for Qmeasure; none for alpha-nDCG)
    ('Hit@10', f"unknown measure 'Hit'; did you mean Success@10? {NAME_HINT}"),
    ('hits@10', f"unknown measure 'hits'; did you mean Success@10? {NAME_HINT}"),
    ('HitRate@10', f"unknown measure 'HitRate'; did you mean Success@10? {NAME_HINT}"),
    ('hit_ratio@5', f"unknown measure 'hit_ratio'; did you mean Success@5? {NAME_HINT}"),
    ('Qmeasure@10', f"unknown measure 'Qmeasure'; did you mean Q@10? {NAME_HINT}"),
    ('Q-measure@10', f"unknown measure 'Q-measure'; did you mean Q@10? {NAME_HINT}"),
    ('alpha-nDCG@20', f"unknown measure 'alpha-nDCG'; did you mean alpha_nDCG@20? {NAME_HINT}"),
    ('alpha-nDCG(alpha=0.5)@20', f"unknown measure 'alpha-nDCG'; did you mean alpha_nDCG(alpha=0.5)@20? {NAME_HINT}"),
    ('ALPHA_NDCG@20', f"unknown measure 'ALPHA_NDCG'; did you mean alpha_nDCG@20? {NAME_HINT}"),
    ('Q(beta=-1)@10', "bad measure 'Q(beta=-1)@10': Q: beta must be a finite number >= 0, got -1"),
    ('nDCG_Z1', "bad measure 'nDCG_Z1': nDCG_Z1: parameter 'cutoff' is required, e.g. nDCG_Z1@10"),
    ('nDCG_Z1@0', "bad measure 'nDCG_Z1@0': nDCG_Z1: cutoff must be an integer from 1 to 9223372036854775807, got 0"),
    ('Q(gains={1: -2})@5', "bad measure 'Q(gains={1: -2})@5': Q: gain for label 1 must be a finite number >= 0, "
                           'got -2'),
    ('P(color=1)@5', "bad measure 'P(color=1)@5': P: unknown parameter(s) ['color']; supported: ['cutoff', "
                     "'judged_only', 'rel']"),
    ('RR(rel=2.5)', "bad measure 'RR(rel=2.5)': RR: ir_measures declares rel an integer, got 2.5; for a real-valued "
                    'threshold, set it on our provider, which gives it to every measure whose rel is 1 (the default): '
                    'irmeasures_ext.provider.configured(rel=2.5) (irmeasures-ext '
                    '--rel 2.5)'),
    ('P(rel=-1)@3', "bad measure 'P(rel=-1)@3': P: rel must be an integer from 0 to 9223372036854775807, got -1"),
    ('RR@100000000000000000000', "bad measure 'RR@100000000000000000000': RR: cutoff must be an integer from 1 to "
                                 '9223372036854775807, got 100000000000000000000'),
    ('RR(', "bad measure 'RR(': expected Name, Name@cutoff, Name(param=value, ...)@cutoff or a trec_eval name"),
])
def test_bad_measures(capsys, files, measure, message):
    assert_one_error_line(capsys, [*files, measure], message)


@pytest.mark.parametrize('argv, suggestion', [(['compar', 'q', 'r1', 'r2', 'AP'], 'compare'),
                                              (['crosscheckk', 'q', 'r'], 'crosscheck'), (['tie', 'q', 'r'], 'ties'),
                                              (['ntcirevl', 'q', 'r', '-g', '1:2'], 'ntcireval')])
def test_a_misspelt_subcommand_is_named(capsys, argv, suggestion):
    """Not "bad measure 'r1'": the first argument, no file, is close to a subcommand."""
    assert_one_error_line(capsys, argv, f'unknown command {argv[0]!r}; did you mean {suggestion}? (or give QRELS RUN '
                                        'MEASURE...)')


@pytest.mark.parametrize('measure, message', [
    ('NERR8@10', "bad measure 'NERR8@10': NERR8: parameter 'max_rel' is required, e.g. NERR8(max_rel=...)"),
    ('IPrec', "bad measure 'IPrec': IPrec: parameter 'recall' is required, e.g. IPrec@0.5"),
    ('ERR_IA', 'ERR_IA: ndeval computes ERR_IA at a cutoff: write ERR_IA@k'),  # (ours, pyndeval or not)
])
def test_measures_no_installed_provider_computes_are_one_line_naming_what_they_need(capsys, files, measure, message,
                                                                                   monkeypatch):
    """Never ir_measures' ``invalid param max_rel=<object object at 0x...>`` or a bare StopIteration (pyndeval
    taken for not installed, wherever it is: our provider answers its measures)."""
    monkeypatch.setattr(ir_measures.providers.registry['pyndeval'], '_is_available', False)
    assert_one_error_line(capsys, [*files, 'Q@10', measure], message)


# --- bare words for text parameters ---------------------------------------------------------------------

def q_over_tie_orderings(cutoff: int) -> float:
    """Q@cutoff of QRELS/RUN with ties='expected', from tests/reference.py: each query's Q averaged over
    every ordering of its tied docs (q1: d2/d5, q2: d4/d6), then over the qrels queries (q3: 0)."""
    qrels, run = {}, {}
    for line in QRELS.splitlines():
        query_id, _, doc, label = line.split()
        qrels.setdefault(query_id, {})[doc] = int(label)
    for line in RUN.splitlines():
        query_id, _, doc, _, score, _ = line.split()
        run.setdefault(query_id, {})[doc] = float(score)
    values = []
    for query_id, judged in qrels.items():
        docs = run.get(query_id, {})
        groups = [sorted(d for d in docs if docs[d] == s) for s in sorted(set(docs.values()), reverse=True)]
        rankings = [[doc for group in choice for doc in group]
                    for choice in itertools.product(*(itertools.permutations(g) for g in groups))]
        values.append(statistics.fmean(reference.q_measure(r, judged, cutoff=cutoff) for r in rankings))
    return statistics.fmean(values)


@pytest.mark.parametrize('text', ['Q(ties=expected)@10', "Q(ties='expected')@10", 'Q(ties="expected")@10',
                                  'Q(beta=1, ties=expected)@10'])
def test_text_parameters_take_a_bare_word(capsys, files, text):
    """The README writes Q(ties=expected)@10 on the command line: a bare word is a string for a
    parameter declared with dtype=str, quoted or not."""
    status, out, err = run_main(capsys, *files, text)
    assert (status, err) == (0, [])
    name, value = out[0].split('\t')
    assert name == "Q(ties='expected')@10" and float(value) == pytest.approx(q_over_tie_orderings(10), abs=5e-5)
    assert run_main(capsys, *files, 'Q@10')[1] != out  # the ties parameter took effect


@pytest.mark.parametrize(('text', 'name'), [
    ('MeanRank(score_precision=float64)', "MeanRank(score_precision='float64')"),
    ('nDCG_Z1(ties=optimistic, score_precision=float32)@5', "nDCG_Z1(ties='optimistic',score_precision='float32')@5"),
    ('nERR(ties=pessimistic)@5', "nERR(ties='pessimistic')@5"),
])
def test_every_text_parameter_takes_a_bare_word(capsys, files, text, name):
    status, out, err = run_main(capsys, *files, text)
    assert (status, err) == (0, []) and out[0].split('\t')[0] == name


def test_bare_words_of_ir_measures_text_parameters():
    assert parse_measures(['nDCG(dcg=exp-log2)@10']) == [ir_measures.parse_measure("nDCG(dcg='exp-log2')@10")]


def test_bare_word_through_the_command(files):
    result = subprocess.run([sys.executable, '-m', 'irmeasures_ext', *files, 'Q(ties=expected)@10',
                             'Q(ties="optimistic")@10'], capture_output=True, text=True, timeout=120)
    assert (result.returncode, result.stderr) == (0, '')
    values = dict(line.split('\t') for line in result.stdout.splitlines())
    assert list(values) == ["Q(ties='expected')@10", "Q(ties='optimistic')@10"]
    assert float(values["Q(ties='expected')@10"]) == pytest.approx(q_over_tie_orderings(10), abs=5e-5)


@pytest.mark.parametrize(('text', 'message'), [
    ('Q(beta=abc)@10', "bad measure 'Q(beta=abc)@10': Q: beta must be of type float; got the bare word 'abc' "
                       '(only text parameters, such as ties, may be written unquoted)'),
    ('Q(rel=two)@10', "bad measure 'Q(rel=two)@10': Q: rel must be of type int or float; got the bare word 'two' "
                      '(only text parameters, such as ties, may be written unquoted)'),
    ('Q(ties=sometimes)@10', "bad measure 'Q(ties=sometimes)@10': Q: ties must be one of trec_eval, optimistic, "
                             "pessimistic, expected, rank; got 'sometimes'"),
    ('Q(colour=red)@10', "bad measure 'Q(colour=red)@10': Q: unknown parameter(s) ['colour']; supported: ['beta', "
                         "'classes', 'cutoff', 'gains', 'judged_only', 'rel', 'score_precision', 'ties']"),
    ('Q(ties=a+b)@10', "bad measure 'Q(ties=a+b)@10': expected Name, Name@cutoff, Name(param=value, ...)@cutoff or "
                       'a trec_eval name'),
])
def test_bare_words_elsewhere_are_errors(capsys, files, text, message):
    assert_one_error_line(capsys, [*files, text], message)


# --- crosscheck ---------------------------------------------------------------------------------------

def test_crosscheck_agrees_on_sample(capsys):
    status, out, _ = run_main(capsys, 'crosscheck', SAMPLE_QRELS, SAMPLE_RUN)
    assert status == 0
    assert out[0] == 'measure\tmax_abs_diff\tqueries_differing\tirmeasures_ext\tpytrec_eval'
    assert [line.split('\t')[0] for line in out[1:-1]] == crosscheck.CROSSCHECK_MEASURES.split()
    assert all(float(line.split('\t')[1]) < 1e-12 and line.split('\t')[2] == '0/20' for line in out[1:-1])
    assert out[-1] == 'all 14 measures agree with pytrec_eval within 1e-09'


def test_crosscheck_reports_differences(capsys, monkeypatch, files):
    """A reference that is off on one query makes crosscheck list it and exit 1."""
    reference = ir_measures.providers.registry['pytrec_eval']

    class OffByOne(type(reference)):
        def _evaluator(self, measures, qrels):
            evaluator = super()._evaluator(measures, qrels)
            iter_calc = evaluator.iter_calc
            evaluator.iter_calc = lambda run: (m._replace(value=m.value + (m.query_id == 'q2'))
                                               for m in iter_calc(run))
            return evaluator

    monkeypatch.setitem(ir_measures.providers.registry, 'pytrec_eval', OffByOne())
    status, out, _ = run_main(capsys, 'crosscheck', *files, 'P@1', 'RR')
    assert status == 1
    assert out[1:3] == ['P@1\t1\t1/3\t0\t0.333333', 'RR\t1\t1/3\t0.333333\t0.666667']
    assert out[3:] == ['P@1 differs on: q2 (0 vs 1)', 'RR differs on: q2 (0.5 vs 1.5)']


def test_crosscheck_explains_rr_ties(capsys, files):
    status, out, _ = run_main(capsys, 'crosscheck', *files, 'RR', '--explain-rr', '1')
    assert status == 0
    assert out[-2] == ("RR@1: irmeasures_ext (ties: doc_id descending, as trec_eval) vs ir_measures' default "
                       'provider msmarco: 2 of 3 queries differ; mean 0 vs 0.666667')
    assert out[-1] == ("example: query q1: irmeasures_ext ranks relevant doc 'd2' (score 2) at 2 (2 docs tie at that "
                       "score: d2 d5), so RR@1 = 0; msmarco ranks relevant doc 'd2' (score 2) at 1 (2 docs tie at "
                       'that score: d2 d5), so RR@1 = 1')


def test_crosscheck_does_not_flag_num_rel_of_queries_absent_from_the_run(capsys, tmp_path, files):
    run = write(tmp_path / 'partial', ''.join(line + '\n' for line in RUN.splitlines() if line.startswith('q1 ')))
    status, out, err = run_main(capsys, 'crosscheck', files[0], run, 'NumRel', 'AP')
    assert status == 0, out
    assert err == ["note: NumRel of the 2 qrels queries absent from the run is R (trec_eval -c), where "
                   "ir_measures' pytrec_eval wrapper gives 0; those are not compared"]


def test_failing_third_party_provider_is_one_error_line(capsys, monkeypatch, files):
    def broken(*args, **kwargs):
        raise RuntimeError('gdeval.pl exited with status 25')
    monkeypatch.setattr(ir_measures.gdeval, 'evaluator', broken)
    assert_one_error_line(capsys, [*files, 'ERR@10', '--provider', 'gdeval'],
                          'RuntimeError: gdeval.pl exited with status 25')


def test_crosscheck_rejects_measures_not_shared(capsys, files):
    assert_one_error_line(capsys, ['crosscheck', *files, 'AP', 'Q@10', 'nDCG_Z1@5'],
                          'not computed by both irmeasures_ext and pytrec_eval: Q@10 nDCG_Z1@5')


def test_crosscheck_bad_input(capsys, tmp_path, files):
    qrels = write(tmp_path / 'conflict', QRELS + 'q2 0 d4 0\n')
    assert_one_error_line(capsys, ['crosscheck', qrels, files[1]],
                          f"{qrels}:6: conflicting labels for doc 'd4' in query 'q2': 0 here, 1 at line 4")


def test_crosscheck_leaves_out_queries_pytrec_eval_cannot_evaluate(tmp_path):
    """pytrec_eval (trec_eval's form_res_rels) zeroes max_label + 1 counters: for a query judged only
    with labels <= -2 that size is negative, and the process dies (SIGSEGV, exit 139) when another
    query came first, or gets wrong values when it is the first. crosscheck leaves such queries out,
    says so, and compares the others. In a subprocess: the crash would kill the test run."""
    qrels = write(tmp_path / 'qrels.txt', 'q5 0 a 0\nq8 0 b -2\nq9 0 c -3\nq9 0 d -2\nq1 0 e 1\n')
    run = write(tmp_path / 'run.txt', 'q5 Q0 x 1 0.0 r\nq8 Q0 b 1 0.25 r\nq9 Q0 c 1 1 r\nq1 Q0 e 1 1 r\n')
    result = subprocess.run([sys.executable, '-m', 'irmeasures_ext', 'crosscheck', qrels, run, 'nDCG', 'NumRet'],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == [
        'note: 2 queries left out, judged only with labels <= -2 (q8 q9), which pytrec_eval cannot evaluate '
        "(trec_eval's form_res_rels sizes its label counts by the largest label + 1)"]
    lines = result.stdout.splitlines()
    assert lines[1:3] == ['nDCG\t0\t0/2\t0.5\t0.5', 'NumRet\t0\t0/2\t2\t2']  # q1 (nDCG 1, 1 doc), q5 (0, 1)
    assert lines[-1] == 'all 2 measures agree with pytrec_eval within 1e-09'


def test_crosscheck_of_queries_judged_only_below_minus_one_is_one_error_line(tmp_path):
    qrels = write(tmp_path / 'qrels.txt', 'q8 0 b -2\n')
    run = write(tmp_path / 'run.txt', 'q8 Q0 b 1 0.25 r\n')
    result = subprocess.run([sys.executable, '-m', 'irmeasures_ext', 'crosscheck', qrels, run, 'nDCG'],
                            capture_output=True, text=True, timeout=120)
    assert (result.returncode, result.stdout) == (2, '')
    assert result.stderr.splitlines() == [
        'irmeasures-ext: error: nothing to compare: every query is judged only with labels <= -2 (q8), which '
        "pytrec_eval cannot evaluate (trec_eval's form_res_rels sizes its label counts by the largest label + 1)"]


# --- datasets -----------------------------------------------------------------------------------------

def test_datasets_subcommand_lists_ours(capsys):
    status, out, _ = run_main(capsys, 'datasets', 'list')
    assert status == 0
    assert {'quoter/english/test', 'citation-rec/acl-200/test'} <= {line.split('\t')[0] for line in out}


def test_datasets_subcommand_usage_error(capsys):
    status, _, err = run_main(capsys, 'datasets')
    assert status == 1 and err[0].startswith('Usage: ir_datasets {')


@pytest.mark.parametrize('argv', [['-m', 'irmeasures_ext', 'datasets', '--help'],
                                  ['-m', 'irmeasures_ext', 'datasets', '-h'],
                                  ['-m', 'irmeasures_ext.sample', '--help'], ['-m', 'irmeasures_ext.sample', '-h']])
def test_help_of_the_datasets_subcommand_and_of_the_sample_module_exits_0(argv):
    """ir_datasets' entry point and the sample module took --help for a usage error (status 1)."""
    result = subprocess.run([sys.executable, *argv], capture_output=True, text=True, timeout=120)
    assert (result.returncode, result.stderr) == (0, ''), result.stderr
    if 'datasets' in argv:
        assert result.stdout.startswith('usage: irmeasures-ext datasets {') and 'export' in result.stdout
        assert 'irmeasures-ext datasets COMMAND --help' in result.stdout
    else:
        assert result.stdout.startswith('usage: python -m irmeasures_ext.sample qrels|run|judges\n')


#: A measure the default pipeline gives to pytrec_eval: our provider leaves nDCG with gains and judged_only
#: to it (ir_measures maps the labels by the gains before trec_eval drops the negative ones).
PYTREC_EVAL_ONLY = 'nDCG(gains={1:2},judged_only=True)'


@pytest.mark.parametrize('args', [['nDCG', '--provider', 'pytrec_eval'], [PYTREC_EVAL_ONLY], ['RR', PYTREC_EVAL_ONLY],
                                  ['compare', 'RUN2', PYTREC_EVAL_ONLY]])
def test_measures_pytrec_eval_computes_refuse_queries_it_cannot_evaluate(tmp_path, args):
    """The same input as crosscheck's: where ir_measures' pytrec_eval provider would compute a measure (named,
    or in the default pipeline for a measure ours lacks), one error line instead of the crash (exit 139)."""
    qrels = write(tmp_path / 'qrels.txt', 'q5 0 a 0\nq8 0 b -2\nq1 0 e 1\n')
    run = write(tmp_path / 'run.txt', 'q5 Q0 x 1 0.0 r\nq8 Q0 b 1 0.25 r\nq1 Q0 e 1 1 r\n')
    argv = ['compare', qrels, run, run, '--names', 'a,b', *args[2:]] if args[0] == 'compare' else [qrels, run, *args]
    result = subprocess.run([sys.executable, '-m', 'irmeasures_ext', *argv], capture_output=True, text=True,
                            timeout=120)
    assert (result.returncode, result.stdout) == (2, '')
    computed = 'nDCG' if args[0] == 'nDCG' else str(ir_measures.parse_measure(PYTREC_EVAL_ONLY))
    assert result.stderr.splitlines() == [
        f'irmeasures-ext: error: 1 of the queries (q8) are judged only with labels <= -2, which pytrec_eval '
        f'(computing {computed} here) cannot evaluate: trec_eval sizes its label counts by the largest label + 1 '
        'and crashes; leave those queries out, or ask only for measures the irmeasures_ext provider computes']


def test_measures_of_ours_evaluate_queries_pytrec_eval_cannot(tmp_path, capsys):
    qrels = write(tmp_path / 'qrels.txt', 'q5 0 a 0\nq8 0 b -2\nq1 0 e 1\n')
    run = write(tmp_path / 'run.txt', 'q5 Q0 x 1 0.0 r\nq8 Q0 b 1 0.25 r\nq1 Q0 e 1 1 r\n')
    status, out, _ = run_main(capsys, qrels, run, 'nDCG', 'NumRet', '-q')
    assert status == 0
    assert [line for line in out if line.startswith('q8')] == ['q8\tnDCG\t0.0000', 'q8\tNumRet\t1.0000']


@pytest.mark.parametrize('command', [[], ['compare'], ['holes'], ['judges'], ['reproduce'], ['ties'], ['fuse']])
@pytest.mark.parametrize('places', ['-2', 'x', '1.5', '٣', '++2', '101', '3000000000'])
def test_places_below_minus_1_or_not_a_whole_number_are_refused_before_any_work(capsys, command, places):
    status = main([*command, 'qrels.txt', 'run.txt', 'AP', '--places', places])
    out, err = capsys.readouterr()
    assert (status, out) == (2, '')
    assert (f"error: argument --places/-p: expected decimal places (0 to 100), or -1 for all digits, got "
            f"{places!r}") in err


@pytest.mark.parametrize('places', ['-1', '0', '+3', ' 12', '100'])
def test_places_of_minus_1_or_more_are_taken(places):
    from irmeasures_ext.cli.common import places as places_type
    assert places_type(places) == int(places)


@pytest.mark.parametrize('command', [['qrels.txt'], ['compare', 'qrels.txt'], ['judges', '--qrels', 'a=qrels.txt'],
                                     ['holes', '--qrels', 'a=qrels.txt'],
                                     ['reproduce', 'qrels.txt', '--original', 'b', 'a', '--reproduced', 'b', 'a']])
def test_places_with_jsonl_are_said_to_be_ignored_before_any_work(capsys, command):
    status = main([*command, 'run.txt', 'AP', '-o', 'jsonl', '-p', '2'])
    err = capsys.readouterr().err.splitlines()
    assert status == 2 and err[0] == 'irmeasures-ext: --places is ignored with --output_format jsonl'


@pytest.mark.parametrize('command', [['compare', 'qrels.txt'], ['judges', '--qrels', 'a=qrels.txt'],
                                     ['reproduce', 'qrels.txt', '--original', 'b', 'a', '--reproduced', 'b', 'a']])
def test_overwrite_without_plot_is_said_to_be_ignored_before_any_work(capsys, command):
    status = main([*command, 'run.txt', 'AP', '--overwrite'])
    err = capsys.readouterr().err.splitlines()
    assert status == 2 and err[0] == ('irmeasures-ext: --overwrite is ignored without --plot (it lets the plot '
                                      'replace an existing file)')


def test_overwrite_with_plot_says_nothing_of_it(tmp_path, capsys):
    status = main(['compare', 'qrels.txt', 'run.txt', 'AP', '--overwrite', '--plot', str(tmp_path / 'p.png')])
    assert status == 2 and 'ignored' not in capsys.readouterr().err
