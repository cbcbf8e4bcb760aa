"""Which judged docs are relevant: the threshold each measure is computed with, and a warning where real-valued
labels never reach it.

One rule for every measure our provider computes: a doc is relevant when its label is at least the measure's
threshold, and only a relevant doc gains (its label, or ``gains[label]``), in the run and in the ideal list.
The threshold is the measure's ``rel`` where it gives another than the default (1); else the provider's
(``configured(rel=...)``, ``irmeasures-ext --rel``); else every label above 0, which for integer labels is
``rel=1`` (trec_eval's default). ir_measures does not tell ``AP(rel=1)`` from ``AP`` (equal measures), and its
``NumRelRet`` is ``NumRet(rel=1)``, so a ``rel`` of 1 is the default wherever it is given: on real-valued labels, a
threshold of exactly 1 is the provider's ``rel=1``. cwl_eval's ``RBP(rel=k)`` binarises at k as cwl_eval does
(:data:`BINARISING`). So a real-valued label such
as an LLM judge's 0.35 is relevant and gains 0.35 unless a threshold says otherwise, as it gains 0.35 in the
measures without a threshold (trec_eval's nDCG, the C/W/L measures).
"""
from __future__ import annotations

import math

from ir_measures.measures import Measure
from ir_measures.measures.base import _NOT_PROVIDED

from irmeasures_ext.engine.judgments import Judgments
from irmeasures_ext.errors import UnreachedThresholdWarning, warn_at_caller

#: The threshold "above 0": the least positive float, so that ``label >= ABOVE_ZERO`` is ``label > 0``.
ABOVE_ZERO = math.ulp(0.0)


#: The threshold a measure has by default, ir_measures' ``rel=1``: it stands for every label above 0 (the same docs
#: for integer labels). ir_measures does not tell ``AP(rel=1)`` from ``AP``, and its ``NumRelRet`` is ``NumRet(rel=1)``.
DEFAULT_THRESHOLD = 1


#: Measures whose ``rel`` binarises labels for a tool that reads real labels itself (cwl_eval's ``RBP(rel=...)``):
#: there a rel of 1 is 1, as cwl_eval takes it.
BINARISING = frozenset({'RBP'})


def takes_the_default(measure: Measure) -> bool:
    """Whether ``measure``'s threshold is the default one (a ``rel`` of 1, not one that binarises for its tool)."""
    return threshold_of(measure) == DEFAULT_THRESHOLD and measure.NAME not in BINARISING


def threshold_of(measure: Measure) -> float | None:
    """The relevance threshold of ``measure``: its ``rel``; None where it has none (no ``rel`` parameter, or an
    optional one not given: ir_measures' ``RBP`` and ``NumRet`` without ``rel`` are not thresholded)."""
    if 'rel' not in measure.SUPPORTED_PARAMS:
        return None
    rel = measure['rel']
    return None if rel is _NOT_PROVIDED else rel


def computed_as(measure: Measure, setting: float | None, judgments: Judgments) -> Measure:
    """``measure`` with the threshold it is computed with (the module's rule): its threshold of 1 (the default)
    becomes ``setting`` (the provider's) if given, else, on real-valued labels, every label above 0; any other
    threshold, or none, is kept."""
    if not takes_the_default(measure):
        return measure
    if setting is not None:
        return measure(rel=setting)
    return measure(rel=ABOVE_ZERO) if judgments.label.dtype.kind == 'f' else measure


def warn_if_unreached(computed: dict[Measure, Measure], judgments: Judgments) -> None:
    """UnreachedThresholdWarning, once, where the labels are real-valued and no judged doc of any query reaches the
    threshold some measures are ``computed`` as (measure -> :func:`computed_as`): every such measure is 0. It says
    how to lower each: the measure's own ``rel``, or the provider's (``configured(rel=...)``, ``--rel``); where no
    label is above 0, nothing can."""
    if judgments.label.dtype.kind != 'f':
        return
    highest = judgments.label.max(initial=-math.inf)
    unreached: dict[tuple[str, float], list[str]] = {}
    for measure, thresholded in computed.items():
        threshold = threshold_of(thresholded)
        if threshold is None or highest >= threshold:
            continue
        whose = 'none' if threshold == ABOVE_ZERO else 'provider' if takes_the_default(measure) else 'measure'
        unreached.setdefault((whose, threshold), []).append(str(measure))
    if not unreached:
        return
    at_most = f'at most {highest:g}'
    advice = {'none': lambda rel: 'no label is above 0',
              'measure': lambda rel: f'rel={rel:g}: give the measure a rel of {at_most}',
              'provider': lambda rel: f"the provider's rel={rel:g}: set irmeasures_ext.provider.configured(rel=...) "
                                      f'or irmeasures-ext --rel to {at_most}'}
    named = '; '.join(f'{", ".join(names)}: {advice[whose](rel)}' for (whose, rel), names in sorted(unreached.items()))
    warn_at_caller(f'no judged doc of any query reaches the relevance threshold of some measures, which are therefore '
                   f'0 (the real-valued labels range from {judgments.label.min():g} to {highest:g}): {named}',
                   UnreachedThresholdWarning)
