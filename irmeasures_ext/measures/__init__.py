"""The measures this package declares, found by module: every module of this package but ``base``
declares measures with ``base.declare`` (ours) or ``base.also_compute`` (ir_measures' own that our
provider also computes). Importing this package imports them all and registers our measures in
``ir_measures.measures.registry``; it imports nothing but ir_measures.

Each declared measure is an attribute of this package under its NAME (``measures.Q``).
"""
import importlib
import os

from irmeasures_ext.measures.base import PROVIDER_SPECS, ExtMeasure

for _entry in sorted(os.scandir(os.path.dirname(__file__)), key=lambda entry: entry.name):
    if _entry.name.endswith('.py') and _entry.name not in ('__init__.py', 'base.py'):
        importlib.import_module(f'{__name__}.{_entry.name[:-3]}')

#: Our own measures by NAME (ir_measures' registry holds them under the same names).
DECLARED: dict[str, ExtMeasure] = {spec.NAME: spec for spec in PROVIDER_SPECS if isinstance(spec, ExtMeasure)}
globals().update(DECLARED)

__all__ = ['DECLARED', 'PROVIDER_SPECS', 'ExtMeasure', *DECLARED]
del _entry
