"""NTCIREVAL's normalised Expected Reciprocal Rank."""
from __future__ import annotations

from irmeasures_ext.measures.base import (
    GAINS_PARAM,
    MAX_LEVEL_PARAM,
    REL_PARAM,
    REQUIRED_CUTOFF_PARAM,
    ExtMeasure,
    declare,
)


@declare
class nERR(ExtMeasure):
    """
    Normalised Expected Reciprocal Rank at k, as NTCIREVAL computes its "nERR":

        p(r) = g(r) / (g_max + 1),   ERR@k = Σ_{r≤k} (1/r) · p(r) · Π_{i<r} (1 − p(i)),
        nERR@k = ERR@k / ERR@k of the ideal list

    Gains as in ``Q`` (label, or ``gains[label]``). g_max is the gain of ``max_level``, the top
    relevance level (NTCIREVAL takes it from its ``-g`` list); by default the largest label in
    ``gains`` if given, else the largest label of the qrels. Labels above ``max_level`` are an
    error.

    Differs from ir_measures' ``ERR`` (gdeval: p = (2^l − 1)/2^4, not normalised) and
    its ``NERR8``–``NERR11`` (different stop probabilities and normalisations).

    .. cite:: Olivier Chapelle, Donald Metzler, Ya Zhang, Pierre Grinspan. Expected Reciprocal
       Rank for Graded Relevance. CIKM 2009.
    .. cite:: Tetsuya Sakai. NTCIREVAL (version 190111), http://research.nii.ac.jp/ntcir/tools/ntcireval-en.html
    """
    PRETTY_NAME = 'normalised ERR (NTCIREVAL)'
    SHORT_DESC = 'Expected reciprocal rank normalised by that of the ideal list.'
    SUPPORTED_PARAMS = {
        'cutoff': REQUIRED_CUTOFF_PARAM,
        'gains': GAINS_PARAM,
        'max_level': MAX_LEVEL_PARAM,
        'rel': REL_PARAM,
    }
