"""nci/nq320k and nci/trivia-qa built from tiny sources in the upstream formats (tests/nci_fixtures.py),
against values worked out by hand from NCI's rules; the title normalisers against an independent
implementation of BERT's basic tokenisation (the ``tokenizers`` library)."""
import concurrent.futures
import contextlib
import errno
import gzip
import io
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
import unicodedata
from pathlib import Path

import ir_datasets
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ir_datasets.formats import GenericQrel, GenericQuery
from ir_datasets.util.download import RequestsDownload
from nci_fixtures import LONG_PAGE, write_nq, write_trivia

from irmeasures_ext.cli import main
from irmeasures_ext.datasets import register, titles
from irmeasures_ext.datasets.common import DownloadError
from irmeasures_ext.datasets.nci_nq320k import NQ320kDoc, abstract_and_content, train_title
from irmeasures_ext.datasets.nci_trivia_qa import TriviaQADoc
from irmeasures_ext.errors import InputError

pytestmark = pytest.mark.filterwarnings('ignore:.*using it as it is')  # fixture files: other checksums

NQ_DOCS = [
    NQ320kDoc('0', ' Python (programming language) ',
              ' Python (programming language)  Python is a high-level language . First item More text here Second',
              'python ( programming language )', '101'),
    NQ320kDoc('1', ' Café Society ', ' Café Society Café Society Data', 'cafe society', '103'),  # no <P>
    NQ320kDoc('2', ' Heroes (David Bowie song) ', ' Heroes (David Bowie song)  Heroes is a song . Single',
              'heroes ( david bowie song )', '104'),
    NQ320kDoc('3', '', ' Untitled page text . rest', '', '105'),  # no <H1>
    NQ320kDoc('4', 'New York City', 'New York City New York is big . Boroughs', 'new york city', '203'),
]
NQ_TRAIN_QRELS = [('101', '0'), ('102', '0'), ('103', '1'), ('104', '2'), ('105', '3')]
NQ_DEV_QRELS = [('201', '0'), ('202', '1'), ('203', '4'), ('204', '2')]

TRIVIA_DOCS = [
    TriviaQADoc('0', 'Café', 'A café is a restaurant. ', 'cafe', 'Café.txt'),
    TriviaQADoc('1', 'Heroes (David Bowie song)', '"Heroes" is a song by David Bowie. ', 'heroes ( david bowie song )',
                'Heroes_(David_Bowie_song).txt'),
    TriviaQADoc('2', 'Long page', ('Line one Line two three ' + 'x' * 11_000)[:10_240], 'long page', 'Long_page.txt'),
    TriviaQADoc('3', 'Zebra', 'Zebras are African equines. ', 'zebra', 'Zebra.txt'),
]


@pytest.fixture(autouse=True)
def offline(monkeypatch):
    """No download, the built-in title normaliser, the datasets registered."""
    def refuse(self):
        raise AssertionError(f'tried to download {self.url}')
    monkeypatch.setattr(RequestsDownload, '__iter__', refuse)
    monkeypatch.setenv(titles.ENVIRONMENT, 'basic')
    register()


@pytest.fixture
def home(tmp_path, monkeypatch) -> Path:
    write_nq(tmp_path)
    write_trivia(tmp_path)
    monkeypatch.setenv('IR_DATASETS_HOME', str(tmp_path))
    return tmp_path


def qrels(dataset_id: str) -> list[tuple[str, str]]:
    records = list(ir_datasets.load(dataset_id).qrels_iter())
    assert all(isinstance(r, GenericQrel) and r.relevance == 1 for r in records)
    return [(r.query_id, r.doc_id) for r in records]


# --- NQ320k ------------------------------------------------------------------------------------------

def test_nq320k_docs_queries_and_qrels_follow_ncis_rules(home):
    assert list(ir_datasets.load('nci/nq320k').docs_iter()) == NQ_DOCS
    assert list(ir_datasets.load('nci/nq320k/train').queries_iter()) == [
        GenericQuery('101', 'what is python'), GenericQuery('102', 'who made python'),
        GenericQuery('103', 'where is cafe society'), GenericQuery('104', 'who sang heroes'),
        GenericQuery('105', 'what is untitled')]
    assert [q.query_id for q in ir_datasets.load('nci/nq320k/dev').queries_iter()] == ['201', '202', '203', '204']
    assert qrels('nci/nq320k/train') == NQ_TRAIN_QRELS
    assert qrels('nci/nq320k/dev') == NQ_DEV_QRELS  # dev titles found among train's, by normalised title
    assert qrels('nci/nq320k') == NQ_TRAIN_QRELS + NQ_DEV_QRELS
    dataset = ir_datasets.load('nci/nq320k/dev')
    assert dataset.docs_count() == 5 and dataset.docs_store().get('4') == NQ_DOCS[4]
    assert dataset.docs_store().get_many(['2', '9', '02', 'x']) == {'2': NQ_DOCS[2]}
    assert dataset.queries_store().get('203').text == 'how big is new york'


def test_nq320k_dev_from_nq_dev_all_equals_the_shards(home, tmp_path_factory, monkeypatch):
    other = tmp_path_factory.mktemp('dev_all')
    write_nq(other, dev_all=True)
    monkeypatch.setenv('IR_DATASETS_HOME', str(other))
    assert list(ir_datasets.load('nci/nq320k').docs_iter()) == NQ_DOCS
    assert qrels('nci/nq320k/dev') == NQ_DEV_QRELS


def test_nq_text_rules_by_hand():
    assert train_title('a <H1> T </H1> b <H1> U </H1>') == ' T '
    assert train_title('no heading') == '' and train_title('<H1> unterminated') == ''
    # abstract raw (tags kept); content to the second-to-last </Ul>, tags removed, spaces collapsed
    assert abstract_and_content('<P> a <b>x</b> </P> c <Ul> d </Ul> e <Ul> f </Ul>') == (' a <b>x</b> ', 'c d')
    assert abstract_and_content('<P> a </P> c\nd <Ul> e </Ul> f') == (' a ', 'cd e')
    assert abstract_and_content('x </P> y <P> z') == ('', 'y z')  # </P> before <P>: empty abstract, as NCI slices
    assert abstract_and_content('<P> a') == ('', 'a')  # no </P>: no abstract, content from the start


# --- TriviaQA ------------------------------------------------------------------------------------------

def test_trivia_qa_docs_queries_and_qrels_follow_ncis_rules(home):
    assert list(ir_datasets.load('nci/trivia-qa').docs_iter()) == TRIVIA_DOCS
    assert len(TRIVIA_DOCS[2].text) == 10_240 and len(LONG_PAGE) > 10_240
    train = ir_datasets.load('nci/trivia-qa/train')
    # the multi-line question is skipped; 'Same text?' keeps tc_4 (the last) at tc_3's place
    assert list(train.queries_iter()) == [GenericQuery('tc_1', 'Which song?'), GenericQuery('tc_4', 'Same text?'),
                                          GenericQuery('tc_5', 'Missing page?')]
    assert qrels('nci/trivia-qa/train') == [('tc_1', '1'), ('tc_1', '3'), ('tc_4', '2'), ('tc_4', '1')]
    assert qrels('nci/trivia-qa/dev') == [('dev_1', '0'), ('dev_1', '3')]
    assert [q.query_id for q in ir_datasets.load('nci/trivia-qa').queries_iter()] == ['tc_1', 'tc_4', 'tc_5', 'dev_1']
    assert train.docs_store().get('2') == TRIVIA_DOCS[2]
    manifest = json.loads((home / 'nci' / 'trivia-qa' / 'built-basic' / 'manifest.json').read_text())
    assert manifest['notes'] == {'skipped_multiline-train': 1, 'skipped_multiline-dev': 0,
                                 'merged_identical-train': 1, 'merged_identical-dev': 0,
                                 'entity_pages_without_evidence-train': 1, 'entity_pages_without_evidence-dev': 0,
                                 'evidence_files': 5}
    assert manifest['counts'] == {'docs': 4, 'queries-train': 3, 'qrels-train': 4, 'queries-dev': 1, 'qrels-dev': 2}


def test_trivia_qa_archive_problems_are_named(home):
    archive = home / 'nci' / 'trivia-qa' / 'triviaqa-rc.tar.gz'
    original = archive.read_bytes()
    archive.write_bytes(b'not gzip at all')
    with pytest.raises(InputError, match='triviaqa-rc.tar.gz: not a readable tar.gz archive'):
        list(ir_datasets.load('nci/trivia-qa/dev').queries_iter())
    archive.write_bytes(original[:200])  # cut short: tarfile's stream mode reads what is there
    with pytest.raises(InputError, match='triviaqa-rc.tar.gz: expected evidence/wikipedia/.*qa/wikipedia-train.json, '
                                         'qa/wikipedia-dev.json missing'):
        list(ir_datasets.load('nci/trivia-qa/dev').queries_iter())
    assert not (home / 'nci' / 'trivia-qa' / 'built-basic').exists()
    assert [p.name for p in (home / 'nci' / 'trivia-qa').iterdir()] == ['triviaqa-rc.tar.gz']  # no partial build


# --- building: once, atomically, per normaliser -------------------------------------------------------

def test_the_build_is_reused_and_redone_when_a_source_changes(home):
    built = home / 'nci' / 'nq320k' / 'built-basic'
    list(ir_datasets.load('nci/nq320k/dev').qrels_iter())
    stamp = (built / 'manifest.json').stat().st_mtime_ns
    assert len(list(ir_datasets.load('nci/nq320k/train').qrels_iter())) == 5
    assert (built / 'manifest.json').stat().st_mtime_ns == stamp  # reused
    source = home / 'nci' / 'nq320k' / 'simplified-nq-train.jsonl.gz'
    os.utime(source, ns=(time.time_ns(), time.time_ns() + 10**9))
    assert list(ir_datasets.load('nci/nq320k').docs_iter()) == NQ_DOCS
    assert (built / 'manifest.json').stat().st_mtime_ns != stamp  # rebuilt
    assert sorted(p.name for p in built.parent.iterdir() if p.name.startswith('.')) == []  # no temporary left


def test_each_normaliser_has_its_own_build(home, monkeypatch):
    monkeypatch.setattr(titles, 'bert', lambda title, max_tokens=None: f'[{title.strip().upper()}]')
    monkeypatch.setenv(titles.ENVIRONMENT, 'bert')
    docs = list(ir_datasets.load('nci/nq320k').docs_iter())
    # the stand-in keeps case, so 'Python (programming language)' and '... (Programming Language)' stay apart
    assert [d.title_key for d in docs][:3] == ['[PYTHON (PROGRAMMING LANGUAGE)]', '[CAFÉ SOCIETY]',
                                               '[HEROES (DAVID BOWIE SONG)]']
    assert (home / 'nci' / 'nq320k' / 'built-bert').is_dir() and not (home / 'nci' / 'nq320k' / 'built-basic').exists()


# --- rebuilding: only what is ours is removed or replaced --------------------------------------------------

def touch(path: Path) -> None:
    """A new mtime: the build made from the file is out of date."""
    os.utime(path, ns=(time.time_ns(), path.stat().st_mtime_ns + 10**9))


def leftovers(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.iterdir() if p.name.startswith('.'))


def test_a_rebuild_removes_only_the_files_of_the_old_build(home):
    collection = home / 'nci' / 'nq320k'
    assert list(ir_datasets.load('nci/nq320k').docs_iter()) == NQ_DOCS
    (collection / 'built-basic' / 'my-notes.txt').write_text('mine')
    (collection / 'built-basic' / 'queries-test.jsonl').write_text('mine too')
    touch(collection / 'simplified-nq-train.jsonl.gz')
    assert list(ir_datasets.load('nci/nq320k').docs_iter()) == NQ_DOCS  # rebuilt
    assert (collection / 'built-basic' / 'my-notes.txt').read_text() == 'mine'
    assert (collection / 'built-basic' / 'queries-test.jsonl').read_text() == 'mine too'
    assert qrels('nci/nq320k/dev') == NQ_DEV_QRELS and leftovers(collection) == []
    manifest = json.loads((collection / 'built-basic' / 'manifest.json').read_text())
    assert 'my-notes.txt' not in manifest['files'] and 'docs.jsonl' in manifest['files']
    touch(collection / 'simplified-nq-train.jsonl.gz')  # a rebuild over a build holding only its own files
    assert len(qrels('nci/nq320k/train')) == 5
    assert (collection / 'built-basic' / 'my-notes.txt').read_text() == 'mine' and leftovers(collection) == []


@pytest.mark.parametrize('content', [{}, {'mine.txt': 'mine'}, {'manifest.json': '{"name": "my own manifest"}'}])
def test_a_folder_without_our_manifest_is_refused_and_left_alone(home, content):
    folder = home / 'nci' / 'nq320k' / 'built-basic'
    folder.mkdir()
    for name, text in content.items():
        (folder / name).write_text(text)
    with pytest.raises(FileExistsError, match=f'{folder} exists but was not made by irmeasures_ext'):
        list(ir_datasets.load('nci/nq320k/dev').qrels_iter())
    assert {p.name: p.read_text() for p in folder.iterdir()} == content
    assert leftovers(folder.parent) == []


@pytest.mark.parametrize('signal_name', ['SIGKILL', 'SIGTERM'])
def test_what_a_killed_builder_left_is_swept_by_the_next(home, signal_name):
    script = ('import os, signal, ir_datasets\n'
              'from irmeasures_ext.datasets import nci_nq320k\n'
              'def dying(writer, *args):\n'
              '    writer.doc({"title": "t", "text": "x", "title_key": "t", "example_id": "1"})\n'
              f'    os.kill(os.getpid(), signal.{signal_name})\n'
              'nci_nq320k.build = dying\n'
              'ir_datasets.load("nci/nq320k").docs_count()\n')
    env = {**os.environ, 'IR_DATASETS_HOME': str(home), titles.ENVIRONMENT: 'basic'}
    killed = subprocess.run([sys.executable, '-c', script], env=env, capture_output=True, timeout=120)
    collection = home / 'nci' / 'nq320k'
    assert killed.returncode < 0 and leftovers(collection), killed.stderr  # it died mid-build, leaving its folder
    assert list(ir_datasets.load('nci/nq320k').docs_iter()) == NQ_DOCS
    assert leftovers(collection) == []


def test_two_builders_finishing_together_share_one_build(home, monkeypatch):
    """The other builder's build comes into place just before ours is renamed there."""
    real_replace = os.replace

    def another_builder_first(source, target):
        if Path(target).name == 'built-basic' and not Path(target).exists():
            shutil.copytree(source, target)  # what the other builder (same sources) renamed into place
        real_replace(source, target)
    monkeypatch.setattr(os, 'replace', another_builder_first)
    assert ir_datasets.load('nci/nq320k').docs_count() == len(NQ_DOCS)
    assert list(ir_datasets.load('nci/nq320k').docs_iter()) == NQ_DOCS
    assert leftovers(home / 'nci' / 'nq320k') == []


def test_two_builders_at_once_in_threads(home, monkeypatch):
    from irmeasures_ext.datasets import nci_nq320k
    both_building = threading.Barrier(2, timeout=60)
    real_build = nci_nq320k.build

    def build_together(*args):
        both_building.wait()  # both found no build and are building it
        return real_build(*args)
    monkeypatch.setattr(nci_nq320k, 'build', build_together)
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        counts = list(pool.map(lambda _: ir_datasets.load('nci/nq320k').docs_count(), range(2)))
    assert counts == [len(NQ_DOCS)] * 2 and list(ir_datasets.load('nci/nq320k').docs_iter()) == NQ_DOCS
    assert leftovers(home / 'nci' / 'nq320k') == []


class FullDisk:
    """A file on a full disk: nothing can be written to it."""

    def __init__(self, handle):
        self._handle = handle

    def write(self, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def __getattr__(self, name):
        return getattr(self._handle, name)

    def __enter__(self):
        return self

    def __exit__(self, *exception):
        self._handle.close()


@pytest.mark.parametrize('dataset_id, file_name', [
    ('nci/nq320k', 'docs.jsonl'), ('nci/nq320k', 'docs.offsets.npy'), ('nci/nq320k', 'qrels-dev.tsv'),
    ('nci/nq320k', 'manifest.json'), ('nci/trivia-qa', 'bodies.tmp'), ('nci/trivia-qa', 'queries-train.jsonl')])
def test_a_full_disk_says_so_and_names_the_file(home, monkeypatch, dataset_id, file_name):
    real_open = Path.open

    def open_on_a_full_disk(path, mode='r', *args, **kwargs):
        handle = real_open(path, mode, *args, **kwargs)
        return FullDisk(handle) if path.name == file_name and path.parent.name.startswith('.built-') else handle
    monkeypatch.setattr(Path, 'open', open_on_a_full_disk)
    with pytest.raises(OSError) as raised:
        list(ir_datasets.load(dataset_id).docs_iter())
    collection = home / dataset_id
    assert re.fullmatch(rf'cannot write {re.escape(str(collection))}/\.built-basic\.\w+/{re.escape(file_name)}: '
                        r'the disk is full \(No space left on device\); the partial build was removed and nothing '
                        r'else changed', str(raised.value)), str(raised.value)
    assert raised.value.errno == errno.ENOSPC
    assert not (collection / 'built-basic').exists() and leftovers(collection) == []


def test_a_missing_source_names_the_url_and_the_target(home, monkeypatch):
    (home / 'nci' / 'nq320k' / 'nq-dev-02.jsonl.gz').unlink()

    def fail(self):
        raise ConnectionError('offline')
    monkeypatch.setattr(RequestsDownload, '__iter__', fail)
    with pytest.raises(DownloadError) as error:
        list(ir_datasets.load('nci/nq320k/dev').queries_iter())
    message = str(error.value)
    assert 'https://storage.googleapis.com/natural_questions/v1.0/dev/nq-dev-02.jsonl.gz' in message
    assert str(home / 'nci' / 'nq320k' / 'nq-dev-02.jsonl.gz') in message
    (home / 'nci' / 'trivia-qa' / 'triviaqa-rc.tar.gz').unlink()
    with pytest.raises(DownloadError, match='https://nlp.cs.washington.edu/triviaqa/data/triviaqa-rc.tar.gz'):
        list(ir_datasets.load('nci/trivia-qa').docs_iter())


NQ_QUERIES = {'train': [GenericQuery('101', 'what is python'), GenericQuery('102', 'who made python'),
                         GenericQuery('103', 'where is cafe society'), GenericQuery('104', 'who sang heroes'),
                         GenericQuery('105', 'what is untitled')],
              'dev': [GenericQuery('201', 'python release date'), GenericQuery('202', 'cafe society members'),
                      GenericQuery('203', 'how big is new york'), GenericQuery('204', 'heroes bowie year')]}


def exported(*argv: str) -> list[dict]:
    """``ir_datasets export ... --format jsonl``, ir_datasets' own command line, in this process."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        ir_datasets.main(['export', *argv, '--format', 'jsonl'])
    return [json.loads(line) for line in out.getvalue().splitlines()]


@pytest.mark.parametrize('dev_all', [False, True])
def test_dev_queries_need_only_the_dev_files_and_no_build(tmp_path, monkeypatch, dev_all):
    collection = write_nq(tmp_path, dev_all=dev_all)
    (collection / 'simplified-nq-train.jsonl.gz').unlink()  # multi-GB; the dev queries do not need it
    monkeypatch.setenv('IR_DATASETS_HOME', str(tmp_path))
    assert exported('nci/nq320k/dev', 'queries') == [q._asdict() for q in NQ_QUERIES['dev']]
    assert ir_datasets.load('nci/nq320k/dev').queries_store().get('203') == NQ_QUERIES['dev'][2]
    assert sorted(p.name for p in collection.iterdir() if p.name.startswith(('built', '.'))) == []  # nothing built


def test_queries_read_from_the_sources_equal_those_of_the_build(home):
    for dataset_id, expected in (('nci/nq320k/train', NQ_QUERIES['train']), ('nci/nq320k/dev', NQ_QUERIES['dev']),
                                 ('nci/nq320k', NQ_QUERIES['train'] + NQ_QUERIES['dev'])):
        assert list(ir_datasets.load(dataset_id).queries_iter()) == expected  # not built: from the sources
    assert not (home / 'nci' / 'nq320k' / 'built-basic').exists()
    assert ir_datasets.load('nci/nq320k').docs_count() == len(NQ_DOCS)  # built
    for dataset_id, expected in (('nci/nq320k/train', NQ_QUERIES['train']), ('nci/nq320k/dev', NQ_QUERIES['dev'])):
        assert list(ir_datasets.load(dataset_id).queries_iter()) == expected  # from the build
    with open(home / 'nci' / 'nq320k' / 'built-basic' / 'queries-dev.jsonl') as built:
        assert [json.loads(line) for line in built] == [q._asdict() for q in NQ_QUERIES['dev']]


def test_every_missing_file_is_named_at_once_and_only_those_the_request_needs(home, monkeypatch):
    collection = home / 'nci' / 'nq320k'
    for name in ('simplified-nq-train.jsonl.gz', 'nq-dev-01.jsonl.gz', 'nq-dev-03.jsonl.gz'):
        (collection / name).unlink()
    tried = []

    def offline(self):
        tried.append(self.url)
        raise ConnectionError('offline')
    monkeypatch.setattr(RequestsDownload, '__iter__', offline)
    dev = 'https://storage.googleapis.com/natural_questions/v1.0/dev/'
    train = 'https://storage.googleapis.com/natural_questions/v1.0-simplified/simplified-nq-train.jsonl.gz'
    with pytest.raises(DownloadError) as raised:
        exported('nci/nq320k/dev', 'queries')  # the dev shards only
    assert tried == [f'{dev}nq-dev-01.jsonl.gz', f'{dev}nq-dev-03.jsonl.gz']
    lines = str(raised.value).splitlines()
    assert lines[0] == '2 files could not be downloaded:'
    assert [line.split(' (')[0] for line in lines[1:]] == [f'- could not download {name} from {dev}{name}'
                                                        for name in ('nq-dev-01.jsonl.gz', 'nq-dev-03.jsonl.gz')]
    assert str(collection / 'nq-dev-01.jsonl.gz') in lines[1] and str(collection / 'nq-dev-03.jsonl.gz') in lines[2]
    tried.clear()
    with pytest.raises(DownloadError) as raised:
        list(ir_datasets.load('nci/nq320k/dev').qrels_iter())  # doc ids: the build, from every source
    assert tried == [train, f'{dev}nq-dev-01.jsonl.gz', f'{dev}nq-dev-03.jsonl.gz']
    assert str(raised.value).startswith('3 files could not be downloaded:')
    assert all(str(collection / Path(url).name) in str(raised.value) for url in tried)


def test_a_malformed_nq_line_is_named(home):
    source = home / 'nci' / 'nq320k' / 'simplified-nq-train.jsonl.gz'
    lines = gzip.decompress(source.read_bytes()).decode().splitlines()
    broken = lines[:2] + ['{"example_id": 1, "question_text": "q"}']
    source.write_bytes(gzip.compress(('\n'.join(broken) + '\n').encode()))
    with pytest.raises(InputError, match="simplified-nq-train.jsonl.gz, line 3: no 'document_text' field"):
        list(ir_datasets.load('nci/nq320k').docs_iter())


# --- evaluation and suites -------------------------------------------------------------------------------

def run_cli(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        status = main(list(args))
    return status, out.getvalue()


def test_evaluate_a_run_against_the_dataset_ids(home, tmp_path):
    run = tmp_path / 'run.txt'
    # NQ dev: 201 finds its doc at 1, 202 at 2, 203 not at all, 204 at 1
    run.write_text('201 Q0 0 1 3 r\n202 Q0 3 1 2 r\n202 Q0 1 2 1 r\n203 Q0 0 1 1 r\n204 Q0 2 1 1 r\n')
    status, out = run_cli('nci/nq320k/dev', str(run), '--suite', 'nci', '--suite', 'nci-paper')
    values = dict(line.split('\t') for line in out.splitlines())
    assert status == 0 and values['R@1'] == values['Success@1'] == '0.5000' and values['RR@100'] == '0.6250'
    # TriviaQA train: tc_1 has docs 1 and 3 relevant and retrieves 3 first: Success@1 = 1 but R@1 = 1/2
    run.write_text('tc_1 Q0 3 1 2 r\ntc_1 Q0 0 2 1 r\ntc_4 Q0 2 1 1 r\n')
    status, out = run_cli('nci/trivia-qa/train', str(run), 'Success@1', 'R@1', '-q')
    per_query = {tuple(line.split('\t')[:2]): line.split('\t')[2] for line in out.splitlines()}
    assert per_query['tc_1', 'Success@1'] == '1.0000' and per_query['tc_1', 'R@1'] == '0.5000'


# --- title normalisers -------------------------------------------------------------------------------------

def reference_basic_tokens(text: str) -> list[str]:
    """BERT's basic tokenisation by the tokenizers library (Rust; an independent implementation)."""
    from tokenizers.normalizers import BertNormalizer
    from tokenizers.pre_tokenizers import BertPreTokenizer
    normalised = BertNormalizer(clean_text=True, handle_chinese_chars=True, strip_accents=None,
                                lowercase=True).normalize_str(text)
    return [token for token, _ in BertPreTokenizer().pre_tokenize_str(normalised)]


#: Characters whose category is the same in Unicode 3.2 and in this Python's Unicode: both sides classify
#: them alike (the tokenizers library's tables are of another Unicode version than Python's, and a
#: character added or reclassified since, e.g. U+1B7D, a punctuation mark since Unicode 14, splits words
#: on one side only).
STABLE_CHARACTERS = st.characters(codec='utf-8', exclude_categories=['Cs', 'Cn']).filter(
    lambda char: unicodedata.ucd_3_2_0.category(char) == unicodedata.category(char))


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=STABLE_CHARACTERS, max_size=40)
       | st.from_regex(r"[A-Za-zÀ-ÿ'’()!?.,\- _\t\n\u3000\u4e00-\u4e10\u200b]{0,30}", fullmatch=True))
def test_basic_tokens_equal_berts_basic_tokenisation(text):
    assert titles.basic_tokens(text) == reference_basic_tokens(text)


def test_basic_normaliser_reproduces_ncis_printed_titles():
    # NCI's TriviaQA notebook prints these titles after lower() with the real tokenizer
    assert titles.basic('Heroes (David Bowie song)') == 'heroes ( david bowie song )'
    assert titles.basic("'Allo 'Allo!") == "' allo'allo!"
    assert titles.basic('’O sole mio') == '’ o sole mio'
    assert titles.basic('Škoda Roomster') == 'skoda roomster'
    assert titles.basic('Crocodile Dundee') == 'crocodile dundee'
    # decode's clean-up: no space before . ? ! , or in n't / 's
    assert titles.basic("Don't Stop Me Now, Please. Yes? No! It's") == "don't stop me now, please. yes? no! it's"


def test_normaliser_choice(monkeypatch):
    monkeypatch.setenv(titles.ENVIRONMENT, 'BASIC')
    assert titles.chosen() == 'basic'
    monkeypatch.setenv(titles.ENVIRONMENT, 'wordpiece')
    with pytest.raises(ValueError, match='IRMEASURES_EXT_NCI_TITLES'):
        titles.chosen()
    monkeypatch.delenv(titles.ENVIRONMENT)
    monkeypatch.setitem(sys.modules, 'transformers', None)  # not installed
    with pytest.warns(UserWarning, match='built-in approximation of bert-base-uncased'):
        assert titles.chosen() == 'basic'


def test_bert_normaliser_runs_the_tokenizer_as_nci_does(monkeypatch):
    calls = []

    class FakeTokenizer:
        def tokenize(self, text):
            return text.lower().split()

        def convert_tokens_to_ids(self, tokens):
            calls.append(tokens)
            return list(range(len(tokens)))

        def decode(self, ids, clean_up_tokenization_spaces):
            assert clean_up_tokenization_spaces is True
            return ' '.join(calls[-1][i] for i in ids)
    monkeypatch.setattr(titles, '_bert_tokenizer', lambda: FakeTokenizer())
    assert titles.normaliser('bert')('A B C') == 'a b c'
    assert titles.normaliser('bert', 2)('A B C') == 'a b'  # TriviaQA's [:512], here 2
    assert titles.normaliser('basic') is titles.basic
