"""The kernels: one function per measure family computing its value for every query of a ranked run.

Importing this package imports every kernel module of it, whose ``@kernel(NAME)`` functions fill :data:`KERNELS`
(a test checks that every declared measure has a kernel).
"""
import importlib
import pkgutil

from irmeasures_ext.engine.kernels.common import KERNELS, Kernel, kernel_of

for _module in pkgutil.iter_modules(__path__):
    importlib.import_module(f'{__name__}.{_module.name}')

__all__ = ['KERNELS', 'Kernel', 'kernel_of']
