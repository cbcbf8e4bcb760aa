"""Sakai's bpref family ("Alternatives to Bpref", SIGIR 2007), as NTCIREVAL's ``compute -j`` computes it.

Each is computed from the judged docs only (the condensed list: unjudged docs removed, the others ranked
1, 2, ...), so it equals NTCIREVAL's ``compute -j`` on ``label -j`` lists without ``judged_only``.
Notation: for the doc at condensed rank r, I(r) = 1 if it is relevant (label >= rel); n_r the judged
non-relevant docs (label < rel) above it; R the relevant and N the judged non-relevant docs of the qrels.
The graded ones take gains as ``Q`` (label, or ``gains[label]``) and g_max as ``nERR`` (the gain of
``max_level``); pen(r) = Σ_{i<r, g(i)<g(r)} (g(r) − g(i))/g(r), so an L0 doc above counts 1; cg*(R) the
total gain of the relevant docs. A query with R = 0 or N = 0 (NTCIREVAL prints nothing: "no judged
nonrel: bpref etc. not computable") scores 0. No closed form for the mean over the orderings of tied
docs: refused under ``ties='expected'``.
"""
from __future__ import annotations

from ir_measures import measures as irm

from irmeasures_ext.measures.base import GAINS_PARAM, MAX_LEVEL_PARAM, REL_PARAM, ExtMeasure, declare

_BINARY_PARAMS: dict[str, irm.ParamInfo] = {'rel': REL_PARAM}
_GRADED_PARAMS: dict[str, irm.ParamInfo] = {'gains': GAINS_PARAM, 'max_level': MAX_LEVEL_PARAM, 'rel': REL_PARAM}


@declare
class bpref_NTCIR(ExtMeasure):
    """
    Bpref, as NTCIREVAL computes its "bpref" (notation: :mod:`irmeasures_ext.measures.ntcir_bpref`):

        bpref_NTCIR = (1/R) · Σ_{I(r)=1} [1 − min(R, n_r) / min(R, N)]

    Buckley and Voorhees' bpref as trec_eval computes it (ir_measures' ``Bpref``); see the NTCIREVAL
    page of the documentation (docs/ntcireval.md) for where the two agree.

    .. cite:: Chris Buckley and Ellen M. Voorhees. Retrieval Evaluation with Incomplete Information. SIGIR 2004.
    .. cite:: Tetsuya Sakai. Alternatives to Bpref. SIGIR 2007.
    """
    PRETTY_NAME = 'bpref (NTCIREVAL)'
    SHORT_DESC = 'Bpref on the judged docs: 1 − min(R, n_r)/min(R, N) averaged over the relevant docs.'
    SUPPORTED_PARAMS = _BINARY_PARAMS


@declare
class bpref_R(ExtMeasure):
    """
    Sakai's bpref_R (notation: :mod:`irmeasures_ext.measures.ntcir_bpref`):

        bpref_R = (1/R) · Σ_{I(r)=1} [1 − min(R, n_r) / R]

    .. cite:: Tetsuya Sakai. Alternatives to Bpref. SIGIR 2007.
    """
    PRETTY_NAME = 'bpref_R (Sakai)'
    SHORT_DESC = 'Bpref with the first R judged non-relevant docs counted, over R.'
    SUPPORTED_PARAMS = _BINARY_PARAMS


@declare
class bpref_N(ExtMeasure):
    """
    Sakai's bpref_N (notation: :mod:`irmeasures_ext.measures.ntcir_bpref`):

        bpref_N = (1/R) · Σ_{I(r)=1} [1 − n_r / N]

    .. cite:: Tetsuya Sakai. Alternatives to Bpref. SIGIR 2007.
    """
    PRETTY_NAME = 'bpref_N (Sakai)'
    SHORT_DESC = 'Bpref with every judged non-relevant doc counted, over N.'
    SUPPORTED_PARAMS = _BINARY_PARAMS


@declare
class bpref_relative(ExtMeasure):
    """
    Sakai's bpref_relative (notation: :mod:`irmeasures_ext.measures.ntcir_bpref`):

        bpref_relative = (1/R) · Σ_{I(r)=1, r>1} [1 − n_r / (r − 1)]

    A relevant doc at rank 1 contributes 0, not 1, as in NTCIREVAL ("ignore relevant doc at Rank 1").

    .. cite:: Tetsuya Sakai. Alternatives to Bpref. SIGIR 2007.
    """
    PRETTY_NAME = 'bpref_relative (Sakai)'
    SHORT_DESC = 'Bpref with n_r relative to the docs above: precision at each relevant doc but the first rank.'
    SUPPORTED_PARAMS = _BINARY_PARAMS


@declare
class rpref_N(ExtMeasure):
    """
    Sakai's graded rpref_N (notation: :mod:`irmeasures_ext.measures.ntcir_bpref`):

        rpref_N = Σ_r g(r) · [1 − pen(r) / (R + N − cg*(R)/g_max)] / cg*(R)

    .. cite:: Tetsuya Sakai. Alternatives to Bpref. SIGIR 2007.
    """
    PRETTY_NAME = 'rpref_N (Sakai)'
    SHORT_DESC = 'Graded bpref_N: gain-weighted, penalised by the lower-gain judged docs above.'
    SUPPORTED_PARAMS = _GRADED_PARAMS


@declare
class rpref_relative(ExtMeasure):
    """
    Sakai's graded rpref_relative (notation: :mod:`irmeasures_ext.measures.ntcir_bpref`):

        rpref_relative = Σ_{r>1} g(r) · [1 − pen(r) / (r − 1)] / cg*(R)

    Rank 1 contributes 0, as in NTCIREVAL.

    .. cite:: Tetsuya Sakai. Alternatives to Bpref. SIGIR 2007.
    """
    PRETTY_NAME = 'rpref_relative (Sakai)'
    SHORT_DESC = 'Graded bpref_relative: the penalty relative to the docs above.'
    SUPPORTED_PARAMS = _GRADED_PARAMS


@declare
class rpref_relative2(ExtMeasure):
    """
    Sakai's graded rpref_relative2 (notation: :mod:`irmeasures_ext.measures.ntcir_bpref`):

        rpref_relative2 = Σ_r g(r) · [1 − pen(r) / r] / cg*(R)

    .. cite:: Tetsuya Sakai. Alternatives to Bpref. SIGIR 2007.
    """
    PRETTY_NAME = 'rpref_relative2 (Sakai)'
    SHORT_DESC = 'Graded bpref with the penalty relative to the rank.'
    SUPPORTED_PARAMS = _GRADED_PARAMS
