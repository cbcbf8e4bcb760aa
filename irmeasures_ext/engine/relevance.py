"""Which judged docs are relevant: the threshold each measure is computed with, and a warning where real-valued
labels never reach it.

One rule for every measure our provider computes: a doc is relevant when its label is at least the measure's
threshold, and only a relevant doc gains (its label, or ``gains[label]``), in the run and in the ideal list.
The threshold is the measure's ``rel`` where it gives another than the default (1); else the provider's
(``configured(rel=...)``, ``irmeasures-ext --rel``); else every label above 0, which for integer labels is
``rel=1`` (trec_eval's default). ir_measures does not tell ``AP(rel=1)`` from ``AP`` (equal measures), so neither
can we: on real-valued labels, a threshold of exactly 1 is the provider's ``rel=1``. So a real-valued label such
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


def has_threshold(measure: Measure) -> bool:
    """Whether ``measure`` is defined with a relevance threshold (a ``rel`` parameter with a default; ir_measures'
    ``RBP`` and ``NumRet`` take an optional one, and without it are not thresholded)."""
    info = measure.SUPPORTED_PARAMS.get('rel')
    return info is not None and info.default is not _NOT_PROVIDED


def computed_as(measure: Measure, setting: float | None, judgments: Judgments) -> Measure:
    """``measure`` with the threshold it is computed with (the module's rule): itself where it has no threshold,
    gives its own, or keeps the default's (integer labels and no ``setting``)."""
    if not has_threshold(measure) or measure['rel'] != measure.SUPPORTED_PARAMS['rel'].default:
        return measure
    if setting is not None:
        return measure(rel=setting)
    return measure(rel=ABOVE_ZERO) if judgments.label.dtype.kind == 'f' else measure


def warn_if_unreached(computed: dict[Measure, Measure], judgments: Judgments) -> None:
    """UnreachedThresholdWarning, once, where the labels are real-valued and no judged doc of any query reaches the
    threshold some measures are ``computed`` as (measure -> :func:`computed_as`): every such measure is 0."""
    if judgments.label.dtype.kind != 'f':
        return
    highest = judgments.label.max(initial=-math.inf)
    unreached: dict[float, list[str]] = {}
    for measure, thresholded in computed.items():
        if has_threshold(thresholded) and not highest >= thresholded['rel']:
            unreached.setdefault(thresholded['rel'], []).append(str(measure))
    if not unreached:
        return
    named = '; '.join(f'{_threshold(rel)} ({", ".join(names)})' for rel, names in sorted(unreached.items()))
    warn_at_caller(f'no judged doc of any query reaches the relevance threshold {named}: the real-valued labels '
                   f'range from {judgments.label.min():g} to {highest:g}, so those measures are 0; give a lower '
                   "threshold: the measure's rel (e.g. Q(rel=0.5)@10), the provider's "
                   '(irmeasures_ext.provider.configured(rel=0.5)) or irmeasures-ext --rel 0.5',
                   UnreachedThresholdWarning)


def _threshold(rel: float) -> str:
    return 'above 0' if rel == ABOVE_ZERO else f'rel={rel:g}'
