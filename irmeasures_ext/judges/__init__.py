"""Judging the judges: several judgement sets of one collection, how far they agree label by label
(:mod:`.agreement`), how far the system rankings they give agree (:mod:`.leaderboard`), and the holes each leaves in
the runs (:mod:`.holes`).

The judgement sets meet in one long table, a *judgements frame*: a DataFrame with columns ``judge`` (the set's
name), ``query_id``, ``doc_id`` and ``relevance`` (a number), one row per judgment of a set. Scores of runs under
the sets meet in a *scores frame*: columns ``judge``, ``run``, ``measure`` and ``value`` (a run's aggregate under
a set), with ``query_id`` for per-query values.
"""
