"""ir_metadata's YAML read as YAML 1.2, against ruamel.yaml (the YAML library of repro_eval 0.5.0 and of its
ir_metadata; a test dependency), and written so that YAML 1.1 (PyYAML) and 1.2 readers both read it back."""
import datetime
import math

import pytest
import yaml
from ruamel.yaml import YAML

from irmeasures_ext.ir_metadata import metadata_block, read_metadata, write_run
from irmeasures_ext.readers.trec import parse_metadata

#: Plain scalars YAML 1.1 and 1.2 read differently, or that a version's rules could be written wrong for.
SCALARS = [
    # booleans: only true and false in 1.2
    'no', 'No', 'NO', 'yes', 'Yes', 'on', 'off', 'y', 'n', 'true', 'True', 'TRUE', 'false', 'False', 'FALSE', 'tRue',
    # integers: base 60 and a leading 0 (octal) only in 1.1; 0o only in 1.2
    '12:30:45', '1:30', '-1:30', '0123', '010', '-010', '0', '-0', '+12', '0o17', '-0o17', '0o7', '0o', '0x1F',
    '0x1f', '0x1', '0X1F',
    '0b101', '1_000', '0x_1F', '123456789012345678901234567890', '09', '08.5',
    # floats
    '1e3', '1E3', '1e+3', '-1e-3', '+.5', '.5', '-.5', '1.', '0.', '12.5e-1', '1_0.5', '.5e3', '.5e+3', '1.5e', 'e3',
    '.inf', '-.inf', '+.Inf', '.INF', '.nan', '.NaN', 'NaN', 'inf', '1:30.5', '6.8523015e+5', '685.230_15e+03',
    # null, dates, timestamps and other strings
    '~', 'null', 'Null', 'NULL', 'None', '2024-01-02', '2024-1-2', '2024-01-02 10:00:00',
    '2001-12-14t21:59:43.10-05:00', '1.2.3', '0o8', '0xZ', '+', '.', 'bm25', 'v1.0',
]
#: Strings a plain scalar cannot be (YAML's syntax: a sequence entry, a mapping value), written quoted.
NOT_PLAIN = ['-', '12:', '- a', 'a: b', '#', '']


def ruamel_reads(text):
    return YAML(typ='safe', pure=True).load(text)


def same(ours, theirs):
    """Equal values of one type (NaN equal to NaN)."""
    if isinstance(ours, float) and isinstance(theirs, float) and math.isnan(ours):
        return math.isnan(theirs)
    return type(ours) is type(theirs) and ours == theirs


@pytest.mark.parametrize('scalar', SCALARS)
def test_a_plain_scalar_reads_as_ruamel_yaml_reads_it(scalar):
    ours = parse_metadata(f'key: {scalar}\n', 'metadata.yaml')['key']
    theirs = ruamel_reads(f'key: {scalar}\n')['key']
    assert same(ours, theirs), (ours, theirs)


def test_the_values_of_the_yaml_1_1_rules_are_those_of_1_2():
    # (by hand, from YAML 1.2.2 10.3.2: only true/false are booleans, no base 60, a leading 0 is decimal)
    text = 'stemmer: no\nstarted: 12:30:45\ncommit: 0123456\nk1: 1.2\nretrieval: bm25\nstemmed: true\n'
    assert parse_metadata(text, 'metadata.yaml') == {'stemmer': 'no', 'started': '12:30:45', 'commit': 123456,
                                                     'k1': 1.2, 'retrieval': 'bm25', 'stemmed': True}


@pytest.mark.parametrize('scalar', SCALARS + NOT_PLAIN)
def test_a_string_is_written_so_that_both_versions_read_it_back(scalar):
    block = metadata_block({'key': scalar})
    text = ''.join(line[2:] + '\n' for line in block.splitlines()[1:-1])
    assert yaml.safe_load(text) == {'key': scalar}  # (YAML 1.1)
    assert ruamel_reads(text) == {'key': scalar}  # (YAML 1.2)
    assert parse_metadata(text, 'metadata.yaml') == {'key': scalar}


def test_values_written_read_back_alike_in_both_versions(tmp_path):
    metadata = {'k1': 1.2, 'b': 0.75, 'top': 1000, 'negative': -3, 'big': 10 ** 30, 'tiny': 1e-300, 'huge': 1e300,
                'stemmed': True, 'none': None, 'infinite': math.inf, 'day': datetime.date(2024, 1, 2),
                'when': datetime.datetime(2024, 1, 2, 10, 0, 5), 'list': [1, 'no', 2.5], 'nested': {'a': 'on'}}
    write_run({'q1': {'d1': 1.0}}, tmp_path / 'run.txt', metadata)
    text = ''.join(line[2:] + '\n' for line in (tmp_path / 'run.txt').read_text().splitlines()
                   if line.startswith('# ') and 'ir_metadata.' not in line)
    assert read_metadata(tmp_path / 'run.txt') == metadata
    assert ruamel_reads(text) == metadata
    assert yaml.safe_load(text) == metadata


def test_an_int_tagged_in_a_yaml_1_1_form_reads_as_pyyaml_reads_it():
    assert parse_metadata('a: !!int 0123\nb: !!int 1:30\nc: !!int 0o17\n', 'metadata.yaml') == {
        'a': 123, 'b': 90, 'c': 15}
