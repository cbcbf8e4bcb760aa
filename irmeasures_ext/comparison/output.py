"""The comparison table as tsv, jsonl, markdown or LaTeX, and the measures report as tsv, jsonl or
markdown.

Markdown and LaTeX give the table a paper prints: a row per run, a column per measure, the best
mean of each measure in bold, and significance marks explained in a caption line. Against a
baseline, † marks a run significantly better than the baseline and ‡ one significantly worse;
with all pairs, a run's superscript letters name the runs it is significantly better than.
"""
from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import IO, Any

import numpy as np
import pandas as pd

from irmeasures_ext.comparison.choices import CORRECTIONS, TESTS
from irmeasures_ext.comparison.report import MeasuresReport
from irmeasures_ext.errors import ComparisonError

P_COLUMNS = ('p_value', 'p_adjusted')
BETTER, WORSE = '†', '‡'


def _missing(value: Any) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def _number(value: Any, places: int, p_value: bool = False) -> str:
    if _missing(value):
        return ''
    if isinstance(value, (int, np.integer)):
        return str(value)
    if places == -1:
        return repr(float(value))
    return format(float(value), f'.{max(places, 1)}g' if p_value else f'.{places}f')


def write_tsv(out: IO[str], table: pd.DataFrame, places: int) -> None:
    """A header line, then a line per row; missing values are empty fields; p-values keep ``places``
    significant digits, other numbers ``places`` decimals (-1: all digits)."""
    columns = list(table.columns)
    out.write('\t'.join(columns) + '\n')
    for row in table.itertuples(index=False):
        fields = []
        for column, value in zip(columns, row, strict=True):
            if column in ('run', 'measure', 'baseline'):
                fields.append('' if _missing(value) else str(value))
            else:
                fields.append(_number(value, places, column in P_COLUMNS))
        out.write('\t'.join(fields) + '\n')


def write_jsonl(out: IO[str], table: pd.DataFrame, places: int = -1) -> None:
    """One JSON object per row with the table's columns as keys (the comparison's, and the holes' if asked for);
    missing values are null."""
    for record in table.to_dict('records'):
        out.write(json.dumps({key: _json_value(value) for key, value in record.items()}) + '\n')


def _json_value(value: Any) -> Any:
    if _missing(value):
        return None
    if hasattr(value, 'item'):
        value = value.item()
    return value


def _caption(table: pd.DataFrame, names: list[str], letters: dict[str, str] | None) -> str:
    options = table.attrs
    test = TESTS.get(options.get('test', ''), options.get('test', '?'))
    correction = CORRECTIONS.get(options.get('correction', ''), '')
    alpha = options.get('alpha', 0.05)
    level = f'{test}{", " + correction if correction and options.get("test") != "tukey-hsd" else ""}, ' \
            f'p < {alpha:g}'
    lower = options.get('lower_is_better', [])
    aggregates = options.get('aggregates', {})
    other = '; '.join(f'{kind}s for {", ".join(m for m, k in aggregates.items() if k == kind)}'
                      for kind in dict.fromkeys(aggregates.values()))
    parts = [f'Means{" (" + other + ")" if other else ""} over {options.get("queries", "the")} queries; '
             'best in bold.']
    if letters is None:
        baseline = table['baseline'].dropna().iloc[0] if table['baseline'].notna().any() else names[0]
        parts.append(f'{BETTER} / {WORSE}: significantly better / worse than {baseline} ({level}).')
    else:
        legend = ', '.join(f'{letter}: {name}' for name, letter in letters.items())
        parts.append(f'Superscripts: significantly better than that run ({legend}; {level}).')
    if lower:
        parts.append(f'Lower is better for {", ".join(lower)}.')
    return ' '.join(parts)


def paper_cells(table: pd.DataFrame, places: int, mark: Callable[[str], str],
                bold: Callable[[str], str]) -> tuple[list[str], list[str], dict[str, list[str]], dict[str, str] | None]:
    """(measures, runs, cells per run, letters or None): each cell the run's mean, bold when best,
    with its significance marks (formatted by ``mark``)."""
    measures = list(dict.fromkeys(table['measure']))
    names = list(dict.fromkeys(table['run']))
    letters = {name: chr(ord('a') + i) for i, name in enumerate(names)} if table.attrs.get('all_pairs') else None
    alpha = table.attrs.get('alpha', 0.05)
    lower = set(table.attrs.get('lower_is_better', []))
    marks: dict[tuple[str, str], str] = {}
    for row in table[table['baseline'].notna()].itertuples(index=False):
        if _missing(row.p_adjusted) or row.p_adjusted >= alpha or row.diff == 0:
            continue
        run_better = (row.diff < 0) if row.measure in lower else (row.diff > 0)
        if letters is None:
            marks[row.run, row.measure] = marks.get((row.run, row.measure), '') + (BETTER if run_better else WORSE)
        else:  # the better run of the pair gets the other's letter
            winner, loser = (row.run, row.baseline) if run_better else (row.baseline, row.run)
            marks[winner, row.measure] = marks.get((winner, row.measure), '') + letters[loser]
    means = table.drop_duplicates(['run', 'measure']).set_index(['run', 'measure'])['mean']
    cells: dict[str, list[str]] = {name: [] for name in names}
    for measure in measures:
        column = means.xs(measure, level='measure')
        best = column.min() if measure in lower else column.max()
        for name in names:
            value = column[name]
            text = '–' if _missing(value) else _number(value, 4 if places == -1 else places)
            if not _missing(value) and value == best:
                text = bold(text)
            found = ''.join(sorted(marks.get((name, measure), '')))
            cells[name].append(text + (mark(found) if found else ''))
    return measures, names, cells, letters


def write_markdown(out: IO[str], table: pd.DataFrame, places: int) -> None:
    """The paper table in Markdown (GitHub's ``<sup>`` for letters), then the caption line."""
    def mark(marks: str) -> str:
        return f'<sup>{marks}</sup>' if table.attrs.get('all_pairs') else marks
    measures, names, cells, letters = paper_cells(table, places, mark, lambda text: f'**{text}**')
    out.write('| ' + ' | '.join(map(markdown_escape, ['run', *measures])) + ' |\n')
    out.write('| --- |' + ' ---: |' * len(measures) + '\n')
    for name in names:
        label = f'({letters[name]}) {name}' if letters else name
        out.write('| ' + ' | '.join(map(markdown_escape, [label, *cells[name]])) + ' |\n')
    out.write('\n' + _caption(table, names, letters) + '\n')


def markdown_escape(text: str) -> str:
    """``text`` as a Markdown table's cell holds it: a ``|`` escaped (it would end the cell)."""
    return text.replace('|', '\\|')


#: What each character LaTeX reads as markup (or, in its default OT1 encoding, as another glyph) is written as.
_LATEX = str.maketrans({'\\': r'\textbackslash{}', '_': r'\_', '%': r'\%', '&': r'\&', '#': r'\#', '$': r'\$',
                        '{': r'\{', '}': r'\}', '^': r'\^{}', '~': r'\~{}', '|': r'\textbar{}', '<': r'\textless{}',
                        '>': r'\textgreater{}'})


def latex_escape(text: str) -> str:
    """``text`` as LaTeX typesets it as written: each character at once (the braces of one escape not escaped)."""
    return text.translate(_LATEX)


def write_latex(out: IO[str], table: pd.DataFrame, places: int) -> None:
    """The paper table as a LaTeX ``table`` (booktabs rules), the caption line as its ``\\caption``."""
    daggers = {BETTER: r'\dag', WORSE: r'\ddag'}

    def mark(marks: str) -> str:
        return r'\textsuperscript{' + ''.join(daggers.get(m, m) for m in marks) + '}'
    measures, names, cells, letters = paper_cells(table, places, mark, lambda text: r'\textbf{' + text + '}')
    out.write('\\begin{table}\n\\centering\n\\begin{tabular}{l' + 'r' * len(measures) + '}\n\\toprule\n')
    out.write(' & '.join(['Run', *map(latex_escape, measures)]) + ' \\\\\n\\midrule\n')
    for name in names:
        label = f'({letters[name]}) {latex_escape(name)}' if letters else latex_escape(name)
        out.write(' & '.join([label, *cells[name]]) + ' \\\\\n')
    caption = latex_escape(_caption(table, names, letters)).replace(BETTER, r'\dag{}').replace(WORSE, r'\ddag{}')
    out.write('\\bottomrule\n\\end{tabular}\n\\caption{' + caption + '}\n\\end{table}\n')


def _undefined_tau(report: MeasuresReport, a: str, b: str) -> str | None:
    """Why τ between measures ``a`` and ``b`` is undefined: every run ties on one (or both); else None."""
    tied = [name for name in dict.fromkeys((a, b)) if name in report.tied]
    return f'all runs tie on {" and ".join(tied)}' if tied and _missing(report.kendall_tau.loc[a, b]) else None


def _tau_cell(report: MeasuresReport, a: str, b: str, places: int) -> str:
    why = _undefined_tau(report, a, b)
    return f'– ({why})' if why else _number(report.kendall_tau.loc[a, b], places)


WRITERS = {'tsv': write_tsv, 'jsonl': write_jsonl, 'markdown': write_markdown, 'latex': write_latex}


def write_report(out: IO[str], report: MeasuresReport, output_format: str, places: int) -> None:
    """The measures report: Kendall's τ between every two measures, then each measure's
    discriminative power; tsv and markdown as two tables, jsonl as one object per pair of measures
    (``kind`` "kendall_tau") and per measure (``kind`` "discriminative_power"). Where τ is undefined because
    every run ties on a measure, the cell says so (``– (all runs tie on AP)``), and the jsonl object has
    ``"undefined": "all runs tie on AP"``."""
    tau, power = report.kendall_tau, report.discriminative_power
    names = list(tau.index)
    if output_format == 'jsonl':
        for i, a in enumerate(names):
            for b in names[i + 1:]:
                record = {'kind': 'kendall_tau', 'measure_a': a, 'measure_b': b,
                          'kendall_tau': _json_value(tau.loc[a, b])}
                if why := _undefined_tau(report, a, b):
                    record['undefined'] = why
                out.write(json.dumps(record) + '\n')
        for record in power.to_dict('records'):
            out.write(json.dumps({'kind': 'discriminative_power', **{k: _json_value(v) for k, v in record.items()}})
                      + '\n')
        return
    if output_format not in ('tsv', 'markdown'):
        raise ComparisonError(f'the measures report is written as tsv, jsonl or markdown, not {output_format}')
    rows = [['kendall_tau', *names]] + [[a, *(_tau_cell(report, a, b, places) for b in names)] for a in names]
    rows += [[], list(power.columns)] + [[r.measure, _number(r.significant_pairs, places), str(r.pairs),
                                          _number(r.discriminative_power, places)]
                                         for r in power.itertuples(index=False)]
    for row in rows:
        if output_format == 'tsv':
            out.write('\t'.join(row) + '\n')
        elif not row:
            out.write('\n')
        else:
            out.write('| ' + ' | '.join(cell or '–' for cell in row) + ' |\n')
            if row[0] in ('kendall_tau', 'measure'):
                out.write('| --- |' + ' ---: |' * (len(row) - 1) + '\n')
