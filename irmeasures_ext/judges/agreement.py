"""How far judgement sets agree, label by label.

The kernels take numpy arrays of labels, NaN marking a label not given (a doc a set did not judge):
:func:`cohen_kappa` (unweighted, linear or quadratic weights), :func:`fleiss_kappa`, :func:`krippendorff_alpha`
(nominal, ordinal, interval), :func:`confusion_matrix`, :func:`pearson` and :func:`spearman`. The two-set kernels
take the two sets' labels of the same items (``a[i]``, ``b[i]``: item i) and use the pairs where both are given.
Each also takes ``counts``, how many items each item stands for (its value is then that of the items repeated so
many times): :func:`agreement` passes each distinct combination of labels once, with its count, where the labels
are whole numbers of few values.

:func:`agreement` and :func:`confusion` take a judgements frame (see :mod:`irmeasures_ext.judges`).

**Undefined values.** A statistic that has no value on the labels given (no pair with both labels, fewer than two
items for a correlation, every label the same category so that the disagreement expected by chance is 0, constant
labels for a correlation) is ``math.nan`` with an :class:`~irmeasures_ext.errors.UndefinedAgreementWarning`
naming the statistic and the reason; never the NaN of a silent 0/0. :func:`agreement` gathers them into one
warning per statistic and reason, naming the rows. Malformed input (labels that are not numbers, infinite labels,
arrays of different lengths, counts that are not whole numbers >= 1, an unknown ``weights`` or ``level``) raises
:class:`~irmeasures_ext.errors.InputError`.
"""
from __future__ import annotations

import math
import numbers
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cached_property
from itertools import combinations
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
import numpy.typing as npt

from irmeasures_ext.errors import (
    InputError,
    IrMeasuresExtWarning,
    UndefinedAgreementWarning,
    check_flag,
    warn_at_caller,
)

if TYPE_CHECKING:
    import pandas as pd

    from irmeasures_ext.readers.forms import JudgementsLike

Labels = npt.NDArray[np.float64]
Weights = Literal['linear', 'quadratic'] | None
Level = Literal['nominal', 'ordinal', 'interval']
#: A threshold (label >= t: 1, else 0), cut points (the level is the number of cut points <= the label), or
#: either of them per judge (``{judge: binning}``; a judge left out keeps its labels).
Binning = float | Sequence[float] | Mapping[str, float | Sequence[float]] | None

NO_PAIR = 'no item has labels of both sets'
ONE_CATEGORY = 'every label is the same, so the disagreement expected by chance is 0'


# The kernels. ``counts`` (optional): how many items each item stands for (whole numbers >= 1; one each by default).

def cohen_kappa(a: npt.ArrayLike, b: npt.ArrayLike, weights: Weights = None, counts: npt.ArrayLike | None = None
                ) -> float:
    """Cohen's κ of two sets' labels of the same items (pairs with a NaN left out).

    κ = 1 − Σ w_ij·o_ij / Σ w_ij·e_ij, with o the confusion matrix of the pairs (:func:`confusion_matrix`), e_ij =
    (row total i)·(column total j)/N the counts expected by chance, and w the disagreement weights: 1 off the
    diagonal (unweighted; then κ = (p_o − p_e)/(1 − p_e)), ``|i − j|`` (``'linear'``) or (i − j)² (``'quadratic'``).
    The categories are the sorted union of the labels of the pairs, and the weights use their *indices* i, j in it,
    not the labels themselves (as scikit-learn's ``cohen_kappa_score`` with ``labels=None``): categories 0, 1, 3
    are one step apart each. Cohen 1960, "A coefficient of agreement for nominal scales", Educational and
    Psychological Measurement 20(1); Cohen 1968, "Weighted kappa", Psychological Bulletin 70(4).
    """
    if weights not in (None, 'linear', 'quadratic'):
        raise InputError(f"cohen_kappa: weights must be None, 'linear' or 'quadratic', not {weights!r}")
    categories, observed = confusion_matrix(a, b, counts)
    total = observed.sum()
    if total == 0:
        return _undefined("Cohen's κ", NO_PAIR)
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0)) / total
    index = np.arange(len(categories))
    distance = np.abs(index[:, np.newaxis] - index[np.newaxis, :]).astype(np.float64)
    weight = {None: (distance > 0).astype(np.float64), 'linear': distance, 'quadratic': distance ** 2}[weights]
    expected_disagreement = (weight * expected).sum()
    if expected_disagreement == 0:  # (one category: with two, some pair of different ones is expected)
        return _undefined("Cohen's κ", ONE_CATEGORY)
    return float(1 - (weight * observed).sum() / expected_disagreement)


def fleiss_kappa(labels: npt.ArrayLike, counts: npt.ArrayLike | None = None) -> float:
    """Fleiss' κ of several sets' labels of the same items: ``labels`` is items × raters; the items with a NaN
    (not labelled by every rater) are left out.

    With N items, m raters and n_ic the raters that gave item i category c: P_i = (Σ_c n_ic² − m)/(m(m − 1)) (the
    agreeing pairs of raters of item i), P̄ their mean, p_c = Σ_i n_ic/(N·m), P_e = Σ_c p_c²;
    κ = (P̄ − P_e)/(1 − P_e). Categories: the distinct labels. Fleiss 1971, "Measuring nominal scale agreement
    among many raters", Psychological Bulletin 76(5).
    """
    data = _labels(labels, 2, 'fleiss_kappa')
    copies = _counts(counts, len(data), 'fleiss_kappa')
    raters = data.shape[1]
    if raters < 2:
        return _undefined("Fleiss' κ", 'it needs two raters or more')
    complete = ~np.isnan(data).any(axis=1)
    data, copies = data[complete], copies[complete]
    if len(data) == 0:
        return _undefined("Fleiss' κ", 'no item has labels of every set')
    categories, code = _codes(data.ravel())
    if len(categories) == 1:
        return _undefined("Fleiss' κ", ONE_CATEGORY)
    item = np.repeat(np.arange(len(data)), raters)  # (the item of each label of data.ravel())
    agreeing = (_squared_counts(item, code, len(data)) - raters) / (raters * (raters - 1))
    items = copies.sum()
    chance = ((np.bincount(code, weights=copies[item]) / (items * raters)) ** 2).sum()
    return float((agreeing @ copies / items - chance) / (1 - chance))


def krippendorff_alpha(labels: npt.ArrayLike, level: Level = 'interval', counts: npt.ArrayLike | None = None
                       ) -> float:
    """Krippendorff's α of several sets' labels: ``labels`` is raters × items, NaN where a set gave no label.

    α = 1 − D_o/D_e. Only the labels of items with two labels or more are pairable (n of them, m_u in item u):
    D_o = (1/n)·Σ_u Σ_{i≠j in u} δ²(v_i, v_j)/(m_u − 1) is the observed disagreement (the coincidence matrix o_ck
    weighted by δ²), D_e = Σ_{i≠j} δ²(v_i, v_j)/(n(n − 1)) over all pairable labels the disagreement expected by
    chance. δ² by ``level``: nominal, [v ≠ v']; interval, (v − v')²; ordinal, (Σ_{g=c..k} n_g − (n_c + n_k)/2)²
    for values c ≤ k, with n_g the number of pairable labels of value g, which is (R_k − R_c)² with R the average
    rank of a value among the pairable labels: ordinal α is interval α of those ranks. The sums are expanded per item
    (Σ_{i≠j in u} (v_i − v_j)² = 2·m_u·Σ_i (v_i − mean_u)², Σ_{i≠j in u} [v_i ≠ v_j] = m_u² − Σ_c n_uc²), so no
    values × values matrix is formed: real labels may have as many values as labels. Krippendorff 2011, "Computing
    Krippendorff's alpha-reliability" (Annenberg School for Communication, departmental paper 43), and "Content
    analysis: an introduction to its methodology" (2004, ch. 11).
    """
    if level not in ('nominal', 'ordinal', 'interval'):
        raise InputError(f"krippendorff_alpha: level must be 'nominal', 'ordinal' or 'interval', not {level!r}")
    data = _labels(labels, 2, 'krippendorff_alpha')
    copies = _counts(counts, data.shape[1], 'krippendorff_alpha')
    given = ~np.isnan(data)
    paired_items = given.sum(axis=0) >= 2
    pairable = given & paired_items
    if not pairable.any():
        return _undefined("Krippendorff's α", 'no item has labels of two sets or more')
    value = data[pairable]  # (row-major, as np.nonzero lists the cells)
    if (value == value[0]).all():
        return _undefined("Krippendorff's α", ONE_CATEGORY)
    item = (np.cumsum(paired_items) - 1)[np.nonzero(pairable)[1]]  # (numbered among the paired items)
    copies = copies[paired_items]
    if level == 'nominal':
        return _alpha_nominal(item, value, copies)
    if level == 'ordinal':
        value = _average_ranks(value, copies[item])
    return _alpha_interval(item, value, copies)


def _alpha_nominal(item: npt.NDArray[np.intp], value: Labels, copies: Labels) -> float:
    weight = copies[item]
    n = weight.sum()
    _, code = _codes(value)
    per_item = np.bincount(item).astype(np.float64)
    differing = per_item ** 2 - _squared_counts(item, code, len(per_item))  # (ordered pairs of different labels)
    observed = (copies * differing / (per_item - 1)).sum() / n
    expected = (n ** 2 - (np.bincount(code, weights=weight) ** 2).sum()) / (n * (n - 1))
    return float(1 - observed / expected)


def _alpha_interval(item: npt.NDArray[np.intp], value: Labels, copies: Labels) -> float:
    weight = copies[item]
    n = weight.sum()
    value = (value - value.min()) / (value.max() - value.min())  # (α is unchanged; squares neither under- nor
    per_item = np.bincount(item).astype(np.float64)                # overflow)
    mean = np.bincount(item, weights=value) / per_item
    within = np.bincount(item, weights=(value - mean[item]) ** 2)
    observed = (copies * 2 * per_item * within / (per_item - 1)).sum() / n
    expected = 2 * n * (weight * (value - weight @ value / n) ** 2).sum() / (n * (n - 1))
    return float(1 - observed / expected)


def confusion_matrix(a: npt.ArrayLike, b: npt.ArrayLike, counts: npt.ArrayLike | None = None
                     ) -> tuple[Labels, npt.NDArray[np.int64]]:
    """The categories (the sorted union of the labels of the pairs with both labels given) and the counts:
    ``counts[i, j]`` pairs have label ``categories[i]`` in ``a`` and ``categories[j]`` in ``b`` (rows: a).
    As scikit-learn's ``confusion_matrix(a, b, labels=categories)`` on the pairs."""
    a, b, copies = _pairs(a, b, counts, 'confusion_matrix')
    categories, code = _codes(np.concatenate([a, b]))
    size = len(categories)
    cell = code[:len(a)] * size + code[len(a):]
    table = np.bincount(cell, weights=copies, minlength=size * size)
    return categories, table.astype(np.int64).reshape(size, size)


def pearson(a: npt.ArrayLike, b: npt.ArrayLike, counts: npt.ArrayLike | None = None) -> float:
    """Pearson's r of two sets' labels of the same items (pairs with a NaN left out):
    r = Σ (a_i − ā)(b_i − b̄) / √(Σ (a_i − ā)² · Σ (b_i − b̄)²). Pearson 1895, "Note on regression and
    inheritance in the case of two parents", Proceedings of the Royal Society of London 58."""
    return _correlation(*_pairs(a, b, counts, 'pearson'), "Pearson's r")


def spearman(a: npt.ArrayLike, b: npt.ArrayLike, counts: npt.ArrayLike | None = None) -> float:
    """Spearman's ρ of two sets' labels of the same items (pairs with a NaN left out): Pearson's r of their
    ranks, tied labels taking the average of their ranks. Spearman 1904, "The proof and measurement of association
    between two things", American Journal of Psychology 15(1)."""
    a, b, copies = _pairs(a, b, counts, 'spearman')
    return _correlation(_average_ranks(a, copies), _average_ranks(b, copies), copies, "Spearman's ρ")


def _correlation(a: Labels, b: Labels, copies: Labels, statistic: str) -> float:
    if copies.sum() < 2:
        return _undefined(statistic, 'fewer than two items have labels of both sets')
    if (a == a[0]).all() or (b == b[0]).all():
        return _undefined(statistic, "one set's labels are all the same (no variance)")
    a, b = a - copies @ a / copies.sum(), b - copies @ b / copies.sum()
    a, b = a / np.abs(a).max(), b / np.abs(b).max()  # (r is unchanged; the squares cannot underflow to 0)
    return float(np.clip((copies * a) @ b / math.sqrt(((copies * a) @ a) * ((copies * b) @ b)), -1.0, 1.0))


def _average_ranks(values: Labels, copies: Labels) -> Labels:
    """The ranks of ``values`` (1 for the least; each value ``copies`` times), tied values taking the average of
    their ranks."""
    _, code = _codes(values)
    counts = np.bincount(code, weights=copies)
    last = np.cumsum(counts)  # (the rank of each distinct value's last label)
    return (last - (counts - 1) / 2)[code]


def _codes(values: Labels) -> tuple[Labels, npt.NDArray[np.intp]]:
    """The distinct values, sorted, and the index of each value among them (``np.unique(values,
    return_inverse=True)``, faster: whole numbers of a small range are counted, others sorted once)."""
    if len(values) and values.max() - values.min() < len(values) and (values == np.floor(values)).all():
        offset = (values - values.min()).astype(np.intp)
        present = np.bincount(offset) > 0
        return np.flatnonzero(present) + values.min(), (np.cumsum(present) - 1)[offset]
    order = np.argsort(values)
    ordered = values[order]
    starts = np.concatenate([[True], ordered[1:] != ordered[:-1]])[:len(values)]  # (a value's first place)
    code = np.empty(len(values), dtype=np.intp)
    code[order] = np.cumsum(starts) - 1
    return ordered[starts], code


def _squared_counts(unit: npt.NDArray[np.intp], code: npt.NDArray[np.intp], units: int) -> Labels:
    """Σ_c n_uc² for each unit u, with n_uc the labels of category ``code`` c in unit u."""
    width = int(code.max()) + 1
    cell = unit.astype(np.int64) * width + code
    if units * width <= 4 * len(cell):  # (few categories: count every cell)
        return (np.bincount(cell, minlength=units * width).reshape(units, width).astype(np.float64) ** 2).sum(axis=1)
    cells, counts = np.unique(cell, return_counts=True)
    return np.bincount(cells // width, weights=counts.astype(np.float64) ** 2, minlength=units).astype(np.float64)


def _labels(values: npt.ArrayLike, ndim: int, what: str) -> Labels:
    try:
        array = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise InputError(f'{what}: the labels must be numbers (NaN for no label): {error}') from None
    if array.ndim != ndim:
        raise InputError(f'{what}: expected a {ndim}-dimensional array of labels, got {array.ndim} dimensions')
    if np.isinf(array).any():
        raise InputError(f'{what}: a label is infinite')
    return array


def _counts(counts: npt.ArrayLike | None, items: int, what: str) -> Labels:
    """How many items each of ``items`` stands for: ``counts`` checked, or one each."""
    if counts is None:
        return np.ones(items)
    try:
        copies = np.asarray(counts, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f'{what}: counts must be whole numbers >= 1, one per item') from None
    if copies.shape != (items,) or not (np.isfinite(copies) & (copies >= 1) & (copies == np.floor(copies))).all():
        raise InputError(f'{what}: counts must be whole numbers >= 1, one per item ({items})')
    return copies


def _pairs(a: npt.ArrayLike, b: npt.ArrayLike, counts: npt.ArrayLike | None, what: str
           ) -> tuple[Labels, Labels, Labels]:
    """The labels (and counts) of the items both ``a`` and ``b`` label."""
    a, b = _labels(a, 1, what), _labels(b, 1, what)
    if a.shape != b.shape:
        raise InputError(f"{what}: a and b must hold the two sets' labels of the same items, one per item: they "
                         f'have {len(a)} and {len(b)}')
    copies = _counts(counts, len(a), what)
    both = ~(np.isnan(a) | np.isnan(b))
    return a[both], b[both], copies[both]


# Undefined values: a warning, or, inside agreement(), a reason kept for its summary.

_kept = threading.local()


def _undefined(statistic: str, reason: str) -> float:
    """NaN, with an UndefinedAgreementWarning (or, within :func:`_keeping` on this thread, the reason kept)."""
    reasons = getattr(_kept, 'reasons', None)
    if reasons is None:
        warn_at_caller(f'{statistic} is undefined: {reason}; its value is NaN', UndefinedAgreementWarning)
    else:
        reasons.append((statistic, reason))
    return math.nan


@contextmanager
def _keeping() -> Iterator[list[tuple[str, str]]]:
    """The (statistic, reason) of each undefined value the kernels meet inside, instead of their warnings."""
    previous = getattr(_kept, 'reasons', None)
    _kept.reasons = []
    try:
        yield _kept.reasons
    finally:
        _kept.reasons = previous


# Judgement sets.

COUNTS = ('shared', 'only_a', 'only_b')
STATISTICS = ('kappa', 'kappa_linear', 'kappa_quadratic', 'fleiss_kappa', 'alpha_nominal', 'alpha_ordinal',
              'alpha_interval', 'pearson', 'spearman')
#: The statistics that need categories (NaN in a row with a set of real-valued labels, unless binned).
CATEGORICAL = ('kappa', 'kappa_linear', 'kappa_quadratic', 'fleiss_kappa', 'alpha_nominal')
#: The name of both judges in the row of all sets (a pair's row never names one judge twice).
ALL = 'all'


def agreement(judgements: JudgementsLike, binning: Binning = None, per_query: bool = False) -> pd.DataFrame:
    """How far each pair of judgement sets agrees, and, with three sets or more, all of them.

    ``judgements``: a judgements frame (columns ``judge``, ``query_id``, ``doc_id``, ``relevance``), or a mapping
    judge name → DataFrame (``query_id``, ``doc_id``, ``relevance``). One row per pair of sets (in the order they
    first appear), then, for three sets or more, the row ``judge_a == judge_b == 'all'``; with ``per_query``, one
    row per query of each (column ``query_id``, queries in the order they first appear).

    A row compares its sets on the queries they all judged (a set may judge part of the collection's queries). In
    them: ``shared``, the docs every set of the row judged; ``only_a``, ``only_b``, the docs the pair's one set
    judged and the other did not (<NA> in the row of all sets). The statistics:

    - ``kappa``, ``kappa_linear``, ``kappa_quadratic``: Cohen's κ of the shared docs (:func:`cohen_kappa`);
      ``pearson`` and ``spearman`` likewise. NaN in the row of all sets (pairwise statistics).
    - ``fleiss_kappa``: Fleiss' κ of the shared docs (for a pair, Scott's π).
    - ``alpha_nominal``, ``alpha_ordinal``, ``alpha_interval``: Krippendorff's α of every doc of the row's
      queries that a set of the row judged, a set that did not judge it giving no value. Docs only one set
      judged have no pair and do not change α: a pair's α is that of its shared docs; the α of all sets
      counts every doc that two sets or more judged.

    ``binning`` gives the categorical statistics (κ, Fleiss' κ, nominal α) categories: a threshold t (label >= t:
    1, else 0), or increasing cut points c_1 < ... < c_k (the level is the number of cut points <= the label:
    [c_i, c_i+1) is closed on the left, as ``np.digitize(label, cuts)``), or ``{judge: threshold or cut points}``
    for some sets only. Ordinal and interval α, Pearson and Spearman always use the labels as they are. Without
    binning, a set of real-valued labels (one not a whole number) makes the categorical statistics of its rows
    NaN, with one :class:`~irmeasures_ext.errors.UndefinedAgreementWarning` for all. Sets on different scales
    (as binned: real values and whole numbers, or 0 and 1 and whole numbers beyond them) are compared as they
    are, with an :class:`~irmeasures_ext.errors.IrMeasuresExtWarning` saying so. Undefined values are NaN (see the
    module's documentation), with one warning per statistic and reason, naming the rows.

    Raises :class:`~irmeasures_ext.errors.InputError` for malformed judgements, fewer than two sets, a pair of sets
    with no query in common, or a doc one set judges twice with different labels (twice alike counts once).
    """
    import pandas as pd

    check_flag('per_query', per_query)
    sets = _JudgementSets.of(judgements, binning)
    if len(sets.names) < 2:
        raise InputError(f'agreement needs two judgement sets or more; the judgements have {len(sets.names)}')
    pairs = list(combinations(range(len(sets.names)), 2))
    for a, b in pairs:
        sets.check_shared_queries(a, b)
    sets.warn_scales(range(len(sets.names)))
    everyone = [list(range(len(sets.names)))] if len(sets.names) > 2 else []
    rows: list[dict[str, Any]] = []
    undefined: dict[tuple[str, str], tuple[list[str], list[str]]] = {}  # (statistic, reason): columns, rows
    for member in [[a, b] for a, b in pairs] + everyone:
        judges = (sets.names[member[0]], sets.names[member[1]]) if len(member) == 2 else (ALL, ALL)
        scope = sets.queries_of(member)
        for query, units in sets.per_query(scope) if per_query else [(None, sets.units_in(scope))]:
            values, reasons = _row(sets, member, units)
            rows.append({'judge_a': judges[0], 'judge_b': judges[1], 'query_id': query, **values})
            where = (f"'{judges[0]}' and '{judges[1]}'" if len(member) == 2 else 'all sets') + \
                ('' if query is None else f", query '{query}'")
            for column, statistic, reason in reasons:
                columns, places = undefined.setdefault((statistic, reason), ([], []))
                if column not in columns:
                    columns.append(column)
                if where not in places:
                    places.append(where)
    columns = ['judge_a', 'judge_b', *(['query_id'] if per_query else []), *COUNTS, *STATISTICS]
    frame = pd.DataFrame(rows, columns=columns)
    frame[list(COUNTS)] = frame[list(COUNTS)].astype('Int64')
    frame[list(STATISTICS)] = frame[list(STATISTICS)].astype(np.float64)
    sets.warn_real_labels()
    for (statistic, reason), (columns_nan, places) in undefined.items():
        shown = '; '.join(places[:3]) + ('; ...' if len(places) > 3 else '')
        warn_at_caller(f'{statistic} is undefined in {len(places)} of {len(frame)} rows ({shown}): {reason}; '
                       f"{', '.join(columns_nan)} {'is' if len(columns_nan) == 1 else 'are'} NaN there",
                       UndefinedAgreementWarning)
    return frame


def confusion(judgements: JudgementsLike, judge_a: str, judge_b: str, binning: Binning = None) -> pd.DataFrame:
    """The confusion table of two judgement sets: how many docs both judged have each pair of labels, ``judge_a``'s
    labels in rows (index named ``judge_a``), ``judge_b``'s in columns; the categories are the labels (binned by
    ``binning``, as in :func:`agreement`) of the docs both judged. Raises
    :class:`~irmeasures_ext.errors.InputError` for an unknown judge, sets with no query in common, or real-valued
    labels without ``binning`` (a table needs categories)."""
    import pandas as pd

    sets = _JudgementSets.of(judgements, binning)
    a, b = sets.index(judge_a), sets.index(judge_b)
    sets.check_shared_queries(a, b)
    for judge in {a, b}:
        if not sets.categorical[judge]:
            raise InputError(f"judge '{sets.names[judge]}' has real-valued labels: a confusion table needs "
                             f'categories: {_BINNING_HINT}')
    sets.warn_scales([a, b])
    categories, counts = confusion_matrix(sets.binned[a], sets.binned[b])
    labels = categories.astype(np.int64)
    return pd.DataFrame(counts, index=pd.Index(labels, name=sets.names[a]),
                        columns=pd.Index(labels, name=sets.names[b]))


_BINNING_HINT = ('give binning=t (label >= t: 1, else 0) or binning=[c1, c2, ...] (the level is the number of cut '
                 'points <= the label), or {judge: t or cut points} for some sets only')


def _row(sets: _JudgementSets, member: list[int], units: npt.NDArray[np.intp]
         ) -> tuple[dict[str, Any], list[tuple[str, str, str]]]:
    """The counts and statistics of the sets ``member`` on ``units``, and the (column, statistic, reason) of each
    undefined value."""
    cells = np.ix_(np.array(member), units)
    raw, copies = _distinct_items(sets.labels[cells])
    binned, binned_copies = (raw, copies) if sets.binned is sets.labels else _distinct_items(sets.binned[cells])
    given = ~np.isnan(raw)
    pair = len(member) == 2
    values: dict[str, Any] = {'shared': int(copies[given.all(axis=0)].sum()),
                              'only_a': int(copies[given[0] & ~given[1]].sum()) if pair else None,
                              'only_b': int(copies[given[1] & ~given[0]].sum()) if pair else None}
    computed: list[tuple[str, Callable[[], float]]] = []
    if sets.categorical[member].all():
        if pair:
            computed += [('kappa', lambda: cohen_kappa(binned[0], binned[1], None, binned_copies)),
                         ('kappa_linear', lambda: cohen_kappa(binned[0], binned[1], 'linear', binned_copies)),
                         ('kappa_quadratic', lambda: cohen_kappa(binned[0], binned[1], 'quadratic', binned_copies))]
        computed += [('fleiss_kappa', lambda: fleiss_kappa(binned.T, binned_copies)),
                     ('alpha_nominal', lambda: krippendorff_alpha(binned, 'nominal', binned_copies))]
    computed += [('alpha_ordinal', lambda: krippendorff_alpha(raw, 'ordinal', copies)),
                 ('alpha_interval', lambda: krippendorff_alpha(raw, 'interval', copies))]
    if pair:
        computed += [('pearson', lambda: pearson(raw[0], raw[1], copies)),
                     ('spearman', lambda: spearman(raw[0], raw[1], copies))]
    undefined: list[tuple[str, str, str]] = []
    values.update(dict.fromkeys(STATISTICS, math.nan))
    for column, compute in computed:
        with _keeping() as reasons:
            values[column] = compute()
        undefined += [(column, statistic, reason) for statistic, reason in reasons]
    return values, undefined


def _distinct_items(labels: Labels) -> tuple[Labels, Labels]:
    """The distinct columns of ``labels`` (sets × items, NaN for no label) and how many columns are alike each,
    where the labels are whole numbers of few values (the statistics then take each distinct column once, with its
    count, instead of every item); else ``labels`` and one each."""
    given = ~np.isnan(labels)
    values = labels[given]
    every = (labels, np.ones(labels.shape[1]))
    if not (values == np.floor(values)).all():
        return every
    categories, code = _codes(values)
    width = len(categories) + 1  # (a code for each value, and one for no label)
    if width ** len(labels) > labels.shape[1]:
        return every
    codes = np.full(labels.shape, len(categories))
    codes[given] = code
    key = width ** np.arange(len(labels)) @ codes
    counts = np.bincount(key, minlength=width ** len(labels))
    item = np.zeros(len(counts), dtype=np.intp)
    item[key] = np.arange(labels.shape[1])  # (an item of each key: which one does not matter, all are alike)
    distinct = np.flatnonzero(counts)
    return labels[:, item[distinct]], counts[distinct].astype(np.float64)


@dataclass(frozen=True)
class _JudgementSets:
    """Judgement sets aligned on their (query, doc) units (in the order of first appearance)."""

    names: list[str]
    query_ids: list[str]           # by query number (in the order of first appearance)
    unit_query: npt.NDArray[np.intp]  # the query number of each unit
    labels: Labels                 # sets × units, NaN where a set did not judge the unit
    binned: Labels                 # the labels binned (the labels where a set has no binning)
    categorical: npt.NDArray[np.bool_]  # per set: its (binned) labels are whole numbers

    @classmethod
    def of(cls, judgements: Any, binning: Binning) -> _JudgementSets:
        import pandas as pd

        frame = _judgements_frame(judgements)
        judge, names = pd.factorize(frame['judge'])
        query, query_ids = pd.factorize(frame['query_id'])
        doc, _ = pd.factorize(frame['doc_id'])
        relevance = frame['relevance'].to_numpy(dtype=np.float64)
        docs = int(doc.max()) + 1
        doc_query = np.zeros(docs, dtype=np.intp)
        doc_query[doc] = query
        if (doc_query[doc] == query).all():  # (each doc id is judged for one query: the docs are the units)
            unit, unit_query = doc, doc_query
        else:
            keys, unit = np.unique(query.astype(np.int64) * docs + doc, return_inverse=True)
            unit_query = (keys // docs).astype(np.intp)
        cell = judge.astype(np.int64) * len(unit_query) + unit
        if (np.bincount(cell) > 1).any():  # (a doc a set judges twice: alike, it counts once)
            order = np.argsort(cell, kind='stable')
            repeated = np.nonzero((cell[order][1:] == cell[order][:-1]) &
                                  (relevance[order][1:] != relevance[order][:-1]))[0]
            if len(repeated):
                first, second = order[repeated[0]], order[repeated[0] + 1]
                raise InputError(f"judge '{names[judge[first]]}' judges doc '{frame['doc_id'].iloc[first]}' of "
                                 f"query '{frame['query_id'].iloc[first]}' twice, {relevance[first]:g} and "
                                 f'{relevance[second]:g}')
        labels = np.full((len(names), len(unit_query)), np.nan)
        labels[judge, unit] = relevance
        cuts = _cut_points(binning, [str(name) for name in names])
        binned = labels.copy() if any(cut is not None for cut in cuts) else labels
        for row, cut in enumerate(cuts):
            if cut is not None:
                judged = ~np.isnan(labels[row])
                binned[row, judged] = np.searchsorted(cut, labels[row, judged], side='right')
        whole = np.isnan(binned) | (binned == np.floor(binned))
        return cls([str(name) for name in names], [str(query_id) for query_id in query_ids],
                   unit_query, labels, binned, whole.all(axis=1))

    def index(self, judge: str) -> int:
        if str(judge) not in self.names:
            raise InputError(f"no judge '{judge}' in the judgements (judges: {', '.join(map(repr, self.names))})")
        return self.names.index(str(judge))

    def judged_queries(self, judge: int) -> npt.NDArray[np.bool_]:
        judged = np.bincount(self.unit_query[~np.isnan(self.labels[judge])], minlength=len(self.query_ids))
        return judged > 0

    def queries_of(self, member: list[int]) -> npt.NDArray[np.bool_]:
        """Per query: every set of ``member`` judged it."""
        return np.logical_and.reduce([self.judged_queries(judge) for judge in member])

    def units_in(self, queries: npt.NDArray[np.bool_]) -> npt.NDArray[np.intp]:
        return np.nonzero(queries[self.unit_query])[0]

    def per_query(self, queries: npt.NDArray[np.bool_]) -> Iterator[tuple[str, npt.NDArray[np.intp]]]:
        order, bounds = self.by_query
        for query in np.nonzero(queries)[0]:
            yield self.query_ids[query], order[bounds[query]:bounds[query + 1]]

    @cached_property
    def by_query(self) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp]]:
        """The units ordered by query, and where those of each query start (query q: ``bounds[q]:bounds[q + 1]``)."""
        order = np.argsort(self.unit_query, kind='stable')
        return order, np.searchsorted(self.unit_query[order], np.arange(len(self.query_ids) + 1))

    def check_shared_queries(self, a: int, b: int) -> None:
        if not self.queries_of([a, b]).any():
            def some(judge: int) -> str:
                queries = [self.query_ids[query] for query in np.nonzero(self.judged_queries(judge))[0][:3]]
                return ', '.join(map(repr, queries)) + (', ...' if self.judged_queries(judge).sum() > 3 else '')
            raise InputError(f"judge '{self.names[a]}' and judge '{self.names[b]}' share no query: judgement sets "
                             f'of different collections? (queries {some(a)} and {some(b)})')

    def scale(self, judge: int) -> tuple[str | None, str]:
        """The scale of the set's labels (as binned) and its description: 'real' (a label not a whole number),
        'binary' (0 and 1), 'graded' (whole numbers, one not 0 or 1), or None (one label only, 0 or 1: either)."""
        labels = self.binned[judge][~np.isnan(self.binned[judge])]
        low, high = labels.min(), labels.max()
        if not self.categorical[judge]:
            return 'real', f'real values in [{low:g}, {high:g}]'
        if low == 0 and high == 1:
            return 'binary', '0 and 1'
        return ('graded' if low < 0 or high > 1 else None), f'whole numbers {low:g}–{high:g}'

    def warn_scales(self, judges: Sequence[int]) -> None:
        """Warns if the sets ``judges`` label on different scales (:meth:`scale`)."""
        scales = {judge: self.scale(judge) for judge in judges}
        if len({kind for kind, _ in scales.values() if kind is not None}) > 1:
            described = ', '.join(f"'{self.names[judge]}': {text}" for judge, (_, text) in scales.items())
            warn_at_caller(f'the judgement sets label on different scales ({described}); they are compared as they '
                           "are: Cohen's and Fleiss' κ and nominal α take each label for a category, interval α and "
                           'Pearson take the labels for numbers on one scale, ordinal α and Spearman compare their '
                           f'order. To map them onto common categories, {_BINNING_HINT}', IrMeasuresExtWarning)

    def warn_real_labels(self) -> None:
        real = [name for name, categorical in zip(self.names, self.categorical, strict=True) if not categorical]
        if real:
            warn_at_caller(f"judge{'s' if len(real) > 1 else ''} {', '.join(map(repr, real))} "
                           f"{'have' if len(real) > 1 else 'has'} real-valued labels (not whole numbers): Cohen's "
                           "and Fleiss' κ and nominal α need categories, and "
                           f"{', '.join(CATEGORICAL)} are NaN in the rows with {'them' if len(real) > 1 else 'it'}; "
                           f'{_BINNING_HINT} (ordinal and interval α, Pearson and Spearman use the labels as they '
                           'are)', UndefinedAgreementWarning)


def _judgements_frame(judgements: Any) -> pd.DataFrame:
    """The judgements as a frame of columns judge, query_id, doc_id (strings) and relevance (float64), checked."""
    import pandas as pd

    columns = ['query_id', 'doc_id', 'relevance']
    if isinstance(judgements, pd.DataFrame):
        _check_columns(judgements, ['judge', *columns], 'the judgements frame')
        frame = judgements[['judge', *columns]]
    elif isinstance(judgements, Mapping):  # (name → qrels in any form our provider reads, read and checked)
        from irmeasures_ext.judges.sets import judgements_frame
        frame = judgements_frame(judgements)
    else:
        raise InputError('judgements: expected a judgements frame (a DataFrame of columns judge, query_id, doc_id, '
                         'relevance) or a mapping of judge names to qrels (any form: a path, a DataFrame...);'
                         f' got {type(judgements).__name__}')
    if frame.empty:
        raise InputError('the judgements are empty')
    for column in ('judge', 'query_id', 'doc_id'):
        if frame[column].isna().any():
            raise InputError(f'the judgements have a missing {column}')
    try:
        relevance = pd.to_numeric(frame['relevance']).to_numpy(dtype=np.float64, na_value=np.nan)
    except (TypeError, ValueError) as error:
        raise InputError(f'the relevance labels must be numbers: {error}') from None
    bad = ~np.isfinite(relevance)
    if bad.any():
        where = frame.iloc[int(np.argmax(bad))]
        raise InputError(f"judge '{where['judge']}', query '{where['query_id']}', doc '{where['doc_id']}': the "
                         f"relevance label is {where['relevance']!r}, not a finite number")
    return frame[['judge', 'query_id', 'doc_id']].astype(str).assign(relevance=relevance)


def _check_columns(frame: pd.DataFrame, columns: list[str], what: str) -> None:
    missing = [column for column in columns if column not in frame.columns]
    if missing:
        raise InputError(f"{what} has no column {', '.join(missing)} (columns: {', '.join(map(str, frame.columns))})")


def _cut_points(binning: Binning, names: list[str]) -> list[Labels | None]:
    """Each set's cut points (None: its labels as they are)."""
    if binning is None:
        return [None] * len(names)
    if isinstance(binning, Mapping):
        unknown = [str(judge) for judge in binning if str(judge) not in names]
        if unknown:
            raise InputError(f"binning names no judge {', '.join(map(repr, unknown))} (judges: "
                             f"{', '.join(map(repr, names))})")
        given = {str(judge): cuts for judge, cuts in binning.items()}
        return [_cuts(given[name], f"judge '{name}'") if name in given else None for name in names]
    cuts = _cuts(binning, 'binning')
    return [cuts] * len(names)


def _cuts(binning: float | Sequence[float], what: str) -> Labels:
    if isinstance(binning, bool):
        raise InputError(f'{what}: binning must be a threshold or increasing cut points, not {binning!r}')
    if isinstance(binning, numbers.Real):
        binning = [float(binning)]
    try:
        cuts = np.asarray(binning, dtype=np.float64)
    except (TypeError, ValueError):
        raise InputError(f'{what}: binning must be a threshold or increasing cut points, not {binning!r}') from None
    if cuts.ndim != 1 or not len(cuts) or not np.isfinite(cuts).all() or (np.diff(cuts) <= 0).any():
        raise InputError(f'{what}: binning must be a threshold or increasing finite cut points, not {binning!r}')
    return cuts
