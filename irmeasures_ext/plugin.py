"""What ir_measures sees of this package: the ``irmeasures_ext`` provider and its registration.

The provider knows which measures it computes from the declarations alone; the engine (numpy,
pyarrow) is imported when it builds its first evaluator.
"""
from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import ir_measures
from ir_measures import Metric, providers
from ir_measures.measures import Measure

from irmeasures_ext import autoload
from irmeasures_ext.errors import IrMeasuresExtError, MeasureParamError, RowError
from irmeasures_ext.measures import PROVIDER_SPECS
from irmeasures_ext.measures.base import (
    DEFAULT_RANKING,
    SCORE_PRECISIONS,
    TIE_POLICIES,
    Ranking,
    check_choice,
    check_integer,
    check_measure,
)


class IrMeasuresExtProvider(providers.Provider):
    """
    irmeasures_ext: Q-measure, nDCG_Z1, the rank statistics, NTCIREVAL's ad hoc measures, trec_eval's measures
    ir_measures has no name for, and every measure of ir_measures but the diversity ones (trec_eval's AP, P, R,
    RR, nDCG, Bpref, infAP, IPrec, the set measures...; gdeval's ERR and exp-log2 nDCG; cwl_eval's RBP, BPM,
    SDCG, NERR8-11, INST, INSQ; trectools' RBP; Judged; Compat), each exact to the tool that defines it,
    computed in vectorised passes over one ranking of the run. By default ties are
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
                 depth: int | None = DEFAULT_RANKING.depth, classes: bool = DEFAULT_RANKING.classes) -> None:
        super().__init__()
        self.ties = check_choice(self.NAME, 'ties', ties, TIE_POLICIES)
        self.score_precision = check_choice(self.NAME, 'score_precision', score_precision, SCORE_PRECISIONS)
        self.depth = None if depth is None else check_integer(self.NAME, 'depth', depth, minimum=1)
        if not isinstance(classes, bool):
            raise MeasureParamError(f'{self.NAME}: classes must be True or False, got {classes!r}')
        self.classes = classes

    def configured(self, ties: str | None = None, score_precision: str | None = None,
                   depth: int | None = None, classes: bool | None = None) -> IrMeasuresExtProvider:
        """A provider like this one, with another tie policy and/or score precision (see
        :mod:`irmeasures_ext.engine.ties`) and/or depth cut (only the first ``depth`` ranked docs of each
        query, judged or not, are evaluated; R and the ideal list are the qrels' all the same) and/or
        equivalence classes for every measure (``classes=True``: as our measures' ``classes=True``, for
        ir_measures' AP, P, RR, Success... too; the qrels need classes); usable wherever a provider is
        (``calc_aggregate``, ``iter_calc``, ``evaluator``). Our measures' own ``ties``/``score_precision``
        parameters take precedence."""
        return type(self)(ties or self.ties, score_precision or self.score_precision,
                          self.depth if depth is None else depth, self.classes if classes is None else classes)

    def for_provider(self, provider: str | None, ties: str | None = None, score_precision: str | None = None,
                     depth: int | None = None) -> IrMeasuresExtProvider:
        """This provider configured with ``ties``/``score_precision``/``depth`` for an evaluation by
        ``provider`` (a name; None: this one and ir_measures' default pipeline). MeasureParamError when
        another provider is named with a ranking other than the default: it ranks its own way."""
        configured = self.configured(ties, score_precision, depth)
        if provider not in (None, self.NAME) and configured.ranking() != DEFAULT_RANKING:
            raise MeasureParamError(f'ties, score precision and depth choose how the {self.NAME} provider ranks; '
                                    f'provider {provider} ranks its own way: give none of them with it')
        return configured

    def ranking(self) -> Any:
        """This provider's :class:`~irmeasures_ext.measures.base.Ranking`."""
        return Ranking(self.ties, self.score_precision, self.depth, self.classes)

    def _evaluator(self, measures: Iterable[Measure], qrels: Any) -> providers.Evaluator:
        from irmeasures_ext.engine import evaluator
        return evaluator.evaluator(self._checked(measures), qrels, self.ranking())

    def _iter_calc(self, measures: Iterable[Measure], qrels: Any, run: Any) -> Iterator[Metric]:
        from irmeasures_ext.engine import evaluator
        built, run = evaluator.evaluator_and_run(self._checked(measures), qrels, run, self.ranking())
        return built.iter_calc(run)

    def calc_aggregate(self, measures: Iterable[Measure], qrels: Any, run: Any) -> dict[Measure, float]:
        from irmeasures_ext.engine import evaluator
        built, run = evaluator.evaluator_and_run(self._checked(measures), qrels, run, self.ranking())
        return built.calc_aggregate(run)

    def _checked(self, measures: Iterable[Measure]) -> list[Measure]:
        measures = list(measures)
        for measure in measures:
            check_measure(measure)
            if not self.supports(measure):
                raise MeasureParamError(f'provider {self.NAME} does not support measure {measure}')
        return measures


provider = IrMeasuresExtProvider()


def register() -> None:
    """Registers the provider (by name, as ``ir_measures.irmeasures_ext`` like ir_measures' own, and
    once at the end of the default pipeline), and the datasets now if ir_datasets is imported, else
    as soon as it is: evaluating does not need ir_datasets, which is slow to import."""
    registered = ir_measures.providers.registry.setdefault(provider.NAME, provider)
    if not hasattr(ir_measures, provider.NAME):
        setattr(ir_measures, provider.NAME, registered)
    pipeline = ir_measures.DefaultPipeline.providers
    if not any(p.NAME == provider.NAME for p in pipeline):
        pipeline.append(registered)
    autoload.call_after_import('ir_datasets', register_datasets, 'registering its datasets')
    install_command_errors()
    teach_converters_to_read_paths()


def teach_converters_to_read_paths() -> None:
    """Lets every ir_measures provider take a file path (TREC, Parquet, Arrow) for qrels and runs, as ours does:
    ``ir_measures.calc_aggregate([Q @ 10, AP], 'qrels.txt', 'run.txt')`` gave AP's provider the path's characters.
    ir_measures' converters, through which every provider reads its inputs, get a path read by our readers
    (checked as ours checks them) as a dict-of-dict; other inputs are theirs as before."""
    from ir_measures.util import QrelsConverter, RunConverter
    for converter, attribute, kind in ((QrelsConverter, 'qrels', 'qrels'), (RunConverter, 'run', 'run')):
        if not getattr(converter.predict_type, 'IRMEASURES_EXT', False):
            converter.predict_type = _reading_paths(converter.predict_type, attribute, kind)  # type: ignore[method-assign]


def _reading_paths(predict_type: Callable[[Any], Any], attribute: str, kind: str) -> Callable[[Any], Any]:
    def reading_paths(converter: Any) -> Any:
        data = getattr(converter, attribute)
        if isinstance(data, os.PathLike) or (isinstance(data, str) and '\n' not in data and os.path.exists(data)):
            from irmeasures_ext.readers.inputs import InputDict, read_input
            read = read_input(data, kind)
            if kind == 'qrels':
                from irmeasures_ext.engine.judgments import Judgments
                with read.located():  # (conflicting labels: an error naming the lines, not the last label kept)
                    Judgments(read.table)
            setattr(converter, attribute, InputDict(read, 'relevance' if kind == 'qrels' else 'score'))
        return predict_type(converter)
    reading_paths.IRMEASURES_EXT = True  # type: ignore[attr-defined]
    return reading_paths


def install_command_errors() -> None:
    """Makes the plain ``ir_measures`` command print a bad input our provider refuses as one line naming the
    file and line (``ir_measures: error: qrels.txt:3: conflicting labels ...``) rather than a traceback: the
    command reads the files itself and passes records, and has no error handling of its own. Other programs'
    uncaught exceptions keep the previous hook's output."""
    if getattr(sys.excepthook, 'IRMEASURES_EXT', False):
        return
    previous = sys.excepthook

    def excepthook(kind: type[BaseException], error: BaseException, trace: Any) -> None:
        if not (isinstance(error, IrMeasuresExtError) and _is_the_ir_measures_command()):
            previous(kind, error, trace)
            return
        print(f'ir_measures: error: {_located(error)}', file=sys.stderr)

    excepthook.IRMEASURES_EXT = True  # type: ignore[attr-defined]
    sys.excepthook = excepthook


def _is_the_ir_measures_command() -> bool:
    """Whether this process runs ir_measures' command line (``ir_measures ...`` or ``python -m ir_measures``)."""
    main = sys.modules.get('__main__')
    spec = getattr(main, '__spec__', None)
    return (spec is not None and spec.name == 'ir_measures.__main__') or os.path.basename(sys.argv[0]) == 'ir_measures'


def _located(error: IrMeasuresExtError) -> str:
    """The error of a check on the records the ir_measures command read from its QRELS or RUN file, naming the
    file and line; other errors as they are."""
    if not isinstance(error, RowError):
        return str(error)
    files = [arg for arg, before in zip(sys.argv[1:], ['', *sys.argv[1:]], strict=False)
             if not arg.startswith('-') and before not in _VALUED_OPTIONS]
    path = dict(zip(('qrels', 'run'), files, strict=False)).get(error.kind)
    if path is None or not os.path.isfile(path):
        return str(error)
    from irmeasures_ext.readers.trec import TrecSource
    return str(TrecSource(path).locate(error))


#: The ir_measures command's options that take a value.
_VALUED_OPTIONS = frozenset({'--places', '-p', '--output_format', '-o', '--provider'})


def register_datasets() -> None:
    """Registers the QuoteR and citation-recommendation datasets with ir_datasets (imports it)."""
    from irmeasures_ext.datasets.registry import register as register_with_ir_datasets
    register_with_ir_datasets()
