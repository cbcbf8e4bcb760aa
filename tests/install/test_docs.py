"""The documentation site (docs/) builds, as CI and the README build it, with every warning an error (``-W -n``: a
broken cross-reference, a page missing from the toctree, a bad link target), and its generated pages cover the code:
the measure catalogue names every measure we declare, the command-line reference every subcommand, and the search
finds a measure, an option and a dataset id."""
from __future__ import annotations

import html
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

from irmeasures_ext.cli import COMMANDS
from irmeasures_ext.measures import DECLARED

pytest.importorskip('sphinx', reason="the docs extra (pip install '.[docs]')")
pytest.importorskip('myst_parser', reason="the docs extra (pip install '.[docs]')")
pytest.importorskip('furo', reason="the docs extra (pip install '.[docs]')")

DOCS = ROOT / 'docs'


@pytest.fixture(scope='module')
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site, built from the checkout's docs/ into a temporary folder with the README's command."""
    out = tmp_path_factory.mktemp('docs') / 'html'
    result = subprocess.run([sys.executable, '-m', 'sphinx', '-W', '--keep-going', '-n', '-q', '-b', 'html',
                             str(DOCS), str(out)], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f'the site does not build without warnings:\n{result.stderr}'
    return out


def text_of(page: Path) -> str:
    """A page's text, without its markup."""
    return html.unescape(re.sub(r'<[^>]+>', ' ', page.read_text(encoding='utf-8')))


def search_index(site: Path) -> dict:
    """searchindex.js's data (``Search.setIndex({...})``)."""
    text = (site / 'searchindex.js').read_text(encoding='utf-8')
    return json.loads(text[text.index('(') + 1:text.rindex(')')])


def test_the_catalogue_has_an_entry_for_every_declared_measure(site: Path) -> None:
    page = (site / 'measure-catalogue.html').read_text(encoding='utf-8')
    missing = [name for name in DECLARED if f'id="measure-{name}"' not in page]
    assert not missing, f'not in the measure catalogue: {missing}'
    # ir_measures' own measures that our provider computes too, with what the code says of them:
    for name in ('AP', 'nDCG', 'RBP', 'alpha_nDCG', 'Judged', 'Compat'):
        assert f'id="measure-{name}"' in page, name
    text = ' '.join(text_of(site / 'measure-catalogue.html').split())
    assert 'NTCIREVAL names: Q-measure' in text  # (from the ntcireval command's table)
    assert 'trec_eval name: gm_map' in text
    assert 'tie policies: trec_eval , rank , expected' in text


def test_the_command_reference_has_every_subcommand_and_its_options(site: Path) -> None:
    page = (site / 'cli-reference.html').read_text(encoding='utf-8')
    text = ' '.join(text_of(site / 'cli-reference.html').split())
    for name in COMMANDS:
        assert f'irmeasures-ext {name}' in text, name
    for program in ('irmeasures-ext', 'irmeasures-ext-compare', 'irmeasures-ext-holes'):
        assert f'id="cmdoption-{program}-ties"' in page, program
    assert 'id="cmdoption-irmeasures-ext-ties-score-precision"' in page
    assert 'id="cmdoption-irmeasures-ext-ntcireval-g"' in page


def test_the_dataset_table_lists_the_registered_ids(site: Path) -> None:
    from irmeasures_ext.datasets.registry import MODULES
    page = (site / 'datasets.html').read_text(encoding='utf-8')
    ids = [dataset_id for module in MODULES for dataset_id in module.datasets()]
    missing = [dataset_id for dataset_id in ids if f'id="dataset-{dataset_id.replace("/", "-")}"' not in page]
    assert not missing, f'not in the dataset table: {missing}'
    assert '101,171' in text_of(site / 'datasets.html')  # (an official count, from metadata.json)


def test_the_search_finds_a_measure_an_option_and_a_dataset(site: Path) -> None:
    index = search_index(site)
    objects = {name for entries in index['objects'].values() for *_, name in entries}
    assert {'nDCG_Z1', 'Q', '--ties', 'quoter/english', 'nci/nq320k/dev'} <= objects
    assert 'ndcg_z1' in index['terms']  # (the words of the pages too)
