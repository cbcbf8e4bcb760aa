"""The suite tests what users install: the installed package, holding every file the checkout tracks for it.

tests/conftest.py takes the checkout off ``sys.path`` (``python -m pytest`` puts the working directory
first) and runs the tests in an empty folder; these tests check that it worked, and that the package
data a user gets is complete, both in the environment under test and in a wheel built from the
tracked files.
"""
import importlib.metadata
import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from conftest import ROOT

import irmeasures_ext

PACKAGE = 'irmeasures_ext'


def is_editable_install() -> bool:
    """Whether irmeasures-ext is installed in development mode (``pip install -e``: the checkout is the install)."""
    direct_url = importlib.metadata.distribution('irmeasures-ext').read_text('direct_url.json')
    return bool(direct_url and json.loads(direct_url).get('dir_info', {}).get('editable'))


def tracked_files() -> list[str]:
    """The files git tracks in the checkout, as paths relative to it."""
    listed = subprocess.run(['git', 'ls-files', '-z'], cwd=ROOT, capture_output=True, check=True).stdout
    return [name for name in listed.decode().split('\0') if name]


def tracked_package_data() -> list[str]:
    """The tracked files of the package that are not Python modules: what package_data must ship."""
    files = [name for name in tracked_files() if name.startswith(f'{PACKAGE}/') and not name.endswith('.py')]
    assert f'{PACKAGE}/datasets/metadata.json' in files and f'{PACKAGE}/py.typed' in files
    return files


def test_the_checkout_is_not_on_sys_path():
    assert ROOT not in [Path(entry or '.').resolve() for entry in sys.path]
    assert Path.cwd().resolve() != ROOT


def test_the_package_is_imported_from_its_install():
    imported = Path(irmeasures_ext.__file__).resolve()
    if is_editable_install():  # the checkout is what is installed
        assert imported == ROOT / PACKAGE / '__init__.py'
    else:
        installed = Path(importlib.metadata.distribution('irmeasures-ext').locate_file(f'{PACKAGE}/__init__.py'))
        assert imported == installed.resolve()
        assert not imported.is_relative_to(ROOT / PACKAGE), f'{PACKAGE} imported from the checkout, not its install'


def test_every_tracked_package_file_is_installed():
    installed_root = Path(irmeasures_ext.__file__).resolve().parents[1]
    missing = [name for name in tracked_package_data() if not (installed_root / name).is_file()]
    assert not missing, f'tracked but not installed (setup.cfg [options.package_data]): {missing}'


@pytest.mark.slow
def test_a_wheel_built_from_the_tracked_files_holds_them(tmp_path):
    """``pip wheel`` of a copy of the tracked files (as a fresh clone has them), offline."""
    project = tmp_path / 'project'
    for name in tracked_files():
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, project / name)
    subprocess.run([sys.executable, '-m', 'pip', 'wheel', '--quiet', '--no-deps', '--no-build-isolation',
                    '--wheel-dir', tmp_path / 'wheels', project], check=True, timeout=300)
    [wheel] = (tmp_path / 'wheels').glob('*.whl')
    names = set(zipfile.ZipFile(wheel).namelist())
    tracked_modules = [name for name in tracked_files() if name.startswith(f'{PACKAGE}/') and name.endswith('.py')]
    assert not [name for name in tracked_package_data() + tracked_modules if name not in names]
