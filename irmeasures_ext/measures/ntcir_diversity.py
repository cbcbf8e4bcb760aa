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


@declare
class I_rec(_NtcirDiversityMeasure):
    """
    Intent recall at k: the intents with a relevant doc in the top k, over the intents with a relevant doc
    (needs no probabilities).
    """
    PRETTY_NAME = 'I-rec (NTCIREVAL)'
    SHORT_DESC = 'Intent recall: the fraction of the intents that the top k docs cover.'


@declare
class D_nDCG(_NtcirDiversityMeasure):
    """
    D-nDCG@k: MSnDCG@k over the global gain GG(d) = Σ_i P(i|q)·g_i(d), divided by the same of the docs by GG.
    """
    PRETTY_NAME = 'D-nDCG (NTCIREVAL)'
    SHORT_DESC = 'nDCG over the global gain of the intents.'


@declare
class D_Q(_NtcirDiversityMeasure):
    """
    D-Q@k: Q-measure@k over the global gain, Σ_{r≤k, GG(r)>0} BR(r) / min(k, R) (BR with patience ``beta``,
    default 1); without a cutoff, NTCIREVAL's "Q-measure" line: the same over the whole list, divided by R.
    """
    PRETTY_NAME = 'D-Q (NTCIREVAL)'
    SHORT_DESC = 'Q-measure over the global gain of the intents.'
    SUPPORTED_PARAMS = _BLENDED_WHOLE_LIST_PARAMS


@declare
class D_nERR(_NtcirDiversityMeasure):
    """
    D-nERR@k: nERR@k over the global gain, stop probability GG/(H + 1), H the query's largest GG.
    """
    PRETTY_NAME = 'D-nERR (NTCIREVAL)'
    SHORT_DESC = 'nERR over the global gain of the intents.'


@declare
class D_ERR(_NtcirDiversityMeasure):
    """
    D-ERR@k: ERR@k over the global gain (not normalised), stop probability GG/(H + 1); without a cutoff, over the
    whole list (NTCIREVAL's "ERR" line).
    """
    PRETTY_NAME = 'D-ERR (NTCIREVAL)'
    SHORT_DESC = 'ERR over the global gain of the intents.'
    SUPPORTED_PARAMS = _WHOLE_LIST_PARAMS


@declare
class D_RBP(_NtcirDiversityMeasure):
    """
    D-RBP@k = (1 − p)·Σ_{r≤k} GG(r)·p^{r−1} / H; without a cutoff, over the whole list (NTCIREVAL's "RBP" line).
    """
    PRETTY_NAME = 'D-RBP (NTCIREVAL)'
    SHORT_DESC = 'RBP over the global gain of the intents.'
    SUPPORTED_PARAMS = _RBP_PARAMS


@declare
class D_EBR(_NtcirDiversityMeasure):
    """
    D-EBR@k: EBR@k over the global gain: Σ_{r≤k} BR(r)·p(r)·Π_{s<r}(1 − p(s)), p = GG/(H + 1); without a cutoff,
    over the whole list (NTCIREVAL's "EBR" line).
    """
    PRETTY_NAME = 'D-EBR (NTCIREVAL)'
    SHORT_DESC = 'Expected blended ratio over the global gain of the intents.'
    SUPPORTED_PARAMS = _BLENDED_WHOLE_LIST_PARAMS


@declare
class D_AP(_NtcirDiversityMeasure):
    """
    D-AP@k = Σ_{r≤k, GG(r)>0} C(r)/r / min(k, R) (NTCIREVAL's AP@k over the global gain); without a cutoff,
    NTCIREVAL's "AP" line: the same over the whole list, divided by R.
    """
    PRETTY_NAME = 'D-AP (NTCIREVAL)'
    SHORT_DESC = 'Average precision over the docs of global gain above 0.'
    SUPPORTED_PARAMS = _WHOLE_LIST_PARAMS


@declare
class D_P(_NtcirDiversityMeasure):
    """
    D-P@k = C(k)/k, C(k) the docs of global gain above 0 in the top k.
    """
    PRETTY_NAME = 'D-P (NTCIREVAL)'
    SHORT_DESC = 'Precision over the docs of global gain above 0.'


@declare
class D_Hit(_NtcirDiversityMeasure):
    """
    D-Hit@k = 1 if a doc of global gain above 0 is in the top k, else 0.
    """
    PRETTY_NAME = 'D-Hit (NTCIREVAL)'
    SHORT_DESC = 'Whether the top k holds a doc of global gain above 0.'


@declare
class D_nDCG_JK(_NtcirDiversityMeasure):
    """
    D-nDCG_JK@k: NTCIREVAL's nDCG@k (Järvelin and Kekäläinen's, discount 1 to rank 2, then log2 r) over the global
    gain.
    """
    PRETTY_NAME = 'D-nDCG (Järvelin-Kekäläinen, NTCIREVAL)'
    SHORT_DESC = "NTCIREVAL's nDCG@k over the global gain of the intents."


@declare
class I_rec_n(_NtcirDiversityMeasure):
    """
    I-rec@n: I-rec at rank n = ``|I|``, the number of intents with a relevant doc (NTCIREVAL's ``I-rec@n``, which
    reads the whole run).
    """
    PRETTY_NAME = 'I-rec@n (NTCIREVAL)'
    SHORT_DESC = 'Intent recall at rank n, the number of intents.'
    SUPPORTED_PARAMS = {'rel': REL_PARAM}


@declare
class SUMp(_NtcirDiversityMeasure):
    """
    SUMp = Σ P(i|q) over the intents with a doc judged ``rel`` or above: the largest value an IA-measure or P+Q can
    take (NTCIREVAL's IA and P+Q scripts print it as ``SUMp=``; below 1 where an intent has no relevant doc, or
    where the probabilities, used as written, do not sum to 1).
    """
    PRETTY_NAME = 'SUMp (NTCIREVAL)'
    SHORT_DESC = 'The sum of the probabilities of the intents that have a relevant doc.'
    SUPPORTED_PARAMS = {'rel': REL_PARAM}


@declare
class D_RR(_NtcirDiversityMeasure):
    """
    D-RR = 1/r1, r1 the first rank of global gain above 0 (0 without one); on the top k with a cutoff (NTCIREVAL's
    "RR" line of gcompute on the list cut at k).
    """
    PRETTY_NAME = 'D-RR (NTCIREVAL)'
    SHORT_DESC = 'Reciprocal rank of the first doc of global gain above 0.'
    SUPPORTED_PARAMS = _WHOLE_LIST_PARAMS


@declare
class D_O_measure(_NtcirDiversityMeasure):
    """
    D-O-measure = BR(r1) over the global gain (patience ``beta``, default 1), r1 the first rank of GG > 0; on the top k
    with a cutoff.
    """
    PRETTY_NAME = 'D-O-measure (NTCIREVAL)'
    SHORT_DESC = 'Blended ratio at the first doc of global gain above 0.'
    SUPPORTED_PARAMS = _BLENDED_WHOLE_LIST_PARAMS


@declare
class D_P_measure(_NtcirDiversityMeasure):
    """
    D-P-measure = BR(rp) over the global gain, rp the first rank of the list's largest GG; on the top k with a
    cutoff.
    """
    PRETTY_NAME = 'D-P-measure (NTCIREVAL)'
    SHORT_DESC = 'Blended ratio at the first doc of the largest global gain retrieved.'
    SUPPORTED_PARAMS = _BLENDED_WHOLE_LIST_PARAMS


@declare
class D_P_plus(_NtcirDiversityMeasure):
    """
    D-P-plus = Σ_{r≤rp, GG(r)>0} BR(r) / C(rp) over the global gain; on the top k with a cutoff.
    """
    PRETTY_NAME = 'D-P-plus (NTCIREVAL)'
    SHORT_DESC = 'Mean blended ratio down to the first doc of the largest global gain retrieved.'
    SUPPORTED_PARAMS = _BLENDED_WHOLE_LIST_PARAMS


@declare
class D_NCU(_NtcirDiversityMeasure):
    """
    D-NCU: rank-biased NCU over the global gain, Σ_{GG(r)>0} u(r)·γ^{C(r)−1} / Σ_{j≤R} γ^{j−1}, u = BR(r)
    (``utility='BR'``, patience ``beta``) or C(r)/r (``'P'``, which takes no ``beta``, as ``NCU``); on the top k with
    a cutoff (NTCIREVAL's gcompute prints "NCUrb,BR" and "NCUrb,P"; it has no graded-uniform NCU).
    """
    PRETTY_NAME = 'D-NCU (rank-biased, NTCIREVAL)'
    SHORT_DESC = 'Rank-biased normalised cumulative utility over the global gain of the intents.'
    SUPPORTED_PARAMS = {**_BLENDED_WHOLE_LIST_PARAMS, 'utility': NCU.SUPPORTED_PARAMS['utility'],
                        'gamma': NCU.SUPPORTED_PARAMS['gamma']}

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        if 'beta' in self.params and self['utility'] != 'BR':
            raise MeasureParamError(f"{self.NAME}: beta applies only with utility='BR', "
                                    f"not utility={self['utility']!r}")


@declare
class D_GAP(_NtcirDiversityMeasure):
    """
    D-GAP@k: graded average precision with the global gains as grades (NTCIREVAL's ``gcompute -gap``), Σ_{r≤k}
    GS(r)/r / GI(min(k, R)), GS(r) = Σ_{s≤r} m·(m + 1) with m = min(GG(r), GG(s)) for GG(r) > 0 (else 0), GI(n) =
    Σ_{j≤n} GG*(j)·(GG*(j) + 1) over the ideal list; without a cutoff over the whole list, divided by GI(R).
    """
    PRETTY_NAME = 'D-GAP (NTCIREVAL)'
    SHORT_DESC = 'Graded average precision with the global gains as grades.'
    SUPPORTED_PARAMS = _WHOLE_LIST_PARAMS


@declare
class IA_MSnDCG(_NtcirDiversityMeasure):
    """
    IA-MSnDCG@k = Σ_i P(i|q)·MSnDCG_i@k, each intent's nDCG with its own levels as gains.
    """
    PRETTY_NAME = 'IA-MSnDCG (NTCIREVAL)'
    SHORT_DESC = 'Intent-aware MSnDCG.'


@declare
class IA_nERR(_NtcirDiversityMeasure):
    """
    IA-nERR@k = Σ_i P(i|q)·nERR_i@k, stop probability g_i/(H_i + 1), H_i the intent's top level.
    """
    PRETTY_NAME = 'IA-nERR (NTCIREVAL)'
    SHORT_DESC = 'Intent-aware nERR.'


@declare
class IA_Q(_NtcirDiversityMeasure):
    """
    IA-Q@k = Σ_i P(i|q)·Q_i@k.
    """
    PRETTY_NAME = 'IA-Q (NTCIREVAL)'
    SHORT_DESC = 'Intent-aware Q-measure.'
    SUPPORTED_PARAMS = {**_PARAMS, **_BETA}


@declare
class IA_ERR(_NtcirDiversityMeasure):
    """
    IA-ERR@k = Σ_i P(i|q)·ERR_i@k (not normalised), stop probability g_i/(H_i + 1).
    """
    PRETTY_NAME = 'IA-ERR (NTCIREVAL)'
    SHORT_DESC = 'Intent-aware ERR.'


@declare
class IA_RBP(_NtcirDiversityMeasure):
    """
    IA-RBP@k = Σ_i P(i|q)·RBP_i@k, RBP_i@k = (1 − p)·Σ_{r≤k} g_i(r)·p^{r−1} / H_i.
    """
    PRETTY_NAME = 'IA-RBP (NTCIREVAL)'
    SHORT_DESC = 'Intent-aware RBP.'
    SUPPORTED_PARAMS = {**_PARAMS, 'p': PERSISTENCE_PARAM}


@declare
class IA_EBR(_NtcirDiversityMeasure):
    """
    IA-EBR@k = Σ_i P(i|q)·EBR_i@k.
    """
    PRETTY_NAME = 'IA-EBR (NTCIREVAL)'
    SHORT_DESC = 'Intent-aware expected blended ratio.'
    SUPPORTED_PARAMS = {**_PARAMS, **_BETA}


@declare
class PplusQ(_NtcirDiversityMeasure):
    """
    P+Q@k = Σ_i P(i|q)·(Q_i@k for an informational intent, P-plus_i on the top k for a navigational one).
    """
    PRETTY_NAME = 'P+Q (NTCIREVAL)'
    SHORT_DESC = 'Q for informational intents, P-plus for navigational ones.'
    SUPPORTED_PARAMS = {**_PARAMS, **_BETA}


# The DIN- and #-measures, generated from the measures they are defined by, as their kernels are.

#: The D-measures that DIN-NTCIR-eval's gcompute lines compute with DIN's gains (all but D-GAP: it passes no -gap).
DIN_OF = ('D_nDCG', 'D_Q', 'D_nERR', 'D_ERR', 'D_RBP', 'D_EBR', 'D_AP', 'D_P', 'D_Hit', 'D_nDCG_JK', 'D_RR',
          'D_O_measure', 'D_P_measure', 'D_P_plus', 'D_NCU')
#: The measures with a #-form, γ·I-rec@k + (1 − γ)·M@k (D#-, DIN#- and P+Q#).
SHARP_OF = ('D_nDCG', 'D_Q', 'D_ERR', 'D_RBP', 'D_EBR', 'DIN_nDCG', 'DIN_Q', 'PplusQ')


def _printed(measure: ExtMeasure) -> str:
    """NTCIREVAL's name of ``measure`` (``D-Q`` for ``D_Q``), from its PRETTY_NAME."""
    return measure.PRETTY_NAME.split(' (')[0]


def _declared(name: str, base: type[ExtMeasure], doc: str, **attributes: Any) -> ExtMeasure:
    """Declares the measure class ``name``, a subclass of ``base`` with ``doc`` and ``attributes``."""
    return declare(type(name, (base,), {'__doc__': doc, '__module__': __name__, '__qualname__': name, **attributes}))


def _din(measure: ExtMeasure) -> ExtMeasure:
    """The DIN-measure of a D-measure: the same parameters, DIN's gains (its kernel's) against the D-measure's ideal
    list."""
    printed, din = _printed(measure), 'DIN' + _printed(measure)[1:]
    return _declared(
        'DIN' + measure.NAME[1:], type(measure),
        f"\n    {din}: {printed} (``{measure.NAME}``) with DIN's gains: a doc gains P(i|q)·g_i(d) for each "
        'informational intent, and for a navigational intent only at the first doc relevant to it; C(r) counts the '
        "docs of DIN gain above 0, and R, H and the ideal list stay the D-measure's (DIN-NTCIR-eval's gcompute line)."
        f'\n\n    {(type(measure).__doc__ or "").strip()}\n    ',
        PRETTY_NAME=din + measure.PRETTY_NAME[len(printed):],
        SHORT_DESC=f'{printed} counting each navigational intent once.')


def _sharp(measure: ExtMeasure) -> ExtMeasure:
    """The #-form of a measure: γ·I-rec@k + (1 − γ)·M@k, with the measure's β or p."""
    printed = _printed(measure)
    sharp = printed.replace('-', '#-', 1) if '-' in printed else printed + '#'
    name = measure.NAME.replace('_', '_sharp_', 1) if '_' in measure.NAME else measure.NAME + '_sharp'
    return _declared(
        name, _NtcirDiversityMeasure,
        f'\n    {sharp}@k = γ·I-rec@k + (1 − γ)·{printed}@k, {printed}@k as ``{measure.NAME}`` computes it (γ: '
        "``gamma``, NTCIREVAL's scripts' 0.5).\n    ",
        PRETTY_NAME=f'{sharp} (NTCIREVAL)', SHORT_DESC=f'I-rec and {printed} combined.',
        SUPPORTED_PARAMS={**_SHARP_PARAMS, **{param: info for param, info in measure.SUPPORTED_PARAMS.items()
                                              if param in ('beta', 'p')}})


for _name in DIN_OF:
    globals()['DIN' + _name[1:]] = _din(globals()[_name])
for _name in SHARP_OF:
    _measure = _sharp(globals()[_name])
    globals()[_measure.NAME] = _measure
