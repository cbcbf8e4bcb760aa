"""What every declaration shares: checked parameters and the declaration of a measure to ir_measures.

Declarations import only ir_measures, so that ``import ir_measures`` stays cheap with the
autoload hook; the computation lives in ``irmeasures_ext.engine`` and loads on first use.
"""
from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from typing import Any, NamedTuple, TypeVar

from ir_measures import measures as irm

from irmeasures_ext.errors import MeasureParamError

#: A parameter's check: (measure name, parameter name, value) -> the normalised value, or MeasureParamError.
Check = Callable[[str, str, Any], Any]


class Param(irm.ParamInfo):
    """A parameter of our measures, declared with its check (:data:`Check`): ``Q(beta=-1)`` fails when built,
    ``Q(beta=1) == Q(beta=1.0)``."""

    def __init__(self, check: Check, **info: Any) -> None:
        super().__init__(**info)
        self.check = check


def integer_from(minimum: int) -> Check:
    """The check of an integer parameter from ``minimum`` to INT64_MAX."""
    return lambda measure_name, name, value: check_integer(measure_name, name, value, minimum)


def choice_of(choices: tuple[str, ...]) -> Check:
    """The check of a parameter that takes one of ``choices``."""
    return lambda measure_name, name, value: check_choice(measure_name, name, value, choices)


def check_boolean(measure_name: str, name: str, value: Any) -> bool:
    """``value`` if it is True or False, else MeasureParamError."""
    if not isinstance(value, bool):
        raise MeasureParamError(f'{measure_name}: {name} must be True or False, got {value!r}')
    return value


def gains_check(measure_name: str, name: str, value: Any) -> dict[float, float]:
    """:func:`check_gains` as a parameter's check."""
    return check_gains(measure_name, value, name)


def threshold_check(measure_name: str, name: str, value: Any) -> int | float:
    """The check of a relevance threshold: a finite number above 0 (a real one for real-valued labels); a whole
    number becomes an int, so that ``Q(rel=2.0) == Q(rel=2)``."""
    number: int | float | None = None
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        number = int(value) if isinstance(value, numbers.Integral) else float(value)
    if number is None or not 0 < number <= INT64_MAX:
        raise MeasureParamError(f'{measure_name}: {name} must be a number above 0 (a real one for real-valued '
                                f'labels, e.g. {name}=0.5), got {value!r}')
    return int(number) if isinstance(number, float) and number.is_integer() else number


#: Parameter declarations shared by several measures.
REL_PARAM = Param(threshold_check, dtype=(int, float), default=1,
                  desc='minimum relevance label to be considered relevant (inclusive; a real number for '
                       'real-valued labels); not given: every label above 0, which for integer labels is rel=1')
CUTOFF_PARAM = Param(integer_from(1), dtype=int, required=False, desc='ranking cutoff threshold k')
REQUIRED_CUTOFF_PARAM = Param(integer_from(1), dtype=int, required=True, desc='ranking cutoff threshold k (required)')
GAINS_PARAM = Param(gains_check, dtype=dict, desc='gain per relevance label, e.g. {1:1,2:3,3:7}; default gain = label')
MAX_LEVEL_PARAM = Param(integer_from(1), dtype=int,
                        desc='top relevance level, whose gain is g_max (default: the largest label of gains if '
                             'given, else of the qrels)')

#: Tie policies (see irmeasures_ext.engine.ties) and score precisions.
TIE_POLICIES = ('trec_eval', 'optimistic', 'pessimistic', 'expected', 'rank')
SCORE_PRECISIONS = ('float32', 'float64')
TIES_PARAM = Param(choice_of(TIE_POLICIES), dtype=str,
                   desc='how docs with equal scores are ordered: trec_eval (doc_id descending), optimistic, '
                        "pessimistic, expected (the mean over all orderings) or rank (the run's rank column); "
                        "default: the provider's (trec_eval)")
PRECISION_PARAM = Param(choice_of(SCORE_PRECISIONS), dtype=str,
                        desc='scores tie when equal as float32 (trec_eval 9, pytrec_eval) or float64 (trec_eval '
                             "10); default: the provider's (float32)")
JUDGED_ONLY_PARAM = Param(check_boolean, dtype=bool, default=False,
                          desc='computed on the condensed list: unjudged docs removed before computing '
                               "(NTCIREVAL's label -j; every doc of the qrels is kept, negative labels too)")
#: The parameters every measure of ours takes to choose its ranking (e.g. for PyTerrier, which takes
#: measure objects only); :class:`ExtMeasure` adds them to each measure's ``SUPPORTED_PARAMS``.
RANKING_PARAMS = {'ties': TIES_PARAM, 'score_precision': PRECISION_PARAM}
#: The parameters of the ranked list every measure of ours takes (each asks for a transform of the list:
#: ``irmeasures_ext.engine.transforms.BY_PARAMETER``); :class:`ExtMeasure` adds them too.
LIST_PARAMS = {
    'judged_only': JUDGED_ONLY_PARAM,
    'classes': Param(check_boolean, dtype=bool, default=False, desc=(
        "equivalence classes (NTCIREVAL's -ec; qrels with a class id per doc): only the first retrieved member "
        'of each class counts, at its own label; R and the ideal list count classes, at their highest label')),
}
def check_fraction(measure_name: str, name: str, value: Any) -> float:
    """``value`` if it is a number from 0 to 1 (IPrec's recall level), else MeasureParamError."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value <= 1:
        raise MeasureParamError(f'{measure_name}: {name} must be a number from 0 to 1, got {value!r}')
    return value


def ir_measures_threshold_check(measure_name: str, name: str, value: Any) -> int:
    """The check of the ``rel`` of ir_measures' own measures: an integer from 0, as ir_measures declares it; a real
    threshold is refused with the way to give one (the provider's setting, which ir_measures' parser allows)."""
    if isinstance(value, float) and math.isfinite(value) and value > 0 and not value.is_integer():
        if measure_name == 'RBP':  # (its rel binarises the labels as cwl_eval does: irmeasures_ext.engine.relevance)
            raise MeasureParamError(f'RBP: ir_measures declares rel an integer, got {value!r} (it binarises the labels '
                                    'at rel as cwl_eval does; without rel, RBP takes the labels as gains)')
        optional = irm.registry[measure_name].SUPPORTED_PARAMS['rel'].default is irm.base._NOT_PROVIDED
        raise MeasureParamError(f'{measure_name}: ir_measures declares rel an integer, got {value!r}; for a '
                                'real-valued threshold, set it on our provider, which gives it to every measure whose '
                                f'rel is 1 (the default){f" (here {measure_name}(rel=1))" if optional else ""}: '
                                f'irmeasures_ext.provider.configured(rel={value!r}) (irmeasures-ext --rel {value!r})')
    return check_integer(measure_name, name, value, 0)


#: The checks of the parameters of ir_measures' own measures (which declare plain ParamInfo) that this
#: package checks with its messages. ``rel`` starts at 0 there (trec_eval's relevance level: ``P(rel=0)``
#: counts every judged doc relevant), at 1 for ours (REL_PARAM: label 0 is not relevant).
IR_MEASURES_CHECKS: dict[str, Check] = {
    'cutoff': integer_from(1), 'rel': ir_measures_threshold_check, 'gains': gains_check, 'max_level': integer_from(1),
    'judged_only': check_boolean, 'recall': check_fraction,
}

#: The largest value an integer parameter may take (the engine works in 64-bit integers).
INT64_MAX = (1 << 63) - 1

#: ir_measures provider specs of every measure the ``irmeasures_ext`` provider computes, filled by
#: the declaration modules (:func:`declare`, :func:`also_compute`) when ``irmeasures_ext.measures`` loads.
PROVIDER_SPECS: list[irm.Measure] = []
#: Our own measures by NAME, in declaration order (:func:`declare`): the source of every list of them (the package's
#: public names, the provider's specs; ir_measures' registry holds them under the same names).
DECLARED: dict[str, ExtMeasure] = {}
DeclaredMeasure = TypeVar('DeclaredMeasure', bound='ExtMeasure')


def declare(measure_class: type[DeclaredMeasure]) -> DeclaredMeasure:
    """Class decorator declaring one of our measures, named as its class: the module's name is bound to its
    singleton (ir_measures' style: ``Q``, then ``Q@10``), registered in :data:`DECLARED`, with ir_measures (under its
    NAME, once) and with our provider."""
    measure_class.NAME = measure_class.__qualname__
    measure = measure_class()
    DECLARED[measure.NAME] = measure
    irm.registry.setdefault(measure.NAME, measure)
    also_compute(measure)
    return measure


def also_compute(spec: irm.Measure) -> None:
    """Declares that our provider computes the measures matching ``spec`` (an ir_measures provider
    spec: parameter values are ``Any()``/``Choices(...)``, absent parameters are unrestricted)."""
    if not any(existing.NAME == spec.NAME and existing.params == spec.params for existing in PROVIDER_SPECS):
        PROVIDER_SPECS.append(spec)


def declared_measure(name: str, params: dict[str, Any]) -> ExtMeasure:
    """Our measure ``name`` with ``params`` (how a measure is unpickled: by name, see :meth:`ExtMeasure.__reduce__`)."""
    return DECLARED[name](**params)


class ExtMeasure(irm.Measure):
    """An ir_measures ``Measure`` whose parameters are checked with :class:`~irmeasures_ext.errors.MeasureParamError`.

    Values are checked and normalised when the measure is built (``Q(beta=-1)`` fails at
    once, ``Q(beta=1) == Q(beta=1.0)``); required parameters are checked when it is
    evaluated, since ``nDCG_Z1`` alone is a valid prototype to write ``nDCG_Z1@5``.

    Every subclass takes the ranking parameters (:data:`RANKING_PARAMS`: ``ties``, ``score_precision``)
    and the list parameters (:data:`LIST_PARAMS`: ``judged_only``, ``classes``) beside the ones it declares.
    """
    #: Every measure of ours has a name (ir_measures' Measure allows None), a pretty name and a short description.
    NAME: str
    PRETTY_NAME: str
    SHORT_DESC: str
    #: Whether smaller values are better (rank statistics); run comparisons read it.
    LOWER_IS_BETTER = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.SUPPORTED_PARAMS = {**cls.SUPPORTED_PARAMS, **RANKING_PARAMS, **LIST_PARAMS}

    @property
    def __name__(self) -> str:
        """ir_measures names a measure by ``__name__`` (its ``repr``): ours is NAME."""
        return self.NAME

    def __reduce__(self) -> tuple[Callable[[str, dict[str, Any]], ExtMeasure], tuple[str, dict[str, Any]]]:
        """Pickled by name and parameters (a declaration's module binds the name to the singleton, not the class)."""
        return declared_measure, (self.NAME, self.params)

    def __init__(self, **params: Any) -> None:
        check_known_params(self.NAME, params, self.SUPPORTED_PARAMS)
        super().__init__(**{name: self._normalised_param(name, value) for name, value in params.items()})

    def _normalised_param(self, name: str, value: Any) -> Any:
        """The normalised value of one parameter, by its declaration's check (every parameter of ours is a Param)."""
        info = self.SUPPORTED_PARAMS[name]
        if not isinstance(info, Param):
            raise TypeError(f'{self.NAME}: parameter {name!r} is declared without its check (declare a Param)')
        return info.check(self.NAME, name, value)

    def validate_params(self) -> None:
        if self.validated:
            return
        check_required_params(self)
        super().validate_params()

    def _param_repr(self, value: Any) -> str:
        # ir_measures hides identity entries of a gains dict; ours have other defaults, so show all.
        if isinstance(value, dict):
            return '{' + ','.join(f'{k}:{v!r}' for k, v in sorted(value.items())) + '}'
        return repr(value)


class Ranking(NamedTuple):
    """How a run is ranked: the tie policy and the precision at which scores tie (see
    :mod:`irmeasures_ext.engine.ties`), the depth cut (trec_eval's ``-M``, NTCIREVAL's ``label
    -truncate``: only the first ``depth`` ranked docs, judged or not, are evaluated; None: all), and
    whether every measure is computed with equivalence classes (``classes``: as a measure of ours with
    ``classes=True``, for ir_measures' own measures too, which have no such parameter), and the relevance threshold
    of the measures that take one and give none (``rel``; None: every label above 0, which for integer labels is
    ``rel=1``: :mod:`irmeasures_ext.engine.relevance`). A named tuple,
    not a dataclass: ``import ir_measures`` with the hook imports this module, and ``dataclasses`` would
    take it past its 10 ms budget (benchmarks/startup.py)."""

    ties: str = 'trec_eval'
    score_precision: str = 'float32'
    depth: int | None = None
    classes: bool = False
    rel: float | None = None

    @property
    def reads_rank(self) -> bool:
        return self.ties == 'rank'

    def of(self, measure: irm.Measure) -> Ranking:
        """The ranking ``measure`` asks for: its own ``ties``/``score_precision`` parameters (measures of
        this package), else this one's; the depth and classes are always this one's."""
        params = measure.params if isinstance(measure, ExtMeasure) else {}
        return self._replace(ties=params.get('ties', self.ties),
                             score_precision=params.get('score_precision', self.score_precision))

    def uses_classes(self, measure: irm.Measure) -> bool:
        """Whether ``measure`` is computed with equivalence classes under this ranking."""
        return self.classes or bool(measure.params.get('classes'))


DEFAULT_RANKING = Ranking()


def check_integer(measure_name: str, name: str, value: Any, minimum: int) -> int:
    """``value`` as an int if it is an integer (an int or a numpy integer: any ``numbers.Integral`` but a bool)
    from ``minimum`` to INT64_MAX, else MeasureParamError."""
    integer = None if isinstance(value, bool) or not isinstance(value, numbers.Integral) else int(value)
    if integer is None or not minimum <= integer <= INT64_MAX:
        raise MeasureParamError(f'{measure_name}: {name} must be an integer from {minimum} to {INT64_MAX}, '
                                f'got {value!r}')
    return integer


def check_choice(measure_name: str, name: str, value: Any, choices: tuple[str, ...]) -> str:
    """``value`` if it is one of ``choices``, else MeasureParamError."""
    if value not in choices:
        raise MeasureParamError(f'{measure_name}: {name} must be one of {", ".join(choices)}; got {value!r}')
    return value


def lower_is_better(measure: irm.Measure) -> bool:
    """Whether smaller values of ``measure`` are better: our rank statistics; every measure of
    ir_measures is higher-is-better (counts such as ``NumRet`` are compared as such)."""
    return bool(getattr(measure, 'LOWER_IS_BETTER', False))


def check_known_params(measure_name: str, params: dict[str, Any], supported: dict[str, Any]) -> None:
    """MeasureParamError naming the parameters of ``params`` that are not ``supported``."""
    unknown = sorted(set(params) - set(supported))
    if unknown:
        raise MeasureParamError(f'{measure_name}: unknown parameter(s) {unknown}; supported: {sorted(supported)}')


def name_of(measure: irm.Measure) -> str:
    """``measure.NAME``; MeasureParamError for a measure without one (ir_measures' base class has None)."""
    if measure.NAME is None:
        raise MeasureParamError(f'{measure!r} is not a named measure')
    return measure.NAME


def check_required_params(measure: irm.Measure) -> None:
    """MeasureParamError naming the first parameter ``measure`` requires and lacks (ir_measures' own check
    prints the missing value as ``<object object at 0x...>``)."""
    for name, info in measure.SUPPORTED_PARAMS.items():
        if info.required and name not in measure.params:
            at = '0.5' if info.dtype is float else '10'  # (IPrec's recall level, else a cutoff)
            example = f'{measure.NAME}@{at}' if name == measure.AT_PARAM else f'{measure.NAME}({name}=...)'
            raise MeasureParamError(f'{measure.NAME}: parameter {name!r} is required, e.g. {example}')


def check_measure(measure: irm.Measure) -> None:
    """Checks any measure's parameters with this package's rules (ir_measures checks with ``assert``,
    which ``python -O`` skips); raises MeasureParamError."""
    check_known_params(name_of(measure), measure.params, measure.SUPPORTED_PARAMS)
    check_required_params(measure)
    if not isinstance(measure, ExtMeasure):
        for name, value in measure.params.items():
            if name in IR_MEASURES_CHECKS:
                IR_MEASURES_CHECKS[name](name_of(measure), name, value)
    try:
        measure.validate_params()
    except AssertionError as error:
        raise MeasureParamError(f'{measure.NAME}: {error}') from None


def check_gains(measure_name: str, gains: Any, param: str = 'gains',
                item: str = 'gain') -> dict[float, float]:
    """Checks a ``{label: gain}`` mapping (labels: 64-bit integers, or finite real numbers for real-valued
    labels, a whole one becoming an int; finite gains >= 0); gains become floats. ``param`` and ``item`` name
    the parameter and its values in messages (e.g. ``stops``, ``stop value``)."""
    if not isinstance(gains, dict):
        raise MeasureParamError(f'{measure_name}: {param} must be a dict {{label: {item}}}, got {gains!r}')
    for label, gain in gains.items():
        if not _is_label(label):
            raise MeasureParamError(f'{measure_name}: {param} keys must be labels (64-bit integers or finite real '
                                    f'numbers), got {label!r}')
        if isinstance(gain, bool) or not isinstance(gain, (int, float)) or not math.isfinite(gain) or gain < 0:
            raise MeasureParamError(
                f'{measure_name}: {item} for label {label} must be a finite number >= 0, got {gain!r}')
    return {_whole_as_int(label): float(gain) for label, gain in gains.items()}


def _whole_as_int(label: int | float) -> int | float:
    """A whole label within 64 bits as an int (``gains={2.0: 3}`` is ``{2: 3}``), another as it is."""
    return int(label) if float(label).is_integer() and -INT64_MAX - 1 <= label <= INT64_MAX else label


def _is_label(value: Any) -> bool:
    """Whether ``value`` can be a qrels label: a 64-bit integer, or a finite real number."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    return math.isfinite(value) if isinstance(value, float) else -INT64_MAX - 1 <= value <= INT64_MAX


def check_non_negative(measure_name: str, name: str, value: Any) -> float:
    """Returns ``value`` as a float if it is a finite number >= 0, else raises MeasureParamError."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
        raise MeasureParamError(f'{measure_name}: {name} must be a finite number >= 0, got {value!r}')
    return float(value)


def optional_param(measure: irm.Measure, name: str) -> Any:
    """The value of an optional parameter (such as the cutoff), or None when it is not given."""
    value = measure[name]
    return None if value is irm.base._NOT_PROVIDED else value
