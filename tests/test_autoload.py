"""The autoload module in this interpreter: post-import actions (installed copies: test_autoload_installed.py)."""
import sys

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
