"""The autoload hook, tested on installed copies (pip, offline) in throw-away virtual environments
(marked slow: deselected by the default test command, run by .ci/run).

Each environment sees this interpreter's packages (ir_measures, numpy, ...) through a plain path
line in a ``.pth`` file, pointing to a folder of links to them that leaves out irmeasures_ext
itself: only the copy installed by the test can load it, and no other ``.pth`` file runs.
"""
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import ir_measures
import pytest

from irmeasures_ext.sample import QRELS, RUN

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
PROJECT_FILES = ['setup.py', 'setup.cfg', 'pyproject.toml', 'README.md']
PTH = 'irmeasures_ext-autoload.pth'
HOOK = '_irmeasures_ext_autoload'


def version(distribution: str) -> tuple[int, ...] | None:
    try:
        return tuple(int(part) for part in re.findall(r'\d+', importlib.metadata.version(distribution))[:2])
    except importlib.metadata.PackageNotFoundError:
        return None


def can_build_wheels_offline() -> bool:
    """``pip install --no-build-isolation`` needs setuptools >= 70.1 (bdist_wheel built in), or >= 64 and wheel."""
    setuptools = version('setuptools')
    if setuptools is None:
        return False
    return setuptools >= (70, 1) or (setuptools >= (64, 0) and version('wheel') is not None)


def test_this_interpreter_can_build_wheels_offline():
    """The install tests below need it; the test extra pins setuptools>=70.1 for that."""
    assert can_build_wheels_offline(), 'install setuptools>=70.1 (or setuptools>=64 and wheel)'


def clean_env(**extra: str) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ('PYTHONPATH', 'PYTHONHOME', 'PYTHONSTARTUP', 'IRMEASURES_EXT_NO_AUTOLOAD')}
    env.update(PIP_NO_INDEX='1', PIP_DISABLE_PIP_VERSION_CHECK='1', PYTHONNOUSERSITE='1', **extra)
    return env


@pytest.fixture(scope='module')
def dependencies(tmp_path_factory) -> Path:
    """Links to the packages this interpreter can import (its site-packages folders on sys.path), except
    irmeasures_ext and every ``.pth`` file."""
    folder = tmp_path_factory.mktemp('dependencies')
    for site_dir in [Path(p) for p in sys.path if Path(p).name in ('site-packages', 'dist-packages')]:
        for entry in site_dir.iterdir():
            ours = entry.name.startswith(('irmeasures_ext', '_irmeasures_ext', '__editable__'))
            if not ours and entry.suffix != '.pth' and not (folder / entry.name).exists():
                (folder / entry.name).symlink_to(entry)
    return folder


class Venv:
    """A virtual environment without pip that finds the ``dependencies`` through a plain path entry."""

    def __init__(self, root: Path, dependencies: Path) -> None:
        self.root = root
        subprocess.run([sys.executable, '-m', 'venv', '--without-pip', root / 'venv'], check=True, timeout=60)
        self.python = root / 'venv' / 'bin' / 'python'
        self.site_packages = Path(self.run('-c', 'import sysconfig; print(sysconfig.get_paths()["purelib"])').strip())
        (self.site_packages / '_test_dependencies.pth').write_text(f'{dependencies}\n')

    def run(self, *args: object, **env: str) -> str:
        """Runs the environment's python with ``args``; returns its standard output."""
        return self.completed(*args, **env).stdout

    def completed(self, *args: object, **env: str) -> subprocess.CompletedProcess:
        result = subprocess.run([self.python, *map(str, args)], capture_output=True, text=True, cwd=self.root,
                                env=clean_env(**env), timeout=120)
        assert result.returncode == 0, result.stderr
        return result

    def install(self, *pip_args: str) -> Path:
        """Installs a copy of the project (pip offline, no dependencies); returns the copy."""
        project = self.root / 'project'
        shutil.copytree(ROOT / 'irmeasures_ext', project / 'irmeasures_ext',
                        ignore=shutil.ignore_patterns('__pycache__'))
        for name in PROJECT_FILES:
            if (ROOT / name).exists():
                shutil.copy(ROOT / name, project / name)
        self.run('-m', 'pip', 'install', '--quiet', '--no-deps', '--no-build-isolation', *pip_args, project)
        return project


@pytest.fixture(scope='module')
def venv(tmp_path_factory, dependencies) -> Venv:
    venv = Venv(tmp_path_factory.mktemp('wheel-install'), dependencies)
    venv.install()
    return venv


def test_wheel_puts_hook_and_pth_in_site_packages(venv):
    assert (venv.site_packages / PTH).read_text() == f'import {HOOK}; {HOOK}.install()\n'
    assert (venv.site_packages / f'{HOOK}.py').read_text() == (ROOT / 'irmeasures_ext' / 'autoload.py').read_text()


def test_start_up_imports_only_the_hook(venv):
    script = 'import sys; print(" ".join(sorted(sys.modules)))'
    with_hook = set(venv.run('-c', script).split())
    pth = venv.site_packages / PTH
    pth.rename(pth.with_suffix('.off'))
    try:
        without_hook = set(venv.run('-c', script).split())
    finally:
        pth.with_suffix('.off').rename(pth)
    assert with_hook - without_hook == {HOOK}
    timings = venv.completed('-X', 'importtime', '-c', 'pass').stderr
    cumulative_us = int(re.search(rf'\|\s*(\d+) \|\s+{HOOK}$', timings, re.MULTILINE).group(1))
    assert cumulative_us < 5000


def test_plain_ir_measures_import_loads_us(venv):
    out = venv.run('-c', 'import sys, ir_measures; print(ir_measures.parse_measure("Q(beta=0.5)@10")); '
                         'print(sys.modules["irmeasures_ext"].__file__); '
                         'print(ir_measures.providers.registry["irmeasures_ext"].NAME); '
                         'print(ir_measures.DefaultPipeline.providers[-1].NAME); '
                         'print(type(ir_measures.__spec__.loader).__name__, type(ir_measures.__loader__).__name__); '
                         'ours = lambda: [(f.IRMEASURES_EXT_AUTOLOAD, sorted(f.triggers)) for f in sys.meta_path '
                         '                if hasattr(f, "IRMEASURES_EXT_AUTOLOAD")]; '
                         'print(ours(), "ir_datasets" in sys.modules); '
                         'import ir_datasets; print(ours(), "quoter/english/test" in ir_datasets.registry)'
                         ).splitlines()
    assert out[0] == 'Q(beta=0.5)@10'
    assert Path(out[1]).is_relative_to(venv.site_packages)
    assert out[2:4] == ['irmeasures_ext', 'irmeasures_ext']
    assert out[4] == 'SourceFileLoader SourceFileLoader'  # the wrapping loader is gone again
    # The autoload finder is gone too; one waits for ir_datasets, which evaluating does not import...
    assert out[5] == "[(False, ['ir_datasets'])] False"
    # ... and registers our datasets when it is imported, then leaves.
    assert out[6] == '[] True'


@pytest.mark.parametrize('how', ['python -m ir_measures', 'ir_measures script'])
def test_ir_measures_command_knows_our_measures(venv, how):
    entry = ['-m', 'ir_measures'] if how == 'python -m ir_measures' else [
        '-c', 'from ir_measures.__main__ import main_cli; main_cli()']
    out = venv.run(*entry, QRELS, RUN, 'Q@10 nDCG_Z1@5 MedianRank')
    measures = [ir_measures.parse_measure(m) for m in ['Q@10', 'nDCG_Z1@5', 'MedianRank']]
    expected = ir_measures.providers.registry['irmeasures_ext'].calc_aggregate(measures, QRELS, RUN)
    assert out.splitlines() == [f'{m}\t{v:.4f}' for m, v in expected.items()]


def test_ir_datasets_import_loads_us(venv):
    out = venv.run('-c', 'import sys, ir_datasets; print("irmeasures_ext" in sys.modules); '
                         'import ir_measures; print("Q" in ir_measures.measures.registry)')
    assert out.split() == ['True', 'True']


def test_importing_us_first_works(venv):
    out = venv.run('-c', 'import irmeasures_ext, ir_measures; print(ir_measures.parse_measure("nDCG_Z1@5"))')
    assert out.strip() == 'nDCG_Z1@5'


@pytest.mark.parametrize('value, loaded', [('1', False), ('TRUE', False), ('yes', False), ('on', False),
                                            ('0', True), ('false', True), ('', True), ('off', True)])
def test_switch_off(venv, value, loaded):
    out = venv.run('-c', 'import sys, ir_measures; print("irmeasures_ext" in sys.modules)',
                   IRMEASURES_EXT_NO_AUTOLOAD=value)
    assert out.strip() == str(loaded)


def test_editable_install_and_uninstall(tmp_path, dependencies):
    venv = Venv(tmp_path, dependencies)
    project = venv.install('--editable')
    assert (venv.site_packages / PTH).exists()
    out = venv.run('-c', 'import sys, ir_measures; ir_measures.parse_measure("Q@10"); '
                         'print(sys.modules["irmeasures_ext"].__file__)')
    assert Path(out.strip()) == project / 'irmeasures_ext' / '__init__.py'
    venv.run('-m', 'pip', 'uninstall', '--yes', '--quiet', 'irmeasures-ext')
    assert not (venv.site_packages / PTH).exists() and not (venv.site_packages / f'{HOOK}.py').exists()
