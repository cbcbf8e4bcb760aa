"""Shared fixtures: where the reference data (../shared beside the checkout) lives."""
import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get('IRMEASURES_EXT_SHARED', ROOT.parent / 'shared'))
NTCIREVAL = SHARED / 'golden' / 'ntcireval'
TREC_EVAL = SHARED / 'golden' / 'trec_eval'


@pytest.fixture(scope='session')
def shared_dir() -> Path:
    assert SHARED.is_dir(), f'reference data not found at {SHARED} (set IRMEASURES_EXT_SHARED)'
    return SHARED
