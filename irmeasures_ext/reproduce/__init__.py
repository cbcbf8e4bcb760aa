"""Reproducibility and replicability of system-oriented IR experiments (Breuer et al., SIGIR 2020), equal to
repro_eval 0.5.0: :mod:`~irmeasures_ext.reproduce.statistics` compares per-topic scores and effects,
:mod:`~irmeasures_ext.reproduce.agreement` the ranked lists."""
from irmeasures_ext.errors import UnansweredTopicsWarning
from irmeasures_ext.reproduce.agreement import (
    ORDERS,
    RBO_DEPTH,
    RBO_MAX_DEPTH,
    RBO_P,
    RUN_LENGTH,
    STATISTICS,
    TOPIC_SETS,
    RankedLists,
    ktu,
    ktu_repro_eval,
    ranked_list_agreement,
    ranked_lists,
    rbo_ext,
    rbo_repro_eval,
)
from irmeasures_ext.reproduce.statistics import (
    BOTH,
    RANKED_LISTS,
    Experiment,
    TopicScores,
    delta_relative_improvement,
    effect_ratio,
    nrmse,
    replicability,
    reproducibility,
    rmse,
    t_test_p,
    topic_scores,
)

__all__ = ['Experiment', 'reproducibility', 'replicability', 'ranked_list_agreement', 'topic_scores',
           'ranked_lists', 'RankedLists', 'ktu', 'ktu_repro_eval', 'rbo_repro_eval', 'rbo_ext', 'rmse', 'nrmse',
           'effect_ratio', 'delta_relative_improvement', 't_test_p', 'TopicScores', 'UnansweredTopicsWarning', 'BOTH',
           'RANKED_LISTS', 'STATISTICS', 'ORDERS', 'TOPIC_SETS', 'RUN_LENGTH', 'RBO_P', 'RBO_DEPTH', 'RBO_MAX_DEPTH']
