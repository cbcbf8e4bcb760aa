"""Measures by name, as the Python API and the command line take them: ir_measures' syntax (``Q(beta=0.5)@10``),
trec_eval 9.0.8's names and measure sets (``map``, ``ndcg_cut.10``, ``P.5,10``, ``iprec_at_recall.0.1``,
``all_trec``: :mod:`.trec_eval`), and several measures in one argument (``"P@10 nDCG@10"``). A name that names no
measure is a :class:`~irmeasures_ext.errors.MeasureParamError` (:class:`MeasureSyntaxError` where it is not
written as one), with a suggestion where one is close.

ir_measures' own parser reads what it can; ours only reads what it cannot: negative numbers,
so that ``Q(beta=-1)`` reaches the measure's own check and its message names the parameter, and
bare words for text parameters: ``Q(ties=expected)@10`` is ``Q(ties='expected')@10``.
"""
from __future__ import annotations

import ast
import difflib
import re
from collections.abc import Iterable
from typing import Any

import ir_measures
from ir_measures.measures import Measure

from irmeasures_ext.errors import IrMeasuresExtError, MeasureParamError
from irmeasures_ext.measures.base import check_measure
from irmeasures_ext.names.trec_eval import TREC_EVAL_NAMES, TREC_EVAL_SETS, trec_eval_measures

#: trec_eval names (for suggestions; any ``name.k`` form is tried too).
TREC_NAMES = [*TREC_EVAL_NAMES, *TREC_EVAL_SETS]
#: A value written unquoted, taken as text for a text parameter: ``expected``, ``float64``, ``exp-log2``.
BARE_WORD = re.compile(r'[A-Za-z_][\w.-]*')
#: Names other tools and papers give measures that ir_measures names otherwise, folded (:func:`_fold`): suggested
#: before the closest spellings, which mislead here (``Hit`` is closest to D_Hit, a diversity measure, but the hit
#: rate is Success; ``Qmeasure`` to P_measure). Any name that folds to one of ir_measures' is suggested too
#: (``alpha-nDCG``: alpha_nDCG; ``MRR``'s case, hyphens and underscores).
ALIASES = {'hit': 'Success', 'hits': 'Success', 'hitrate': 'Success', 'hitsrate': 'Success', 'hitratio': 'Success',
           'qmeasure': 'Q'}
NAME_HINT = '(names are case-sensitive, e.g. nDCG@10, Q@10, RR; trec_eval names such as map or ndcg_cut.10 work too)'


class MeasureSyntaxError(MeasureParamError):
    """A measure argument is neither ir_measures' ``Name(param=value, ...)@cutoff`` nor a trec_eval name."""


def parse_measures(texts: Iterable[str]) -> list[Measure]:
    """Parses each argument as one measure or, failing that, as whitespace-separated measures."""
    measures = []
    for text in texts:
        try:
            measures.extend(parse_measure(text))
        except MeasureSyntaxError:
            if len(text.split()) < 2:
                raise
            for part in text.split():
                measures.extend(parse_measure(part))
    return measures


def parse_measure(text: str) -> list[Measure]:
    """The measure(s) one argument names, validated: one, or several for trec_eval's ``P.5,10`` and its sets."""
    text = text.strip()
    trec_eval = trec_eval_measures(text)
    try:
        measures = trec_eval if trec_eval is not None else [ir_measures.parse_measure(text)]
    except NameError:  # a well-formed name ir_measures does not know: maybe trec_eval's (map, P_5)
        measures = _trec_measures(text)
    except IrMeasuresExtError as error:  # our measures' own parameter checks
        raise MeasureParamError(f'bad measure {text!r}: {error}') from None
    except ValueError:  # ir_measures cannot parse it: trec_eval's syntax, or a negative number
        measures = _trec_measures(text, missing_ok=True) or [_parse_literals(text)]
    for measure in measures:
        _validate(measure, text)
    return measures


def _trec_measures(text: str, missing_ok: bool = False) -> list[Measure]:
    try:
        return ir_measures.parse_trec_measure(text)
    except (ValueError, NameError, KeyError):
        if missing_ok:
            return []
        name, _, cutoff = text.partition('@')
        name = name.split('(')[0]
        if cutoff and _is_trec_name(name):  # (map@100: a trec_eval name with ir_measures' cutoff syntax)
            raise MeasureParamError(f"unknown measure {f'{name}@{cutoff}'!r}{_suggestion(name, cutoff)} ('@k' follows "
                           "ir_measures' names; trec_eval's give a cutoff after a dot, e.g. ndcg_cut.10)") from None
        raise MeasureParamError(f'unknown measure {name!r}{_suggestion(name, cutoff)} {NAME_HINT}') from None


def _is_trec_name(name: str) -> bool:
    try:
        return bool(ir_measures.parse_trec_measure(name))
    except (ValueError, NameError, KeyError):
        return False


def _suggestion(name: str, cutoff: str) -> str:
    """``'; did you mean X?'`` for a misspelt or miscased name, or a trec_eval name used with ``@`` (``map@100``:
    ir_measures' measure at that cutoff, ``AP@100``)."""
    try:
        equivalents = [str(_at(m, cutoff)) for m in ir_measures.parse_trec_measure(name)]
    except (ValueError, NameError, KeyError):
        if alias := _alias(name):
            return f'; did you mean {alias}{f"@{cutoff}" if cutoff else ""}?'
        known = {candidate.lower(): candidate for candidate in [*TREC_NAMES, *ir_measures.measures.registry]}
        matches = difflib.get_close_matches(name.lower(), list(known), n=3, cutoff=0.6)
        equivalents = [known[match] + (f'@{cutoff}' if cutoff else '') for match in matches]
    return f'; did you mean {" or ".join(dict.fromkeys(equivalents))}?' if equivalents else ''


def _fold(name: str) -> str:
    """``name`` without case, hyphens, underscores and spaces: ``alpha-nDCG``, ``Alpha_NDCG`` -> ``alphandcg``."""
    return re.sub(r'[-_\s]', '', name).casefold()


def _alias(name: str) -> str | None:
    """The measure of ir_measures that ``name`` means (:data:`ALIASES`, else the one name of ir_measures' that
    folds as it does), or None."""
    folded = _fold(name)
    if folded in ALIASES:
        return ALIASES[folded]
    same = {measure.NAME for candidate, measure in ir_measures.measures.registry.items() if _fold(candidate) == folded}
    return same.pop() if len(same) == 1 else None


def _at(measure: Measure, cutoff: str) -> Measure | str:
    """``measure`` with its ``@`` parameter set to ``cutoff`` (the text after ``@``), or as text if it takes none."""
    if not cutoff:
        return measure
    try:
        return measure(**{measure.AT_PARAM: ast.literal_eval(cutoff)})
    except (ValueError, SyntaxError, TypeError):
        return f'{measure}@{cutoff}'


def _parse_literals(text: str) -> Measure:
    """``Name``, ``Name@k`` or ``Name(param=value, ...)@k`` where values are any Python literal, or a
    bare word for a parameter declared as text (``dtype=str``)."""
    try:
        node = ast.parse(text, mode='eval').body
    except SyntaxError:
        node = None
    cutoff, keywords = None, []
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.MatMult):
        cutoff, node = node.right, node.left
    if isinstance(node, ast.Call) and not node.args:
        keywords, node = node.keywords, node.func
    named = [(keyword.arg, keyword.value) for keyword in keywords if keyword.arg is not None]  # None: **mapping
    if not isinstance(node, ast.Name) or len(named) < len(keywords):
        raise _syntax_error(text)
    if node.id not in ir_measures.measures.registry:
        _trec_measures(node.id)  # raises "unknown measure" with suggestions
    prototype = ir_measures.measures.registry[node.id]
    params = {name: _param_value(prototype, name, value, text) for name, value in named}
    if cutoff is not None:
        params[prototype.AT_PARAM] = _param_value(prototype, prototype.AT_PARAM, cutoff, text)
    try:
        return prototype(**params)
    except (ValueError, TypeError) as error:
        raise MeasureParamError(f'bad measure {text!r}: {error}') from None


def _param_value(prototype: Measure, name: str, node: ast.expr, text: str) -> Any:
    """The value of parameter ``name`` written as ``node``: a Python literal, or a bare word, which is
    text for a parameter declared with ``dtype=str`` (and for an unknown one, which the measure refuses)."""
    try:
        return ast.literal_eval(node)
    except ValueError:  # anything but a literal
        pass
    word = ast.get_source_segment(text, node) or ''
    if not BARE_WORD.fullmatch(word):
        raise _syntax_error(text)
    info = prototype.SUPPORTED_PARAMS.get(name)
    if info is not None and info.dtype is not str:
        types = info.dtype if isinstance(info.dtype, tuple) else (info.dtype,)
        raise MeasureParamError(f'bad measure {text!r}: {prototype.NAME}: {name} must be of type '
                       f'{" or ".join(kind.__name__ for kind in types)}; got the bare word {word!r} (only text '
                       'parameters, such as ties, may be written unquoted)')
    return word


def _syntax_error(text: str) -> MeasureSyntaxError:
    name = text.split('(')[0].split('@')[0].strip()
    if name and name not in ir_measures.measures.registry and (alias := _alias(name)):  # alpha-nDCG@20
        return MeasureSyntaxError(f'unknown measure {name!r}; did you mean {alias}{text[len(name):].strip()}? '
                                  f'{NAME_HINT}')
    return MeasureSyntaxError(f'bad measure {text!r}: expected Name, Name@cutoff, Name(param=value, ...)@cutoff '
                              'or a trec_eval name')


def _validate(measure: Measure, text: str) -> None:
    try:
        check_measure(measure)
    except (ValueError, TypeError) as error:
        raise MeasureParamError(f'bad measure {text!r}: {error}') from None


def measures_of(measures: Iterable[Measure | str]) -> list[Measure]:
    """``measures`` as measures, for the Python API (``irmeasures_ext.provider.calc_aggregate``, ``compare``): a
    string is parsed as the command line parses a measure argument (ir_measures' syntax first, then trec_eval's
    names: ``'nDCG@10'``, ``'Q(beta=0.5)@10'``, ``'ndcg_cut.10'``); MeasureParamError for one that names no
    measure, and for what is neither a measure nor a string."""
    parsed: list[Measure] = []
    for measure in measures:
        if isinstance(measure, Measure):
            parsed.append(measure)
        elif isinstance(measure, str):
            parsed.extend(parse_measure(measure))
        else:
            raise MeasureParamError(f'expected a measure (e.g. ir_measures.nDCG @ 10) or its name (\'nDCG@10\'), got '
                                    f'{type(measure).__name__} {measure!r}')
    return parsed
