"""Loads irmeasures_ext as soon as ``ir_measures`` or ``ir_datasets`` has been imported.

ir_measures has no plugin mechanism, so installing the package puts two files at the root of
site-packages (see ``setup.py``): a copy of this module named ``_irmeasures_ext_autoload``
(so that it loads without running ``irmeasures_ext/__init__``, which imports ir_measures)
and ``irmeasures_ext-autoload.pth``, whose one line Python runs at start-up:
``import _irmeasures_ext_autoload; _irmeasures_ext_autoload.install()``.

:func:`install` puts an :class:`AutoloadFinder` at the front of ``sys.meta_path``. The finder
finds nothing itself: when ``ir_measures`` or ``ir_datasets`` is imported, it wraps the real
loader so that, once the module has run, the finder removes itself and imports
``irmeasures_ext`` (which registers the measures and the provider, and its datasets once
ir_datasets is imported). Start-up
cost: this module needs only ``os`` and ``sys``, which ``site`` has already loaded.

Set the environment variable ``IRMEASURES_EXT_NO_AUTOLOAD`` to ``1`` (or ``true``, ``yes``, ``on``;
any case) to turn the hook off; any other value (``0``, ``false``, empty) leaves it on. Set when the
package is imported, it also keeps the package from wrapping ir_measures' converters and providers and
from installing its ``sys.excepthook``: an explicit import then makes the registrations only
(``irmeasures_ext.guest``).

This module imports nothing of irmeasures_ext (the package is loaded by name, :data:`PACKAGE`), so
the package can use :func:`call_after_import` without an import circle.

The same finder class also serves :func:`call_after_import`, with which irmeasures_ext registers
its datasets once ir_datasets is imported, so that evaluating alone does not import ir_datasets.
"""
import os
import sys

# Only os and sys: neither __future__ nor typing is loaded at start-up, so annotations are quoted.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from importlib.abc import Loader
    from importlib.machinery import ModuleSpec
    from types import ModuleType

#: The package the hook loads.
PACKAGE = 'irmeasures_ext'
#: Top-level modules whose import loads it.
TRIGGERS = frozenset({'ir_measures', 'ir_datasets'})
DISABLE_VARIABLE = 'IRMEASURES_EXT_NO_AUTOLOAD'
#: Values of DISABLE_VARIABLE that turn the hook off (compared in lower case).
DISABLE_VALUES = frozenset({'1', 'true', 'yes', 'on'})


class AutoloadFinder:
    """A ``sys.meta_path`` finder that runs ``action`` once one of the ``triggers`` modules is imported.

    ``what`` says what the action does, for the warning if it fails (it never raises);
    ``autoload`` marks the finder that loads irmeasures_ext (at most one is installed).
    """

    def __init__(self, triggers: 'frozenset[str]', action: 'Callable[[], None]', what: str, autoload: bool) -> None:
        self.triggers, self.action, self.what = triggers, action, what
        #: Lets :func:`install` recognise the autoload finder of another copy of this module.
        self.IRMEASURES_EXT_AUTOLOAD = autoload

    def find_spec(self, fullname: str, path: 'Sequence[str] | None' = None,
                  target: 'ModuleType | None' = None) -> 'ModuleSpec | None':
        """The real spec of a trigger module with its loader wrapped; ``None`` for every other module."""
        if fullname not in self.triggers:
            return None
        for finder in sys.meta_path:
            if hasattr(finder, 'IRMEASURES_EXT_AUTOLOAD') or not hasattr(finder, 'find_spec'):
                continue  # (never ask a finder of ours: two would ask each other forever)
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, 'exec_module'):
                    spec.loader = _ActAfter(spec.loader, self)
                return spec
        return None


if TYPE_CHECKING:
    _LoaderBase = Loader
else:  # (importlib.abc is not loaded at start-up)
    _LoaderBase = object


class _ActAfter(_LoaderBase):
    """Delegates to the real loader; after ``exec_module`` it restores it, removes the finder and acts."""

    def __init__(self, loader: 'Loader', finder: AutoloadFinder) -> None:
        self.loader, self.finder = loader, finder

    def __getattr__(self, name: str) -> object:
        return getattr(self.loader, name)

    def create_module(self, spec: 'ModuleSpec') -> 'ModuleType | None':
        return self.loader.create_module(spec)

    def exec_module(self, module: 'ModuleType') -> None:
        self.loader.exec_module(module)
        module.__loader__ = self.loader
        if module.__spec__ is not None:
            module.__spec__.loader = self.loader
        if self.finder.IRMEASURES_EXT_AUTOLOAD:
            uninstall()
        elif self.finder in sys.meta_path:
            sys.meta_path.remove(self.finder)
        try:
            self.finder.action()
        except Exception as error:  # a broken extension must not break ir_measures or ir_datasets
            import warnings
            warnings.warn(f'irmeasures_ext: {self.finder.what} after importing {module.__name__} failed: {error!r} '
                          f'(set {DISABLE_VARIABLE}=1 to turn the autoload hook off)', RuntimeWarning, stacklevel=2)


def _import_extension() -> None:
    __import__(PACKAGE)  # registers everything on import


def disabled() -> bool:
    """Whether the environment turns the hook off, and the package's wrappers of ir_measures (see the module
    docstring)."""
    return os.environ.get(DISABLE_VARIABLE, '').strip().lower() in DISABLE_VALUES


def install() -> None:
    """Puts the autoload :class:`AutoloadFinder` at the front of ``sys.meta_path`` (once; never if disabled)."""
    if disabled() or any(_is_autoload_finder(f) for f in sys.meta_path):
        return
    sys.meta_path.insert(0, AutoloadFinder(TRIGGERS, _import_extension, 'loading irmeasures_ext', autoload=True))


def call_after_import(module_name: str, action: 'Callable[[], None]', what: str) -> None:
    """Calls ``action`` (which does ``what``) once the top-level module ``module_name`` is imported,
    at once if it is; if it fails then, the import still succeeds, with a warning."""
    if module_name in sys.modules:
        action()
    elif not any(getattr(f, 'triggers', None) == {module_name} and getattr(f, 'action', None) is action
                 for f in sys.meta_path):
        sys.meta_path.insert(0, AutoloadFinder(frozenset({module_name}), action, what, autoload=False))


def uninstall() -> None:
    """Removes every autoload finder from ``sys.meta_path``."""
    sys.meta_path[:] = [f for f in sys.meta_path if not _is_autoload_finder(f)]


def _is_autoload_finder(finder: object) -> bool:
    return getattr(finder, 'IRMEASURES_EXT_AUTOLOAD', False)
