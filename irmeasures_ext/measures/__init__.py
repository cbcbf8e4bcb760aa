"""The measures this package declares: each module of this package declares measures with ``base.declare`` (ours)
or ``base.also_compute`` (ir_measures' own that our provider also computes). Importing this package imports every
one of them, so registers our measures in ``ir_measures.measures.registry``; it imports nothing but ir_measures.
Our measures are attributes of this package by their names (``measures.Q``), from :data:`~.base.DECLARED`.
"""
import importlib
import pkgutil

from irmeasures_ext.measures.base import DECLARED, PROVIDER_SPECS, ExtMeasure

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f'{__name__}.{_module.name}')
globals().update(DECLARED)


def __getattr__(name: str) -> ExtMeasure:
    """(Only called for a name that is not declared: the declared ones are attributes, set above.)"""
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')


__all__ = ['DECLARED', 'PROVIDER_SPECS', 'ExtMeasure', *DECLARED]
