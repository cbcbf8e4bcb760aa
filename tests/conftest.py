"""Shared test settings: where the vendored reference data lives (tests/data, see its README)."""
from pathlib import Path

DATA = Path(__file__).resolve().parent / 'data'
NTCIREVAL = DATA / 'ntcireval'
TREC_EVAL = DATA / 'trec_eval'
