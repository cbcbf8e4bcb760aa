"""Graded average precision as NTCIREVAL computes its "GAP"."""
from __future__ import annotations

from irmeasures_ext.measures.base import CUTOFF_PARAM, REL_PARAM, ExtMeasure, declare


@declare
class GAP(ExtMeasure):
    """
    Graded average precision (Robertson, Kanoulas & Yilmaz), as NTCIREVAL computes its "GAP" and
    "GAP@k" (``-gap``). With lev(r) the label of the doc at rank r if it is relevant (label >= rel),
    else 0 (unjudged docs too), and μ(i) = min(lev(r), lev(i)):

        GS(r) = Σ_{i≤r} μ(i)·(μ(i) + 1) for a relevant r,   GI(k) = Σ_{i≤k} l*(i)·(l*(i) + 1),
        GAP = Σ_r GS(r)/r / GI(R),    GAP@k = Σ_{r≤k} GS(r)/r / GI(min(k, R))

    where l*(i) are the relevant labels of the qrels sorted descending. It uses the labels
    themselves, not gains: graded AP with grade thresholds weighted in proportion to the grade.
    A query with R = 0 scores 0. No closed form for its mean over the orderings of tied docs:
    refused under ``ties='expected'``. ir_measures has no GAP.

    .. cite:: Stephen E. Robertson, Evangelos Kanoulas, Emine Yilmaz. Extending Average Precision to
       Graded Relevance Judgments. SIGIR 2010.
    .. cite:: Tetsuya Sakai. NTCIREVAL (version 190111), http://research.nii.ac.jp/ntcir/tools/ntcireval-en.html
    """
    PRETTY_NAME = 'graded average precision (NTCIREVAL)'
    SHORT_DESC = 'Average precision over grade thresholds weighted by the grade, from the labels.'
    SUPPORTED_PARAMS = {'cutoff': CUTOFF_PARAM, 'rel': REL_PARAM}
