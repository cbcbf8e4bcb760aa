"""What this package teaches ir_measures besides its provider, so that one input gives the same numbers, or the
same error, through ``ir_measures.calc_aggregate``/``iter_calc``/``evaluator`` as through our provider:

- ir_measures' converters (``QrelsConverter``, ``RunConverter``), through which every provider reads its inputs,
  read a file path (a ``pathlib.Path``, or a ``str`` without a newline: a path, as our provider reads one; a
  missing file is our "no such file"), a DataFrame with all of PyTerrier's column names (``qid, docno,
  label|score``) and not all of ir_measures' (a mix of the two is left to ir_measures' own error) and
  the forms only ours reads (Arrow tables and datasets, ``irmeasures_ext.intent_qrels(...)``) with our readers,
  checked as ours checks them, into a dict-of-dict that keeps what was read
  (:class:`~irmeasures_ext.readers.inputs.InputDict`); and they refuse qrels without a judgment (an empty list or
  dict, a generator already read) with our error, where ir_measures would give every measure NaN;
- a pipeline (``ir_measures.DefaultPipeline``, any ``FallbackProvider``) and ir_measures' pyndeval provider read
  such qrels knowing the measures, as our provider does: with the intent of each line (the TREC file's second
  field) where a measure needs intents (diversity qrels, a doc judged once per intent), checked as ours checks
  them; pyndeval then gets the intents (ir_measures' ``Qrel.iteration``);
- where ir_measures' gdeval provider (non-numeric query ids, labels other than integers up to 4), pytrec_eval
  (labels that are not integers) or pyndeval (real-valued labels, which it binarises at 1) cannot take an input
  ours can, the error is one line naming the measures and
  how to get them from our provider. Which provider computes a measure does not change.

The wrappers below are installed on ir_measures' classes by :func:`irmeasures_ext.guest.teach_ir_measures` (not
when the autoload is switched off: :mod:`irmeasures_ext.guest`), which gives those that need it our provider
(``provider``: which measures are ours, its name). Imports only ir_measures and the standard library, never
:mod:`irmeasures_ext.plugin` or :mod:`irmeasures_ext.guest` (no import circle); the readers load when an input is
read.
"""
from __future__ import annotations

import itertools
import math
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import ir_measures
from ir_measures.measures import Measure
from ir_measures.providers import Provider

from irmeasures_ext.errors import InputError

#: ir_measures' column names of each kind of input, which its converters require of a DataFrame.
IR_MEASURES_COLUMNS = {'qrels': ('query_id', 'doc_id', 'relevance'), 'run': ('query_id', 'doc_id', 'score')}
#: PyTerrier's names of those columns.
PYTERRIER_COLUMNS = {'qrels': ('qid', 'docno', 'label'), 'run': ('qid', 'docno', 'score')}
#: pytrec_eval's message for a label that is not an int (a real-valued label, a float 1.0).
PYTREC_EVAL_LABELS = 'Expected relevance to be integer.'
#: The largest label gdeval.pl reads (its ``$MAX_JUDGMENT``).
GDEVAL_MAX_LABEL = 4


def converting(predict_type: Callable[[Any], Any], kind: str) -> Callable[[Any], Any]:
    """A converter's ``predict_type`` that first converts its ``kind`` input (:func:`converted_input`)."""
    def predict_type_reading_ours(converter: Any) -> Any:
        if getattr(converter, '_predicted_format', None) is None:  # (once per converter: it keeps its answer)
            data = getattr(converter, kind)
            converted = converted_input(data, kind)
            if converted is not data:
                setattr(converter, kind, converted)
        return predict_type(converter)
    return predict_type_reading_ours


def converted_input(data: Any, kind: str, measures: list[Measure] | None = None,
                    provider: Provider | None = None) -> Any:
    """``data`` (a run or qrels: ``kind``) as ir_measures' providers get it: a path, a DataFrame with PyTerrier's
    names (:func:`has_pyterrier_columns`) or a form only ours reads, read by our readers (qrels checked for
    ``measures`` as our ``provider`` checks them: :func:`read_qrels`; ``None``: measures unknown, read as ad hoc
    qrels) into an InputDict; qrels without a judgment refused (InputError); anything else as it is (a generator
    peeked at continues where it was)."""
    if is_path(data) or has_pyterrier_columns(data, kind) or only_ours_reads(data):
        from irmeasures_ext.readers.inputs import InputDict
        if kind == 'run':
            return run_dict(data)
        return InputDict(read_qrels(data, measures, provider), 'relevance')
    if kind == 'qrels':
        data = _refused_if_empty(data)
    return data


def is_path(data: Any) -> bool:
    """Whether ``data`` names a file, as our readers take one: a ``pathlib.Path`` (any ``os.PathLike``), or a
    non-empty ``str`` without a newline (existing or not: a missing file is then our "no such file" error, not
    ir_measures' "iterable not a namedtuple iterator" for the path's characters)."""
    return isinstance(data, os.PathLike) or (isinstance(data, str) and data != '' and '\n' not in data)


def only_ours_reads(data: Any) -> bool:
    """Whether ``data`` is a form our readers read and ir_measures' converters do not: an Arrow table or dataset, a
    :class:`~irmeasures_ext.readers.source.Source` (``irmeasures_ext.intent_qrels(...)``). (Checked without importing
    pyarrow or our readers: such an object exists only once they are loaded.)"""
    table = getattr(sys.modules.get('pyarrow'), 'Table', None)
    dataset = getattr(sys.modules.get('pyarrow.dataset'), 'Dataset', None)
    source = getattr(sys.modules.get('irmeasures_ext.readers.source'), 'Source', None)
    return any(kind is not None and isinstance(data, kind) for kind in (table, dataset, source))


def has_pyterrier_columns(data: Any, kind: str) -> bool:
    """Whether ``data`` is a DataFrame with all of PyTerrier's column names for ``kind`` (``qid, docno, label`` for
    qrels, ``qid, docno, score`` for a run) and not all of ir_measures' (which its converters would read): read by
    our readers, as our provider reads it. A frame with all of ir_measures' names stays theirs, and so does a mix of
    the two (``query_id, docno, relevance``): ir_measures refuses it with its own error, as without this package."""
    if not (hasattr(data, 'itertuples') and hasattr(data, 'columns')):
        return False
    columns = {str(column) for column in data.columns}
    return columns >= set(PYTERRIER_COLUMNS[kind]) and not columns >= set(IR_MEASURES_COLUMNS[kind])


def run_dict(data: Any) -> Any:
    """The run ``data`` read and checked as our provider checks it (non-finite scores, a doc twice in a query:
    ir_measures' dict-of-dict would keep one of its scores), as an InputDict."""
    from irmeasures_ext.engine.ranking import check_run
    from irmeasures_ext.readers.inputs import InputDict, read_input
    read = read_input(data, 'run')
    with read.located():
        check_run(read.table, duplicates=False)
    converted = InputDict(read, 'score')
    if sum(map(len, converted.values())) != read.table.num_rows:  # (a doc twice in a query: find and name it)
        with read.located():
            check_run(read.table)
    return converted


def read_qrels(data: Any, measures: list[Measure] | None, provider: Provider | None = None) -> Any:
    """The qrels ``data`` read and checked as our ``provider`` would for ``measures``: with the intent of each
    line where one of them needs intents (:func:`needs_intents`), each doc then needing one label for all its
    intents where others ignore intents; else one label per doc (an error naming the lines of two). ``measures``
    None (unknown) or ``provider`` None (no measure computed by ours): read as ad hoc qrels."""
    from irmeasures_ext.engine.intents import judgments_of
    from irmeasures_ext.readers.inputs import read_input
    intents = [] if measures is None else [needs_intents(measure, provider) for measure in measures]
    read = read_input(data, 'qrels', with_intents=any(intents))
    # (conflicting labels: an error naming the lines, not the last label kept; our provider, handed this Input,
    # takes the judgments made here)
    judgments_of(read, any(intents), [str(measure) for measure, needs in zip(measures or [], intents, strict=True)
                                      if not needs])
    return read


def needs_intents(measure: Any, provider: Provider | None) -> bool:
    """Whether our ``provider`` computes ``measure`` from the intents of the qrels (a diversity measure); False
    if ``provider`` is None."""
    if provider is None or not ours(measure, provider):
        return False
    from irmeasures_ext.engine.kernels import kernel_of
    return kernel_of(measure).needs_intents


def ours(measure: Any, provider: Provider) -> bool:
    """Whether our ``provider`` computes ``measure`` (False for anything not a valid measure)."""
    try:
        return isinstance(measure, Measure) and provider.supports(measure)
    except Exception:  # noqa: BLE001  (a measure's own check of its parameters: left to whoever computes it)
        return False


def _refused_if_empty(qrels: Any) -> Any:
    """``qrels``, or our InputError for records or a dict-of-dict without a judgment (as our reader says it); a
    generator is peeked at and continued. (An empty DataFrame stays ir_measures': PyTerrier's batched Experiment
    hands it the qrels of each batch of topics, which may have none.)"""
    if isinstance(qrels, Iterator):
        first = next(qrels, _NOTHING)
        if first is not _NOTHING:
            return itertools.chain([first], qrels)
        empty: Any = iter(())
    elif isinstance(qrels, (list, tuple, dict)) and not qrels:
        empty = qrels
    else:
        return qrels
    from irmeasures_ext.readers.inputs import read_input
    read_input(empty, 'qrels')  # (raises the error naming the form: no records, an empty dict-of-dict)
    return qrels


_NOTHING = object()


def reading_qrels_for_the_measures(original: Callable[..., Any], provider: Provider) -> Callable[..., Any]:
    """A pipeline's ``_evaluator``: where it would give every measure to our ``provider`` (by its name), ours, which
    reads the qrels and later the run itself, once, in their own form (no dict-of-dict of them), and aggregates
    them itself; else the pipeline's, with the qrels read knowing the measures (with intents where one needs
    them), whose evaluator, where ours computes some of the measures, has each provider aggregate its own
    (:func:`aggregating_by_each_provider`)."""
    def _evaluator(self: Any, measures: Iterable[Measure], qrels: Any) -> Any:
        measures = list(measures)
        chosen = only_provider(self.providers, measures)
        if chosen is not None and chosen.NAME == provider.NAME:
            return chosen.evaluator(measures, qrels)
        built = original(self, measures, converted_input(qrels, 'qrels', measures, provider))
        if any(evaluator.__module__.startswith(OUR_PACKAGE) for evaluator in getattr(built, 'evaluators', ())):
            aggregating_by_each_provider(built)
        return built
    return _evaluator


#: The package whose evaluators compute our measures (by module name: interop imports no evaluator).
OUR_PACKAGE = 'irmeasures_ext.'


def aggregating_by_each_provider(built: Any) -> None:
    """Makes ``built``, ir_measures' ``FallbackEvaluator`` of several providers' evaluators, aggregate each
    provider's measures with that provider's own ``calc_aggregate`` (ours: our vectorised aggregates, never a
    Python loop over (measure, query) pairs), the run handed to each as ir_measures' own ``iter_calc`` hands it."""
    from ir_measures import CalcResults
    from ir_measures.util import RunConverter

    def calc_aggregate(run: Any) -> dict[Measure, float]:
        runs = RunConverter(run).tee(len(built.evaluators))
        aggregates = {}
        for evaluator, teed in zip(built.evaluators, runs, strict=True):
            aggregates.update(evaluator.calc_aggregate(teed.run))
        return {measure: aggregates[measure] for measure in built.measures}

    def calc(run: Any) -> CalcResults:
        runs = RunConverter(run).tee(len(built.evaluators))
        aggregates, per_query = {}, []
        for evaluator, teed in zip(built.evaluators, runs, strict=True):
            results = evaluator.calc(teed.run)
            aggregates.update(results.aggregated)
            per_query.extend(results.per_query)
        return CalcResults({measure: aggregates[measure] for measure in built.measures}, per_query)
    built.calc_aggregate, built.calc = calc_aggregate, calc


def only_provider(providers: Iterable[Any], measures: list[Measure]) -> Any:
    """The provider a pipeline of ``providers`` gives every one of ``measures`` to, choosing as ir_measures'
    ``FallbackProvider`` does (the first available provider supporting each); None if it uses several or none."""
    remaining = set(measures)
    chosen = []
    for provider in providers:
        taken = {measure for measure in remaining if provider.supports(measure)}
        if taken and provider.is_available():
            chosen.append(provider)
            remaining -= taken
            if not remaining:
                break
    return chosen[0] if len(chosen) == 1 and not remaining else None


def giving_intents(original: Callable[..., Any], provider: Provider) -> Callable[..., Any]:
    """pyndeval's ``_evaluator``, given the intents of the qrels our readers read, refusing real-valued labels
    (naming our ``provider`` where it computes the measures)."""
    def _evaluator(self: Any, measures: Iterable[Measure], qrels: Any) -> Any:
        measures = list(measures)
        records = intent_records(converted_input(qrels, 'qrels', measures, provider))
        if isinstance(records, Iterator):  # (read once here, to look at the labels, and handed on as a list)
            records = list(records)
        real = first_real_label(records)
        if real is not None:  # (pyndeval binarises at rel=1: an LLM judge's 0.35 would silently count for nothing)
            raise provider_refusal(provider, self.NAME, measures, 'reads integer labels, a doc relevant from label 1 '
                                   f'(label {real.relevance} of doc {real.doc_id!r} in query {real.query_id!r} is '
                                   'not one)') \
                or InputError(f'{" ".join(sorted(map(str, measures)))}: ir_measures\' {self.NAME} provider reads '
                              f'integer labels; label {real.relevance} of doc {real.doc_id!r} in query '
                              f'{real.query_id!r} is not one')
        return original(self, measures, records)
    return _evaluator


def first_real_label(qrels: Any) -> Any:
    """The first judgment (with ``query_id``, ``doc_id``, ``relevance``) of ``qrels`` (records in a list, a DataFrame
    with ir_measures' names, a dict-of-dict) whose label is real-valued; None if none is (or the form is another)."""
    if hasattr(qrels, 'itertuples') and 'relevance' in getattr(qrels, 'columns', ()):
        judgments: Iterable[Any] = qrels.itertuples()
    elif isinstance(qrels, dict):
        judgments = (ir_measures.Qrel(query_id, doc_id, label) for query_id, docs in qrels.items()
                     if isinstance(docs, dict) for doc_id, label in docs.items())
    elif isinstance(qrels, list):
        judgments = qrels
    else:
        return None
    return next((judgment for judgment in judgments if _is_real(getattr(judgment, 'relevance', 0))), None)


def _is_real(label: Any) -> bool:
    """Whether a label is a number that is not a whole one (a real-valued label)."""
    try:
        return not float(label).is_integer()
    except (TypeError, ValueError):
        return False


def intent_records(qrels: Any) -> Any:
    """Qrels read by our readers (an InputDict) as the records pyndeval reads, each line's intent its
    ``iteration`` (the dict-of-dict has none); other qrels as they are."""
    from irmeasures_ext.readers.inputs import InputDict, as_intent_qrels, read_input
    from irmeasures_ext.readers.schemas import INTENT_COLUMN
    if not isinstance(qrels, InputDict):
        return qrels
    read = qrels.input
    if INTENT_COLUMN not in read.table.column_names:
        try:
            read = read_input(read, 'qrels', with_intents=True)
        except InputError:  # (no intents to give: a table without an intent column)
            return qrels
    return as_intent_qrels(read.table)


def provider_refusal(provider: Provider, name: str, measures: list[Measure], why: str) -> InputError | None:
    """The one-line error for ir_measures' provider ``name`` failing on ``measures`` for ``why``, naming how to
    get them from our ``provider``; None if ours computes none of them (the provider's own error stands)."""
    # (sorted: a pipeline gives a set)
    computable = sorted(str(measure) for measure in measures if ours(measure, provider))
    if not computable:
        return None
    them = 'it' if len(computable) == 1 else 'them'
    return InputError(f'{" ".join(sorted(map(str, measures)))}: ir_measures\' {name} provider {why}; the '
                      f'{provider.NAME} provider computes {them} from these inputs: '
                      f'irmeasures_ext.provider.calc_aggregate({computable!r}, qrels, run) (also '
                      f'ir_measures.{provider.NAME}; on the command line, irmeasures-ext without --provider {name})')


def pytrec_eval_refusing(original: Callable[..., Any], provider: Provider) -> Callable[..., Any]:
    """pytrec_eval's ``_evaluator``, its error on labels that are not integers one line naming our ``provider``."""
    def _evaluator(self: Any, measures: Iterable[Measure], qrels: Any) -> Any:
        measures = list(measures)
        try:
            return original(self, measures, qrels)
        except TypeError as error:
            refusal = provider_refusal(provider, self.NAME, measures, 'takes integer relevance labels only '
                                       f'(pytrec_eval: "{error}")') if str(error) == PYTREC_EVAL_LABELS else None
            if refusal is None:
                raise
            raise refusal from error
    return _evaluator


def gdeval_refusing(original: Callable[..., Any], provider: Provider) -> Callable[..., Any]:
    """gdeval's ``_evaluator``, refusing what gdeval.pl stops at in one line naming our ``provider``."""
    def _evaluator(self: Any, measures: Iterable[Measure], qrels: Any) -> Any:
        measures = list(measures)
        built = original(self, measures, qrels)
        problem, ours_too = gdeval_problem(getattr(built, 'qrels', ()))
        if problem is not None and ours_too:  # (a label above 4: our provider refuses it too, as gdeval.pl does)
            raise InputError(f'qrels: {" ".join(sorted(map(str, measures)))}: {problem}')
        refusal = None if problem is None else provider_refusal(provider, self.NAME, measures,
                                                                f'(gdeval.pl) cannot read these qrels: {problem}')
        if refusal is not None:
            raise refusal
        iter_calc = built._iter_calc

        def _iter_calc(run: Any) -> Iterator[Any]:
            try:
                yield from iter_calc(run)
            except subprocess.CalledProcessError as error:
                refusal = provider_refusal(provider, self.NAME, measures,
                                           f'(gdeval.pl) stopped with status {error.returncode} (its format error: '
                                           f'it reads numeric query ids and integer labels up to {GDEVAL_MAX_LABEL} '
                                           'only)')
                if refusal is None:
                    raise
                raise refusal from error
        built._iter_calc = _iter_calc
        return built
    return _evaluator


def gdeval_problem(qrels: Iterable[Any]) -> tuple[str | None, bool]:
    """What gdeval.pl certainly stops at in ``qrels`` (records as ir_measures writes them to its file) before
    reading a run, and whether our provider refuses it too: a label above :data:`GDEVAL_MAX_LABEL` (ours refuses it
    too, naming the doc of the highest label, as ours words it); else a query id that is not a number (after its
    last ``-``, which gdeval.pl drops) or a label that is not an integer (ours reads both). (None, False) if none
    (fields with blanks are left to gdeval.pl)."""
    records = list(qrels) if isinstance(qrels, (list, tuple)) else []
    labels = [_number(qrel.relevance) for qrel in records]
    if labels and max(labels) > GDEVAL_MAX_LABEL:
        highest = records[labels.index(max(labels))]
        return (f"qrels label {highest.relevance} exceeds gdeval's maximum grade {GDEVAL_MAX_LABEL} (doc "
                f'{highest.doc_id!r} in query {highest.query_id!r})'), True
    for qrel in records:
        query_id, label = str(qrel.query_id), str(qrel.relevance)
        if _FIELD.fullmatch(query_id) and not _NUMBER.fullmatch(re.sub(r'^.*-', '', query_id)):
            return f'query id {query_id!r} is not a number', False
        if _FIELD.fullmatch(label) and not _INTEGER.fullmatch(label):
            return f'label {label} (query {query_id!r}) is not an integer', False
    return None, False


def _number(label: Any) -> float:
    """A label as a number (-inf for what is none: left to gdeval.pl)."""
    try:
        return float(label)
    except (TypeError, ValueError):
        return -math.inf


_FIELD = re.compile(r'\S+')  # (Unicode's blanks: more than perl's, so a field read as perl reads it)
_NUMBER = re.compile(r'[0-9]+')
_INTEGER = re.compile(r'-?[0-9]+')

