"""NTCIREVAL's intent-aware (diversity) measures: I-rec, the D-, D#-, DIN-, DIN#-, IA- and P+Q measures.

Each needs qrels with the intent of each judgment; all but ``I_rec`` also the intents' probabilities P(i|q)
(and, for DIN and P+Q, their types): give the qrels as ``irmeasures_ext.intent_qrels(qrels, probabilities)``,
e.g. ``intent_qrels('Dqrels', 'DINprob')``. Kernels, and the definitions as NTCIREVAL 190111's diversity scripts
compute them, in ``irmeasures_ext.engine.kernels.ntcir_diversity``; names as NTCIREVAL prints them, with ``_``
for ``-`` and ``sharp`` for ``#`` (``D#-nDCG@10`` is ``D_sharp_nDCG@10``). Each DIN-measure is its D-measure
(the same parameters) with DIN's gains against the D-measures' ideal list: DIN-NTCIR-eval's gcompute lines, as
D-NTCIR-eval's are the D-measures (no DIN-GAP: the script passes no ``-gap``). The measures whose value holds a
blended ratio BR(r) = (C(r) + β·CG(r)) / (r + β·CG*(r)) take its patience ``beta`` (default 1, NTCIREVAL's; its
gcompute's ``-beta``): D-Q, D-EBR, D-O-measure, D-P-measure, D-P-plus, D-NCU (``utility='BR'``), their DIN
counterparts, D#-Q, D#-EBR, DIN#-Q, IA-Q, IA-EBR, P+Q and P+Q#.

.. cite:: Tetsuya Sakai, Ruihua Song. Evaluating Diversified Search Results Using Per-Intent Graded Relevance.
   SIGIR 2011 (I-rec, D- and D#-measures).
.. cite:: Tetsuya Sakai. Diversified Search Evaluation: Lessons from the NTCIR-9 INTENT Task. Information
   Retrieval 16(4), 2013 (DIN-measures, P+Q).
.. cite:: Tetsuya Sakai. NTCIREVAL (version 190111), README.diversity,
   http://research.nii.ac.jp/ntcir/tools/ntcireval-en.html
"""
from __future__ import annotations

from typing import Any

from ir_measures.measures import ParamInfo

from irmeasures_ext.errors import MeasureParamError
from irmeasures_ext.measures.base import (
    REL_PARAM,
    REQUIRED_CUTOFF_PARAM,
    ExtMeasure,
    Param,
    declare,
    integer_from,
)
from irmeasures_ext.measures.ntcir_br import NCU
from irmeasures_ext.measures.ntcir_cascade import probability
from irmeasures_ext.measures.q import BETA_PARAM

GAMMA_PARAM = Param(probability(below_one=False), dtype=float, default=0.5,
                    desc="weight of I-rec in the #-measure (NTCIREVAL's scripts: 0.5)")
PERSISTENCE_PARAM = Param(probability(below_one=True), dtype=float, default=0.95,
                          desc="persistence of RBP (NTCIREVAL's default 0.95; its D-NTCIR-eval2 script: 0.99)")
_PARAMS: dict[str, ParamInfo] = {'cutoff': REQUIRED_CUTOFF_PARAM, 'rel': REL_PARAM}
_SHARP_PARAMS: dict[str, ParamInfo] = {**_PARAMS, 'gamma': GAMMA_PARAM}
#: β of the blended ratio, for the measures built on it (NTCIREVAL's gcompute ``-beta``, default 1).
_BETA: dict[str, ParamInfo] = {'beta': BETA_PARAM}
#: The measures NTCIREVAL's gcompute also prints without ``@k``: computed on the whole list without a cutoff.
_WHOLE_LIST_PARAMS: dict[str, ParamInfo] = {
    'cutoff': Param(integer_from(1), dtype=int, required=False,
                    desc="ranking cutoff threshold k (without: the whole list, NTCIREVAL's line without @k)"),
    'rel': REL_PARAM}
_RBP_PARAMS: dict[str, ParamInfo] = {**_WHOLE_LIST_PARAMS, 'p': PERSISTENCE_PARAM}
_BLENDED_WHOLE_LIST_PARAMS: dict[str, ParamInfo] = {**_WHOLE_LIST_PARAMS, **_BETA}


class _NtcirDiversityMeasure(ExtMeasure):
    """What the measures of this module share: a required cutoff and ``rel`` (an intent's level counts from it)."""

    SUPPORTED_PARAMS = _PARAMS


class _I_rec(_NtcirDiversityMeasure):
    """
    Intent recall at k: the intents with a relevant doc in the top k, over the intents with a relevant doc
    (needs no probabilities).
    """
    __name__ = 'I_rec'
    NAME = __name__
    PRETTY_NAME = 'I-rec (NTCIREVAL)'
    SHORT_DESC = 'Intent recall: the fraction of the intents that the top k docs cover.'


class _D_nDCG(_NtcirDiversityMeasure):
    """
    D-nDCG@k: MSnDCG@k over the global gain GG(d) = Σ_i P(i|q)·g_i(d), divided by the same of the docs by GG.
    """
    __name__ = 'D_nDCG'
    NAME = __name__
    PRETTY_NAME = 'D-nDCG (NTCIREVAL)'
    SHORT_DESC = 'nDCG over the global gain of the intents.'


class _D_Q(_NtcirDiversityMeasure):
    """
    D-Q@k: Q-measure@k over the global gain, Σ_{r≤k, GG(r)>0} BR(r) / min(k, R) (BR with patience ``beta``,
    default 1); without a cutoff, NTCIREVAL's "Q-measure" line: the same over the whole list, divided by R.
    """
    __name__ = 'D_Q'
    NAME = __name__
    PRETTY_NAME = 'D-Q (NTCIREVAL)'
    SHORT_DESC = 'Q-measure over the global gain of the intents.'
    SUPPORTED_PARAMS = _BLENDED_WHOLE_LIST_PARAMS


class _D_nERR(_NtcirDiversityMeasure):
    """
    D-nERR@k: nERR@k over the global gain, stop probability GG/(H + 1), H the query's largest GG.
    """
    __name__ = 'D_nERR'
    NAME = __name__
    PRETTY_NAME = 'D-nERR (NTCIREVAL)'
    SHORT_DESC = 'nERR over the global gain of the intents.'


class _D_ERR(_NtcirDiversityMeasure):
    """
    D-ERR@k: ERR@k over the global gain (not normalised), stop probability GG/(H + 1); without a cutoff, over the
    whole list (NTCIREVAL's "ERR" line).
    """
    __name__ = 'D_ERR'
    NAME = __name__
    PRETTY_NAME = 'D-ERR (NTCIREVAL)'
    SHORT_DESC = 'ERR over the global gain of the intents.'
    SUPPORTED_PARAMS = _WHOLE_LIST_PARAMS


class _D_RBP(_NtcirDiversityMeasure):
    """
    D-RBP@k = (1 − p)·Σ_{r≤k} GG(r)·p^{r−1} / H; without a cutoff, over the whole list (NTCIREVAL's "RBP" line).
    """
    __name__ = 'D_RBP'
    NAME = __name__
    PRETTY_NAME = 'D-RBP (NTCIREVAL)'
    SHORT_DESC = 'RBP over the global gain of the intents.'
    SUPPORTED_PARAMS = _RBP_PARAMS


class _D_EBR(_NtcirDiversityMeasure):
    """
    D-EBR@k: EBR@k over the global gain: Σ_{r≤k} BR(r)·p(r)·Π_{s<r}(1 − p(s)), p = GG/(H + 1); without a cutoff,
    over the whole list (NTCIREVAL's "EBR" line).
    """
    __name__ = 'D_EBR'
    NAME = __name__
    PRETTY_NAME = 'D-EBR (NTCIREVAL)'
    SHORT_DESC = 'Expected blended ratio over the global gain of the intents.'
    SUPPORTED_PARAMS = _BLENDED_WHOLE_LIST_PARAMS


class _D_AP(_NtcirDiversityMeasure):
    """
    D-AP@k = Σ_{r≤k, GG(r)>0} C(r)/r / min(k, R) (NTCIREVAL's AP@k over the global gain); without a cutoff,
    NTCIREVAL's "AP" line: the same over the whole list, divided by R.
    """
    __name__ = 'D_AP'
    NAME = __name__
    PRETTY_NAME = 'D-AP (NTCIREVAL)'
    SHORT_DESC = 'Average precision over the docs of global gain above 0.'
    SUPPORTED_PARAMS = _WHOLE_LIST_PARAMS


class _D_P(_NtcirDiversityMeasure):
    """
    D-P@k = C(k)/k, C(k) the docs of global gain above 0 in the top k.
    """
    __name__ = 'D_P'
    NAME = __name__
    PRETTY_NAME = 'D-P (NTCIREVAL)'
    SHORT_DESC = 'Precision over the docs of global gain above 0.'


class _D_Hit(_NtcirDiversityMeasure):
    """
    D-Hit@k = 1 if a doc of global gain above 0 is in the top k, else 0.
    """
    __name__ = 'D_Hit'
    NAME = __name__
    PRETTY_NAME = 'D-Hit (NTCIREVAL)'
    SHORT_DESC = 'Whether the top k holds a doc of global gain above 0.'


class _D_nDCG_JK(_NtcirDiversityMeasure):
    """
    D-nDCG_JK@k: NTCIREVAL's nDCG@k (Järvelin and Kekäläinen's, discount 1 to rank 2, then log2 r) over the global
    gain.
    """
    __name__ = 'D_nDCG_JK'
    NAME = __name__
    PRETTY_NAME = 'D-nDCG (Järvelin-Kekäläinen, NTCIREVAL)'
    SHORT_DESC = "NTCIREVAL's nDCG@k over the global gain of the intents."


class _I_rec_n(_NtcirDiversityMeasure):
    """
    I-rec@n: I-rec at rank n = |I|, the number of intents with a relevant doc (NTCIREVAL's ``I-rec@n``, which
    reads the whole run).
    """
    __name__ = 'I_rec_n'
    NAME = __name__
    PRETTY_NAME = 'I-rec@n (NTCIREVAL)'
    SHORT_DESC = 'Intent recall at rank n, the number of intents.'
    SUPPORTED_PARAMS = {'rel': REL_PARAM}


class _SUMp(_NtcirDiversityMeasure):
    """
    SUMp = Σ P(i|q) over the intents with a doc judged ``rel`` or above: the largest value an IA-measure or P+Q can
    take (NTCIREVAL's IA and P+Q scripts print it as ``SUMp=``; below 1 where an intent has no relevant doc, or
    where the probabilities, used as written, do not sum to 1).
    """
    __name__ = 'SUMp'
    NAME = __name__
    PRETTY_NAME = 'SUMp (NTCIREVAL)'
    SHORT_DESC = 'The sum of the probabilities of the intents that have a relevant doc.'
    SUPPORTED_PARAMS = {'rel': REL_PARAM}


class _D_RR(_NtcirDiversityMeasure):
    """
    D-RR = 1/r1, r1 the first rank of global gain above 0 (0 without one); on the top k with a cutoff (NTCIREVAL's
    "RR" line of gcompute on the list cut at k).
    """
    __name__ = 'D_RR'
    NAME = __name__
    PRETTY_NAME = 'D-RR (NTCIREVAL)'
    SHORT_DESC = 'Reciprocal rank of the first doc of global gain above 0.'
    SUPPORTED_PARAMS = _WHOLE_LIST_PARAMS


class _D_O_measure(_NtcirDiversityMeasure):
    """
    D-O-measure = BR(r1) over the global gain (patience ``beta``, default 1), r1 the first rank of GG > 0; on the top k
    with a cutoff.
    """
    __name__ = 'D_O_measure'
    NAME = __name__
    PRETTY_NAME = 'D-O-measure (NTCIREVAL)'
    SHORT_DESC = 'Blended ratio at the first doc of global gain above 0.'
    SUPPORTED_PARAMS = _BLENDED_WHOLE_LIST_PARAMS


class _D_P_measure(_NtcirDiversityMeasure):
    """
    D-P-measure = BR(rp) over the global gain, rp the first rank of the list's largest GG; on the top k with a
    cutoff.
    """
    __name__ = 'D_P_measure'
    NAME = __name__
    PRETTY_NAME = 'D-P-measure (NTCIREVAL)'
    SHORT_DESC = 'Blended ratio at the first doc of the largest global gain retrieved.'
    SUPPORTED_PARAMS = _BLENDED_WHOLE_LIST_PARAMS


class _D_P_plus(_NtcirDiversityMeasure):
    """
    D-P-plus = Σ_{r≤rp, GG(r)>0} BR(r) / C(rp) over the global gain; on the top k with a cutoff.
    """
    __name__ = 'D_P_plus'
    NAME = __name__
    PRETTY_NAME = 'D-P-plus (NTCIREVAL)'
    SHORT_DESC = 'Mean blended ratio down to the first doc of the largest global gain retrieved.'
    SUPPORTED_PARAMS = _BLENDED_WHOLE_LIST_PARAMS


class _D_NCU(_NtcirDiversityMeasure):
    """
    D-NCU: rank-biased NCU over the global gain, Σ_{GG(r)>0} u(r)·γ^{C(r)−1} / Σ_{j≤R} γ^{j−1}, u = BR(r)
    (``utility='BR'``, patience ``beta``) or C(r)/r (``'P'``, which takes no ``beta``, as ``NCU``); on the top k with
    a cutoff (NTCIREVAL's gcompute prints "NCUrb,BR" and "NCUrb,P"; it has no graded-uniform NCU).
    """
    __name__ = 'D_NCU'
    NAME = __name__
    PRETTY_NAME = 'D-NCU (rank-biased, NTCIREVAL)'
    SHORT_DESC = 'Rank-biased normalised cumulative utility over the global gain of the intents.'
    SUPPORTED_PARAMS = {**_BLENDED_WHOLE_LIST_PARAMS, 'utility': NCU.SUPPORTED_PARAMS['utility'],
                        'gamma': NCU.SUPPORTED_PARAMS['gamma']}

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        if 'beta' in self.params and self['utility'] != 'BR':
            raise MeasureParamError(f"{self.NAME}: beta applies only with utility='BR', "
                                    f"not utility={self['utility']!r}")


class _D_GAP(_NtcirDiversityMeasure):
    """
    D-GAP@k: graded average precision with the global gains as grades (NTCIREVAL's ``gcompute -gap``), Σ_{r≤k}
    GS(r)/r / GI(min(k, R)), GS(r) = Σ_{s≤r} m·(m + 1) with m = min(GG(r), GG(s)) for GG(r) > 0 (else 0), GI(n) =
    Σ_{j≤n} GG*(j)·(GG*(j) + 1) over the ideal list; without a cutoff over the whole list, divided by GI(R).
    """
    __name__ = 'D_GAP'
    NAME = __name__
    PRETTY_NAME = 'D-GAP (NTCIREVAL)'
    SHORT_DESC = 'Graded average precision with the global gains as grades.'
    SUPPORTED_PARAMS = _WHOLE_LIST_PARAMS


class _D_sharp_nDCG(_NtcirDiversityMeasure):
    """
    D#-nDCG@k = γ·I-rec@k + (1 − γ)·D-nDCG@k.
    """
    __name__ = 'D_sharp_nDCG'
    NAME = __name__
    PRETTY_NAME = 'D#-nDCG (NTCIREVAL)'
    SHORT_DESC = 'I-rec and D-nDCG combined.'
    SUPPORTED_PARAMS = _SHARP_PARAMS


class _D_sharp_Q(_NtcirDiversityMeasure):
    """
    D#-Q@k = γ·I-rec@k + (1 − γ)·D-Q@k.
    """
    __name__ = 'D_sharp_Q'
    NAME = __name__
    PRETTY_NAME = 'D#-Q (NTCIREVAL)'
    SHORT_DESC = 'I-rec and D-Q combined.'
    SUPPORTED_PARAMS = {**_SHARP_PARAMS, **_BETA}


class _D_sharp_ERR(_NtcirDiversityMeasure):
    """
    D#-ERR@k = γ·I-rec@k + (1 − γ)·D-ERR@k.
    """
    __name__ = 'D_sharp_ERR'
    NAME = __name__
    PRETTY_NAME = 'D#-ERR (NTCIREVAL)'
    SHORT_DESC = 'I-rec and D-ERR combined.'
    SUPPORTED_PARAMS = _SHARP_PARAMS


class _D_sharp_RBP(_NtcirDiversityMeasure):
    """
    D#-RBP@k = γ·I-rec@k + (1 − γ)·D-RBP@k.
    """
    __name__ = 'D_sharp_RBP'
    NAME = __name__
    PRETTY_NAME = 'D#-RBP (NTCIREVAL)'
    SHORT_DESC = 'I-rec and D-RBP combined.'
    SUPPORTED_PARAMS = {**_SHARP_PARAMS, 'p': PERSISTENCE_PARAM}


class _D_sharp_EBR(_NtcirDiversityMeasure):
    """
    D#-EBR@k = γ·I-rec@k + (1 − γ)·D-EBR@k.
    """
    __name__ = 'D_sharp_EBR'
    NAME = __name__
    PRETTY_NAME = 'D#-EBR (NTCIREVAL)'
    SHORT_DESC = 'I-rec and D-EBR combined.'
    SUPPORTED_PARAMS = {**_SHARP_PARAMS, **_BETA}


class _DIN_nDCG(_NtcirDiversityMeasure):
    """
    DIN-nDCG@k: D-nDCG@k where a navigational intent adds its gain only at the first doc relevant to it.
    """
    __name__ = 'DIN_nDCG'
    NAME = __name__
    PRETTY_NAME = 'DIN-nDCG (NTCIREVAL)'
    SHORT_DESC = 'D-nDCG counting each navigational intent once.'


class _DIN_Q(_NtcirDiversityMeasure):
    """
    DIN-Q@k: D-Q@k with DIN's gains (a doc whose gain is 0 is not relevant); without a cutoff, DIN-NTCIR-eval's
    "Q-measure" line: the same over the whole list, divided by R.
    """
    __name__ = 'DIN_Q'
    NAME = __name__
    PRETTY_NAME = 'DIN-Q (NTCIREVAL)'
    SHORT_DESC = 'D-Q counting each navigational intent once.'
    SUPPORTED_PARAMS = _BLENDED_WHOLE_LIST_PARAMS


class _DIN_nERR(_NtcirDiversityMeasure):
    """
    DIN-nERR@k: D-nERR@k with DIN's gains: ERR@k of DIN's gains, stop probability G/(H + 1) with H the largest global
    gain, over ERR@k of the D-measures' ideal list.
    """
    __name__ = 'DIN_nERR'
    NAME = __name__
    PRETTY_NAME = 'DIN-nERR (NTCIREVAL)'
    SHORT_DESC = 'D-nERR counting each navigational intent once.'


class _DIN_ERR(_NtcirDiversityMeasure):
    """
    DIN-ERR@k: D-ERR@k with DIN's gains (not normalised), stop probability G/(H + 1), H the largest global gain;
    without a cutoff, over the whole list (DIN-NTCIR-eval's "ERR" line).
    """
    __name__ = 'DIN_ERR'
    NAME = __name__
    PRETTY_NAME = 'DIN-ERR (NTCIREVAL)'
    SHORT_DESC = 'D-ERR counting each navigational intent once.'
    SUPPORTED_PARAMS = _WHOLE_LIST_PARAMS


class _DIN_RBP(_NtcirDiversityMeasure):
    """
    DIN-RBP@k = (1 − p)·Σ_{r≤k} G(r)·p^{r−1} / H with DIN's gains G, H the largest global gain; without a cutoff,
    over the whole list (DIN-NTCIR-eval's "RBP" line).
    """
    __name__ = 'DIN_RBP'
    NAME = __name__
    PRETTY_NAME = 'DIN-RBP (NTCIREVAL)'
    SHORT_DESC = 'D-RBP counting each navigational intent once.'
    SUPPORTED_PARAMS = _RBP_PARAMS


class _DIN_EBR(_NtcirDiversityMeasure):
    """
    DIN-EBR@k: D-EBR@k with DIN's gains, Σ_{r≤k} BR(r)·p(r)·Π_{s<r}(1 − p(s)), p = G/(H + 1) (BR against the
    D-measures' ideal list, patience ``beta``); without a cutoff, over the whole list (DIN-NTCIR-eval's "EBR" line).
    """
    __name__ = 'DIN_EBR'
    NAME = __name__
    PRETTY_NAME = 'DIN-EBR (NTCIREVAL)'
    SHORT_DESC = 'D-EBR counting each navigational intent once.'
    SUPPORTED_PARAMS = _BLENDED_WHOLE_LIST_PARAMS


class _DIN_AP(_NtcirDiversityMeasure):
    """
    DIN-AP@k: D-AP@k with DIN's gains, Σ_{r≤k, G(r)>0} C(r)/r / min(k, R) (C counts the docs of DIN gain above 0, R
    the D-measures' ideal list's length); without a cutoff, DIN-NTCIR-eval's "AP" line, divided by R.
    """
    __name__ = 'DIN_AP'
    NAME = __name__
    PRETTY_NAME = 'DIN-AP (NTCIREVAL)'
    SHORT_DESC = 'D-AP counting each navigational intent once.'
    SUPPORTED_PARAMS = _WHOLE_LIST_PARAMS


class _DIN_P(_NtcirDiversityMeasure):
    """
    DIN-P@k = C(k)/k, C(k) the docs of DIN gain above 0 in the top k.
    """
    __name__ = 'DIN_P'
    NAME = __name__
    PRETTY_NAME = 'DIN-P (NTCIREVAL)'
    SHORT_DESC = 'D-P counting each navigational intent once.'


class _DIN_Hit(_NtcirDiversityMeasure):
    """
    DIN-Hit@k = 1 if a doc of DIN gain above 0 is in the top k, else 0.
    """
    __name__ = 'DIN_Hit'
    NAME = __name__
    PRETTY_NAME = 'DIN-Hit (NTCIREVAL)'
    SHORT_DESC = 'D-Hit counting each navigational intent once.'


class _DIN_nDCG_JK(_NtcirDiversityMeasure):
    """
    DIN-nDCG_JK@k: D-nDCG_JK@k with DIN's gains (NTCIREVAL's nDCG@k: discount 1 to rank 2, then log2 r), over the
    same of the D-measures' ideal list.
    """
    __name__ = 'DIN_nDCG_JK'
    NAME = __name__
    PRETTY_NAME = 'DIN-nDCG (Järvelin-Kekäläinen, NTCIREVAL)'
    SHORT_DESC = "NTCIREVAL's nDCG@k counting each navigational intent once."


class _DIN_RR(_NtcirDiversityMeasure):
    """
    DIN-RR = 1/r1, r1 the first rank of DIN gain above 0 (0 without one); on the top k with a cutoff
    (DIN-NTCIR-eval's "RR" line of gcompute on the list cut at k).
    """
    __name__ = 'DIN_RR'
    NAME = __name__
    PRETTY_NAME = 'DIN-RR (NTCIREVAL)'
    SHORT_DESC = 'D-RR counting each navigational intent once.'
    SUPPORTED_PARAMS = _WHOLE_LIST_PARAMS


class _DIN_O_measure(_NtcirDiversityMeasure):
    """
    DIN-O-measure = BR(r1) with DIN's gains (patience ``beta``, against the D-measures' ideal list), r1 the first
    rank of DIN gain above 0; on the top k with a cutoff.
    """
    __name__ = 'DIN_O_measure'
    NAME = __name__
    PRETTY_NAME = 'DIN-O-measure (NTCIREVAL)'
    SHORT_DESC = 'D-O-measure counting each navigational intent once.'
    SUPPORTED_PARAMS = _BLENDED_WHOLE_LIST_PARAMS


class _DIN_P_measure(_NtcirDiversityMeasure):
    """
    DIN-P-measure = BR(rp) with DIN's gains, rp the first rank of the list's largest DIN gain; on the top k with a
    cutoff.
    """
    __name__ = 'DIN_P_measure'
    NAME = __name__
    PRETTY_NAME = 'DIN-P-measure (NTCIREVAL)'
    SHORT_DESC = 'D-P-measure counting each navigational intent once.'
    SUPPORTED_PARAMS = _BLENDED_WHOLE_LIST_PARAMS


class _DIN_P_plus(_NtcirDiversityMeasure):
    """
    DIN-P-plus = Σ_{r≤rp, G(r)>0} BR(r) / C(rp) with DIN's gains G, rp the first rank of the list's largest; on the
    top k with a cutoff.
    """
    __name__ = 'DIN_P_plus'
    NAME = __name__
    PRETTY_NAME = 'DIN-P-plus (NTCIREVAL)'
    SHORT_DESC = 'D-P-plus counting each navigational intent once.'
    SUPPORTED_PARAMS = _BLENDED_WHOLE_LIST_PARAMS


class _DIN_NCU(_D_NCU):
    """
    DIN-NCU: D-NCU with DIN's gains, Σ_{G(r)>0} u(r)·γ^{C(r)−1} / Σ_{j≤R} γ^{j−1}, u = BR(r) (``utility='BR'``,
    patience ``beta``) or C(r)/r (``'P'``, which takes no ``beta``), R the D-measures' ideal list's length; on the top
    k with a cutoff (DIN-NTCIR-eval's "NCUrb,BR" and "NCUrb,P" lines).
    """
    __name__ = 'DIN_NCU'
    NAME = __name__
    PRETTY_NAME = 'DIN-NCU (rank-biased, NTCIREVAL)'
    SHORT_DESC = 'D-NCU counting each navigational intent once.'


class _DIN_sharp_nDCG(_NtcirDiversityMeasure):
    """
    DIN#-nDCG@k = γ·I-rec@k + (1 − γ)·DIN-nDCG@k.
    """
    __name__ = 'DIN_sharp_nDCG'
    NAME = __name__
    PRETTY_NAME = 'DIN#-nDCG (NTCIREVAL)'
    SHORT_DESC = 'I-rec and DIN-nDCG combined.'
    SUPPORTED_PARAMS = _SHARP_PARAMS


class _DIN_sharp_Q(_NtcirDiversityMeasure):
    """
    DIN#-Q@k = γ·I-rec@k + (1 − γ)·DIN-Q@k.
    """
    __name__ = 'DIN_sharp_Q'
    NAME = __name__
    PRETTY_NAME = 'DIN#-Q (NTCIREVAL)'
    SHORT_DESC = 'I-rec and DIN-Q combined.'
    SUPPORTED_PARAMS = {**_SHARP_PARAMS, **_BETA}


class _IA_MSnDCG(_NtcirDiversityMeasure):
    """
    IA-MSnDCG@k = Σ_i P(i|q)·MSnDCG_i@k, each intent's nDCG with its own levels as gains.
    """
    __name__ = 'IA_MSnDCG'
    NAME = __name__
    PRETTY_NAME = 'IA-MSnDCG (NTCIREVAL)'
    SHORT_DESC = 'Intent-aware MSnDCG.'


class _IA_nERR(_NtcirDiversityMeasure):
    """
    IA-nERR@k = Σ_i P(i|q)·nERR_i@k, stop probability g_i/(H_i + 1), H_i the intent's top level.
    """
    __name__ = 'IA_nERR'
    NAME = __name__
    PRETTY_NAME = 'IA-nERR (NTCIREVAL)'
    SHORT_DESC = 'Intent-aware nERR.'


class _IA_Q(_NtcirDiversityMeasure):
    """
    IA-Q@k = Σ_i P(i|q)·Q_i@k.
    """
    __name__ = 'IA_Q'
    NAME = __name__
    PRETTY_NAME = 'IA-Q (NTCIREVAL)'
    SHORT_DESC = 'Intent-aware Q-measure.'
    SUPPORTED_PARAMS = {**_PARAMS, **_BETA}


class _IA_ERR(_NtcirDiversityMeasure):
    """
    IA-ERR@k = Σ_i P(i|q)·ERR_i@k (not normalised), stop probability g_i/(H_i + 1).
    """
    __name__ = 'IA_ERR'
    NAME = __name__
    PRETTY_NAME = 'IA-ERR (NTCIREVAL)'
    SHORT_DESC = 'Intent-aware ERR.'


class _IA_RBP(_NtcirDiversityMeasure):
    """
    IA-RBP@k = Σ_i P(i|q)·RBP_i@k, RBP_i@k = (1 − p)·Σ_{r≤k} g_i(r)·p^{r−1} / H_i.
    """
    __name__ = 'IA_RBP'
    NAME = __name__
    PRETTY_NAME = 'IA-RBP (NTCIREVAL)'
    SHORT_DESC = 'Intent-aware RBP.'
    SUPPORTED_PARAMS = {**_PARAMS, 'p': PERSISTENCE_PARAM}


class _IA_EBR(_NtcirDiversityMeasure):
    """
    IA-EBR@k = Σ_i P(i|q)·EBR_i@k.
    """
    __name__ = 'IA_EBR'
    NAME = __name__
    PRETTY_NAME = 'IA-EBR (NTCIREVAL)'
    SHORT_DESC = 'Intent-aware expected blended ratio.'
    SUPPORTED_PARAMS = {**_PARAMS, **_BETA}


class _PplusQ(_NtcirDiversityMeasure):
    """
    P+Q@k = Σ_i P(i|q)·(Q_i@k for an informational intent, P-plus_i on the top k for a navigational one).
    """
    __name__ = 'PplusQ'
    NAME = __name__
    PRETTY_NAME = 'P+Q (NTCIREVAL)'
    SHORT_DESC = 'Q for informational intents, P-plus for navigational ones.'
    SUPPORTED_PARAMS = {**_PARAMS, **_BETA}


class _PplusQ_sharp(_NtcirDiversityMeasure):
    """
    P+Q#@k = γ·I-rec@k + (1 − γ)·P+Q@k.
    """
    __name__ = 'PplusQ_sharp'
    NAME = __name__
    PRETTY_NAME = 'P+Q# (NTCIREVAL)'
    SHORT_DESC = 'I-rec and P+Q combined.'
    SUPPORTED_PARAMS = {**_SHARP_PARAMS, **_BETA}


I_rec = declare(_I_rec())
D_nDCG = declare(_D_nDCG())
D_Q = declare(_D_Q())
D_nERR = declare(_D_nERR())
D_ERR = declare(_D_ERR())
D_RBP = declare(_D_RBP())
D_EBR = declare(_D_EBR())
D_AP = declare(_D_AP())
D_P = declare(_D_P())
D_Hit = declare(_D_Hit())
D_nDCG_JK = declare(_D_nDCG_JK())
I_rec_n = declare(_I_rec_n())
SUMp = declare(_SUMp())
D_RR = declare(_D_RR())
D_O_measure = declare(_D_O_measure())
D_P_measure = declare(_D_P_measure())
D_P_plus = declare(_D_P_plus())
D_NCU = declare(_D_NCU())
D_GAP = declare(_D_GAP())
D_sharp_nDCG = declare(_D_sharp_nDCG())
D_sharp_Q = declare(_D_sharp_Q())
D_sharp_ERR = declare(_D_sharp_ERR())
D_sharp_RBP = declare(_D_sharp_RBP())
D_sharp_EBR = declare(_D_sharp_EBR())
DIN_nDCG = declare(_DIN_nDCG())
DIN_Q = declare(_DIN_Q())
DIN_nERR = declare(_DIN_nERR())
DIN_ERR = declare(_DIN_ERR())
DIN_RBP = declare(_DIN_RBP())
DIN_EBR = declare(_DIN_EBR())
DIN_AP = declare(_DIN_AP())
DIN_P = declare(_DIN_P())
DIN_Hit = declare(_DIN_Hit())
DIN_nDCG_JK = declare(_DIN_nDCG_JK())
DIN_RR = declare(_DIN_RR())
DIN_O_measure = declare(_DIN_O_measure())
DIN_P_measure = declare(_DIN_P_measure())
DIN_P_plus = declare(_DIN_P_plus())
DIN_NCU = declare(_DIN_NCU())
DIN_sharp_nDCG = declare(_DIN_sharp_nDCG())
DIN_sharp_Q = declare(_DIN_sharp_Q())
IA_MSnDCG = declare(_IA_MSnDCG())
IA_nERR = declare(_IA_nERR())
IA_Q = declare(_IA_Q())
IA_ERR = declare(_IA_ERR())
IA_RBP = declare(_IA_RBP())
IA_EBR = declare(_IA_EBR())
PplusQ = declare(_PplusQ())
PplusQ_sharp = declare(_PplusQ_sharp())
