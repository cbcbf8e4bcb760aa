"""Sphinx extension of the irmeasures_ext documentation: pages generated from the code at build time.

Directives (usable from MyST Markdown pages as ```` ```{measure-catalogue} ```` and from reST):

- ``measure-catalogue``: every measure the ``irmeasures_ext`` provider answers (``irmeasures_ext.measures``:
  ``DECLARED``, ``PROVIDER_SPECS``), grouped by the declaration module (its family), each with its parameters
  (``SUPPORTED_PARAMS``), its class docstring (definition and references), the names trec_eval and NTCIREVAL give it
  (from the command line's name tables), the other ir_measures providers that answer it, and the tie policies and
  options its kernel accepts (``irmeasures_ext.engine.kernels``);
- ``dataset-table``: the ir_datasets ids this package registers (``irmeasures_ext.datasets.registry.MODULES``), their
  contents, the counts known without the files (``metadata.json``), and each collection's citation and licence;
- ``command-reference``: the ``irmeasures-ext`` command and each subcommand, from their argparse parsers.

Also: the object types ``measure``, ``dataset`` (so the search and the ``{measure}`` / ``{dataset}`` roles find
them: ``` {measure}`nDCG_Z1` ```), and the ``cite`` / ``cite.dblp`` directives that the measures' docstrings use
(ours and ir_measures').

Each directive writes reStructuredText and parses it (docstrings are reST), in a page of either parser.
"""
from __future__ import annotations

import argparse
import ast
import importlib
import inspect
import pkgutil
import re
from collections.abc import Callable, Iterable
from typing import Any

from docutils import nodes
from docutils.parsers.rst import Directive, directives
from docutils.parsers.rst.states import RSTState
from docutils.statemachine import StringList
from docutils.utils import new_document
from sphinx.application import Sphinx
from sphinx.transforms import SphinxTransform
from sphinx.util.docutils import SphinxDirective
from sphinx.util.nodes import nested_parse_with_titles

# ---------------------------------------------------------------------------------------------------------------
# Parsing generated reST


def parse_rst(directive: SphinxDirective, text: str) -> list[nodes.Node]:
    """The nodes of reST ``text`` (titles allowed), parsed where ``directive`` stands: with docutils' state in a reST
    page, in a document of its own sharing the page's settings and reporter in a MyST page (whose nested parse reads
    Markdown), as MyST's own ``eval-rst`` does."""
    lines = StringList(text.splitlines(), source=f'<{directive.name} directive>')
    if isinstance(directive.state, RSTState):
        holder = nodes.section()
        holder.document = directive.state.document
        nested_parse_with_titles(directive.state, lines, holder)
        return list(holder.children)
    from docutils.parsers.rst import Parser
    document = directive.state.document
    part = new_document(document['source'], document.settings)
    part.reporter = document.reporter
    Parser().parse(text, part)
    for node in part.children:
        if isinstance(node, nodes.Element) and node['names']:
            document.note_explicit_target(node, node)
    return list(part.children)


def escape(text: str) -> str:
    """``text`` as literal reST text (no inline markup)."""
    return re.sub(r'([\\*`|_\[\]<>])', r'\\\1', ' '.join(str(text).split()))


def literal(text: Any) -> str:
    """``text`` as an inline literal (reST ````...````, which takes any character but a closing ````)."""
    shown = ' '.join(str(text).split())
    return f'``{shown}``' if shown else ''


def indented(text: str, prefix: str = '   ') -> str:
    return '\n'.join(prefix + line if line.strip() else '' for line in text.splitlines())


def first_sentence(docstring: str) -> str:
    """The first sentence of a docstring's first paragraph, without its full stop."""
    paragraph = ' '.join(inspect.cleandoc(docstring).split('\n\n')[0].split())
    match = re.match(r'(.+?[.:])(\s|$)', paragraph)
    return (match.group(1) if match else paragraph).rstrip('.:')


# ---------------------------------------------------------------------------------------------------------------
# Citations in docstrings


class Cite(Directive):
    """``.. cite:: Author. Title. Venue (year).`` (the measures' docstrings): a reference paragraph."""

    has_content = True
    optional_arguments = 1
    final_argument_whitespace = True

    def run(self) -> list[nodes.Node]:
        text = ' '.join([*self.arguments, *self.content]).strip()
        inline, messages = self.state.inline_text(text, self.lineno)
        return [nodes.paragraph('', '', nodes.strong(text='Reference: '), *inline, classes=['cite']), *messages]


class CiteDblp(Directive):
    """``.. cite.dblp:: journals/ipm/Harman92`` (ir_measures' docstrings): a link to the DBLP record."""

    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        key = self.arguments[0].strip()
        link = nodes.reference(f'dblp:{key}', f'dblp:{key}', refuri=f'https://dblp.org/rec/{key}')
        return [nodes.paragraph('', '', nodes.strong(text='Reference: '), link, classes=['cite'])]


# ---------------------------------------------------------------------------------------------------------------
# The measure catalogue


def _declaration_modules() -> list[Any]:
    import irmeasures_ext.measures as package
    return [importlib.import_module(f'{package.__name__}.{info.name}')
            for info in pkgutil.iter_modules(package.__path__)]


def _spec_key(spec: Any) -> tuple[str, str]:
    """A provider spec's identity: its name and the repr of its parameter constraints (``ANY``, ``'log2'`` ...)."""
    return spec.NAME, repr(sorted(spec.params.items()))


def _specs_by_module() -> dict[tuple[str, str], Any]:
    """The module declaring each provider spec of ir_measures' measures (``also_compute(irm._X(...))``), found by
    evaluating, in each declaration module, every ``irm._X(...)`` call of its source."""
    found: dict[tuple[str, str], Any] = {}
    for module in _declaration_modules():
        tree = ast.parse(inspect.getsource(module))
        for node in ast.walk(tree):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == 'irm'
                    and node.func.attr.startswith('_')):
                spec = eval(compile(ast.Expression(node), module.__file__, 'eval'), vars(module))  # noqa: S307
                found.setdefault(_spec_key(spec), module)
    return found


class MeasureEntry:
    """One measure of the catalogue: ours (``DECLARED``) or one of ir_measures' with the specs we compute."""

    def __init__(self, name: str, module: Any, measure: Any, specs: list[Any], ours: bool) -> None:
        self.name, self.module, self.measure, self.specs, self.ours = name, module, measure, specs, ours
        self.object_name = name


def catalogue() -> list[tuple[Any, list[MeasureEntry]]]:
    """Every measure the provider answers, grouped by declaration module, in declaration order: the modules declaring
    our measures first, then those of ir_measures' measures."""
    from ir_measures import measures as irm

    from irmeasures_ext.measures import DECLARED, PROVIDER_SPECS
    modules = _specs_by_module()
    groups: dict[str, tuple[Any, dict[str, MeasureEntry]]] = {}
    for spec in PROVIDER_SPECS:
        if spec.NAME in DECLARED:
            measure = DECLARED[spec.NAME]
            module = importlib.import_module(type(measure).__module__)
            ours = True
        else:
            module = modules[_spec_key(spec)]
            measure = irm.registry[spec.NAME]
            ours = False
        entries = groups.setdefault(module.__name__, (module, {}))[1]
        entry = entries.setdefault(spec.NAME, MeasureEntry(spec.NAME, module, measure, [], ours))
        if not ours:
            entry.specs.append(spec)
    result = [(module, list(entries.values())) for module, entries in groups.values()]
    result.sort(key=lambda group: not any(entry.ours for entry in group[1]))  # ours first (a stable sort)
    seen: set[str] = set()
    for module, entries in result:  # a name in two families (nDCG: trec_eval's, gdeval's): the second qualified
        for entry in entries:
            if entry.name in seen:
                entry.object_name = f'{entry.name} ({module.__name__.rsplit(".", 1)[1]})'
            seen.add(entry.name)
    return result


def tool_names() -> dict[str, dict[str, list[str]]]:
    """{measure NAME: {tool: [the tool's names for it]}}, from the command line's tables: trec_eval's names
    (``irmeasures_ext.names.trec_eval.TREC_EVAL_NAMES``) and NTCIREVAL's output names (``irmeasures_ext.cli.ntcireval``:
    ``ROWS``, ``DIVERSITY_BEFORE_CUTOFFS``, ``DIVERSITY_ROWS``)."""
    from irmeasures_ext.cli import ntcireval
    from irmeasures_ext.names.trec_eval import TREC_EVAL_NAMES

    names: dict[str, dict[str, list[str]]] = {}

    def add(measure_name: str, tool: str, name: str) -> None:
        listed = names.setdefault(measure_name, {}).setdefault(tool, [])
        if name not in listed:
            listed.append(name)
    for trec_name, trec in TREC_EVAL_NAMES.items():
        for measure in trec.measures(trec_name, None):
            add(measure.NAME, 'trec_eval', trec_name)
    settings = ntcireval.Settings(gains={1: 1.0, 2: 2.0, 3: 3.0}, max_level=3, beta=1.0, rbup=0.95)  # (any values)
    for ntcir_name, row in ntcireval.ROWS.items():
        add(row.build(settings).NAME, 'NTCIREVAL', ntcir_name)
    for ntcir_name, measure_name, _ in ntcireval.DIVERSITY_BEFORE_CUTOFFS:
        add(measure_name, 'NTCIREVAL', ntcir_name)
    for ntcir_name, measure_name in ntcireval.DIVERSITY_ROWS:
        add(measure_name, 'NTCIREVAL', ntcir_name)
    return names


def other_providers() -> dict[str, list[str]]:
    """{measure NAME: the other ir_measures providers that declare it}."""
    import ir_measures
    found: dict[str, list[str]] = {}
    for provider_name, provider in sorted(ir_measures.providers.registry.items()):
        if provider_name == 'irmeasures_ext':
            continue
        for spec in getattr(provider, 'SUPPORTED_MEASURES', []):
            listed = found.setdefault(spec.NAME, [])
            if provider_name not in listed:
                listed.append(provider_name)
    return found


def _allowed(info: Any) -> str:
    """What the code says of a parameter's allowed values: ir_measures' ``choices``, or our check (``choice_of``,
    ``integer_from``, ``check_boolean``), else its type."""
    from ir_measures.measures.base import _NOT_PROVIDED

    from irmeasures_ext.measures import base
    if getattr(info, 'choices', _NOT_PROVIDED) is not _NOT_PROVIDED:
        return ', '.join(literal(repr(choice)) for choice in info.choices)
    check = getattr(info, 'check', None)
    closure = dict(zip(check.__code__.co_freevars, [cell.cell_contents for cell in check.__closure__ or ()],
                       strict=True)) if check is not None and hasattr(check, '__code__') else {}
    if check is not None and check.__code__ is base.choice_of(()).__code__:
        return ', '.join(literal(repr(choice)) for choice in closure['choices'])
    if check is not None and check.__code__ is base.integer_from(0).__code__:
        return f'an integer ≥ {closure["minimum"]}'
    if check is base.check_boolean:
        return f'{literal("True")}, {literal("False")}'
    dtypes = info.dtype if isinstance(info.dtype, tuple) else (info.dtype,)
    return ' or '.join(literal(dtype.__name__) for dtype in dtypes if dtype is not None)


def _default(info: Any) -> str:
    from ir_measures.measures.base import _NOT_PROVIDED
    if info.required:
        return 'required'
    return '—' if info.default is _NOT_PROVIDED else literal(repr(info.default))


def _constraint(value: Any) -> str:
    """A provider spec's constraint on a parameter, in words."""
    shown = repr(value)
    return {'ANY': 'any', 'REQUIRED': 'required', 'NOT_PROVIDED': 'not given'}.get(shown, f'{shown}')


def _parameter_table(entry: MeasureEntry) -> str:
    params = entry.measure.SUPPORTED_PARAMS
    if not params:
        return '*No parameters.*'
    lines = ['.. list-table:: Parameters', '   :header-rows: 1', '   :widths: 15 15 25 45', '',
             '   * - parameter', '     - default', '     - allowed values', '     - description']
    for name, info in params.items():
        at = ' (``@``)' if name == entry.measure.AT_PARAM else ''
        lines += [f'   * - {literal(name)}{at}', f'     - {_default(info)}', f'     - {_allowed(info) or "—"}',
                  f'     - {escape(info.desc or "")}']
    return '\n'.join(lines)


def _policies(entry: MeasureEntry) -> str:
    """What the measure's kernel says of tie policies, equivalence classes and intents."""
    from irmeasures_ext.engine.kernels.common import KERNELS, VARIANTS
    kernels = []
    if entry.ours:
        kernels.append((None, KERNELS[entry.name]))
    for spec in entry.specs:
        kernel = KERNELS.get(entry.name)
        if entry.name in VARIANTS:
            parameter, by_value = VARIANTS[entry.name]
            choices = getattr(spec.params.get(parameter), 'choices', ())
            if len(choices) == 1 and choices[0] in by_value:
                kernel = by_value[choices[0]]
        kernels.append((spec, kernel))
    unique: dict[int, tuple[Any, Any]] = {}
    for spec, kernel in kernels:
        if kernel is not None:
            unique.setdefault(id(kernel), (spec, kernel))
    lines = []
    for spec, kernel in unique.values():
        policies = ['``trec_eval``', '``rank``']
        if kernel.expected is not None:
            policies.append('``expected``')
        bounds = _bounds(entry, kernel)
        if bounds is True:
            policies += ['``optimistic``', '``pessimistic``']
        elif bounds:
            policies.append(f'``optimistic`` and ``pessimistic`` {bounds}')
        facts = [f'tie policies: {", ".join(policies)}',
                 f'equivalence classes (``classes=True``): {"yes" if kernel.takes_classes else "no"}']
        if kernel.needs_intents:
            facts.append('reads the intent of each judgment (diversity qrels)')
        if kernel.may_be_nan:
            facts.append('may be NaN by definition')
        which = '' if spec is None or len(unique) == 1 else f' ({_spec_text(spec)})'
        lines.append(f'* Kernel{which}: ' + '; '.join(facts) + '.')
    return '\n'.join(lines)


def _bounds(entry: MeasureEntry, kernel: Any) -> bool | str:
    """Whether ``optimistic``/``pessimistic`` order the tied docs to the measure's best/worst: True, False, or the
    parameter values with which they do (``bounded_by_credit`` tried on the measure with each choice of a parameter
    of choices)."""
    if kernel.bounded_by_credit is None:
        return True
    measure = entry.measure
    try:
        default = bool(kernel.bounded_by_credit(measure))
    except Exception:  # (a bound that reads a parameter the prototype lacks)
        default = None
    with_values = []
    for name, info in measure.SUPPORTED_PARAMS.items():
        if name in ('ties', 'score_precision'):
            continue
        choices = _choices(info)
        for choice in choices:
            try:
                if kernel.bounded_by_credit(measure(**{name: choice})) and choice != info.default:
                    with_values.append(f'``{name}={choice!r}``')
            except Exception:
                continue
    if with_values:
        return 'with ' + ' or '.join(with_values)
    return bool(default)


def _choices(info: Any) -> tuple[Any, ...]:
    from ir_measures.measures.base import _NOT_PROVIDED

    from irmeasures_ext.measures import base
    if getattr(info, 'choices', _NOT_PROVIDED) is not _NOT_PROVIDED:
        return tuple(info.choices)
    check = getattr(info, 'check', None)
    if check is not None and getattr(check, '__code__', None) is base.choice_of(()).__code__:
        return dict(zip(check.__code__.co_freevars, [c.cell_contents for c in check.__closure__], strict=True))[
            'choices']
    return ()


def _spec_text(spec: Any) -> str:
    if not spec.params:
        return 'no parameters'
    return ', '.join(f'{literal(name)} {_constraint(value)}' for name, value in spec.params.items())


def measure_rst(entry: MeasureEntry, tools: dict[str, dict[str, list[str]]], providers: dict[str, list[str]]) -> str:
    measure = entry.measure
    parts = [f'.. measure:: {entry.object_name}', '']
    body = []
    summary = f'**{escape(measure.PRETTY_NAME)}**' if getattr(measure, 'PRETTY_NAME', None) else ''
    if getattr(measure, 'SHORT_DESC', None):
        summary += f' — {escape(measure.SHORT_DESC)}'
    if summary:
        body.append(summary)
    if getattr(measure, 'LOWER_IS_BETTER', False):
        body.append('*Lower is better.*')
    declared = (f'Ours: declared in ``{entry.module.__name__}`` (``irmeasures_ext.{entry.name}``).' if entry.ours
                else f"ir_measures' ``{type(measure).__module__}.{type(measure).__name__}``, which our provider "
                     'computes with these parameters: ' + '; '.join(_spec_text(spec) for spec in entry.specs) + '.')
    body.append(declared)
    body.append(inspect.cleandoc(type(measure).__doc__ or ''))
    body.append(_parameter_table(entry))
    facts = []
    for tool, names in tools.get(entry.name, {}).items() if entry.object_name == entry.name else ():
        facts.append(f'* {tool} name{"s" if len(names) > 1 else ""}: ' + ', '.join(literal(n) for n in names))
    if providers.get(entry.name):
        facts.append("* Other ir_measures providers of this measure: "
                     + ', '.join(literal(p) for p in providers[entry.name]))
    body.append('\n'.join(facts))
    body.append(_policies(entry))
    parts.append(indented('\n\n'.join(part for part in body if part)))
    return '\n'.join(parts)


class MeasureCatalogue(SphinxDirective):
    """``measure-catalogue``: every measure the ``irmeasures_ext`` provider answers, by family."""

    def run(self) -> list[nodes.Node]:
        tools, providers = tool_names(), other_providers()
        groups = catalogue()
        count = sum(len(entries) for _, entries in groups)
        text = [f'{count} measures in {len(groups)} families ({sum(e.ours for _, es in groups for e in es)} of this '
                "package's own, the others ir_measures' own, which our provider also computes).", '']
        for module, entries in groups:
            title = first_sentence(module.__doc__ or module.__name__)
            text += [title, '-' * (len(title) + 10), '', f'.. py:module:: {module.__name__}', '',
                     f'Module ``{module.__name__}``: ' + ', '.join(f':measure:`{e.object_name}`' for e in entries),
                     '']
            paragraphs = inspect.cleandoc(module.__doc__ or '').split('\n\n')
            if ' '.join(paragraphs[0].split()).rstrip('.:') == title:  # (a one-sentence first paragraph: the title)
                paragraphs = paragraphs[1:]
            text += ['\n\n'.join(paragraphs), '']
            for entry in entries:
                text += [measure_rst(entry, tools, providers), '']
        return parse_rst(self, '\n'.join(text))


# ---------------------------------------------------------------------------------------------------------------
# The dataset table


def _count_text(counts: dict[str, Any], entity: str, has: bool) -> str:
    if not has:
        return '—'
    known = counts.get(entity)
    return f'{known["count"]:,}' if known else 'from the files'


class DatasetTable(SphinxDirective):
    """``dataset-table``: the ir_datasets ids this package registers, their contents and known counts, and each
    collection's citation and licence."""

    def run(self) -> list[nodes.Node]:
        from irmeasures_ext.datasets.metadata import known_counts
        from irmeasures_ext.datasets.registry import MODULES
        counts = known_counts()
        text = ['Counts are the official ones the package knows without the data files (``metadata.json``); '
                '"from the files": counted from the files in place on first use (``dataset.metadata()``).', '']
        for module in MODULES:
            datasets = module.datasets()
            docs = {dataset_id: dataset.documentation() for dataset_id, dataset in datasets.items()}
            root = min(datasets, key=len)
            title = docs[root].get('pretty_name', root)
            text += [title, '-' * (len(title) + 10), '', f'Module ``{module.__name__}``.', '']
            text += ['.. list-table::', '   :header-rows: 1', '   :widths: 34 24 14 14 14', '',
                     '   * - dataset id', '     - name', '     - docs', '     - queries', '     - qrels']
            for dataset_id, dataset in datasets.items():
                known = counts.get(dataset_id, {})
                text += [f'   * - :dataset:`{dataset_id}`', f'     - {escape(docs[dataset_id].get("pretty_name", ""))}',
                         f'     - {_count_text(known, "docs", dataset.has_docs())}',
                         f'     - {_count_text(known, "queries", dataset.has_queries())}',
                         f'     - {_count_text(known, "qrels", dataset.has_qrels())}']
            text.append('')
            for dataset_id in datasets:
                text += [f'.. dataset:: {dataset_id}', '   :no-contents-entry:', '']
                fields, parent = docs[dataset_id], docs.get(dataset_id.rsplit('/', 1)[0], {})
                about = [f'{key}: {escape(fields[key])}' for key in ('language', 'split', 'sizes', 'file')
                         if fields.get(key) and fields[key] != parent.get(key)]
                if about:
                    text += [indented('\n\n'.join(about)), '']
            fields = docs[root]
            if fields.get('license'):
                text += [f'**Licence:** {escape(fields["license"])}', '']
            if fields.get('bibtex'):
                text += ['**Citation:**', '', '.. code-block:: bibtex', '', indented(fields['bibtex'].strip()), '']
        return parse_rst(self, '\n'.join(text))


# ---------------------------------------------------------------------------------------------------------------
# The command-line reference


def commands() -> list[tuple[str, Any, Callable[[], argparse.ArgumentParser] | None]]:
    """(name, module, its ``parser``) of the command (``evaluate``, no subcommand) and each subcommand."""
    from irmeasures_ext.cli import COMMANDS
    found: list[tuple[str, Any, Callable[[], argparse.ArgumentParser] | None]] = []
    for name, module_name in [('', 'evaluate'), *sorted(COMMANDS.items())]:
        module = importlib.import_module(f'irmeasures_ext.cli.{module_name}')
        found.append((name, module, getattr(module, 'parser', None)))
    return found


def _option_signature(action: argparse.Action) -> list[str]:
    if not action.option_strings:
        return [action.metavar or action.dest]
    if action.nargs == 0:
        return list(action.option_strings)
    if action.metavar is not None:
        shown = action.metavar if isinstance(action.metavar, str) else ' '.join(action.metavar)
    elif action.choices is not None:
        shown = '{' + ','.join(map(str, action.choices)) + '}'
    else:
        shown = action.dest.upper()
    return [f'{option} {shown}' for option in action.option_strings]


def _help_text(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    text = action.help or ''
    if '%' in text:
        params = {**vars(action), 'prog': parser.prog}
        params['choices'] = ', '.join(map(str, action.choices)) if action.choices is not None else None
        text = text % params
    facts = []
    if action.choices is not None and action.metavar is not None and not all(str(c) in text for c in action.choices):
        facts.append('one of ' + ', '.join(map(str, action.choices)))
    if action.option_strings and action.nargs != 0 and action.default not in (None, argparse.SUPPRESS, []):
        if 'default' not in text:
            facts.append(f'default: {action.default}')
    if action.required and action.option_strings:
        facts.append('required')
    if action.nargs in ('*', '+', argparse.REMAINDER) or isinstance(action, argparse._AppendAction):
        facts.append('repeatable' if action.option_strings else 'one or more' if action.nargs == '+' else 'any number')
    return escape(text) + (f' ({escape("; ".join(facts))})' if facts else '')


def parser_rst(program: str, parser: argparse.ArgumentParser) -> str:
    lines = [f'.. program:: {program}', '', '.. code-block:: text', '',
             indented(parser.format_usage().strip()), '']
    if parser.description:
        lines += [escape(parser.description), '']
    for action in parser._actions:
        if isinstance(action, argparse._HelpAction):
            continue
        lines += [f'.. option:: {", ".join(_option_signature(action))}', '', indented(_help_text(parser, action)), '']
    if parser.epilog:
        lines += [escape(parser.epilog), '']
    return '\n'.join(lines)


class CommandReference(SphinxDirective):
    """``command-reference``: ``irmeasures-ext`` and its subcommands, from their argparse parsers."""

    def run(self) -> list[nodes.Node]:
        from irmeasures_ext.cli.common import PROG
        text = []
        for name, module, parser in commands():
            program = f'{PROG} {name}'.strip()
            title = f'``{program}``'
            text += [title, '-' * (len(title) + 4), '']
            if parser is not None:
                text.append(parser_rst(program, parser()))
            else:  # (``datasets``: ir_datasets' own command line, no argparse parser of ours)
                text += [f'.. program:: {program}', '', inspect.cleandoc(module.__doc__ or ''), '']
                if hasattr(module, '_help'):
                    import ir_datasets
                    text += ['.. code-block:: text', '',
                             indented(module._help(list(ir_datasets.commands.COMMANDS))), '']
            text.append('')
        return parse_rst(self, '\n'.join(text))


# ---------------------------------------------------------------------------------------------------------------
# Cross-references


def measure_reference(app: Sphinx, env: Any, node: Any, contnode: nodes.Node) -> nodes.Node | None:
    """A Python reference to one of our measures (``:class:`MeanRank```, ``:data:`irmeasures_ext.Q```: the module
    binds each name to its singleton) resolves to its entry in the measure catalogue."""
    if node.get('refdomain') != 'py':
        return None
    name = node['reftarget'].lstrip('.~').rsplit('.', 1)[-1]
    from irmeasures_ext.measures import DECLARED
    if name not in DECLARED:
        return None
    return env.domains['std'].resolve_xref(env, node['refdoc'], app.builder, 'measure', name, node, contnode)


def no_builtin_docstring(app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    """autodoc of a data object without a ``#:`` comment shows no docstring (rather than that of its type: ``dict``'s
    for a dict)."""
    if what in ('data', 'attribute') and lines and type(obj).__module__ == 'builtins' and type(obj).__doc__ and (
            inspect.cleandoc(type(obj).__doc__).splitlines()[0] == lines[0]):
        lines.clear()


class NoMeasureMailto(SphinxTransform):
    """Measure names at a cutoff in plain reST text (``R@10``, ``Q@k`` in docstrings and help texts) are not e-mail
    addresses: docutils' standalone e-mail links whose domain has no dot become text again."""

    default_priority = 500

    def apply(self, **kwargs: Any) -> None:
        for node in list(self.document.findall(nodes.reference)):
            text = node.astext()
            if node.get('refuri', '').startswith('mailto:') and re.fullmatch(r'[^@\s]+@[^.@\s]+', text):
                node.replace_self(nodes.Text(text))


# ---------------------------------------------------------------------------------------------------------------


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_transform(NoMeasureMailto)
    app.connect('missing-reference', measure_reference)
    app.connect('autodoc-process-docstring', no_builtin_docstring)
    app.add_object_type('measure', 'measure', indextemplate='pair: %s; measure')
    app.add_object_type('dataset', 'dataset', indextemplate='pair: %s; dataset')
    directives.register_directive('cite', Cite)
    directives.register_directive('cite.dblp', CiteDblp)
    app.add_directive('measure-catalogue', MeasureCatalogue)
    app.add_directive('dataset-table', DatasetTable)
    app.add_directive('command-reference', CommandReference)
    return {'version': '1', 'parallel_read_safe': True, 'parallel_write_safe': True}


__all__: Iterable[str] = ['setup']
