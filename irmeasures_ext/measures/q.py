"""Sakai's Q-measure."""
from __future__ import annotations

from irmeasures_ext.measures.base import (
    CUTOFF_PARAM,
    GAINS_PARAM,
    REL_PARAM,
    ExtMeasure,
    Param,
    check_non_negative,
    declare,
)

#: The patience of NTCIREVAL's blended ratio.
BETA_PARAM = Param(check_non_negative, dtype=float, default=1.0,
                           desc='patience β >= 0: weight of cumulative gain in the blended ratio (0 gives precision)')


class BlendedRatioMeasure(ExtMeasure):
    """A measure built on NTCIREVAL's blended ratio BR(r) = (C(r) + β·cg(r)) / (r + β·cg*(r)); the measures that
    take its patience β declare it with :data:`BETA_PARAM`, whose check it is."""


@declare
class Q(BlendedRatioMeasure):
    """
    Q-measure: a graded-relevance measure that blends precision and normalised cumulative gain.

    For the ranked list of a query, with I(r) = 1 if the doc at rank r is relevant (label >= rel),
    C(r) = Σ_{i≤r} I(i), cg(r) = Σ_{i≤r} g(i) its cumulative gain, and cg*(r) the cumulative gain
    of the ideal list (the R relevant docs of the qrels sorted by gain; it stays at the total
    gain past rank R), the blended ratio is BR(r) = (C(r) + β·cg(r)) / (r + β·cg*(r)) and

        Q = (1/R) · Σ_r I(r)·BR(r),      Q@k = (1/min(k, R)) · Σ_{r≤k} I(r)·BR(r).

    ``beta`` (patience) weighs the gain part; ``beta=0`` gives AP exactly. Gains: a relevant
    doc's gain is its label (NTCIREVAL's ``-g 1:2:3``), or ``gains[label]`` where given (e.g.
    ``gains={1:1,2:3,3:7}`` for exponential gains); labels missing from ``gains`` keep gain =
    label. Non-relevant and unjudged docs have gain 0. A query with R = 0 scores 0.

    Note that ``Q(beta=0)@k`` is NTCIREVAL's AP@k, divided by min(k, R); it is *not*
    ir_measures' ``AP@k`` (trec_eval's ``map_cut_k``), which divides by R.

    Matches NTCIREVAL (version 190111) per topic; ties are broken as trec_eval does.

    .. cite:: Tetsuya Sakai. Graded Relevance Assessments and Graded Relevance Measures of NTCIR:
       A Survey of the First Twenty Years. arXiv:1903.11272 (2019).
    .. cite:: Tetsuya Sakai and Ruihua Song. Evaluating Diversified Search Results Using Per-intent
       Graded Relevance. SIGIR 2011.
    """
    PRETTY_NAME = 'Q-measure'
    SHORT_DESC = 'Average of blended ratios (precision and normalised cumulative gain) at each relevant doc.'
    SUPPORTED_PARAMS = {
        'cutoff': CUTOFF_PARAM,
        'beta': BETA_PARAM,
        'gains': GAINS_PARAM,
        'rel': REL_PARAM,
    }
