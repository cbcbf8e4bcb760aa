"""Shared test settings: where the vendored reference data lives (tests/data, see its README), and
the property tests' draws under mutation testing."""
import os
from pathlib import Path

from hypothesis import settings

DATA = Path(__file__).resolve().parent / 'data'
NTCIREVAL = DATA / 'ntcireval'
TREC_EVAL = DATA / 'trec_eval_ours'

# mutmut sets MUTANT_UNDER_TEST in every process it runs the tests in: there the property tests draw
# the same examples each time, so that whether a mutant survives does not depend on the draw.
if 'MUTANT_UNDER_TEST' in os.environ:
    settings.register_profile('mutation-testing', derandomize=True)
    settings.load_profile('mutation-testing')
