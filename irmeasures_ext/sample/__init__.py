"""A small graded sample (20 queries) shipped with the package for the README's first command, and the
judging-the-judges sample (``judges/``: three judgement sets of 30 queries and a folder of ten runs; written by
``notebooks/make_judges_sample.py``)."""
from pathlib import Path

QRELS = Path(__file__).with_name('qrels.txt')
RUN = Path(__file__).with_name('run.txt')
JUDGES = Path(__file__).with_name('judges')
