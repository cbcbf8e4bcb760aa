"""The kernels: one function per measure family computing its value for every query of a ranked run.

Found by module like the declarations: importing this package imports every module in it,
whose ``@kernel(NAME)`` functions fill :data:`KERNELS`.
"""
import importlib
import os

from irmeasures_ext.engine.kernels.common import KERNELS, Kernel, kernel_of

for _entry in sorted(os.scandir(os.path.dirname(__file__)), key=lambda entry: entry.name):
    if _entry.name.endswith('.py') and _entry.name not in ('__init__.py', 'common.py'):
        importlib.import_module(f'{__name__}.{_entry.name[:-3]}')
del _entry

__all__ = ['KERNELS', 'Kernel', 'kernel_of']
