"""Exceptions raised for bad input. All are ``ValueError`` subclasses.

The checks that find a duplicate doc, conflicting qrels labels or a non-finite score run once,
on the Arrow tables, whatever form the input came in; their errors carry the query and doc so
that, for a file, the reader can find the line (:meth:`irmeasures_ext.readers.trec.TrecSource.locate`).
"""
from __future__ import annotations

import os
import sys
import threading
import warnings
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar('T')


def extra_install(extra: str) -> str:
    """The command that installs an extra of this package (it is installed from a clone, not from an index)."""
    return f"pip install '.[{extra}]' in a clone of irmeasures_ext (the package is not on a package index)"


class IrMeasuresExtError(ValueError):
    """Base class of every error this package raises for bad user input."""


class MeasureParamError(IrMeasuresExtError):
    """A measure was given a parameter it does not accept, or an invalid value."""


class ComparisonError(IrMeasuresExtError):
    """A run comparison was asked for with invalid options (unknown test, baseline, too few runs, ...)."""


class InputError(IrMeasuresExtError):
    """A run or qrels is malformed (duplicate documents, conflicting labels, NaN scores, ...)."""


class MetadataError(InputError):
    """An ir_metadata block (:mod:`irmeasures_ext.ir_metadata`) cannot be read or written: not closed, not YAML, not
    a mapping; the message names the file and line."""


class RunWriteError(IrMeasuresExtError):
    """A run cannot be written where asked (:func:`irmeasures_ext.ir_metadata.write_run`): the file exists and
    ``overwrite`` is not given, its folder is missing, an id would break the file's fields."""


class RowError(InputError):
    """A problem with the row(s) of one (query, doc) pair; ``kind`` is 'run' or 'qrels'; ``intent``: the intent
    of the qrels lines concerned, for qrels of intents (set after construction, else None), and ``hint``."""

    intent: str | None = None
    #: What to do about it, said after the located message too (set after construction, else None).
    hint: str | None = None

    def __init__(self, message: str, kind: str, query_id: str, doc_id: str) -> None:
        super().__init__(f'{kind}: {message}')
        self.problem, self.kind, self.query_id, self.doc_id = message, kind, query_id, doc_id

    def __reduce__(self) -> tuple[type, tuple[str, str, str, str]]:
        # (pickled by its own arguments: a Dask worker's error reaches the client intact)
        return type(self), (self.problem, self.kind, self.query_id, self.doc_id)


class DuplicateDocError(RowError):
    """A doc appears twice in one query of a run."""


class ConflictingLabelsError(RowError):
    """A (query, doc) pair of the qrels has two different labels."""


class RepeatedJudgment(RowError):
    """A (query, doc) pair of the qrels is on two identical lines: the content of a RepeatedJudgmentWarning,
    located (named by file and lines) as an error would be."""


class ConflictingClassesError(RowError):
    """A (query, doc) pair of the qrels is in two equivalence classes."""


class InvalidClassError(RowError):
    """An equivalence class id of the qrels is not a non-negative integer; ``class_id`` is the id."""

    def __init__(self, message: str, kind: str, query_id: str, doc_id: str, class_id: int) -> None:
        super().__init__(message, kind, query_id, doc_id)
        self.class_id = class_id


class NonFiniteScoreError(RowError):
    """A score is NaN or infinite."""


class EqualRankError(RowError):
    """Two docs of a query have the same rank (tie policy ``rank``); ``doc_id`` is the second one."""


class ValueOverflowError(RowError):
    """A measure's values overflow 64-bit floats in a query; ``doc_id`` is the doc of its highest label."""


class PartialsError(IrMeasuresExtError):
    """Partial evaluations of a run's pieces (``ExtEvaluator.partial``) that ``merge`` or ``finished`` cannot join
    into the run's values: a query whose rows are in two pieces (``query_id`` names it; else None), a partial
    made by another evaluator (other qrels, measures or ranking), the same piece merged twice, or something
    that is not a partial at all."""

    def __init__(self, message: str, query_id: str | None = None) -> None:
        super().__init__(message)
        self.query_id = query_id

    def __reduce__(self) -> tuple[type, tuple[str, str | None]]:
        return type(self), (str(self), self.query_id)


class TemporaryFilesError(IrMeasuresExtError):
    """Temporary files (the copy of standard input or of a pipe, a run partitioned by query) could not be written
    in the temporary folder (``$TMPDIR``)."""

    @classmethod
    def of(cls, what: str, error: OSError) -> TemporaryFilesError:
        """The error for ``what`` (e.g. "<stdin> is copied to a temporary file") that ``error`` stopped."""
        import tempfile
        return cls(f'{what} under {tempfile.gettempdir()}, which could not be written ({error.strerror or error}): '
                   'set TMPDIR to a folder with room')


def check_flag(name: str, value: object, error: type[IrMeasuresExtError] = InputError) -> None:
    """``error`` naming ``name`` unless ``value`` is True or False (Python's or numpy's bool): a truthy text such as
    ``'no'`` must not, say, replace a file."""
    import numpy as np
    if not isinstance(value, (bool, np.bool_)):
        raise error(f'{name} must be True or False, got {value!r}')


class IrMeasuresExtWarning(UserWarning):
    """Base class of this package's warnings about input that gives numbers, but likely not the intended ones."""


class NoOverlapWarning(IrMeasuresExtWarning):
    """The run retrieves nothing for any query of the qrels: every measure takes its value for an
    unanswered query (usually a sign of mismatched query ids)."""


class ReversedScoresWarning(IrMeasuresExtWarning):
    """In every query of a run with a rank column, the scores increase down the listed docs: ranking by
    score, as trec_eval does, reverses the run's own order (its rank and score fields swapped, or scores
    where lower is better)."""


class UnjudgedIntentWarning(IrMeasuresExtWarning):
    """Intent probabilities list an intent that no qrels line judges: NTCIREVAL's diversity measures skip it."""


class ProbabilitySumWarning(IrMeasuresExtWarning):
    """A query's intent probabilities do not sum to 1, not even to the precision they are written with (each may be
    off by half a unit of its last written decimal): NTCIREVAL's diversity measures take them as they are, and so
    do ours, unless asked to renormalise them (``intent_qrels(..., renormalise=True)``)."""


class SingleIntentWarning(IrMeasuresExtWarning):
    """Every query of diversity qrels has one intent (subtopic) only: the diversity measures then say nothing of
    diversity (likely ad hoc qrels read as diversity qrels, their iteration field taken for the subtopic)."""


class QueryIdFormWarning(IrMeasuresExtWarning):
    """Some of the run's queries are not in the qrels but match unanswered qrels queries written another way
    (zero-padded, in another case, with white space): those qrels queries count as unanswered."""


class UnreachedThresholdWarning(IrMeasuresExtWarning):
    """The qrels have real-valued labels and no judged doc of any query reaches a measure's relevance threshold:
    every such measure is 0 (set a lower threshold: the measure's ``rel``, the provider's ``rel``, ``--rel``)."""


class RepeatedJudgmentWarning(IrMeasuresExtWarning):
    """A (query, doc) pair of the qrels is judged twice with the same label: counted once. (trec_eval stops with
    "duplicate docs" on such qrels; NTCIREVAL counts the doc twice.)"""


class UndefinedAgreementWarning(IrMeasuresExtWarning):
    """An agreement statistic between judgement sets (:mod:`irmeasures_ext.judges.agreement`) has no value on the
    labels given (no pair judged by both sets, one category only, constant labels for a correlation, ...), or needs
    categories that real-valued labels lack: its value is NaN, and the warning names the statistic and why."""


class UndefinedLeaderboardAgreementWarning(UndefinedAgreementWarning):
    """A statistic of agreement between two system rankings (:mod:`irmeasures_ext.judges.leaderboard`) has no value
    on the scores given (fewer than two systems, every system tied in one ranking, ties where the coefficient
    assumes none): its value is NaN, and the warning names the statistic and why."""


def warn_at_caller(message: str, category: type[Warning]) -> None:
    """Warns as from the first frame outside this package, ir_measures and ir_datasets (whose folders hold the
    frames that are not the user's): the user's call, whichever entry point it went through. On a thread running
    work for a :class:`DeferredWarnings` (a thread pool's), whose frames lead to no user's call, the warning is
    kept for it instead, and re-issued from the thread that started the work."""
    deferred = getattr(_deferring, 'warnings', None)
    if deferred is not None:
        deferred.keep(message, category)
        return
    import ir_measures  # (loaded: this package is ir_measures' plugin)
    ir_datasets = sys.modules.get('ir_datasets')  # (its frames lie between a user's call and our datasets' code)
    files = (ir_measures.__file__ or '', __file__, getattr(ir_datasets, '__file__', None) or '')
    libraries = tuple(os.path.dirname(os.path.realpath(file)) + os.sep for file in files if file)
    frame, level = sys._getframe(1), 2  # (stacklevel 2: the frame that called this function)
    while frame.f_back is not None and os.path.realpath(frame.f_code.co_filename).startswith(libraries):
        frame, level = frame.f_back, level + 1
    warnings.warn(message, category, stacklevel=level)


#: The :class:`DeferredWarnings` that the current thread works for, if any (``warnings``).
_deferring = threading.local()


class UnansweredTopicsWarning(IrMeasuresExtWarning):
    """A run does not answer some topics of a reproducibility study (:mod:`irmeasures_ext.reproduce`): each is
    evaluated as a ranking of no documents (0 in every measure of the ranking), and counts 0 in KTU and RBO where the
    original's rankings have it."""


class DeferredWarnings:
    """The warnings that :func:`warn_at_caller` raises on worker threads (a thread pool's), kept to be re-issued
    from the thread that started the work, where the frames lead to the user's call: ``pool.map(deferred.running(
    function), items)``, then ``deferred.reissue()`` on the calling thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kept: list[tuple[str, type[Warning]]] = []

    def running(self, function: Callable[..., T]) -> Callable[..., T]:
        """``function``, with the warnings it raises through :func:`warn_at_caller` kept here, on any thread."""
        def run(*args: Any, **kwargs: Any) -> T:
            previous = getattr(_deferring, 'warnings', None)
            _deferring.warnings = self
            try:
                return function(*args, **kwargs)
            finally:
                _deferring.warnings = previous
        return run

    def keep(self, message: str, category: type[Warning]) -> None:
        with self._lock:
            self._kept.append((message, category))

    def reissue(self) -> None:
        """Warns what was kept, in the order it was raised, from the user's call (:func:`warn_at_caller` on this
        thread)."""
        with self._lock:
            kept, self._kept = self._kept, []
        for message, category in kept:
            warn_at_caller(message, category)
