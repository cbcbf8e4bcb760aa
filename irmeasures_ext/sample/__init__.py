"""A small graded sample (20 queries) shipped with the package for the README's first command."""
from pathlib import Path

QRELS = Path(__file__).with_name('qrels.txt')
RUN = Path(__file__).with_name('run.txt')
