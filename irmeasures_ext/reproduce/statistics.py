"""Reproducibility and replicability measures (Breuer et al., SIGIR 2020), equal to repro_eval 0.5.0.

Score-based statistics (RMSE, nRMSE, ER, ΔRI, t-test p-values) are computed from the per-topic scores of our provider
(trec_eval's tie rule) over the qrels' topics; a topic a run does not answer is evaluated as a ranking of no documents
(0 in every measure of the ranking), said in one :class:`~irmeasures_ext.errors.UnansweredTopicsWarning`. The
rank-based ones (KTU, RBO) are in :mod:`~irmeasures_ext.reproduce.agreement`. See docs/reproducibility.md for the
formulas and where they depart from the papers. Given per-topic scores (:data:`TopicScores`), the statistics pair
two arrays or lists by position, and two pandas Series or mappings (topic -> score) by topic.
"""
from __future__ import annotations

import math
import sys
from collections.abc import Hashable, Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import numpy.typing as npt
import pyarrow as pa
from ir_measures.measures import Measure

from irmeasures_ext.errors import DeferredWarnings, InputError, check_flag
from irmeasures_ext.reproduce.agreement import (
    RBO_DEPTH,
    RBO_P,
    STATISTICS,
    RankedLists,
    agreement_of,
    check_lists_options,
    run_described,
    warn_lacking,
    warn_unanswered,
)

if TYPE_CHECKING:
    import pandas as pd

    from irmeasures_ext.evaluation import Evaluation
    from irmeasures_ext.readers.forms import QrelsLike, RunLike
    from irmeasures_ext.readers.inputs import Input

#: The ``run`` of the statistics that compare the advanced run with the baseline (ER, ΔRI).
BOTH = 'advanced_vs_baseline'
#: The original runs of an experiment (and of each reproduction or replication).
RUNS = ('baseline', 'advanced')
#: The ``measure`` of the rows of :meth:`Experiment.reproducibility` that compare the ranked lists.
RANKED_LISTS = 'ranked lists'
#: The columns of :meth:`Experiment.paired_topic_scores`.
PAIRED_COLUMNS = ('measure', 'run', 'query_id', 'original', 'reproduced')
#: Per-topic scores as the statistics take them: an array or list (two paired by position), or a pandas Series or a
#: mapping of topic -> score (two paired by topic).
TopicScores = npt.ArrayLike | Mapping[Hashable, float]


def _evaluation(measures: list[Measure], qrels: QrelsLike, rel: float | None = None) -> Evaluation:
    """Our provider's evaluation of ``measures`` on ``qrels``, read once (with the relevance threshold ``rel``:
    ``provider.configured(rel=...)``)."""
    from irmeasures_ext.evaluation import Evaluation
    from irmeasures_ext.plugin import provider
    evaluation = Evaluation(measures, provider if rel is None else provider.configured(rel=rel))
    evaluation.read_qrels(qrels)
    return evaluation


@dataclass(frozen=True)
class _Scored:
    """A run read once, its per-topic scores on the qrels' topics (sorted; trec_eval's ties; a topic it does not
    answer evaluated as a ranking of no documents) and those topics it does not answer."""

    run: Input
    topics: pa.Array
    values: dict[Measure, np.ndarray]
    unanswered: list[str]

    @classmethod
    def of(cls, evaluation: Evaluation, run: RunLike | Input) -> _Scored:
        import pyarrow.compute as pc

        from irmeasures_ext.engine.doc_ids import run_changes
        from irmeasures_ext.readers.inputs import read_input
        read = read_input(run, 'run')
        results = evaluation.results(read)
        query_ids = read.table['query_id']
        heads = query_ids.take(np.r_[0, run_changes(query_ids)]) if len(query_ids) else query_ids  # (each run of
        answered = pc.is_in(results.query_ids, value_set=pc.unique(heads))  # equal ids: half the cost of all rows)
        return cls(read, results.query_ids, results.values,
                   pc.filter(results.query_ids, pc.invert(answered)).to_pylist())


def _divide(numerator: float, denominator: float) -> float:
    """numpy's float division (0/0 -> nan, x/0 -> ±inf), without its RuntimeWarning."""
    with np.errstate(divide='ignore', invalid='ignore'):
        return float(np.float64(numerator) / np.float64(denominator))


def rmse(original: TopicScores, reproduced: TopicScores) -> float:
    """Root mean square error of the per-topic scores (summed in topic order, as repro_eval)."""
    return _rmse(*_paired_scores('rmse', original, reproduced))


def _rmse(original: np.ndarray, reproduced: np.ndarray) -> float:
    """:func:`rmse` of two float arrays of one length (NaN where a score is)."""
    return math.sqrt(sum(np.square(original - reproduced).tolist()) / len(original))  # (repro_eval's order)


def nrmse(original: TopicScores, reproduced: TopicScores) -> float:
    """RMSE divided by the largest RMSE a reproduction of scores in [0, 1] can have."""
    return _nrmse(*_paired_scores('nrmse', original, reproduced))


def _nrmse(original: np.ndarray, reproduced: np.ndarray) -> float:
    """:func:`nrmse` of two float arrays of one length (NaN where a score is)."""
    return _divide(_rmse(original, reproduced), _rmse(original, np.where(original < 0.5, 1.0, 0.0)))


def effect_ratio(original_baseline: TopicScores, original_advanced: TopicScores, reproduced_baseline: TopicScores,
                 reproduced_advanced: TopicScores) -> float:
    """ER: the reproduced mean per-topic improvement of advanced over baseline, divided by the original's."""
    return _effect_ratio(*_effect_scores('effect_ratio', original_baseline, original_advanced, reproduced_baseline,
                                         reproduced_advanced))


def _effect_ratio(original_baseline: np.ndarray, original_advanced: np.ndarray, reproduced_baseline: np.ndarray,
                  reproduced_advanced: np.ndarray) -> float:
    """:func:`effect_ratio` of float arrays, each pair of one length (NaN where a score is)."""
    return _divide(np.mean(reproduced_advanced - reproduced_baseline), np.mean(original_advanced - original_baseline))


def _effect_scores(function: str, *runs: Any) -> list[np.ndarray]:
    """The per-topic scores of an original baseline and advanced run, then of another pair (:func:`_paired_scores`
    within each pair)."""
    return [*_paired_scores(function, runs[0], runs[1]), *_paired_scores(function, runs[2], runs[3])]


def _paired_scores(function: str, first: Any, second: Any) -> tuple[np.ndarray, np.ndarray]:
    """Two arrays of per-topic scores (:func:`_scores`) of the same topics in one order (:func:`_by_topic`): of one
    length, not empty, else InputError naming ``function``."""
    first, second = _scores(function, first), _scores(function, _by_topic(function, first, second))
    if len(first) != len(second) or not len(first):
        raise InputError(f'{function} pairs the scores of the same topics, in one order (one or more): got '
                         f'{len(first)} and {len(second)} scores')
    return first, second


def _by_topic(function: str, first: Any, second: Any) -> Any:
    """``second``'s scores in the order of ``first``'s topics where both name their topics (a pandas Series by its
    index, a mapping by its keys: topic -> score), else ``second`` as it is (paired by position); InputError naming
    ``function`` if a topic is named twice or by one side only, or if a mapping is given beside scores by position."""
    topics, other_topics = _topics(function, first), _topics(function, second)
    if topics is None or other_topics is None:
        if isinstance(first, Mapping) or isinstance(second, Mapping):
            raise InputError(f'{function} pairs a mapping of topic -> score by topic: give the other scores as one '
                             'too (or a Series), or both as arrays or lists, in one order')
        return second
    position, known = {topic: i for i, topic in enumerate(other_topics)}, set(topics)
    for side, distinct in ((topics, known), (other_topics, position)):
        if len(distinct) != len(side):
            twice = next(topic for i, topic in enumerate(side) if topic in side[:i])
            raise InputError(f'{function}: topic {twice!r} is named twice in the per-topic scores')
    only = [[topic for topic in topics if topic not in position], [topic for topic in other_topics
                                                                   if topic not in known]]
    if any(only):
        named = '; '.join(f'{" ".join(map(repr, side[:5]))}{" ..." if len(side) > 5 else ""} only in the {which}'
                          for side, which in zip(only, ('first', 'second'), strict=True) if side)
        raise InputError(f'{function} pairs the scores of the same topics: {named} (two Series are paired by their '
                         'index: give their .to_numpy() to pair them by position)')
    values = list(second.values()) if isinstance(second, Mapping) else list(second)
    return [values[position[topic]] for topic in topics]


def _topics(function: str, values: Any) -> list[Hashable] | None:
    """The topics ``values`` names its scores by (a pandas Series' index, a mapping's keys), else None; InputError
    naming ``function`` if they are not hashable."""
    if isinstance(values, Mapping):
        return list(values)
    pandas = sys.modules.get('pandas')  # (no Series without pandas imported)
    if pandas is None or not isinstance(values, pandas.Series):
        return None
    topics = values.index.tolist()
    try:
        set(topics)
    except TypeError:
        raise InputError(f'{function}: a Series of per-topic scores must be indexed by topics (hashable), got '
                         f'{topics[:1]!r}...') from None
    return topics


def _scores(function: str, values: Any) -> np.ndarray:
    """``values`` as per-topic scores: a float64 1-d array of finite numbers (given as ints or floats, in their order:
    a mapping's values, a Series' without its index), else InputError naming ``function``."""
    if isinstance(values, np.ma.MaskedArray):
        raise InputError(f'{function}: per-topic scores must be numbers, not a masked array (give only the topics '
                         'to compare)')
    if isinstance(values, Mapping):
        values = list(values.values())
    try:
        array = np.asarray(values)
    except ValueError as error:  # (ragged lists)
        raise InputError(f'{function}: per-topic scores must be numbers ({error})') from None
    if array.dtype.kind not in 'iuf':
        raise InputError(f'{function}: per-topic scores must be numbers (ints or floats), got {array.dtype} values')
    if array.ndim != 1:
        raise InputError(f'{function} takes arrays of per-topic scores (1-d); got a {array.ndim}-d one')
    array = array.astype(np.float64)
    if not np.isfinite(array).all():
        raise InputError(f'{function}: per-topic score {array[~np.isfinite(array)][0]} is not a finite number')
    return array


def _relative_improvement(baseline: np.ndarray, advanced: np.ndarray) -> float:
    """(mean(advanced) - mean(baseline)) / mean(baseline)."""
    return _divide(np.mean(advanced) - np.mean(baseline), np.mean(baseline))


def delta_relative_improvement(original_baseline: TopicScores, original_advanced: TopicScores,
                               reproduced_baseline: TopicScores, reproduced_advanced: TopicScores) -> float:
    """ΔRI: the original's relative improvement of the mean score minus the reproduction's."""
    return _delta_relative_improvement(*_effect_scores('delta_relative_improvement', original_baseline,
                                                       original_advanced, reproduced_baseline, reproduced_advanced))


def _delta_relative_improvement(original_baseline: np.ndarray, original_advanced: np.ndarray,
                                reproduced_baseline: np.ndarray, reproduced_advanced: np.ndarray) -> float:
    """:func:`delta_relative_improvement` of float arrays (NaN where a score is)."""
    with np.errstate(invalid='ignore'):
        return float(np.float64(_relative_improvement(original_baseline, original_advanced))
                     - np.float64(_relative_improvement(reproduced_baseline, reproduced_advanced)))


def t_test_p(original: TopicScores, reproduced: TopicScores, paired: bool) -> float:
    """Two-sided p-value of the t-test scipy computes: paired (``ttest_rel``: t = mean(d) / √(var(d) / n), n - 1
    degrees of freedom) or Student's equal-variance unpaired one (``ttest_ind``: the pooled variance, n1 + n2 - 2
    degrees; a side of one value adds no variance, as in scipy); x/0 gives t = ±inf (p 0), 0/0 NaN
    (:func:`~irmeasures_ext.comparison.stats.t_two_sided`)."""
    if not isinstance(paired, (bool, np.bool_)):
        raise InputError(f't_test_p: paired must be True (ttest_rel) or False (ttest_ind), got {paired!r}')
    if paired:
        reproduced = _by_topic('the paired t_test_p', original, reproduced)
    original, reproduced = _scores('t_test_p', original), _scores('t_test_p', reproduced)
    if paired and len(original) != len(reproduced):
        raise InputError(f'the paired t_test_p pairs the scores of the same topics, in one order: got '
                         f'{len(original)} and {len(reproduced)} scores')
    return float(_t_test_ps(np.atleast_2d(original), np.atleast_2d(reproduced), paired)[0])


def _t_test_ps(original: np.ndarray, reproduced: np.ndarray, paired: bool) -> np.ndarray:
    """:func:`t_test_p` of each row of ``original`` with the same row of ``reproduced`` (2-d arrays)."""
    from irmeasures_ext.comparison.stats import t_two_sided
    n, m = original.shape[1], reproduced.shape[1]
    freedom = n - 1 if paired else n + m - 2
    if freedom <= 0 or not n * m:
        return np.full(len(original), math.nan)
    with np.errstate(divide='ignore', invalid='ignore'):
        if paired:
            differences = original - reproduced
            t = np.mean(differences, axis=1) / np.sqrt(np.var(differences, axis=1, ddof=1) / n)
        else:
            pooled = (_squared_deviations(original) + _squared_deviations(reproduced)) / freedom  # (one value: 0)
            t = (np.mean(original, axis=1) - np.mean(reproduced, axis=1)) / np.sqrt(pooled * (1 / n + 1 / m))
        return t_two_sided(t, freedom)


def _squared_deviations(values: np.ndarray) -> np.ndarray:
    """Σ (x - mean)² of each row (as (n - 1) var(x) with ddof 1, but 0 for one value, as scipy's pooled variance)."""
    return np.sum(np.square(values - np.mean(values, axis=1, keepdims=True)), axis=1)


def _p_values(original: _Scored, other: _Scored, paired: bool) -> dict[Measure, float]:
    """:func:`t_test_p` per measure (all at once); as repro_eval, all 1.0 when every one is NaN and both runs score
    the same topics the same in every measure (so a p-value depends on the other measures asked, as repro_eval's on
    the measures it computes)."""
    if not original.values:
        return {}
    measures = list(original.values)
    values = dict(zip(measures, _t_test_ps(np.array([original.values[m] for m in measures]),
                                           np.array([other.values[m] for m in measures]), paired).tolist(),
                      strict=True))
    if all(math.isnan(value) for value in values.values()) and original.topics.equals(other.topics) and all(
            np.array_equal(original.values[m], other.values[m]) for m in measures):
        values = dict.fromkeys(values, 1.0)
    return values


def _long_frame(rows: list[tuple[str, str, str, float]]) -> pd.DataFrame:
    import pandas as pd
    return pd.DataFrame(rows, columns=['measure', 'statistic', 'run', 'value'])


class Experiment:
    """An original experiment, a baseline and an advanced run on ``qrels`` evaluated with ``measures``, read and
    evaluated once, to compare any number of reproductions (:meth:`reproducibility`, :meth:`agreement`) and
    replications (:meth:`replicability`) with. Runs and qrels in any form our provider reads; measures as objects
    or names; ``rel``, the relevance threshold of every measure that has one and gives none other than the default
    (a real number for real-valued labels: ``irmeasures_ext.provider.configured(rel=...)``)."""

    def __init__(self, qrels: QrelsLike, baseline: RunLike, advanced: RunLike,
                 measures: Iterable[Measure | str], rel: float | None = None) -> None:
        self.measures = _measures(measures)
        self._rel = rel
        self._evaluation = _evaluation(self.measures, qrels, rel)
        self.original = {'baseline': _Scored.of(self._evaluation, baseline),
                         'advanced': _Scored.of(self._evaluation, advanced)}
        for run, scored in self.original.items():
            if len(scored.unanswered) == len(scored.topics):
                raise InputError(f'{run_described(f"original {run}", scored.run)} answers no topic of the qrels: '
                                 'there is nothing to reproduce')
        self._ranked: dict[tuple[str, str], RankedLists] = {}
        self._last_reproduction: tuple[tuple[Input, Input], dict[str, _Scored]] | None = None

    def reproducibility(self, reproduced_baseline: RunLike, reproduced_advanced: RunLike,
                        ranked_lists: bool = False, topics: str = 'original',
                        order: str = 'trec_eval') -> pd.DataFrame:
        """A long DataFrame (``measure, statistic, run, value``) with, per measure, ``rmse``, ``nrmse`` and the paired
        t-test ``p_value`` for each ``run`` (``baseline``, ``advanced``), and ``er``, ``delta_ri`` (``run``
        :data:`BOTH`); with ``ranked_lists``, also the means over the topics of
        :func:`~irmeasures_ext.reproduce.agreement.ranked_list_agreement`'s statistics on ``topics`` in ``order``
        (``measure`` :data:`RANKED_LISTS`), each run read once for both. One
        :class:`~irmeasures_ext.errors.UnansweredTopicsWarning` names the topics each run does not answer."""
        _check_options(ranked_lists, topics, order)
        reproduced = self._reproduced(reproduced_baseline, reproduced_advanced)
        rows: list[tuple[str, str, str, float]] = []
        for run in RUNS:
            orig, rep = self.original[run].values, reproduced[run].values
            p_values = _p_values(self.original[run], reproduced[run], paired=True)
            for measure in self.measures:
                rows += [(str(measure), 'rmse', run, _rmse(orig[measure], rep[measure])),
                         (str(measure), 'nrmse', run, _nrmse(orig[measure], rep[measure])),
                         (str(measure), 'p_value', run, p_values[measure])]
        rows += self._effects(reproduced)
        lacking = None
        if ranked_lists:
            frames, lacking = self._agreements({run: scored.run for run, scored in reproduced.items()}, topics, order)
            for run, frame in frames.items():  # (the means: the last row)
                rows += [(RANKED_LISTS, statistic, run, float(frame.iloc[-1][statistic])) for statistic in STATISTICS]
        self._warn(reproduced, 'reproduced', lacking)
        return _long_frame(rows)

    def _agreements(self, reproduced: dict[str, Input], topics: str,
                    order: str) -> tuple[dict[str, pd.DataFrame], dict[str, list[str]]]:
        """Per run, :func:`~irmeasures_ext.reproduce.agreement.agreement_of` the original with ``reproduced[run]``,
        both runs at once on two threads (numpy and Arrow release the GIL): the frames, and the topics each lacks."""
        deferred = DeferredWarnings()
        with ThreadPoolExecutor(2) as threads:
            done = list(threads.map(deferred.running(lambda run: agreement_of(
                self._original_lists(run, order), reproduced[run], topics, RBO_P, RBO_DEPTH, order,
                self._described(run, reproduced[run], f'reproduced {run}'))), RUNS))
        deferred.reissue()
        return ({run: frame for run, (frame, _) in zip(RUNS, done, strict=True)},
                {run: lacking for run, (_, lacking) in zip(RUNS, done, strict=True)})

    def paired_topic_scores(self, reproduced_baseline: RunLike, reproduced_advanced: RunLike) -> pd.DataFrame:
        """The per-topic scores of a reproduction beside the original's: a DataFrame ``measure, run, query_id,
        original, reproduced`` (``run``: ``baseline``, ``advanced``) over the qrels' topics (sorted), by measure in
        the experiment's order; a topic a run does not answer evaluated as a ranking of no documents (one
        :class:`~irmeasures_ext.errors.UnansweredTopicsWarning`). Runs read already (as :meth:`reproducibility` was
        just given them) are not evaluated again."""
        reproduced = self._reproduced(reproduced_baseline, reproduced_advanced)
        self._warn(reproduced, 'reproduced')
        return self._paired_frame(reproduced)

    def per_topic(self, reproduced_baseline: RunLike, reproduced_advanced: RunLike, topics: str = 'original',
                  order: str = 'trec_eval') -> dict[str, pd.DataFrame]:
        """A reproduction topic by topic: ``'scores'``, :meth:`paired_topic_scores`, and ``'agreement'``, each run's
        :meth:`agreement` (on ``topics`` in ``order``) under a ``run`` column (``baseline``, then ``advanced``), each
        run read once for both; one :class:`~irmeasures_ext.errors.UnansweredTopicsWarning`."""
        import pandas as pd
        reproduced = self._reproduced(reproduced_baseline, reproduced_advanced)
        frames, lacking = self._agreements({run: scored.run for run, scored in reproduced.items()}, topics, order)
        self._warn(reproduced, 'reproduced', lacking)
        agreement = [frame.assign(run=run)[['run', *frame.columns]] for run, frame in frames.items()]
        return {'scores': self._paired_frame(reproduced), 'agreement': pd.concat(agreement, ignore_index=True)}

    def _paired_frame(self, reproduced: dict[str, _Scored]) -> pd.DataFrame:
        """:meth:`paired_topic_scores`' frame of the reproduced runs scored."""
        import pandas as pd
        columns: dict[str, list] = {name: [] for name in PAIRED_COLUMNS}
        for measure in self.measures:
            for run in RUNS:
                topics = self.original[run].topics.to_pylist()
                columns['measure'] += [str(measure)] * len(topics)
                columns['run'] += [run] * len(topics)
                columns['query_id'] += topics
                columns['original'] += self.original[run].values[measure].tolist()
                columns['reproduced'] += reproduced[run].values[measure].tolist()
        return pd.DataFrame(columns)

    def replicability(self, qrels_b: QrelsLike, replicated_baseline: RunLike,
                      replicated_advanced: RunLike) -> pd.DataFrame:
        """A long DataFrame (``measure, statistic, run, value``) with ``er``, ``delta_ri`` (``run`` :data:`BOTH`)
        and, per ``run`` (``baseline``, ``advanced``), the unpaired p-value (``p_value``: Student's equal-variance
        t-test, as repro_eval) of the runs replicated on ``qrels_b``."""
        evaluation = _evaluation(self.measures, qrels_b, self._rel)
        replicated = {'baseline': _Scored.of(evaluation, replicated_baseline),
                      'advanced': _Scored.of(evaluation, replicated_advanced)}
        self._warn(replicated, 'replicated')
        rows: list[tuple[str, str, str, float]] = []
        for run in RUNS:
            p_values = _p_values(self.original[run], replicated[run], paired=False)
            rows += [(str(measure), 'p_value', run, p_values[measure]) for measure in self.measures]
        return _long_frame(rows + self._effects(replicated))

    def agreement(self, reproduced: RunLike | Input, run: str = 'baseline', topics: str = 'original',
                  p: float = RBO_P, depth: int = RBO_DEPTH, order: str = 'trec_eval') -> pd.DataFrame:
        """:func:`~irmeasures_ext.reproduce.agreement.ranked_list_agreement` of the original ``run``
        (``'baseline'`` or ``'advanced'``) with ``reproduced`` (the original's lists made once per ``order``)."""
        if not isinstance(run, str) or run not in self.original:
            raise InputError(f"run must be 'baseline' or 'advanced', got {run!r}")
        return warn_lacking(agreement_of(self._original_lists(run, order), reproduced, topics, p, depth, order,
                                         self._described(run, reproduced, 'reproduced')))

    def _described(self, run: str, reproduced: RunLike | Input, label: str) -> tuple[str, str]:
        """How errors name the original ``run`` and ``reproduced`` (called ``label``), with their files."""
        return run_described(f'original {run}', self.original[run].run), run_described(label, reproduced)

    def _original_lists(self, run: str, order: str) -> RankedLists:
        """The original ``run``'s lists in ``order`` (made once; InputError for an order that is not one, from
        :meth:`RankedLists.of`)."""
        if (run, order) not in self._ranked:
            self._ranked[run, order] = RankedLists.of(self.original[run].run, order=order)
        return self._ranked[run, order]

    def _reproduced(self, baseline: RunLike | Input, advanced: RunLike | Input) -> dict[str, _Scored]:
        """The reproduced runs scored (the caller warns of the topics they do not answer: :meth:`_warn`); the last
        pair given as runs read (:class:`~irmeasures_ext.readers.inputs.Input`) is kept and not scored again."""
        from irmeasures_ext.readers.inputs import Input
        last = self._last_reproduction
        if last is not None and last[0][0] is baseline and last[0][1] is advanced:
            reproduced = last[1]
        else:
            reproduced = {'baseline': _Scored.of(self._evaluation, baseline),
                          'advanced': _Scored.of(self._evaluation, advanced)}
            if isinstance(baseline, Input) and isinstance(advanced, Input):
                self._last_reproduction = (baseline, advanced), reproduced
        return reproduced

    def _warn(self, other: dict[str, _Scored], kind: str, lacking: dict[str, list[str]] | None = None) -> None:
        """One warning naming the qrels' topics each run (the original's and ``other``) does not answer (with
        measures to score them), and the topics of the original's rankings each of ``other`` lacks (``lacking``, by
        run)."""
        scored = {**{f'original {run}': scored for run, scored in self.original.items()},
                  **{f'{kind} {run}': scored for run, scored in other.items()}} if self.measures else {}
        warn_unanswered({run: scores.unanswered for run, scores in scored.items()},
                        {f'{kind} {run}': topics for run, topics in (lacking or {}).items()})

    def _effects(self, other: dict[str, _Scored]) -> list[tuple[str, str, str, float]]:
        """The ER and ΔRI rows (``run``: :data:`BOTH`, they compare advanced with baseline)."""
        rows: list[tuple[str, str, str, float]] = []
        for measure in self.measures:
            runs = (self.original['baseline'].values[measure], self.original['advanced'].values[measure],
                    other['baseline'].values[measure], other['advanced'].values[measure])
            rows += [(str(measure), 'er', BOTH, _effect_ratio(*runs)),
                     (str(measure), 'delta_ri', BOTH, _delta_relative_improvement(*runs))]
        return rows


def reproducibility(qrels: QrelsLike, original_baseline: RunLike, original_advanced: RunLike,
                    reproduced_baseline: RunLike, reproduced_advanced: RunLike,
                    measures: Iterable[Measure | str], ranked_lists: bool = False, topics: str = 'original',
                    order: str = 'trec_eval', rel: float | None = None) -> pd.DataFrame:
    """Reproducibility of a baseline and an advanced run on the same qrels: :meth:`Experiment.reproducibility`
    (its options checked before any run is read)."""
    _check_options(ranked_lists, topics, order)
    return Experiment(qrels, original_baseline, original_advanced, measures, rel).reproducibility(
        reproduced_baseline, reproduced_advanced, ranked_lists, topics, order)


def replicability(original_qrels: QrelsLike, original_baseline: RunLike, original_advanced: RunLike,
                  qrels_b: QrelsLike, replicated_baseline: RunLike, replicated_advanced: RunLike,
                  measures: Iterable[Measure | str], rel: float | None = None) -> pd.DataFrame:
    """Replicability of a baseline and an advanced run on other qrels (``qrels_b``):
    :meth:`Experiment.replicability`."""
    return Experiment(original_qrels, original_baseline, original_advanced, measures, rel).replicability(
        qrels_b, replicated_baseline, replicated_advanced)


def topic_scores(qrels: QrelsLike, runs: Mapping[str, RunLike], measures: Iterable[Measure | str],
                 rel: float | None = None) -> pd.DataFrame:
    """Each run's per-topic scores as the statistics use them: a long DataFrame (``run, measure, query_id, value``)
    over the qrels' topics, sorted; a topic a run does not answer evaluated as a ranking of no documents (one
    :class:`~irmeasures_ext.errors.UnansweredTopicsWarning`); ``rel`` as :class:`Experiment`'s."""
    import pandas as pd
    if not isinstance(runs, Mapping):
        raise InputError(f'runs must be a mapping of names to runs (a dict), got {type(runs).__name__}')
    parsed = _measures(measures)
    evaluation = _evaluation(parsed, qrels, rel)
    scored = {name: _Scored.of(evaluation, run) for name, run in runs.items()}
    warn_unanswered({name: run.unanswered for name, run in scored.items()})
    frames = [pd.DataFrame({'run': name, 'measure': str(measure), 'query_id': run.topics.to_pylist(),
                            'value': run.values[measure]}) for name, run in scored.items() for measure in parsed]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=['run', 'measure', 'query_id',
                                                                                      'value'])


def _check_options(ranked_lists: bool, topics: str, order: str) -> None:
    """InputError unless ``ranked_lists`` is a bool, ``topics`` and ``order`` options of the ranked lists."""
    check_flag('ranked_lists', ranked_lists)
    check_lists_options(topics, order)


def _measures(measures: Iterable[Measure | str]) -> list[Measure]:
    """``measures`` (objects or names) as measures, each once."""
    from irmeasures_ext.plugin import measures_of
    return list(dict.fromkeys(measures_of(measures)))
