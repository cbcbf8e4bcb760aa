"""Build hook that installs the autoload hook next to the package (all metadata is in setup.cfg).

ir_measures has no plugin mechanism; see ``irmeasures_ext/autoload.py``. ``build_py`` puts two
files at the root of the wheel, i.e. into site-packages: ``irmeasures_ext-autoload.pth`` and
``_irmeasures_ext_autoload.py``, a copy of ``irmeasures_ext/autoload.py`` that the ``.pth``
line imports without importing the package. For editable installs (PEP 660) setuptools ignores
``build_lib`` and wheels up ``install_lib`` instead, so the files go there.
"""
import os
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

AUTOLOAD_SOURCE = os.path.join('irmeasures_ext', 'autoload.py')
AUTOLOAD_MODULE = '_irmeasures_ext_autoload'
PTH_NAME = 'irmeasures_ext-autoload.pth'
PTH_LINE = f'import {AUTOLOAD_MODULE}; {AUTOLOAD_MODULE}.install()\n'


class BuildPyWithAutoload(build_py):
    """``build_py`` that also writes the autoload module and ``.pth`` file at the wheel root."""

    def run(self) -> None:
        super().run()
        root = self.get_finalized_command('install').install_lib if self.editable_mode else self.build_lib
        self.mkpath(root)
        self.copy_file(AUTOLOAD_SOURCE, os.path.join(root, AUTOLOAD_MODULE + '.py'))
        Path(root, PTH_NAME).write_text(PTH_LINE, encoding='utf-8')


setup(cmdclass={'build_py': BuildPyWithAutoload})
