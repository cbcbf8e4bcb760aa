"""What ir_measures sees of this package: the ``irmeasures_ext`` provider and its registration.

The provider knows which measures it computes from the declarations alone; the engine (numpy,
pyarrow) is imported when it builds its first evaluator.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

import ir_measures
from ir_measures import Metric, providers
from ir_measures.measures import Measure

from irmeasures_ext.errors import MeasureParamError
from irmeasures_ext.measures import PROVIDER_SPECS
from irmeasures_ext.measures.base import (
    DEFAULT_RANKING,
    SCORE_PRECISIONS,
    TIE_POLICIES,
    Ranking,
    check_choice,
    check_integer,
    check_measure,
    threshold_check,
)

if TYPE_CHECKING:
    from irmeasures_ext.readers.forms import QrelsLike, RunLike


class IrMeasuresExtProvider(providers.Provider):
    """
    irmeasures_ext: Q-measure, nDCG_Z1, the rank statistics, NTCIREVAL's ad hoc and intent-aware measures,
    trec_eval's measures ir_measures has no name for, and every measure of ir_measures (trec_eval's AP, P, R,
    RR, nDCG, Bpref, infAP, IPrec, the set measures...; gdeval's ERR and exp-log2 nDCG; cwl_eval's RBP, BPM,
    SDCG, NERR8-11, INST, INSQ; trectools' RBP; ndeval's alpha_nDCG, ERR_IA, ...; Judged; Compat), each exact to
    the tool that defines it, computed in vectorised passes over one ranking of the run (ir_measures' pipeline
    still gives its own measures to their own providers first). By default ties are
    broken as trec_eval does (score descending, then doc_id descending, scores compared as float32),
    for every measure, including ``RR@k``; ``provider.configured(ties=..., score_precision=...)`` and
    our measures' ``ties``/``score_precision`` parameters choose another policy, and
    ``provider.configured(depth=N)`` evaluates only the first N ranked docs of each query (trec_eval's
    ``-M N``, NTCIREVAL's ``label -truncate N``) and ``provider.configured(classes=True)`` computes every
    measure with the qrels' equivalence classes (NTCIREVAL's ``-ec``). Every measure takes
    ``judged_only=True`` (the condensed list: ours as NTCIREVAL's ``label -j``, ir_measures' as trec_eval's
    ``-J``).
    """
    NAME = 'irmeasures_ext'
    SUPPORTED_MEASURES = PROVIDER_SPECS

    def __init__(self, ties: str = DEFAULT_RANKING.ties, score_precision: str = DEFAULT_RANKING.score_precision,
                 depth: int | None = DEFAULT_RANKING.depth, classes: bool = DEFAULT_RANKING.classes,
                 rel: float | None = DEFAULT_RANKING.rel) -> None:
        super().__init__()
        self.ties = check_choice(self.NAME, 'ties', ties, TIE_POLICIES)
        self.score_precision = check_choice(self.NAME, 'score_precision', score_precision, SCORE_PRECISIONS)
        self.depth = None if depth is None else check_integer(self.NAME, 'depth', depth, minimum=1)
        if not isinstance(classes, bool):
            raise MeasureParamError(f'{self.NAME}: classes must be True or False, got {classes!r}')
        self.classes = classes
        self.rel = None if rel is None else threshold_check(self.NAME, 'rel', rel)

    def configured(self, ties: str | None = None, score_precision: str | None = None,
                   depth: int | None = None, classes: bool | None = None,
                   rel: float | None = None) -> IrMeasuresExtProvider:
        """A provider like this one, with another tie policy and/or score precision (see
        :mod:`irmeasures_ext.engine.ties`) and/or depth cut (only the first ``depth`` ranked docs of each
        query, judged or not, are evaluated; R and the ideal list are the qrels' all the same) and/or
        equivalence classes for every measure (``classes=True``: as our measures' ``classes=True``, for
        ir_measures' AP, P, RR, Success... too; the qrels need classes) and/or relevance threshold (``rel``, a
        number above 0, real for real-valued labels: a doc is relevant, and gains, when its label is at least
        ``rel``, in every measure that has a threshold and gives none other than the default:
        :mod:`irmeasures_ext.engine.relevance`); usable wherever a provider is (``calc_aggregate``,
        ``iter_calc``, ``evaluator``). Our measures' own ``ties``/``score_precision`` parameters take
        precedence."""
        return type(self)(ties or self.ties, score_precision or self.score_precision,
                          self.depth if depth is None else depth, self.classes if classes is None else classes,
                          self.rel if rel is None else rel)

    def for_provider(self, provider: str | None, ties: str | None = None, score_precision: str | None = None,
                     depth: int | None = None, rel: float | None = None) -> IrMeasuresExtProvider:
        """This provider configured with ``ties``/``score_precision``/``depth``/``rel`` for an evaluation by
        ``provider`` (a name; None: this one and ir_measures' default pipeline). MeasureParamError when
        another provider is named with a ranking other than the default: it ranks its own way."""
        configured = self.configured(ties, score_precision, depth, rel=rel)
        if provider not in (None, self.NAME) and configured.ranking() != DEFAULT_RANKING:
            raise MeasureParamError(f'ties, score precision, depth and rel choose how the {self.NAME} provider ranks; '
                                    f'provider {provider} ranks its own way: give none of them with it')
        return configured

    def ranking(self) -> Ranking:
        """This provider's :class:`~irmeasures_ext.measures.base.Ranking`."""
        return Ranking(self.ties, self.score_precision, self.depth, self.classes, self.rel)

    def _evaluator(self, measures: Iterable[Measure | str], qrels: QrelsLike) -> providers.Evaluator:
        from irmeasures_ext.engine import evaluator
        return evaluator.evaluator(self._own_measures(measures), qrels, self.ranking())

    def _iter_calc(self, measures: Iterable[Measure | str], qrels: QrelsLike, run: RunLike) -> Iterator[Metric]:
        from irmeasures_ext.engine import evaluator
        built, run = evaluator.evaluator_and_run(self._own_measures(measures), qrels, run, self.ranking())
        return built.iter_calc(run)

    def calc_aggregate(self, measures: Iterable[Measure | str], qrels: QrelsLike,
                       run: RunLike) -> dict[Measure, float]:
        from irmeasures_ext.engine import evaluator
        built, run = evaluator.evaluator_and_run(self._own_measures(measures), qrels, run, self.ranking())
        return built.calc_aggregate(run)

    def _own_measures(self, measures: Iterable[Measure | str]) -> list[Measure]:
        """``measures`` checked to be ours; a name (``'nDCG@10'``, ``'ndcg_cut.10'``) parsed as the command line
        parses one (ir_measures' syntax, then trec_eval's names), MeasureParamError if it names no measure."""
        checked = measures_of(measures)
        for measure in checked:
            check_measure(measure)
            if not self.supports(measure):
                raise MeasureParamError(f'provider {self.NAME} does not support measure {measure}')
        return checked


provider = IrMeasuresExtProvider()


def measures_of(measures: Iterable[Measure | str]) -> list[Measure]:
    """``measures`` as a list of measures, for the Python API (our provider, ``irmeasures_ext.compare``): a name
    (``'nDCG@10'``, ``'Q(beta=0.5)@10'``, trec_eval's ``'ndcg_cut.10'``) parsed as the command line parses one
    (:func:`irmeasures_ext.names.measures_of`); MeasureParamError if it names no measure."""
    if isinstance(measures, (str, Measure)) or not isinstance(measures, Iterable):
        single = f' (one measure: [{measures!r}])' if isinstance(measures, (str, Measure)) else ''
        raise MeasureParamError(f'measures must be a list of measures or names, got {measures!r}{single}')
    given = list(measures)
    ready = [measure for measure in given if isinstance(measure, Measure)]
    if len(ready) == len(given):
        return ready
    from irmeasures_ext.names import measures_of as parsed  # (the parser loads for names only)
    return parsed(given)


def register_provider() -> None:
    """Registers the provider by name (also as ``ir_measures.irmeasures_ext``, like ir_measures' own) and once at
    the end of the default pipeline."""
    registered = ir_measures.providers.registry.setdefault(provider.NAME, provider)
    if not hasattr(ir_measures, provider.NAME):
        setattr(ir_measures, provider.NAME, registered)
    pipeline = ir_measures.DefaultPipeline.providers
    if not any(p.NAME == provider.NAME for p in pipeline):
        pipeline.append(registered)


def register_datasets() -> None:
    """Registers the QuoteR and citation-recommendation datasets with ir_datasets (imports it)."""
    from irmeasures_ext.datasets.registry import register as register_with_ir_datasets
    register_with_ir_datasets()
