"""NTCIREVAL 190111's diversity values (``tests/data/diversity``, ``tests/data/ntcireval_diversity_ours``) keyed
by our measures and how our provider computes them: what the tests of tests/ntcireval/ on the diversity measures
share (the DIN-measures' plain references: din_references.py).

q017's probabilities sum to 0.9000: NTCIREVAL computes with them as they are, and so do we, with a warning
(tests/ntcireval/test_diversity_rules.py compares its values); ``REFUSED`` leaves it out of the inputs and values.
"""
from __future__ import annotations

import csv
import warnings

import ir_measures
from conftest import DATA

import irmeasures_ext
from irmeasures_ext.errors import UnjudgedIntentWarning

DIVERSITY = DATA / 'diversity'
RUN = str(DIVERSITY / 'run.txt')
TOLERANCE = 2e-12  # (NTCIREVAL prints 12 decimals; a #-measure adds the rounding of its two printed parts)
REFUSED = 'q017'
#: NTCIREVAL's (script, printed name) -> our measure (its name, and RBP's persistence: D-NTCIR-eval2 passes 0.99).
OURS = {('D-NTCIR-eval', 'MSnDCG'): 'D_nDCG', ('D-NTCIR-eval', 'Q'): 'D_Q', ('D-NTCIR-eval', 'nERR'): 'D_nERR',
        ('D-NTCIR-eval', 'I-rec'): 'I_rec', ('D-NTCIR-eval', 'D#-nDCG'): 'D_sharp_nDCG',
        ('D-NTCIR-eval', 'D#-Q'): 'D_sharp_Q', ('D-NTCIR-eval', 'ERR'): 'D_ERR', ('D-NTCIR-eval', 'RBP'): 'D_RBP',
        ('D-NTCIR-eval', 'EBR'): 'D_EBR', ('D-NTCIR-eval2', 'RBP'): 'D_RBP(p=0.99)',
        ('D-NTCIR-eval', 'AP'): 'D_AP', ('D-NTCIR-eval', 'P'): 'D_P', ('D-NTCIR-eval', 'Hit'): 'D_Hit',
        ('D-NTCIR-eval', 'nDCG'): 'D_nDCG_JK',
        ('D-NTCIR-eval2', 'D#-ERR'): 'D_sharp_ERR', ('D-NTCIR-eval2', 'D#-RBP'): 'D_sharp_RBP(p=0.99)',
        ('D-NTCIR-eval2', 'D#-EBR'): 'D_sharp_EBR', ('DIN-NTCIR-eval', 'MSnDCG'): 'DIN_nDCG',
        ('DIN-NTCIR-eval', 'Q'): 'DIN_Q',
        ('DIN-NTCIR-eval', 'DIN#-nDCG'): 'DIN_sharp_nDCG', ('DIN-NTCIR-eval', 'DIN#-Q'): 'DIN_sharp_Q',
        ('D-NTCIR-IAeval', 'IA-MSnDCG'): 'IA_MSnDCG', ('D-NTCIR-IAeval', 'IA-nERR'): 'IA_nERR',
        ('D-NTCIR-IAeval2', 'IA-Q'): 'IA_Q', ('D-NTCIR-IAeval2', 'IA-ERR'): 'IA_ERR',
        ('D-NTCIR-IAeval2', 'IA-RBP'): 'IA_RBP', ('D-NTCIR-IAeval2', 'IA-EBR'): 'IA_EBR',
        ('DIN-NTCIR-PQeval', 'PplusQ'): 'PplusQ', ('NEVIAPQ2sharpnev', 'PplusQ#'): 'PplusQ_sharp'}


def read_golden(path=DIVERSITY / 'ntcireval_per_topic.tsv', refused: str = REFUSED) -> dict[tuple[str, str], float]:
    """``{(our measure string, topic): NTCIREVAL's value}`` of every row of an ``ntcireval_per_topic.tsv`` but the
    ``refused`` topic's (a value printed by two scripts must be the same)."""
    golden: dict[tuple[str, str], float] = {}
    with open(path, encoding='utf-8') as lines:
        for row in csv.DictReader(lines, delimiter='\t'):
            name, cutoff = row['measure'].split('@')
            measure = ir_measures.parse_measure(f'{OURS[row["command"], name]}@{int(cutoff)}')
            if row['gamma'] != '-':
                measure = measure(gamma=float(row['gamma']))
            key = (str(measure), row['qid'])
            if row['qid'] != refused:
                assert golden.setdefault(key, float(row['value'])) == float(row['value']), key
    return golden


GOLDEN = read_golden()
#: DIN-NTCIR-eval's lines in ``ntcireval_din_per_topic.tsv`` (``@k`` for the cutoff's) -> (our measure, its line in
#: ``irmeasures-ext ntcireval -I``): gcompute's lines on DIN's gains against the D-measures' ideal list (those
#: without ``@k`` on the list the script cut at K: our measure without a cutoff under the depth cut K; ``nDCG@k`` is
#: Järvelin and Kekäläinen's, as D-NTCIR-eval's), and irec's, which are D-NTCIR-eval's.
DIN_LINES = {'RR': ('DIN_RR', 'DIN-RR'), 'O-measure': ('DIN_O_measure', 'DIN-O-measure'),
             'P-measure': ('DIN_P_measure', 'DIN-P-measure'), 'P-plus': ('DIN_P_plus', 'DIN-P-plus'),
             'AP': ('DIN_AP', 'DIN-AP'), 'Q-measure': ('DIN_Q', 'DIN-Q-measure'),
             'NCUrb,P': ("DIN_NCU(utility='P')", 'DIN-NCUrb,P'), 'NCUrb,BR': ('DIN_NCU', 'DIN-NCUrb,BR'),
             'RBP': ('DIN_RBP', 'DIN-RBP'), 'ERR': ('DIN_ERR', 'DIN-ERR'), 'EBR': ('DIN_EBR', 'DIN-EBR'),
             'I-rec@n': ('I_rec_n', 'I-rec@n'), 'AP@k': ('DIN_AP@k', 'DIN-AP@k'),
             'nDCG@k': ('DIN_nDCG_JK@k', 'DIN-nDCG_JK@k'), 'P@k': ('DIN_P@k', 'DIN-P@k'),
             'RBP@k': ('DIN_RBP@k', 'DIN-RBP@k'), 'ERR@k': ('DIN_ERR@k', 'DIN-ERR@k'),
             'nERR@k': ('DIN_nERR@k', 'DIN-nERR@k'), 'EBR@k': ('DIN_EBR@k', 'DIN-EBR@k'),
             'Hit@k': ('DIN_Hit@k', 'DIN-Hit@k'), 'I-rec@k': ('I_rec@k', 'I-rec@k')}


def din_rows() -> list[dict[str, str]]:
    """The rows of ``ntcireval_din_per_topic.tsv``, each with ``line``: its printed name with ``@k``."""
    with open(DIVERSITY / 'ntcireval_din_per_topic.tsv', encoding='utf-8') as lines:
        rows = list(csv.DictReader(lines, delimiter='\t'))
    assert rows and all(row['command'] == 'DIN-NTCIR-eval' and row['gamma'] == '-' for row in rows)
    return [{**row, 'line': row['measure'].replace(f'@{int(row["cutoff"]):04d}', '@k')} for row in rows]


def read_din_golden(refused: str = REFUSED) -> dict[int, dict[tuple[str, str], float]]:
    """``{K: {(our measure string, topic): NTCIREVAL's value}}`` of ``ntcireval_din_per_topic.tsv`` but the
    ``refused`` topic's."""
    golden: dict[int, dict[tuple[str, str], float]] = {}
    for row in din_rows():
        measure = ir_measures.parse_measure(DIN_LINES[row['line']][0].replace('@k', f'@{row["cutoff"]}'))
        if row['qid'] != refused:
            assert golden.setdefault(int(row['cutoff']), {}).setdefault(
                (str(measure), row['qid']), float(row['value'])) == float(row['value']), row
    return golden


DIN_GOLDEN = read_din_golden()


def without_refused(path, tmp_path) -> str:
    """A copy of an input file without q017's lines."""
    copy = tmp_path / path.name
    copy.write_text(''.join(line for line in path.read_text(encoding='utf-8').splitlines(keepends=True)
                            if not line.startswith(f'{REFUSED} ')), encoding='utf-8')
    return str(copy)


def evaluate(measures, qrels, run=RUN, **configured) -> dict[tuple[str, str], float]:
    provider = irmeasures_ext.provider.configured(**configured) if configured else irmeasures_ext.provider
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', UnjudgedIntentWarning)
        evaluator = provider.evaluator([ir_measures.parse_measure(str(m)) for m in measures], qrels)
    return {(str(m.measure), m.query_id): m.value for m in evaluator.iter_calc(run)}


def mismatches(values: dict, golden: dict) -> list:
    return [(key, values.get(key), value) for key, value in golden.items()
            if key not in values or abs(values[key] - value) > TOLERANCE]


#: The diversity mode's names (``irmeasures-ext ntcireval -I``) and NTCIREVAL's (script, printed name) of each.
NTCIREVAL_LINES = {'I-rec': ('D-NTCIR-eval', 'I-rec'), 'D-nDCG': ('D-NTCIR-eval', 'MSnDCG'),
                   'D-Q': ('D-NTCIR-eval', 'Q'), 'D-nERR': ('D-NTCIR-eval', 'nERR'), 'D-ERR': ('D-NTCIR-eval', 'ERR'),
                   'D-RBP': ('D-NTCIR-eval2', 'RBP'), 'D-EBR': ('D-NTCIR-eval', 'EBR'),
                   'D-AP': ('D-NTCIR-eval', 'AP'), 'D-P': ('D-NTCIR-eval', 'P'), 'D-Hit': ('D-NTCIR-eval', 'Hit'),
                   'D-nDCG_JK': ('D-NTCIR-eval', 'nDCG'),
                   'D#-nDCG': ('D-NTCIR-eval', 'D#-nDCG'), 'D#-Q': ('D-NTCIR-eval', 'D#-Q'),
                   'D#-ERR': ('D-NTCIR-eval2', 'D#-ERR'), 'D#-RBP': ('D-NTCIR-eval2', 'D#-RBP'),
                   'D#-EBR': ('D-NTCIR-eval2', 'D#-EBR'),
                   'DIN-nDCG': ('DIN-NTCIR-eval', 'MSnDCG'), 'DIN-Q': ('DIN-NTCIR-eval', 'Q'),
                   'DIN#-nDCG': ('DIN-NTCIR-eval', 'DIN#-nDCG'), 'DIN#-Q': ('DIN-NTCIR-eval', 'DIN#-Q'),
                   **{line.split('@')[0]: ('DIN-NTCIR-eval', theirs.split('@')[0]) for theirs, (_, line) in
                      DIN_LINES.items() if line.startswith('DIN-') and line.endswith('@k')},
                   'IA-MSnDCG': ('D-NTCIR-IAeval', 'IA-MSnDCG'), 'IA-nERR': ('D-NTCIR-IAeval', 'IA-nERR'),
                   'IA-Q': ('D-NTCIR-IAeval2', 'IA-Q'), 'IA-ERR': ('D-NTCIR-IAeval2', 'IA-ERR'),
                   'IA-EBR': ('D-NTCIR-IAeval2', 'IA-EBR'), 'PplusQ': ('DIN-NTCIR-PQeval', 'PplusQ'),
                   'PplusQ#': ('NEVIAPQ2sharpnev', 'PplusQ#')}


OURS_DATA = DATA / 'ntcireval_diversity_ours'


def gcompute_rows() -> list[dict[str, str]]:
    with open(OURS_DATA / 'ntcireval_gcompute_per_topic.tsv', encoding='utf-8') as lines:
        return list(csv.DictReader(lines, delimiter='\t'))

