"""Exceptions raised for bad input. All are ``ValueError`` subclasses."""


class IrMeasuresExtError(ValueError):
    """Base class of every error this package raises for bad user input."""


class MeasureParamError(IrMeasuresExtError):
    """A measure was given a parameter it does not accept, or an invalid value."""


class InputError(IrMeasuresExtError):
    """A run or qrels is malformed (duplicate documents, conflicting labels, NaN scores, ...)."""
