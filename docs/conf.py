"""Sphinx configuration of the irmeasures_ext documentation site (docs/).

Why Sphinx + MyST-Parser + furo: the package's docstrings are reStructuredText with Sphinx roles
(:func:, :class:, :mod:, relative ``~.`` targets) that autodoc renders and resolves, and PyTerrier's documentation
is Sphinx too; MyST-Parser lets the pages be Markdown, like the README they come from; furo is a clean, searchable
theme. ``python -m sphinx -W --keep-going -n`` makes every warning (a broken cross-reference, a page missing from
the toctree, a bad link target) an error, which is how CI builds the site (.ci/run) and how tests/install/test_docs.py
checks it.

The measure catalogue, the dataset table and the command-line reference are generated from the code at build time
by the local extension docs/_ext/irmeasures_ext_docs.py (directives ``measure-catalogue``, ``dataset-table``,
``command-reference``), so they cannot drift from it. Build: see the README (``python -m sphinx ... docs
docs/_build/html``). No network is needed (no intersphinx).
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / '_ext'))

import irmeasures_ext  # noqa: E402  (the installed package: its version, and the code the pages are generated from)

project = 'irmeasures_ext'
author = 'irmeasures_ext contributors'
copyright = 'irmeasures_ext contributors'  # noqa: A001
release = version = irmeasures_ext.__version__

extensions = [
    'myst_parser',
    'sphinx.ext.autodoc',
    'irmeasures_ext_docs',
]

source_suffix = {'.md': 'markdown'}
root_doc = 'index'
exclude_patterns = ['_build', '_ext', 'Thumbs.db', '.DS_Store']

# MyST: ``$...$`` maths is not used (measure formulas are plain text); heading anchors for #links between pages.
myst_enable_extensions = ['colon_fence', 'deflist']
myst_heading_anchors = 3

# Curly quotes, but ``--`` stays two hyphens (command-line options in plain text, e.g. --ties).
smartquotes_action = 'qe'

html_theme = 'furo'
html_title = f'irmeasures_ext {release}'
html_static_path: list[str] = []

# autodoc: the public API (docs/api-reference.md). Signatures keep the annotations as written; the types are
# our own classes (resolved) or third-party ones, which cannot be linked without intersphinx (no network in CI).
autodoc_member_order = 'bysource'
autodoc_typehints = 'signature'
autodoc_default_options = {'show-inheritance': True}

# Nitpicky (-n): every cross-reference must resolve. What cannot, narrowly: third-party names (no intersphinx
# inventories without network) and the aliases that only exist under TYPE_CHECKING (readers.forms).
nitpicky = True
_THIRD_PARTY = r'(pd|pandas|np|numpy|npt|pa|pyarrow|dd|dask|ir_measures|ir_datasets|irm|scipy|matplotlib)(\..+)?'
nitpick_ignore_regex = [
    (r'py:.*', _THIRD_PARTY),
    (r'py:.*', r'(Measure|Metric|ArrayLike|DataFrame|Series|Table|Figure|Axes|Path|Input)'),
    # TYPE_CHECKING-only type aliases of irmeasures_ext.readers.forms and the modules' own aliases:
    # The standard library (no intersphinx inventory without network either):
    (r'py:.*', r'(collections\.abc|pathlib|typing|os|io|argparse)\..+'),
    # TYPE_CHECKING-only type aliases (irmeasures_ext.readers.forms, readers.source) and the modules' type variables:
    (r'py:.*', r'(irmeasures_ext\.readers\.(forms|source)\.)?(QrelsLike|RunLike|RunsLike|ProbabilitiesLike|'
               r'JudgementsLike|Source)'),
    (r'py:class', r'(irmeasures_ext\.[\w.]+\.)?(T|DeclaredMeasure|DaskRunLike)'),
    # References from the public docstrings into the internal modules, which the API reference does not document:
    (r'py:.*', r'irmeasures_ext\.(engine|readers|interop|autoload|per_intent|cli|_arrow|frames|evaluation|reports|'
               r'names|comparison\.(holes|table|stats|report|output|plot)|fusion\.(pool|training|pyterrier|stream))(\..+)?'),
]
