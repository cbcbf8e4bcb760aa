"""ir_metadata's YAML read as YAML 1.2, as repro_eval (ruamel.yaml) reads it, and written so that a YAML 1.1 reader
(PyYAML) reads it alike.

PyYAML resolves plain scalars as YAML 1.1: ``no``, ``on`` and ``yes`` are booleans, ``12:30:45`` an integer in base 60
and ``0123`` one in base 8. YAML 1.2 (https://yaml.org/spec/1.2.2/, 10.3.2, the core schema) reads those as
strings and ``0123`` as 123; ruamel.yaml, the YAML of repro_eval 0.5.0 and its ir_metadata, also reads ``_`` between
digits and ``0b`` binary integers, and keeps YAML 1.1's dates and timestamps. :func:`yaml_1_2` gives a PyYAML loader
those rules for booleans, integers and floats (null, dates, timestamps and merge keys are read as PyYAML reads them);
:func:`quoting_both` makes a dumper quote every string either version reads as something else (``'no'``, ``'1e3'``).
"""
from __future__ import annotations

import re
from typing import Any

BOOL, INT, FLOAT = 'tag:yaml.org,2002:bool', 'tag:yaml.org,2002:int', 'tag:yaml.org,2002:float'
#: YAML 1.2's plain booleans, integers and floats (as ruamel.yaml reads them), each with the characters they start
#: with.
YAML_1_2 = [
    (BOOL, re.compile(r'^(?:true|True|TRUE|false|False|FALSE)$'), 'tTfF'),
    (INT, re.compile(r'''^(?:[-+]?[0-9][0-9_]*     # decimal (leading zeros too)
                          |[-+]?0o[0-7_]+          # octal
                          |[-+]?0x[0-9a-fA-F_]+    # hexadecimal
                          |[-+]?0b[01_]+)$''', re.X), '-+0123456789'),
    (FLOAT, re.compile(r'''^(?:[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+]?[0-9]+)?
                            |[-+]?[0-9][0-9_]*[eE][-+]?[0-9]+
                            |[-+]?\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?
                            |[-+]?\.(?:inf|Inf|INF)
                            |\.(?:nan|NaN|NAN))$''', re.X), '-+0123456789.'),
]
#: The bases of YAML 1.2's prefixed integers.
_BASES = {'0o': 8, '0x': 16, '0b': 2}


def yaml_1_2(loader: Any) -> Any:
    """``loader`` (a PyYAML loader class) resolving plain booleans, integers and floats as YAML 1.2 (:data:`YAML_1_2`)
    and reading its integers (``0123`` is 123); its other resolvers kept."""
    loader.yaml_implicit_resolvers = {
        first: [(tag, pattern) for tag, pattern in resolvers if tag not in (BOOL, INT, FLOAT)]
        for first, resolvers in loader.yaml_implicit_resolvers.items()}
    for tag, pattern, first in YAML_1_2:
        loader.add_implicit_resolver(tag, pattern, list(first))
    loader.add_constructor(INT, _construct_int)
    return loader


def _construct_int(constructor: Any, node: Any) -> int:
    """A YAML 1.2 integer (``_`` between digits dropped); one tagged ``!!int`` in YAML 1.1's other forms as PyYAML
    reads it; a ConstructorError (naming its line) for one that is no integer (``0o_``, ``!!int 0x``)."""
    import yaml  # type: ignore[import-untyped]
    written = constructor.construct_scalar(node)
    text = written.replace('_', '')
    sign, digits = (-1 if text[:1] == '-' else 1), text[1:] if text[:1] in ('+', '-') else text
    if digits[:2] in _BASES and re.fullmatch('[0-9a-fA-F]+', digits[2:]):
        try:
            return sign * int(digits[2:], _BASES[digits[:2]])
        except ValueError:  # (a digit beyond the base: 0o8 as !!int)
            pass
    elif re.fullmatch('[0-9]+', digits):
        return sign * int(digits)
    elif digits and digits[:2] not in _BASES:
        try:
            return yaml.constructor.SafeConstructor.construct_yaml_int(constructor, node)
        except ValueError:
            pass
    raise yaml.constructor.ConstructorError(None, None, f'{written!r} is not an integer', node.start_mark)


def quoting_both(dumper: Any) -> Any:
    """``dumper`` (a PyYAML dumper class) quoting a string that YAML 1.2 reads as a boolean or a number
    (:data:`YAML_1_2`) beside those YAML 1.1 does: its resolvers only decide the quoting."""
    for tag, pattern, first in YAML_1_2:
        dumper.add_implicit_resolver(tag, pattern, list(first))
    return dumper
