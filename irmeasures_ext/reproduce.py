"""Reproducibility and replicability measures (Breuer et al., SIGIR 2020), equal to repro_eval 0.5.0.

Score-based statistics (RMSE, nRMSE, ER, ΔRI, t-test p-values) are computed from the per-topic scores of our provider
(trec_eval's tie rule) over the qrels' topics; a topic a run does not answer scores 0 in every measure
(``measure.DEFAULT``, as ir_measures gives it), said in one :class:`~irmeasures_ext.errors.UnansweredTopicsWarning`. The
rank-based ones (KTU, RBO) compare the rankings as repro_eval reads them: file order, adjacent equal scores by
descending docid, first 1000 docs. See docs/reproducibility.md for the formulas and where they depart from the papers.
"""
from __future__ import annotations

import math
import warnings
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np
from ir_measures.measures import Measure

from irmeasures_ext.errors import InputError, UnansweredTopicsWarning, warn_at_caller

if TYPE_CHECKING:
    import pandas as pd

    from irmeasures_ext.readers.forms import QrelsLike, RunLike

#: repro_eval's defaults: docs kept per topic (``RUN_LENGTH``), RBO's persistence and depth (``RBO_P``, ``RBO_DEPTH``).
RUN_LENGTH = 1000
RBO_P = 0.95
RBO_DEPTH = 1000
#: The topic sets of :func:`ranked_list_agreement`.
TOPIC_SETS = ('original', 'repro_eval')
#: The ``run`` of the statistics that compare the advanced run with the baseline (ER, ΔRI).
BOTH = 'advanced_vs_baseline'


def _scores(measures: list[Measure], qrels: QrelsLike, runs: dict[str, RunLike],
            unanswered: dict[str, list[str]]) -> dict[str, dict[Measure, np.ndarray]]:
    """Each run's per-topic scores of ``measures`` on the qrels' topics (sorted; our provider, trec_eval's ties, 0 for
    a topic the run does not answer); the topics each run does not answer are added to ``unanswered``."""
    from irmeasures_ext.evaluation import Evaluation
    from irmeasures_ext.plugin import provider
    from irmeasures_ext.readers.inputs import read_input
    evaluation = Evaluation(measures, provider)
    evaluation.read_qrels(qrels)
    scores = {}
    for name, run in runs.items():
        read = read_input(run, 'run')
        results = evaluation.results(read)
        answered = set(read.table['query_id'].to_pylist())
        unanswered[name] = [topic for topic in results.query_ids.to_pylist() if topic not in answered]
        scores[name] = results.values
    return scores


def _warn_unanswered(unanswered: dict[str, list[str]]) -> None:
    """One warning naming, per run, the topics it does not answer (nothing if it answers all)."""
    missing = {name: topics for name, topics in unanswered.items() if topics}
    if missing:
        named = '; '.join(f'{name}: {" ".join(topics)}' for name, topics in missing.items())
        warn_at_caller(f'topics not answered ({named}): each scores 0 in every measure (KTU and RBO included)',
                       UnansweredTopicsWarning)


def _divide(numerator: float, denominator: float) -> float:
    """numpy's float division (0/0 -> nan, x/0 -> ±inf), without its RuntimeWarning."""
    with np.errstate(divide='ignore', invalid='ignore'):
        return float(np.float64(numerator) / np.float64(denominator))


def rmse(original: np.ndarray, reproduced: np.ndarray) -> float:
    """Root mean square error of the per-topic scores (summed in topic order, as repro_eval)."""
    return math.sqrt(sum(np.square(original - reproduced)) / len(original))


def nrmse(original: np.ndarray, reproduced: np.ndarray) -> float:
    """RMSE divided by the largest RMSE a reproduction of scores in [0, 1] can have."""
    return _divide(rmse(original, reproduced), rmse(original, np.where(original < 0.5, 1.0, 0.0)))


def effect_ratio(original_baseline: np.ndarray, original_advanced: np.ndarray, reproduced_baseline: np.ndarray,
                 reproduced_advanced: np.ndarray) -> float:
    """ER: the reproduced mean per-topic improvement of advanced over baseline, divided by the original's."""
    return _divide(np.mean(reproduced_advanced - reproduced_baseline), np.mean(original_advanced - original_baseline))


def _relative_improvement(baseline: np.ndarray, advanced: np.ndarray) -> float:
    """(mean(advanced) - mean(baseline)) / mean(baseline)."""
    return _divide(np.mean(advanced) - np.mean(baseline), np.mean(baseline))


def delta_relative_improvement(original_baseline: np.ndarray, original_advanced: np.ndarray,
                               reproduced_baseline: np.ndarray, reproduced_advanced: np.ndarray) -> float:
    """ΔRI: the original's relative improvement of the mean score minus the reproduction's."""
    with np.errstate(invalid='ignore'):
        return float(np.float64(_relative_improvement(original_baseline, original_advanced))
                     - np.float64(_relative_improvement(reproduced_baseline, reproduced_advanced)))


def _p_values(original: dict[Measure, np.ndarray], reproduced: dict[Measure, np.ndarray],
              paired: bool) -> dict[Measure, float]:
    """Two-sided t-test p-value per measure (paired: ``ttest_rel``; else Student's equal-variance ``ttest_ind``);
    as repro_eval, all 1.0 when every one is NaN and the scores are equal."""
    from scipy import stats  # (scipy loads on first use)
    test = stats.ttest_rel if paired else stats.ttest_ind
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', RuntimeWarning)
        values = {measure: float(test(original[measure], reproduced[measure]).pvalue) for measure in original}
    if all(math.isnan(value) for value in values.values()) and all(
            np.array_equal(original[m], reproduced[m]) for m in original):
        values = dict.fromkeys(values, 1.0)
    return values


def _long_frame(rows: list[tuple[str, str, str, float]]) -> pd.DataFrame:
    import pandas as pd
    return pd.DataFrame(rows, columns=['measure', 'statistic', 'run', 'value'])


def _overall_effects(measures: list[Measure], orig: dict[str, dict[Measure, np.ndarray]],
                     rep: dict[str, dict[Measure, np.ndarray]]) -> list[tuple[str, str, str, float]]:
    """The ER and ΔRI rows (``run``: :data:`BOTH`, they compare advanced with baseline)."""
    rows: list[tuple[str, str, str, float]] = []
    for measure in measures:
        runs = (orig['baseline'][measure], orig['advanced'][measure], rep['baseline'][measure],
                rep['advanced'][measure])
        rows += [(str(measure), 'er', BOTH, effect_ratio(*runs)),
                 (str(measure), 'delta_ri', BOTH, delta_relative_improvement(*runs))]
    return rows


def reproducibility(qrels: QrelsLike, original_baseline: RunLike, original_advanced: RunLike,
                    reproduced_baseline: RunLike, reproduced_advanced: RunLike,
                    measures: Iterable[Measure | str]) -> pd.DataFrame:
    """Reproducibility of a baseline and an advanced run on the same qrels: a long DataFrame (``measure, statistic,
    run, value``) with, per measure, ``rmse``, ``nrmse`` and the paired t-test ``p_value`` for each ``run``
    (``baseline``, ``advanced``), and ``er``, ``delta_ri`` (``run`` :data:`BOTH`). Runs and qrels in any form our
    provider reads; measures as objects or names."""
    parsed = _measures(measures)
    runs = {'original baseline': original_baseline, 'original advanced': original_advanced,
            'reproduced baseline': reproduced_baseline, 'reproduced advanced': reproduced_advanced}
    unanswered: dict[str, list[str]] = {}
    scores = _scores(parsed, qrels, runs, unanswered)
    _warn_unanswered(unanswered)
    orig, rep = _by_run(scores, 'original'), _by_run(scores, 'reproduced')
    rows: list[tuple[str, str, str, float]] = []
    for run in ('baseline', 'advanced'):
        p_values = _p_values(orig[run], rep[run], paired=True)
        for measure in parsed:
            rows += [(str(measure), 'rmse', run, rmse(orig[run][measure], rep[run][measure])),
                     (str(measure), 'nrmse', run, nrmse(orig[run][measure], rep[run][measure])),
                     (str(measure), 'p_value', run, p_values[measure])]
    return _long_frame(rows + _overall_effects(parsed, orig, rep))


def replicability(original_qrels: QrelsLike, original_baseline: RunLike, original_advanced: RunLike,
                  qrels_b: QrelsLike, replicated_baseline: RunLike, replicated_advanced: RunLike,
                  measures: Iterable[Measure | str]) -> pd.DataFrame:
    """Replicability of a baseline and an advanced run on other qrels (``qrels_b``): a long DataFrame (``measure,
    statistic, run, value``) with ``er``, ``delta_ri`` (``run`` :data:`BOTH`) and, per ``run`` (``baseline``,
    ``advanced``), the unpaired p-value (``p_value``: Student's equal-variance t-test, as repro_eval)."""
    parsed = _measures(measures)
    unanswered: dict[str, list[str]] = {}
    orig_scores = _scores(parsed, original_qrels, {'original baseline': original_baseline,
                                                   'original advanced': original_advanced}, unanswered)
    rep_scores = _scores(parsed, qrels_b, {'replicated baseline': replicated_baseline,
                                           'replicated advanced': replicated_advanced}, unanswered)
    _warn_unanswered(unanswered)
    orig, rep = _by_run(orig_scores, 'original'), _by_run(rep_scores, 'replicated')
    rows: list[tuple[str, str, str, float]] = []
    for run in ('baseline', 'advanced'):
        p_values = _p_values(orig[run], rep[run], paired=False)
        rows += [(str(measure), 'p_value', run, p_values[measure]) for measure in parsed]
    return _long_frame(rows + _overall_effects(parsed, orig, rep))


def _by_run(scores: dict[str, dict[Measure, np.ndarray]], kind: str) -> dict[str, dict[Measure, np.ndarray]]:
    """The ``baseline`` and ``advanced`` scores of the runs named ``'<kind> baseline'`` and ``'<kind> advanced'``."""
    return {run: scores[f'{kind} {run}'] for run in ('baseline', 'advanced')}


def _measures(measures: Iterable[Measure | str]) -> list[Measure]:
    """``measures`` (objects or names) as measures, each once."""
    from irmeasures_ext.plugin import measures_of
    return list(dict.fromkeys(measures_of(measures)))


def ranked_lists(run: RunLike, length: int = RUN_LENGTH) -> dict[str, list[str]]:
    """Each topic's docids as repro_eval ranks them: in the order given (a file's lines), each run of adjacent
    equal scores reordered by descending docid (``break_ties``), the first ``length`` kept (``trim``)."""
    from irmeasures_ext.readers.inputs import read_input
    table = read_input(run, 'run').table
    by_topic: dict[str, list[tuple[str, float]]] = {}
    for topic, doc, score in zip(*(table[c].to_pylist() for c in ('query_id', 'doc_id', 'score')), strict=True):
        by_topic.setdefault(topic, []).append((doc, float(score)))
    lists = {}
    for topic, docs in by_topic.items():
        ranked: list[str] = []
        start = 0
        for end in range(1, len(docs) + 1):
            if end == len(docs) or docs[end][1] != docs[start][1]:
                ranked += sorted((doc for doc, _ in docs[start:end]), reverse=True)
                start = end
        lists[topic] = ranked[:length]
    return lists


def ktu_repro_eval(original: Sequence[str], reproduced: Sequence[str]) -> float:
    """repro_eval's KTU: Kendall's tau (scipy's tau-b) between the positions, in the docid-sorted union of both
    lists, of the docs at each rank, rounded to 14 decimals; NaN for lists of different lengths (repro_eval
    raises) and for 1-doc lists."""
    if len(original) != len(reproduced):
        return math.nan
    from scipy import stats  # (scipy loads on first use)
    position = {doc: i for i, doc in enumerate(sorted(set(original) | set(reproduced)))}
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', RuntimeWarning)
        tau = stats.kendalltau([position[d] for d in original], [position[d] for d in reproduced]).correlation
    return float(round(tau, 14))


def _overlaps(original: Sequence[str], reproduced: Sequence[str], depth: int) -> np.ndarray:
    """X_d for d = 1..depth: the docs the first d of both lists share (a shorter list's prefix is the whole list)."""
    seen_o: set[str] = set()
    seen_r: set[str] = set()
    shared, overlaps = 0, np.zeros(depth)
    for i in range(depth):
        for doc, seen, other in ((original, seen_o, seen_r), (reproduced, seen_r, seen_o)):
            if i < len(doc) and doc[i] not in seen:
                seen.add(doc[i])
                shared += doc[i] in other
        overlaps[i] = shared
    return overlaps


def rbo_repro_eval(original: Sequence[str], reproduced: Sequence[str], p: float = RBO_P,
                   depth: int = RBO_DEPTH) -> float:
    """repro_eval's RBO: Σ_{d≤depth} p^(d-1) X_d/d / Σ_{d≤depth} p^(d-1), summed in that order as its loop does."""
    overlaps = _overlaps(original, reproduced, depth)
    score = normalizer = 0.0
    weight = 1.0
    for i in range(depth):
        score += weight * overlaps[i] / (i + 1)
        normalizer += weight
        weight *= p
    return score / normalizer


def rbo_ext(original: Sequence[str], reproduced: Sequence[str], p: float = RBO_P) -> float:
    """Webber, Moffat & Zobel's (TOIS 2010) extrapolated RBO_ext of two lists (eq. 32 for unequal lengths);
    identical lists give 1, an empty list 0."""
    short, long = sorted((len(original), len(reproduced)))
    if short == 0:
        return 0.0
    overlaps = _overlaps(original, reproduced, long)
    depths = np.arange(1, long + 1)
    weights = p ** depths.astype(float)
    x_s = overlaps[short - 1]
    beyond = depths > short
    tail = np.sum(np.where(beyond, x_s * (depths - short) / (short * depths), 0.0) * weights)
    sums = np.sum(overlaps / depths * weights) + tail
    return float((1 - p) / p * sums + ((overlaps[-1] - x_s) / long + x_s / short) * p ** long)


def ranked_list_agreement(original: RunLike, reproduced: RunLike, topics: str = 'original',
                          p: float = RBO_P, depth: int = RBO_DEPTH) -> pd.DataFrame:
    """Per topic (``query_id``), ``ktu_repro_eval``, ``rbo_repro_eval`` (repro_eval's definitions) and ``rbo_ext``
    (Webber et al.'s), then a row ``query_id='all'`` of their means.

    ``topics='original'`` (the default): the original run's topics; one the reproduced run does not answer scores 0
    in all three (as every score-based measure scores it, said in an
    :class:`~irmeasures_ext.errors.UnansweredTopicsWarning`), and the reproduced run's other topics are left out.
    ``topics='repro_eval'``: repro_eval's set, the reproduced run's topics (unanswered ones are skipped, silently);
    InputError if the original does not answer one (repro_eval raises AttributeError). Lists of different lengths:
    KTU NaN (repro_eval raises ValueError)."""
    if topics not in TOPIC_SETS:
        raise InputError(f'topics must be one of {", ".join(TOPIC_SETS)}, got {topics!r}')
    orig, rep = ranked_lists(original), ranked_lists(reproduced)
    if topics == 'original':
        chosen = sorted(orig)
        _warn_unanswered({'reproduced': [topic for topic in chosen if topic not in rep]})
    else:
        chosen = sorted(rep)
        extra = [topic for topic in chosen if topic not in orig]
        if extra:
            raise InputError(f'the original run does not answer topics {" ".join(extra)} of the reproduced run')
    rows = [(topic, *_agreement(orig[topic], rep.get(topic), p, depth)) for topic in chosen]
    import pandas as pd
    frame = pd.DataFrame(rows, columns=['query_id', 'ktu_repro_eval', 'rbo_repro_eval', 'rbo_ext'])
    means = [float(np.mean(frame[column].to_numpy())) for column in frame.columns[1:]]
    return pd.concat([frame, pd.DataFrame([('all', *means)], columns=frame.columns)], ignore_index=True)


def _agreement(original: list[str], reproduced: list[str] | None, p: float, depth: int) -> tuple[float, ...]:
    """(KTU, RBO, RBO_ext) of one topic; all 0 where the reproduced run does not answer it."""
    if reproduced is None:
        return 0.0, 0.0, 0.0
    return ktu_repro_eval(original, reproduced), rbo_repro_eval(original, reproduced, p, depth), rbo_ext(
        original, reproduced, p)


__all__ = ['reproducibility', 'replicability', 'ranked_list_agreement', 'ranked_lists', 'ktu_repro_eval',
           'rbo_repro_eval', 'rbo_ext', 'rmse', 'nrmse', 'effect_ratio', 'delta_relative_improvement',
           'UnansweredTopicsWarning', 'BOTH', 'RUN_LENGTH', 'RBO_P', 'RBO_DEPTH']
