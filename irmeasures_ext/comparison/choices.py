"""The choices of :func:`irmeasures_ext.comparison.compare` and of ``irmeasures-ext compare``, by name."""
from __future__ import annotations

#: The significance tests (``test``), corrections (``correction``) and intervals (``ci``) by name, each with what the
#: tables, their captions and the command's help call it: the choices of :func:`compare` and of ``compare``.
TESTS: dict[str, str] = {'t': "paired Student's t-test", 'wilcoxon': 'Wilcoxon signed-rank test',
                         'randomization': 'paired randomisation test', 'tukey-hsd': 'randomised Tukey HSD'}
CORRECTIONS: dict[str, str] = {'none': 'no correction', 'bonferroni': 'Bonferroni correction',
                               'holm': 'Holm correction', 'bh': 'Benjamini-Hochberg correction'}
INTERVALS: dict[str, str] = {'t': "Student's t interval", 'bootstrap': 'percentile bootstrap interval'}
