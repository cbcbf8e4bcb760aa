"""The guest's manners (issue 48, irmeasures_ext/guest.py): every change importing the package makes to ir_measures
and the interpreter is listed there; switched off (``IRMEASURES_EXT_NO_AUTOLOAD``), an explicit import makes only
the registrations; ir_measures' providers give the same values and errors with and without the plugin, but where
guest.py says otherwise; and ir_measures' own test suite passes the same (marked ``guest``: .ci/run runs it)."""
import json
import os
import select
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import guest_evaluate
import ir_measures
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from strategies import LABELS, REAL_LABELS, qrels_and_run

from irmeasures_ext import autoload, guest

HERE = Path(__file__).resolve().parents[1]  # (tests/, where the guest_*.py helpers are)

#: What an explicit import makes, switched off or not, as tests/guest_changes.py names it.
REGISTRATIONS = ['ir_measures.DefaultPipeline.providers', 'ir_measures.irmeasures_ext',
                 'ir_measures.measures.registry', 'ir_measures.providers.registry', 'sys.meta_path']
#: What it makes only when the autoload is not switched off.
MANNERS = ['ir_measures.providers.fallback_provider.FallbackProvider._evaluator',
           'ir_measures.providers.gdeval_provider.GdevalProvider._evaluator',
           'ir_measures.providers.pyndeval_provider.PyNdEvalProvider._evaluator',
           'ir_measures.providers.pytrec_eval_provider.PytrecEvalProvider._evaluator',
           'ir_measures.util.QrelsConverter.predict_type', 'ir_measures.util.RunConverter.predict_type',
           'sys.excepthook']


def switched_off() -> dict[str, str]:
    """This environment with the autoload switched off."""
    return {**os.environ, autoload.DISABLE_VARIABLE: '1'}


@pytest.mark.parametrize('off', [False, True], ids=['on', 'switched-off'])
def test_every_change_is_listed_and_switched_off_only_the_registrations_are_made(off):
    """Every attribute of ir_measures and hook of the interpreter that ``import irmeasures_ext`` changes, found by
    comparing them before and after in a fresh interpreter, is named in guest.py's docstring."""
    found = json.loads(subprocess.run([sys.executable, HERE / 'guest_changes.py', *(['--switched-off'] if off else [])],
                                      capture_output=True, text=True, check=True, env=switched_off(),
                                      timeout=120).stdout)
    assert found == sorted(REGISTRATIONS + ([] if off else MANNERS))
    assert [name for name in found if '.'.join(name.split('.')[-2:]) not in (guest.__doc__ or '')] == []


def test_switched_off_an_import_gives_our_measures_and_leaves_ir_measures_as_it_is():
    """The measures and the provider work through ir_measures; its converters take what they take without us (qrels
    without a judgment give no value, a path is refused), and the ir_measures command's errors are its own."""
    script = ('import sys, ir_measures\n'
              'hook = sys.excepthook\n'
              'import irmeasures_ext\n'
              'from irmeasures_ext import Q, sample\n'
              'qrels, run = list(ir_measures.read_trec_qrels(str(sample.QRELS))), '
              'list(ir_measures.read_trec_run(str(sample.RUN)))\n'
              'print(round(ir_measures.calc_aggregate([Q @ 10], qrels, run)[Q @ 10], 9), '
              'round(irmeasures_ext.provider.calc_aggregate([Q @ 10], qrels, run)[Q @ 10], 9))\n'
              'print(ir_measures.parse_measure("Q@10") == Q @ 10, '
              'ir_measures.irmeasures_ext is irmeasures_ext.provider)\n'
              'print(list(ir_measures.pytrec_eval.iter_calc([ir_measures.AP], [], run)))\n'
              'print(sys.excepthook is hook)\n'
              'ir_measures.pytrec_eval.calc_aggregate([ir_measures.AP], str(sample.QRELS), run)\n')
    result = subprocess.run([sys.executable, '-c', script], capture_output=True, text=True, env=switched_off(),
                            timeout=120)
    value, same, empty, hook = result.stdout.splitlines()
    assert value.split()[0] == value.split()[1] and float(value.split()[0]) > 0
    assert (same, empty, hook) == ('True True', '[]', 'True')
    assert result.stderr.splitlines()[-1] == 'ValueError: unknown qrels format: iterable not a namedtuple iterator'


def test_every_other_available_provider_is_compared():
    """The property test below asks every provider ir_measures has and can run (ours aside) for measures it
    supports."""
    available = {name for name, provider in ir_measures.providers.registry.items() if provider.is_available()}
    assert 'pytrec_eval' in available
    assert available - {'irmeasures_ext'} <= set(guest_evaluate.MEASURES)
    for name in guest_evaluate.MEASURES:
        provider = guest_evaluate.provider_of(name)
        assert all(provider.supports(measure) for measure in guest_evaluate.measures_of(name)), name


@pytest.fixture(scope='module')
def both_sides(tmp_path_factory):
    """A function giving each provider's results on an example with the plugin (this process, where guest.py's
    changes are installed) and without (tests/guest_evaluate.py in a process where irmeasures_ext never loads),
    computed at the same time."""
    from ir_measures.util import QrelsConverter
    assert getattr(QrelsConverter.predict_type, guest.MARK, False), 'run the tests with the autoload on'
    stderr_path = tmp_path_factory.mktemp('guest') / 'stderr'
    with stderr_path.open('w') as stderr:
        process = subprocess.Popen([sys.executable, HERE / 'guest_evaluate.py'], stdin=subprocess.PIPE,
                                   stdout=subprocess.PIPE, stderr=stderr, text=True, env=switched_off())

    def results(case: dict) -> tuple[dict, dict]:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write(json.dumps(case) + '\n')
        process.stdin.flush()
        ours = guest_evaluate.evaluate(case)
        if not select.select([process.stdout], [], [], 300)[0]:
            process.kill()
            pytest.fail(f'tests/guest_evaluate.py gave no answer in 5 minutes on {case}')
        line = process.stdout.readline()
        assert line, f'tests/guest_evaluate.py stopped: {stderr_path.read_text()[-3000:]}'
        theirs = json.loads(line)
        assert theirs['irmeasures_ext'] is False
        return ours, theirs['results']

    yield results
    assert process.stdin is not None
    process.stdin.close()
    process.wait(timeout=60)


@st.composite
def examples(draw) -> dict:
    """Qrels (a few without a judgment; integer labels, in some real-valued ones too; each line with an intent)
    and a run, as JSON, in one of the forms ir_measures takes (:func:`guest_evaluate.inputs_of`); in half of them
    the query ids are numbers (gdeval.pl reads no other). Each query has a label of at least 0: pytrec_eval hangs,
    crashes or gives arbitrary values on a query judged only with negative labels (with or without the plugin;
    tests/measures/test_property_pytrec_eval.py), and its run has no query without docs (pytrec_eval may crash on
    those)."""
    qrels, run = draw(qrels_and_run(LABELS | REAL_LABELS if draw(st.integers(0, 2)) == 2 else LABELS))
    for docs in qrels.values():
        if max(docs.values()) < 0:
            docs[next(iter(docs))] = 0
    if draw(st.booleans()):
        numbers = {query_id: str(number) for number, query_id in enumerate(sorted({*qrels, *run}), start=1)}
        qrels, run = ({numbers[query_id]: docs for query_id, docs in side.items()} for side in (qrels, run))
    if draw(st.integers(0, 9)) == 9:
        qrels = {}
    return {'qrels': [[query_id, doc_id, label, draw(st.sampled_from(['0', '1']))]
                      for query_id, docs in qrels.items() for doc_id, label in docs.items()],
            'run': [[query_id, doc_id, score] for query_id, docs in run.items() for doc_id, score in docs.items()],
            'form': draw(st.sampled_from(['records', 'generator', 'dict', 'frame']))}


def documented_departure(name: str, case: dict, ours: dict, theirs: dict) -> bool:
    """Whether provider ``name``'s results with the plugin (``ours``) differ from those without (``theirs``) as
    guest.py says they may: our InputError for qrels without a judgment (a DataFrame: for gdeval only; change 5),
    for a real-valued label given to pytrec_eval (for its TypeError, change 8) or to pyndeval (which binarises it,
    change 7), or for what makes gdeval.pl stop (change 8)."""
    if ours.get('error', [None])[0] != 'irmeasures_ext.errors.InputError':
        return False
    if not case['qrels']:
        return case['form'] != 'frame' or name == 'gdeval'
    real = any(not float(label).is_integer() for _, _, label, _ in case['qrels'])
    if name in ('pytrec_eval', 'DefaultPipeline'):
        return real and theirs.get('error') == ['builtins.TypeError', 'Expected relevance to be integer.']
    if name == 'pyndeval':
        return real
    return name == 'gdeval' and theirs.get('error', [None])[0] == 'subprocess.CalledProcessError'


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(examples())
@example({'qrels': [], 'run': [['1', 'a', 1.0]], 'form': 'generator'})
@example({'qrels': [], 'run': [['1', 'a', 1.0]], 'form': 'frame'})
@example({'qrels': [['1', 'a', 0.35, '0'], ['1', 'b', 2, '1']], 'run': [['1', 'a', 1.0], ['1', 'b', 2.0]],
          'form': 'dict'})
def test_providers_give_the_same_values_and_errors_with_and_without_the_plugin(both_sides, case):
    """Every other provider (tests/guest_evaluate.py's MEASURES: ir_measures' own measures) gives the same values,
    per query and aggregated, or the same error (class and message), with the plugin and without, on the same
    input; where not, the difference is one guest.py documents: a refusal, never another number."""
    ours, theirs = both_sides(json.loads(json.dumps(case)))
    for name in guest_evaluate.MEASURES:
        if ours[name] != theirs[name]:
            assert documented_departure(name, case, ours[name], theirs[name]), \
                f'{name}: with the plugin {ours[name]}; without {theirs[name]}'


@pytest.mark.parametrize('kind, columns, ours', [
    ('qrels', ['qid', 'docno', 'label'], True),
    ('qrels', ['label', 'iteration', 'docno', 'qid'], True),  # (other columns beside them, any order)
    ('run', ['qid', 'docno', 'score'], True),
    ('run', ['qid', 'docno', 'score', 'rank', 'query'], True),  # (PyTerrier's result frame)
    ('qrels', ['query_id', 'doc_id', 'relevance'], False),  # (ir_measures' names: its converters read them)
    ('qrels', ['query_id', 'doc_id', 'relevance', 'qid', 'docno', 'label'], False),  # (all of both: ir_measures')
    ('run', ['query_id', 'doc_id', 'score', 'qid', 'docno'], False),
    ('qrels', ['query_id', 'docno', 'relevance'], False),  # (a mix: ir_measures' own error)
    ('qrels', ['qid', 'docno', 'relevance'], False),
    ('qrels', ['qid', 'docno'], False),
    ('qrels', ['qid', 'docno', 'score'], False),  # (a run's names given as qrels)
    ('run', ['query_id', 'docno', 'score'], False),
    ('run', ['qid', 'doc_id', 'score'], False),
    ('run', ['qid', 'docno', 'label'], False),  # (qrels' names given as a run)
])
def test_the_converters_read_a_frame_only_with_all_of_pyterriers_names_and_not_all_of_ir_measures(kind, columns,
                                                                                                   ours):
    import pandas as pd

    from irmeasures_ext import interop
    assert interop.has_pyterrier_columns(pd.DataFrame(columns=columns), kind) is ours


def test_a_frame_mixing_ir_measures_and_pyterriers_names_is_ir_measures_own_error_with_and_without_the_plugin():
    """A DataFrame with some of ir_measures' column names and some of PyTerrier's (``query_id, docno, relevance``, as
    ir_measures' own tests/test_util.py gives one), as qrels or as a run, to ir_measures' converters,
    ``calc_aggregate``, ``iter_calc`` and the pytrec_eval provider: ir_measures' own error (class and message) with
    the plugin as without it (tests/guest_mixed_frames.py in a process where irmeasures_ext never loads)."""
    import guest_mixed_frames
    from ir_measures.util import QrelsConverter
    assert getattr(QrelsConverter.predict_type, guest.MARK, False), 'run the tests with the autoload on'
    ours = json.loads(json.dumps(guest_mixed_frames.outcomes()))
    theirs = json.loads(subprocess.run([sys.executable, HERE / 'guest_mixed_frames.py'], capture_output=True,
                                       text=True, check=True, env=switched_off(), timeout=120).stdout)
    assert ours == theirs
    assert len(ours) == len(guest_mixed_frames.MIXED_QRELS) + len(guest_mixed_frames.MIXED_RUNS)
    for case, results in ours.items():
        kind = case.split()[0]
        for entry, (outcome, error, message) in results.items():
            assert (outcome, error) == ('error', 'builtins.ValueError'), (case, entry)
            assert message.startswith(f'unknown {kind} format: DataFrame missing columns: '), (case, entry, message)


def test_register_is_public_and_idempotent():
    """``irmeasures_ext.register()`` (guest.register) again changes nothing: one provider in the pipeline, the same
    registry entries, wrappers and hooks, not wrapped twice."""
    from ir_measures.providers.fallback_provider import FallbackProvider
    from ir_measures.util import QrelsConverter, RunConverter

    import irmeasures_ext

    def state() -> list:
        return [list(ir_measures.DefaultPipeline.providers), dict(ir_measures.providers.registry),
                dict(ir_measures.measures.registry), QrelsConverter.predict_type, RunConverter.predict_type,
                FallbackProvider._evaluator, sys.excepthook, list(sys.meta_path),
                *(type(provider)._evaluator for provider in ir_measures.providers.registry.values())]

    assert irmeasures_ext.register is guest.register
    before = state()
    irmeasures_ext.register()
    irmeasures_ext.register()
    assert state() == before
    assert [p.NAME for p in ir_measures.DefaultPipeline.providers].count('irmeasures_ext') == 1
    assert ir_measures.irmeasures_ext is irmeasures_ext.provider


SDIST_VARIABLE = 'IRMEASURES_EXT_IR_MEASURES_SDIST'

#: ir_measures' own tests that pass without the plugin and fail with it, on purpose, with the start of their error:
#: the one documented departure (irmeasures_ext.guest's change 5 and its docstring's last paragraph), a refusal of
#: qrels ``[]`` where ir_measures computes nothing or a number from no judgment; never another number.
KNOWN_DEPARTURES = {
    # every provider of ir_measures gives qrels [] no value per query and a mean of NaN for every measure
    'tests/test_providers.py::TestPytrecEval::test_empty': 'irmeasures_ext.errors.InputError: qrels: no records',
    # ir_measures.define's measure hands qrels [] to the user's function: 0.0 for each query, from no judgment
    'tests/test_runtime.py::TestRuntime::test_define': 'irmeasures_ext.errors.InputError: qrels: no records',
}


def extracted_tests(sdist: Path, folder: Path) -> Path:
    """The ``tests/`` of ir_measures' source distribution ``sdist`` (that of the installed version), written to
    ``folder/tests`` alone (not its copy of ir_measures: the installed one is tested), with an empty pytest.ini."""
    prefix = f'ir_measures-{ir_measures.__version__}/tests/'
    if not sdist.is_file():
        pytest.fail(f'{SDIST_VARIABLE}: {sdist}: no such file')
    with tarfile.open(sdist) as archive:
        members = [member for member in archive.getmembers() if member.isfile() and member.name.startswith(prefix)]
        if not any(member.name.endswith('.py') for member in members):
            pytest.fail(f"{sdist} holds no {prefix}*.py: not ir_measures {ir_measures.__version__}'s source "
                        'distribution, or one without its tests')
        for member in members:
            relative = Path('tests', member.name[len(prefix):])
            assert '..' not in relative.parts, member.name
            (folder / relative).parent.mkdir(parents=True, exist_ok=True)
            (folder / relative).write_bytes(archive.extractfile(member).read())  # type: ignore[union-attr]
    (folder / 'pytest.ini').write_text('')
    shutil.copy(HERE / 'guest_outcomes.py', folder)
    return folder


def suite_outcomes(folder: Path, autoload_on: bool, imported: bool) -> dict:
    """ir_measures' suite in ``folder``, run by a fresh pytest with its own (empty) settings: each test's
    outcomes, and what the process had of irmeasures_ext (tests/guest_outcomes.py)."""
    report = folder / f'outcomes-{autoload_on}-{imported}.json'
    env = {key: value for key, value in os.environ.items()
           if key not in (autoload.DISABLE_VARIABLE, 'PYTEST_ADDOPTS', 'PYTHONPATH')}
    env.update(IRMEASURES_EXT_GUEST_OUTCOMES=str(report), IRMEASURES_EXT_GUEST_IMPORT='1' if imported else '0')
    if not autoload_on:
        env[autoload.DISABLE_VARIABLE] = '1'
    result = subprocess.run([sys.executable, '-m', 'pytest', '-q', '-p', 'no:cacheprovider', '-p', 'guest_outcomes',
                             '--continue-on-collection-errors', '-c', 'pytest.ini', '--rootdir', '.', 'tests'],
                            cwd=folder, env=env, capture_output=True, text=True, timeout=900)
    assert result.returncode in (0, 1) and report.exists(), result.stdout[-3000:] + result.stderr[-3000:]
    return json.loads(report.read_text())


@pytest.mark.guest
def test_ir_measures_own_tests_pass_the_same_with_and_without_the_plugin(tmp_path):
    """Runs ir_measures' own test suite (the ``tests/`` of its source distribution, which its wheel lacks: .ci/run
    downloads it from PyPI and names the .tar.gz in IRMEASURES_EXT_IR_MEASURES_SDIST; the tests themselves use no
    network) three times, each in a fresh pytest with ir_measures' settings rather than ours: without the plugin
    (the autoload switched off, no import), with it imported explicitly with the autoload switched off (the
    registrations only), and with it as installed (the autoload on and an import: every change of guest.py).
    Each test's outcome (a failure with its error), each subtest's and each module's that fails to collect must be
    the same in the three runs (a test that needs a tool or a data file the sdist lacks fails alike in each; the
    sdist of 0.4.3 lacks tests/base.py, which test_pytrec_eval.py imports), but for KNOWN_DEPARTURES in the last."""
    sdist = os.environ.get(SDIST_VARIABLE)
    if not sdist:
        pytest.fail(f'{SDIST_VARIABLE} must name the source distribution of ir_measures {ir_measures.__version__} '
                    f'(pip download --no-deps --no-binary :all: ir_measures=={ir_measures.__version__} -d DIR; '
                    '.ci/run does)')
    folder = extracted_tests(Path(sdist), tmp_path)
    without = suite_outcomes(folder, autoload_on=False, imported=False)
    registered = suite_outcomes(folder, autoload_on=False, imported=True)
    installed = suite_outcomes(folder, autoload_on=True, imported=True)
    assert without['state'] == {'loaded': False, 'converters wrapped': False, 'excepthook installed': False}
    assert registered['state'] == {'loaded': True, 'converters wrapped': False, 'excepthook installed': False}
    assert installed['state'] == {'loaded': True, 'converters wrapped': True, 'excepthook installed': True}
    passed = [test for test, outcome in without['outcomes'].items() if outcome == ['call:passed']]
    assert len(passed) >= 10, without['outcomes']
    assert registered['outcomes'] == without['outcomes']
    assert set(installed['outcomes']) == set(without['outcomes'])
    differing = {test: (without['outcomes'][test], outcome) for test, outcome in installed['outcomes'].items()
                 if outcome != without['outcomes'][test]}
    assert set(differing) == set(KNOWN_DEPARTURES), differing
    for test, (before, after) in differing.items():
        assert before == ['call:passed'] and len(after) == 1, (test, before, after)
        assert after[0].startswith(f'call:failed: {KNOWN_DEPARTURES[test]}'), (test, after)
