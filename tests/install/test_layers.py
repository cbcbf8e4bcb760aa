"""The package's layers import only downward (docs/development.md: the layout table)."""
import ast
import pathlib

import pytest

import irmeasures_ext

PACKAGE = pathlib.Path(irmeasures_ext.__file__).parent

#: Each layer (a package or module of ours) and the layers of ours it may import at run time (besides itself and
#: ``errors``), as the layout table of docs/development.md: from the declarations up to the command line, which may
#: import any.
ALLOWED = {
    'errors': set(),
    'measures': set(),
    '_arrow': set(),
    'files': set(),
    'autoload': set(),
    'datasets': set(),
    'sample': set(),
    'suites': {'measures'},
    'names': {'measures'},
    'readers': {'_arrow'},
    'engine': {'measures', '_arrow', 'readers'},
    'reports': {'engine', 'readers', 'measures', '_arrow'},
    'plugin': {'measures', 'names', 'engine', 'datasets'},
    'interop': {'engine', 'readers'},
    'guest': {'autoload', 'interop', 'plugin', 'readers'},
    'evaluation': {'engine', 'plugin', 'measures', 'readers', '_arrow'},
    'frames': {'evaluation', 'plugin', 'readers'},
    'per_intent': {'engine', 'evaluation', 'plugin', 'measures', 'readers'},
    'reproduce': {'comparison', 'engine', 'evaluation', 'plugin', 'readers'},
    'comparison': {'engine', 'evaluation', 'files', 'plugin', 'measures', 'readers', '_arrow'},
    'dask': {'engine', 'frames', 'plugin', 'readers'},
    'judges': {'comparison', 'engine', 'evaluation', 'interop', 'plugin', 'measures', 'readers', '_arrow'},
    'ir_metadata': {'engine', 'files', 'readers'},
    'fusion': {'comparison', 'engine', 'evaluation', 'ir_metadata', 'measures', 'plugin', 'readers', '_arrow'},
}
ALLOWED['cli'] = set(ALLOWED)
#: The package's face (its ``__init__``: what ``import irmeasures_ext`` gives) and ``python -m``: not layers.
FACES = {'__init__', '__main__'}


def imported_layers(layer: str) -> set[str]:
    """The top-level modules of ours that the modules of ``layer`` import at run time (imports under
    ``if TYPE_CHECKING:`` only name types for the type checker, so they are not counted)."""
    found = set()
    paths = (PACKAGE / layer).rglob('*.py') if (PACKAGE / layer).is_dir() else [PACKAGE / f'{layer}.py']
    for path in paths:
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


def test_every_module_of_the_package_is_in_a_layer_and_the_layers_have_no_circle():
    tops = {path.name.removesuffix('.py') for path in PACKAGE.iterdir()
            if path.suffix == '.py' or (path / '__init__.py').is_file()}
    assert tops - FACES == set(ALLOWED)
    assert modules_on_circles(ALLOWED) == set()


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


def module_imports() -> dict[str, set[str]]:
    """Each module of the package (dotted name) and the modules of ours it imports, however: at import time,
    inside a function (a lazy import) or for the type checker alike."""
    modules = {'.'.join(('irmeasures_ext', *path.relative_to(PACKAGE).with_suffix('').parts))
               .removesuffix('.__init__'): path for path in PACKAGE.rglob('*.py')}
    graph = {}
    for name, path in modules.items():
        imported = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported |= {alias.name for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                assert not node.level, f'{path}: the package imports by absolute names only'
                base = node.module or ''
                imported |= {f'{base}.{alias.name}' if f'{base}.{alias.name}' in modules else base
                             for alias in node.names}
        graph[name] = {module for module in imported if module in modules} - {name}
    return graph


def modules_on_circles(graph: dict[str, set[str]]) -> set[str]:
    """The modules of ``graph`` (module -> the modules it imports) that import themselves through others."""
    def reachable(start: str) -> set[str]:
        seen, stack = set(), [*graph[start]]
        while stack:
            module = stack.pop()
            if module not in seen:
                seen.add(module)
                stack.extend(graph.get(module, ()))
        return seen
    return {module for module in graph if module in reachable(module)}


def test_modules_on_circles_finds_each_circle_and_only_them():
    graph = {'a': {'b'}, 'b': {'c'}, 'c': {'a'}, 'd': {'a', 'e'}, 'e': set(), 'f': {'f2'}, 'f2': {'f'}}
    assert modules_on_circles(graph) == {'a', 'b', 'c', 'f', 'f2'}
    assert modules_on_circles({'a': {'b'}, 'b': set()}) == set()


def test_no_module_imports_itself_through_others():
    """No circle in the package: counting the imports inside functions and those for the type checker, a module
    never reaches itself (each is read, and can be understood, after the modules it uses)."""
    graph = module_imports()
    assert 'irmeasures_ext.engine.plan' in graph['irmeasures_ext.engine.pieces']  # (the graph sees imports,
    assert 'irmeasures_ext.readers.forms' in graph['irmeasures_ext.comparison']  # those for the type checker too)
    assert modules_on_circles(graph) == set()
