"""The autoload module in this interpreter: post-import actions (installed copies: test_autoload_installed.py)."""
import sys
from pathlib import Path

import pytest


def test_call_after_import_runs_once_and_never_breaks_the_import(tmp_path, monkeypatch):
    from irmeasures_ext import autoload
    for name in ('late_module_ok', 'late_module_broken'):
        (tmp_path / f'{name}.py').write_text('VALUE = 1\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    calls = []
    autoload.call_after_import('late_module_ok', lambda: calls.append('ok'), 'counting')
    autoload.call_after_import('late_module_broken', lambda: 1 / 0, 'dividing')
    assert calls == []
    import late_module_ok  # noqa: F401
    with pytest.warns(RuntimeWarning, match='dividing after importing late_module_broken failed: ZeroDivisionError'):
        import late_module_broken
    assert late_module_broken.VALUE == 1 and calls == ['ok']
    assert not any(getattr(f, 'triggers', set()) & {'late_module_ok', 'late_module_broken'}
               for f in sys.meta_path)  # both finders are gone
    autoload.call_after_import('late_module_ok', lambda: calls.append('now'), 'counting')  # already imported
    assert calls == ['ok', 'now']
    for name in ('late_module_ok', 'late_module_broken'):
        sys.modules.pop(name)


@pytest.mark.parametrize('value, off', [('1', True), ('True', True), (' yes ', True), ('ON', True),
                                        ('0', False), ('false', False), ('', False), ('no', False)])
def test_switch_values(monkeypatch, value, off):
    from irmeasures_ext import autoload
    monkeypatch.setenv(autoload.DISABLE_VARIABLE, value)
    assert autoload.disabled() is off


def test_autoload_imports_nothing_of_the_package():
    """The hook module is a leaf (no import circle): it loads the package by name, never imports it."""
    import ast
    from pathlib import Path

    from irmeasures_ext import autoload
    tree = ast.parse(Path(autoload.__file__).read_text(encoding='utf-8'))
    modules = [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
    modules += [node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    assert modules and not [name for name in modules if name.startswith('irmeasures_ext')]
    assert autoload.PACKAGE == 'irmeasures_ext'


def test_declarations_import_nothing_ir_measures_does_not():
    """What the hook loads on ``import ir_measures`` (the package and its measure declarations) imports
    no module beyond ir_measures' own: every other one would cost each ``import ir_measures``."""
    import os
    import subprocess
    import sys

    from irmeasures_ext import autoload
    script = ('import sys; import ir_measures; before = set(sys.modules); import irmeasures_ext; '
              'print(" ".join(sorted(set(sys.modules) - before)))')
    env = {**os.environ, autoload.DISABLE_VARIABLE: '1'}
    added = subprocess.run([sys.executable, '-c', script], env=env, capture_output=True, text=True, check=True,
                           timeout=120).stdout.split()
    assert 'irmeasures_ext.measures.q' in added
    # (__future__, for our modules' `from __future__ import annotations`, is a module of a few lines.)
    assert [name for name in added if name.split('.')[0] not in ('irmeasures_ext', '__future__')] == []


def test_submodules_are_attributes_imported_on_first_use():
    """``irmeasures_ext.frames`` and ``irmeasures_ext.datasets`` (README) after a plain ``import irmeasures_ext``,
    which imports neither."""
    import subprocess
    import sys
    script = ('import sys, irmeasures_ext; loaded = {"frames", "datasets"} & {m.split(".")[1] for m in sys.modules '
              'if m.startswith("irmeasures_ext.")}; print(sorted(loaded)); '
              'print(irmeasures_ext.frames.evaluate_frame.__name__, '
              '      irmeasures_ext.datasets.remove_citing_papers.__name__); '
              'print("frames" in dir(irmeasures_ext)); irmeasures_ext.nonexistent')
    result = subprocess.run([sys.executable, '-c', script], capture_output=True, text=True, timeout=120)
    assert result.stdout.splitlines() == ['[]', 'evaluate_frame remove_citing_papers', 'True']
    assert result.stderr.splitlines()[-1] == "AttributeError: module 'irmeasures_ext' has no attribute 'nonexistent'"


BAD_INPUTS = {  # (qrels, run, measure, what the plain ir_measures command prints)
    'conflicting qrels labels': ('q 0 a 1\nq 0 b 0\nq 0 a 2\n', 'q Q0 a 1 3 r\n', 'Q@10',
                                 "{qrels}:3: conflicting labels for doc 'a' in query 'q': 2 here, 1 at line 1"),
    'a duplicate doc in the run': ('q 0 a 1\n', 'q Q0 a 1 3 r\nq Q0 b 2 2 r\nq Q0 a 3 1 r\n', 'Q@10',
                                   "{run}:3: duplicate doc 'a' in query 'q' (first at line 1)"),
    'an overflowing gain': ('q 0 a 99999999999\n', 'q Q0 a 1 3 r\n', 'nDCG_Z1@5',
                            "{qrels}:1: nDCG_Z1@5: values overflow 64-bit floats in query 'q' (labels, gains or beta "
                            "too large; its highest label: 99999999999 for doc 'a')"),
}


@pytest.mark.parametrize('case', sorted(BAD_INPUTS))
@pytest.mark.parametrize('command', [['ir_measures'], [sys.executable, '-m', 'ir_measures']])
def test_the_ir_measures_command_prints_our_input_errors_as_one_line(tmp_path, case, command):
    """The plain ``ir_measures`` command (the hook loads our provider for Q@10) reads the files itself and has no
    error handling: a bad input our provider refuses is one line naming file and line, not a traceback."""
    import shutil
    import subprocess
    if command == ['ir_measures']:
        command = [shutil.which('ir_measures', path=str(Path(sys.executable).parent)) or 'ir_measures']
    qrels_text, run_text, measure, message = BAD_INPUTS[case]
    qrels, run = tmp_path / 'qrels.txt', tmp_path / 'run.txt'
    qrels.write_text(qrels_text)
    run.write_text(run_text)
    result = subprocess.run([*command, '-p', '3', str(qrels), str(run), measure], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode != 0 and result.stdout == ''
    assert result.stderr.splitlines() == [f'ir_measures: error: {message.format(qrels=qrels, run=run)}']


def test_other_programs_keep_their_tracebacks():
    import subprocess
    script = 'import ir_measures, irmeasures_ext; raise irmeasures_ext.InputError("bad")'
    result = subprocess.run([sys.executable, '-c', script], capture_output=True, text=True, timeout=120)
    assert result.stderr.splitlines()[0] == 'Traceback (most recent call last):'
    assert result.stderr.splitlines()[-1] == 'irmeasures_ext.errors.InputError: bad'
