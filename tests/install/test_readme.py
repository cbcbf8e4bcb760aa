"""Every code block of README.md and of the documentation (docs/*.md) runs, as a reader would run it, on
the sample data and small files written here: each Python block in a fresh interpreter, each command line
with bash.

The blocks use names the pages define in prose or in other blocks (``qrels``, ``run``, ``bm25_df``
...); ``PREAMBLE`` defines them as the pages describe them. Command lines that cannot run inside
the suite (installing, the suite itself, mutation testing, the usage synopsis) are listed in
``NOT_RUN`` with the reason; any other line of a shell block must run and exit 0.

Shown output: a ``python`` or ``bash`` block followed (after blank lines only) by a ``text`` block is run
and what it prints on stdout must equal the text block, line by line after stripping trailing white space
(and leading and trailing blank lines). A ``text`` block must follow such a block.
"""
from __future__ import annotations

import gzip
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import NamedTuple

import pytest
from conftest import DATA, ROOT
from nci_fixtures import write_nq
from quoter_fixtures import write_quoter_file

from irmeasures_ext.datasets.quoter import LANGUAGES
from irmeasures_ext.sample import QRELS, RUN


class Block(NamedTuple):
    section: str  # the heading of the section the block is in
    language: str
    line: int  # of its first line in its file
    text: str
    file: str = 'README.md'  # relative to the checkout
    output: str | None = None  # the text block that follows it: what it must print


FENCE = re.compile(r'^```([\w{}-]*)\n(.*?)^```[ \t]*$', re.MULTILINE | re.DOTALL)


def page_blocks(path: Path) -> list[Block]:
    return blocks_of(path.read_text(encoding='utf-8'), path.relative_to(ROOT).as_posix())


def blocks_of(page: str, name: str) -> list[Block]:
    """The code blocks of one Markdown page, a ``text`` block attached as the output of the block before it."""
    blocks: list[Block] = []
    previous_end = None
    for match in FENCE.finditer(page):
        language, text = match.group(1), match.group(2)
        if language.startswith('{'):  # a MyST directive (e.g. the generated dataset table), not a code example
            previous_end = None
            continue
        if language == 'text':
            follows = previous_end is not None and not page[previous_end:match.start()].strip()
            assert follows and blocks and blocks[-1].language in ('python', 'bash') and blocks[-1].output is None, \
                f'{name}:{page.count(chr(10), 0, match.start()) + 1}: a text block must follow a python or bash block'
            blocks[-1] = blocks[-1]._replace(output=text)
        else:
            prose = FENCE.sub('', page[:match.start()])
            headings = re.findall(r'^#+ (.+)$', prose, re.MULTILINE)
            blocks.append(Block(headings[-1] if headings else '', language,
                                page.count('\n', 0, match.start()) + 2, text, name))
        previous_end = match.end()
    return blocks


PAGES = [ROOT / 'README.md', *sorted((ROOT / 'docs').glob('*.md'))]
BLOCKS = [block for page in PAGES for block in page_blocks(page)]
ids = [f'{block.file}:{block.line} ({block.section})' for block in BLOCKS]


def assert_shown_output(block: Block, stdout: str) -> None:
    """What a block prints equals the text block shown after it (trailing white space of each line aside)."""
    def lines(text: str) -> list[str]:
        return [line.rstrip() for line in text.strip('\n').splitlines()]
    assert lines(stdout) == lines(block.output), f'{block.file}:{block.line}: printed\n{stdout}'

#: Names the Python blocks use, defined as the README describes them: the TREC files read with
#: ir_measures (section "Python"), DataFrames with ir_measures or PyTerrier columns, several systems' runs.
PREAMBLE = '''
import ir_measures
import pandas as pd
import irmeasures_ext
from ir_measures import RR, nDCG
from irmeasures_ext import Q, nDCG_Z1, MeanRank, MedianRank

qrels = list(ir_measures.read_trec_qrels('qrels.txt'))  # lists: a block may use them more than once
run = list(ir_measures.read_trec_run('run.txt'))
qrels_df = pd.DataFrame(qrels)
run_df = pd.DataFrame(run)
def system(path):
    return pd.DataFrame(ir_measures.read_trec_run(path)).rename(columns={'query_id': 'qid', 'doc_id': 'docno'})
bm25_df, tfidf_df, dense_df = system('bm25.txt'), system('dense.txt'), system('hybrid.txt')
topics = pd.DataFrame({'qid': sorted(set(qrels_df.query_id)), 'query': 'a query'})
'''
#: The section "PyTerrier" (docs/python.md) says which forms its names have: qrels as a DataFrame (qid, docno, label).
SECTION_PREAMBLES = {
    'PyTerrier': "qrels = qrels_df.rename(columns={'query_id': 'qid', 'doc_id': 'docno', 'relevance': 'label'})\n",
}
SECTION_PREAMBLES['In PyTerrier'] = SECTION_PREAMBLES['PyTerrier']  # (README.md, "Three examples")

#: Shell lines not run here, by how they start, with the reason.
NOT_RUN = {
    'pip install': 'installs the package: the suite runs in the environment it was installed in',
    'python -m pytest': 'the test suite itself',
    'python -m pip install': 'installs the docs extra into the environment',
    'python -m sphinx': 'builds the site and opens it: tests/install/test_docs.py builds it, warnings as errors',
    'mutmut': 'mutation testing, hours long (docs/development.md)',
    'irmeasures-ext QRELS RUN [': 'the usage synopsis',
    '[--': 'the usage synopsis, continued',
}


@pytest.fixture(scope='module')
def workspace(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """A folder with the files the blocks name, and an environment whose IR_DATASETS_HOME holds the
    QuoteR English file and NQ's sources (as tests/quoter_fixtures.py and tests/nci_fixtures.py write them)."""
    folder = tmp_path_factory.mktemp('readme')
    shutil.copy(QRELS, folder / 'qrels.txt')
    for name in ('qrels', 'run'):  # (section "Diversity": TREC diversity qrels and a run of their topics)
        shutil.copy(DATA / 'diversity' / f'{name}.txt', folder / f'{name}.diversity.txt')
    for name in ('Dqrels', 'DINprob'):  # (and NTCIREVAL's forms, without q017: its probabilities sum to 0.9, a warning)
        lines = (DATA / 'diversity' / f'{name}.txt').read_text(encoding='utf-8').splitlines(True)
        (folder / f'{name}.diversity.txt').write_text(''.join(line for line in lines if not line.startswith('q017 ')),
                                                      encoding='utf-8')
    sample_run = Path(RUN).read_text(encoding='utf-8')
    # One run for every command: the sample's queries, and some of QuoteR English's and NQ dev's test queries.
    (folder / 'run.txt').write_text(sample_run + '113942 Q0 0 1 2.0 r\n113942 Q0 1 2 1.0 r\n'
                                    '113943 Q0 1 1 1.0 r\n201 Q0 0 1 3 r\n202 Q0 1 1 2 r\n', encoding='utf-8')
    (folder / 'run.txt.gz').write_bytes(gzip.compress((folder / 'run.txt').read_bytes()))
    lines = sample_run.splitlines(keepends=True)
    systems = {'bm25.txt': lines, 'dense.txt': lines[::2], 'hybrid.txt': lines[1::2] + lines[::4]}
    (folder / 'runs').mkdir()
    for name, system_lines in systems.items():
        (folder / name).write_text(''.join(system_lines), encoding='utf-8')
        (folder / 'runs' / name).write_text(''.join(system_lines), encoding='utf-8')
    home = folder / 'ir_datasets_home'
    write_quoter_file(home / 'quoter' / LANGUAGES['english'].file_name, 'english')
    write_nq(home)
    env = {**os.environ, 'IR_DATASETS_HOME': str(home), 'IRMEASURES_EXT_NCI_TITLES': 'basic',
           'PATH': f'{Path(sys.executable).parent}{os.pathsep}{os.environ.get("PATH", "")}'}
    return folder, env


def shell_commands(text: str) -> list[str]:
    """The commands of a shell block to run: lines with their continuations joined, the parts of an
    ``&&`` chain that NOT_RUN lists left out."""
    commands = []
    for line in text.replace('\\\n', ' ').splitlines():
        stripped = line.strip()
        if not stripped or stripped.startswith('#'):
            continue
        parts = [part.strip() for part in stripped.split(' && ')]
        kept = [part for part in parts if not part.startswith(tuple(NOT_RUN))]
        if kept:
            commands.append(' && '.join(kept))
    return commands


@pytest.mark.parametrize('block', [b for b in BLOCKS if b.language == 'python'],
                         ids=[i for b, i in zip(BLOCKS, ids, strict=True) if b.language == 'python'])
def test_python_block_runs(block, workspace):
    folder, env = workspace
    script = PREAMBLE + SECTION_PREAMBLES.get(block.section, '') + textwrap.dedent(block.text)
    result = subprocess.run([sys.executable, '-c', script], cwd=folder, env=env, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, f'{block.file}:{block.line}:\n{result.stderr}'
    if block.output is not None:
        assert_shown_output(block, result.stdout)


@pytest.mark.parametrize('block', [b for b in BLOCKS if b.language == 'bash'],
                         ids=[i for b, i in zip(BLOCKS, ids, strict=True) if b.language == 'bash'])
def test_shell_block_runs(block, workspace):
    folder, env = workspace
    commands = shell_commands(block.text)
    assert block.output is None or len(commands) == 1, f'{block.file}:{block.line}: shown output needs one command'
    for command in commands:
        (folder / 'comparison.png').unlink(missing_ok=True)  # written by a compare command, kept unless --overwrite
        result = subprocess.run(['bash', '-c', command], cwd=folder, env=env, capture_output=True, text=True,
                                timeout=300)
        assert result.returncode == 0, f'{block.file}:{block.line}: {command}\n{result.stderr}'
        assert result.stdout.strip() or 'comparison.png' in command, command
        if block.output is not None:
            assert_shown_output(block, result.stdout)


def test_every_block_is_run_or_is_output():
    """Each block is Python, a shell block, or an output the next test checks; no language is skipped.
    The README and the docs are both collected, and some blocks show their output."""
    assert {block.language for block in BLOCKS} == {'python', 'bash', ''}
    assert {block.file for block in BLOCKS} >= {'README.md', 'docs/getting-started.md', 'docs/coming-from.md'}
    assert sum(len(shell_commands(block.text)) for block in BLOCKS if block.language == 'bash') >= 15
    assert [block.text for block in BLOCKS if not block.language] == [DUPLICATE_ERROR]
    assert any(block.output is not None and block.file == 'docs/getting-started.md' for block in BLOCKS)


def test_shown_output_is_checked():
    """The convention itself: a text block after a python block is that block's expected stdout; a directive
    is no example."""
    page = ('# Title\n\n```python\nprint(1)\n```\n\n```text\n1  \n```\n\n```bash\necho 2\n```\n\n'
            '```{dataset-table}\n```\n')
    blocks = blocks_of(page, 'docs/example.md')
    assert [(block.language, block.output) for block in blocks] == [('python', '1  \n'), ('bash', None)]
    assert_shown_output(blocks[0], '1\n')
    with pytest.raises(AssertionError):
        assert_shown_output(blocks[0], '2\n')


DUPLICATE_ERROR = "irmeasures-ext: error: run.txt:8: duplicate doc 'd4' in query 'q2' (first at line 5)\n"


def test_the_error_shown_is_what_the_command_prints(tmp_path):
    """The README's example error: a run whose line 8 repeats the doc of line 5."""
    (tmp_path / 'qrels.txt').write_text('q1 0 d1 1\nq2 0 d4 1\n', encoding='utf-8')
    lines = ['q1 Q0 d1 1 9 r', 'q1 Q0 d2 2 8 r', 'q1 Q0 d3 3 7 r', 'q2 Q0 d1 1 9 r', 'q2 Q0 d4 2 8 r',
             'q2 Q0 d5 3 7 r', 'q2 Q0 d6 4 6 r', 'q2 Q0 d4 5 5 r']
    (tmp_path / 'run.txt').write_text('\n'.join(lines) + '\n', encoding='utf-8')
    result = subprocess.run([sys.executable, '-m', 'irmeasures_ext', 'qrels.txt', 'run.txt', 'AP'], cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert (result.returncode, result.stdout, result.stderr) == (2, '', DUPLICATE_ERROR)


#: The command the READMEs give to run a notebook.
NOTEBOOK_COMMAND = "jupyter execute --output='{notebook_name}-run' notebooks/01_quickstart.ipynb"


def test_the_notebooks_are_run_with_what_their_extra_installs():
    """The READMEs promised "open them with Jupyter", which no extra installs: they give nbclient's ``jupyter
    execute`` (its console script; nbclient is in the [notebooks] extra) and say to install an editor apart."""
    import configparser
    setup = configparser.ConfigParser()
    setup.read(ROOT / 'setup.cfg', encoding='utf-8')
    extra = setup['options.extras_require']['notebooks'].split()
    assert any(requirement.startswith('nbclient') for requirement in extra)
    assert not any(requirement.startswith(('jupyter', 'notebook')) for requirement in extra)
    assert shutil.which('jupyter-execute', path=str(Path(sys.executable).parent)), 'nbclient installs jupyter-execute'
    for readme in (ROOT / 'README.md', ROOT / 'notebooks' / 'README.md'):
        text = ' '.join(readme.read_text(encoding='utf-8').split())
        assert NOTEBOOK_COMMAND in text and 'pip install notebook' in text, readme
        assert 'open them with Jupyter' not in text, readme
