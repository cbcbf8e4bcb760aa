"""Loads irmeasures_ext as soon as ``ir_measures`` or ``ir_datasets`` has been imported.

ir_measures has no plugin mechanism, so installing the package puts two files at the root of
site-packages (see ``setup.py``): a copy of this module named ``_irmeasures_ext_autoload``
(so that it loads without running ``irmeasures_ext/__init__``, which imports ir_measures)
and ``irmeasures_ext-autoload.pth``, whose one line Python runs at start-up:
``import _irmeasures_ext_autoload; _irmeasures_ext_autoload.install()``.

:func:`install` puts an :class:`AutoloadFinder` at the front of ``sys.meta_path``. The finder
finds nothing itself: when ``ir_measures`` or ``ir_datasets`` is imported, it wraps the real
loader so that, once the module has run, the finder removes itself and imports
``irmeasures_ext`` (which registers the measures, the provider and the datasets). Start-up
cost: this module needs only ``os`` and ``sys``, which ``site`` has already loaded.

Set the environment variable ``IRMEASURES_EXT_NO_AUTOLOAD=1`` to turn the hook off.
"""
import os
import sys

# Only os and sys: neither __future__ nor typing is loaded at start-up, so annotations are quoted.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from importlib.abc import Loader
    from importlib.machinery import ModuleSpec
    from types import ModuleType

#: Top-level modules whose import loads irmeasures_ext.
TRIGGERS = frozenset({'ir_measures', 'ir_datasets'})
DISABLE_VARIABLE = 'IRMEASURES_EXT_NO_AUTOLOAD'


class AutoloadFinder:
    """A ``sys.meta_path`` finder that makes the trigger modules load irmeasures_ext when they finish."""

    #: Lets :func:`install` recognise a finder from another copy of this module.
    IRMEASURES_EXT_AUTOLOAD = True

    def find_spec(self, fullname: str, path: object = None,
                  target: 'ModuleType | None' = None) -> 'ModuleSpec | None':
        """The real spec of a trigger module with its loader wrapped; ``None`` for every other module."""
        if fullname not in TRIGGERS:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, 'find_spec'):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if hasattr(spec.loader, 'exec_module'):
                    spec.loader = _LoadExtensionAfter(spec.loader)
                return spec
        return None


class _LoadExtensionAfter:
    """Delegates to the real loader; after ``exec_module`` it restores it and loads irmeasures_ext."""

    def __init__(self, loader: 'Loader') -> None:
        self.loader = loader

    def __getattr__(self, name: str) -> object:
        return getattr(self.loader, name)

    def create_module(self, spec: 'ModuleSpec') -> 'ModuleType | None':
        return self.loader.create_module(spec)

    def exec_module(self, module: 'ModuleType') -> None:
        self.loader.exec_module(module)
        module.__loader__ = module.__spec__.loader = self.loader
        uninstall()
        _import_extension()


def _import_extension() -> None:
    """Imports irmeasures_ext, warning (never raising) if that fails."""
    try:
        import irmeasures_ext  # noqa: F401  (registers everything on import)
    except Exception as error:  # a broken extension must not break ir_measures itself
        import warnings
        warnings.warn(f'irmeasures_ext could not be loaded automatically: {error!r} '
                      f'(set {DISABLE_VARIABLE}=1 to turn the autoload hook off)', RuntimeWarning,
                      stacklevel=2)


def install() -> None:
    """Puts an :class:`AutoloadFinder` at the front of ``sys.meta_path`` (once; never if disabled)."""
    if os.environ.get(DISABLE_VARIABLE) or any(_is_autoload_finder(f) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, AutoloadFinder())


def uninstall() -> None:
    """Removes every autoload finder from ``sys.meta_path``."""
    sys.meta_path[:] = [f for f in sys.meta_path if not _is_autoload_finder(f)]


def _is_autoload_finder(finder: object) -> bool:
    return getattr(finder, 'IRMEASURES_EXT_AUTOLOAD', False)
