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
    'comparison': {'engine', 'evaluation', 'plugin', 'measures', 'readers', '_arrow'},
    'judges': {'comparison', 'engine', 'evaluation', 'interop', 'plugin', 'measures', 'readers', '_arrow'},
    'names': {'measures'},
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


#: The modules of the readers that read one format each (FORMATS' modules): only the readers name them.
FORMAT_MODULES = {'irmeasures_ext.readers.trec', 'irmeasures_ext.readers.columnar'}


def test_the_engine_never_names_a_format():
    """The engine reads runs and qrels through the Source boundary (readers/source.py, readers/pieces.py): no
    module of the engine, reports or comparison imports a format's reader or names its classes."""
    from irmeasures_ext.readers import FORMATS
    assert {file_format.module for file_format in FORMATS.values()} == FORMAT_MODULES
    for layer in ('engine', 'reports', 'comparison'):
        for path in (PACKAGE / layer).rglob('*.py'):
            text = path.read_text()
            tree = ast.parse(text)
            imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)} | {
                alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
            assert not imported & FORMAT_MODULES, path
            assert not {'TrecSource', 'ColumnarSource'} & {node.id for node in ast.walk(tree)
                                                          if isinstance(node, ast.Name)}, path
            assert not any(isinstance(node, ast.ImportFrom) and node.module == 'irmeasures_ext.readers'
                           and {'trec', 'columnar'} & {alias.name for alias in node.names}
                           for node in ast.walk(tree)), path


def test_the_stream_reads_and_knows_nothing_of_the_evaluator():
    """The evaluator evaluates a streamed run's pieces through its own partial/merge/finished, as Dask does: the
    stream module hands it tables of whole queries and imports no evaluator, not even for types."""
    tree = ast.parse((PACKAGE / 'engine' / 'stream.py').read_text())
    modules = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert 'irmeasures_ext.engine.evaluator' not in modules and not any('evaluator' in (m or '') for m in modules)
    dask_source = (PACKAGE / 'dask.py').read_text()
    assert '.partial(' in dask_source and '.finished(' in dask_source and 'kernel_values' not in dask_source
