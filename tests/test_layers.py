"""The package's layers import only downward (README, "Development": the layout table)."""
import ast
import pathlib

import pytest

import irmeasures_ext

PACKAGE = pathlib.Path(irmeasures_ext.__file__).parent

#: Each layer and the layers of ours it may import (besides itself and ``errors``), as the README's table.
ALLOWED = {
    'measures': set(),
    '_arrow': set(),
    'readers': {'_arrow'},
    'engine': {'measures', '_arrow', 'readers'},
    'reports': {'engine', 'readers', 'measures', '_arrow'},
    'comparison': {'engine', 'plugin', 'measures', 'readers', '_arrow'},
    'datasets': set(),
}


def imported_layers(layer: str) -> set[str]:
    """The top-level modules of ours that the modules of ``layer`` import at run time (imports under
    ``if TYPE_CHECKING:`` only name types for the type checker, so they are not counted)."""
    found = set()
    for path in (PACKAGE / layer).rglob('*.py'):
        for node in _run_time_nodes(ast.parse(path.read_text())):
            names = [node.module or ''] if isinstance(node, ast.ImportFrom) and not node.level else (
                [alias.name for alias in node.names] if isinstance(node, ast.Import) else [])
            found |= {name.split('.')[1] for name in names if name.startswith('irmeasures_ext.')}
    return found - {layer, 'errors'}


def _run_time_nodes(node: ast.AST):
    yield node
    for child in ast.iter_child_nodes(node):
        if not (isinstance(child, ast.If) and isinstance(child.test, ast.Name) and child.test.id == 'TYPE_CHECKING'):
            yield from _run_time_nodes(child)


@pytest.mark.parametrize('layer', sorted(ALLOWED))
def test_a_layer_imports_only_the_layers_below_it(layer):
    assert imported_layers(layer) <= ALLOWED[layer]


def test_the_readers_never_import_the_engine():
    assert 'engine' not in imported_layers('readers') and 'readers' in imported_layers('engine')
