"""NTCIREVAL 190111's per-topic values for every ad hoc measure and mode (``tests/data/ntcireval_full``).

``golden()`` gives each (mode, NTCIREVAL measure name, gains, beta, cutoff) its ``{qid: value}``;
``gains`` and ``beta`` are None where the row stands for any setting (``-`` in the file) and
``cutoff`` is None for a measure without one. See ``tests/data/ntcireval_full/README.md``.
"""
from __future__ import annotations

import csv
import functools
import gzip
from typing import NamedTuple

from conftest import DATA

FOLDER = DATA / 'ntcireval_full'
QRELS, RUN = FOLDER / 'qrels.txt', FOLDER / 'run.txt'
EC_QRELS, EC_RUN = FOLDER / 'eqrels.txt', FOLDER / 'erun.txt'

#: The two gain mappings of the golden data, as ``gains`` for our measures (1:2:3 is the default).
GAINS = {'1:2:3': {1: 1, 2: 2, 3: 3}, '1:3:7': {1: 1, 2: 3, 3: 7}}


class Setting(NamedTuple):
    """One golden row's key: mode, NTCIREVAL's name without the cutoff (``AP@0010`` is ``AP``), gains
    (``'1:2:3'``, ``'1:3:7'`` or None for any), beta (float or None for any) and cutoff (int or None)."""

    mode: str
    measure: str
    gains: str | None
    beta: float | None
    cutoff: int | None


@functools.cache
def golden() -> dict[Setting, dict[str, float]]:
    """Every golden value by its setting and topic."""
    values: dict[Setting, dict[str, float]] = {}
    with gzip.open(FOLDER / 'golden_per_topic.tsv.gz', 'rt', newline='') as file:
        for row in csv.DictReader(file, delimiter='\t'):
            setting = Setting(row['mode'], row['measure'].split('@')[0], _or_none(row['gains']),
                              None if row['beta'] == '-' else float(row['beta']),
                              None if row['cutoff'] == '-' else int(row['cutoff']))
            values.setdefault(setting, {})[row['qid']] = float(row['value'])
    return values


@functools.cache
def undefined() -> dict[str, frozenset[str]]:
    """The topics NTCIREVAL prints nothing for, by mode."""
    topics: dict[str, set[str]] = {}
    with open(FOLDER / 'undefined_topics.tsv', newline='') as file:
        for row in csv.DictReader(file, delimiter='\t'):
            topics.setdefault(row['mode'], set()).add(row['qid'])
    return {mode: frozenset(qids) for mode, qids in topics.items()}


def settings(mode: str, measure: str) -> list[Setting]:
    """The golden settings of one NTCIREVAL measure in one mode."""
    return [setting for setting in golden() if setting.mode == mode and setting.measure == measure]


def _or_none(text: str) -> str | None:
    return None if text == '-' else text
