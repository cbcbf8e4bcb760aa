"""Prints, as a JSON list, what ``import irmeasures_ext`` changes in ir_measures and in the interpreter
(tests/interop/test_guest.py): every attribute of ir_measures' modules, of their classes and of their other objects
(``DefaultPipeline``, the providers) that is added or replaced (not those of an object added), every dict or
list among them whose items change, the hooks of ``sys`` and the warnings filters. Run with
``IRMEASURES_EXT_NO_AUTOLOAD=1``, so that nothing loads the package before; ``--switched-off`` keeps the
variable set for the import, else it is removed first.
"""
import importlib
import json
import os
import pkgutil
import sys
import types
import warnings

import ir_measures

#: The interpreter's hooks a package could change (the lists by their items).
SYS_HOOKS = ('excepthook', 'displayhook', 'breakpointhook', 'unraisablehook', 'meta_path', 'path_hooks')


def snapshot() -> dict[str, object]:
    """Each name (``module.attribute``, ``module.Class.attribute``, ``module.object.attribute``) with the
    identity of its value; a dict or list (once, under its first name) with its items' identities."""
    names: dict[str, object] = {}
    seen: set[int] = set()

    def record(name: str, value: object) -> None:
        names[name] = id(value)
        if isinstance(value, (dict, list)) and id(value) not in seen:
            seen.add(id(value))
            items = value.items() if isinstance(value, dict) else enumerate(value)
            names[f'{name}[]'] = sorted((str(key), id(item)) for key, item in items)

    for module_name in sorted(name for name in sys.modules if name.split('.')[0] == 'ir_measures'):
        for attribute, value in sorted(vars(sys.modules[module_name]).items()):
            record(f'{module_name}.{attribute}', value)
            if isinstance(value, type) and value.__module__ == module_name:
                for member, inner in vars(value).items():
                    record(f'{module_name}.{attribute}.{member}', inner)
            elif not isinstance(value, (types.ModuleType, types.FunctionType, type)) and hasattr(value, '__dict__'):
                for member, inner in vars(value).items():
                    record(f'{module_name}.{attribute}.{member}', inner)
    for hook in SYS_HOOKS:
        value = getattr(sys, hook)
        names[f'sys.{hook}'] = [id(item) for item in value] if isinstance(value, list) else id(value)
    names['sys.gettrace()'], names['sys.getprofile()'] = id(sys.gettrace()), id(sys.getprofile())
    names['warnings.filters'] = [id(item) for item in warnings.filters]
    return names


def main() -> None:
    for info in pkgutil.walk_packages(ir_measures.__path__, 'ir_measures.'):
        importlib.import_module(info.name)
    assert 'irmeasures_ext' not in sys.modules
    before = snapshot()
    if '--switched-off' not in sys.argv:
        del os.environ['IRMEASURES_EXT_NO_AUTOLOAD']
    import irmeasures_ext  # noqa: F401
    after = snapshot()
    added = [name for name in after if name not in before]
    changed = {name.removesuffix('[]') for name in after if before.get(name) != after[name]}
    print(json.dumps(sorted(name for name in changed if not any(name.startswith(f'{new}.') for new in added))))


if __name__ == '__main__':
    main()
