"""Shared test settings: the tests run against the installed package, outside the checkout; where the
vendored reference data lives (tests/data, see its README); the property tests' draws under mutation
testing."""
import os
import sys
import tempfile
from pathlib import Path

from hypothesis import settings

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / 'tests' / 'data'
NTCIREVAL = DATA / 'ntcireval'
TREC_EVAL = DATA / 'trec_eval_ours'

# mutmut sets MUTANT_UNDER_TEST in every process it runs the tests in: there the property tests draw
# the same examples each time, so that whether a mutant survives does not depend on the draw. mutmut
# also puts its mutated copy of the checkout first on sys.path, which must stay there.
UNDER_MUTMUT = 'MUTANT_UNDER_TEST' in os.environ or 'mutmut' in sys.modules
if 'MUTANT_UNDER_TEST' in os.environ:
    settings.register_profile('mutation-testing', derandomize=True)
    settings.load_profile('mutation-testing')

# `python -m pytest` puts the working directory (the checkout) first on sys.path, where it would shadow
# the installed package: the tests import what users install (tests/install/test_installed_package.py).
if not UNDER_MUTMUT:
    sys.path[:] = [entry for entry in sys.path if Path(entry or '.').resolve() != ROOT]


def pytest_configure(config):
    """Runs the tests in an empty folder, which child Pythons (``-c``, ``-m``) put first on their sys.path,
    and leaves the checkout as it was."""
    if UNDER_MUTMUT:
        return
    folder = tempfile.TemporaryDirectory(prefix='irmeasures-ext-tests-')
    previous = os.getcwd()
    os.chdir(folder.name)

    def restore() -> None:
        os.chdir(previous)
        folder.cleanup()
    config.add_cleanup(restore)
