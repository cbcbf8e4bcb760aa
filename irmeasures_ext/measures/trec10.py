"""trec_eval 10.0's ``rbp``, ``rbp_resid`` and ``unj``, under trec_eval's names (ir_measures' ``RBP`` is
another measure and stays ir_measures' own)."""
from __future__ import annotations

from typing import Any

from irmeasures_ext.errors import MeasureParamError
from irmeasures_ext.measures.base import REQUIRED_CUTOFF_PARAM, ExtMeasure, Param, check_boolean, declare, gains_check
from irmeasures_ext.measures.ntcir_cascade import probability

#: trec_eval's ``rbp.p=`` (default 0.9).
PERSISTENCE_PARAM = Param(probability(below_one=True), dtype=float, default=0.9,
                          desc="persistence 0 <= p < 1: the chance of reading on (trec_eval's rbp.p=, default 0.9)")


def _refuse_judged_only(measure_name: str, name: str, value: Any) -> bool:
    """``judged_only`` of a measure that counts the unjudged docs: False only."""
    if check_boolean(measure_name, name, value):
        raise MeasureParamError(f'{measure_name}: judged_only=True is refused: it counts the unjudged docs, which '
                                'the condensed list has none of (trec_eval -J gives 0)')
    return value


def _check_level_gains(measure_name: str, name: str, value: Any) -> dict[float, float]:
    """Gains of trec_eval 10's levels >= 0."""
    gains = gains_check(measure_name, name, value)
    if any(label < 0 for label in gains):
        raise MeasureParamError(f'{measure_name}: gains keys must be labels >= 0, got {sorted(gains)} (trec_eval '
                                'would give the gain of level -1 to unjudged docs, of -2 to negative labels)')
    return gains

_CITE_RBP = '''
    .. cite:: Alistair Moffat and Justin Zobel. Rank-biased precision for measurement of retrieval
       effectiveness. ACM TOIS 27(1), 2008.
    .. cite:: trec_eval 10.0 (github.com/usnistgov/trec_eval, commit f4253652c8efd0d86ddffd0d163cc0a0f813111a),
       m_rbp.c and m_rbp_resid.c (Ian Soboroff, 2016).
'''


class _TrecEval10Measure(ExtMeasure):
    """A measure of trec_eval 10.0: checks ``p``; those that count unjudged docs refuse ``judged_only``."""

    #: Whether the measure counts unjudged docs, so that on the condensed list it would be 0.
    COUNTS_UNJUDGED = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.COUNTS_UNJUDGED:
            cls.SUPPORTED_PARAMS = {**cls.SUPPORTED_PARAMS, 'judged_only': Param(
                _refuse_judged_only, dtype=bool, default=False, desc='refused: the measure counts the unjudged docs')}


@declare
class rbp(_TrecEval10Measure):
    __doc__ = """
    trec_eval 10.0's rank-biased precision ``rbp`` (``-m rbp``, ``-m rbp.p=0.8,1=1,2=3``):

        rbp = (1 − p) · Σ_r g(r) · p^{r−1}

    over every retrieved doc, with persistence ``p`` (default 0.9). A doc labelled L >= 0 gains ``gains[L]``
    (default L: trec_eval's levels), a doc labelled below 0 or unjudged 0. Per query, the gains are divided by
    the largest gain g_hi of the levels 0 .. (the query's largest label >= 0; a real-valued label is a level of
    its own) and of every level ``gains`` names, when g_hi > 1 (trec_eval's "normalize gains to [0,1]":
    (g − min)/(max − min) when min < 0 or max > 1, its min and max starting at 0 in the 10.0 binary; gains here
    are >= 0, so min is 0). Binary labels keep their gains; labels 0-3 give L/3 in a query labelled up to 3.
    ``rel`` plays no part (trec_eval's ``-l`` does not either). No cutoff: the provider's depth (trec_eval's
    ``-M``) cuts the list.

    ``judged_only=True`` is this package's condensed list (negative labels kept as judged docs; trec_eval's
    ``-J`` drops them too). Under ``ties='expected'``: each doc's gain times the mean of p^{r−1} over its tie
    group's ranks.
    """ + _CITE_RBP
    PRETTY_NAME = 'rank-biased precision (trec_eval 10.0)'
    SHORT_DESC = "trec_eval 10.0's rbp: (1 - p) * sum of gain * p^(r-1), gains divided by the query's largest above 1."
    SUPPORTED_PARAMS = {
        'p': PERSISTENCE_PARAM,
        'gains': Param(_check_level_gains, dtype=dict,
                       desc="gain per relevance level >= 0, e.g. {1:1,2:3,3:7} (trec_eval's rbp.1=1,2=3,3=7); "
                            'default gain = level'),
    }


@declare
class rbp_resid(_TrecEval10Measure):
    __doc__ = """
    trec_eval 10.0's ``rbp_resid``, the residual of ``rbp``: how much rbp could rise if every unjudged doc of the
    list (and the unseen tail after its n docs) had gain 1,

        rbp_resid = p^n + (1 − p) · Σ_{r unjudged} p^{r−1},   0 when no doc of the list is unjudged,

    a doc labelled below 0 counting as unjudged (trec_eval's "in the pool, not judged"). Lower is better
    (more of the list is judged). A query the run does not answer scores 0, as trec_eval 10.0's ``-c`` prints
    for ``rbp_resid`` (for ``rbp_resid.p=...`` it prints p + (1 − p) = 1 there: it scores its one-doc
    placeholder ranking and clears only the measure named exactly ``rbp_resid``). ``judged_only`` is refused.
    Under ``ties='expected'``: 1 − (1 − p) · Σ over the judged docs of the mean of p^{r−1} over their tie groups.
    """ + _CITE_RBP
    PRETTY_NAME = 'RBP residual (trec_eval 10.0)'
    SHORT_DESC = "trec_eval 10.0's rbp_resid: the most rbp could rise if the unjudged docs had gain 1."
    SUPPORTED_PARAMS = {'p': PERSISTENCE_PARAM}
    LOWER_IS_BETTER = True
    COUNTS_UNJUDGED = True


@declare
class unj(_TrecEval10Measure):
    """
    trec_eval 10.0's ``unj_k`` (``-m unj.5,10,20``): the fraction of unjudged docs in the top k,

        ``unj@k = |unjudged docs ranked k or better| / k``,

    always divided by k (a list shorter than k counts as filled with judged docs), a doc labelled below 0
    counting as unjudged (trec_eval's "in the pool, not judged"). Lower is better (a "red flag": the run is
    poorly covered by the judgments). A query the run does not answer scores 0. ``judged_only`` is refused.

    .. cite:: trec_eval 10.0 (github.com/usnistgov/trec_eval, commit f4253652c8efd0d86ddffd0d163cc0a0f813111a),
       m_unjudged.c (Ian Soboroff, 2023).
    """
    PRETTY_NAME = 'unjudged at k (trec_eval 10.0)'
    SHORT_DESC = "trec_eval 10.0's unj_k: the fraction of the top k docs that are unjudged (or labelled below 0)."
    SUPPORTED_PARAMS = {'cutoff': REQUIRED_CUTOFF_PARAM}
    LOWER_IS_BETTER = True
    COUNTS_UNJUDGED = True
