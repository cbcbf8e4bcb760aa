"""Our datasets through ir_datasets' own tools: export and lookup (its command line), its metadata
check, and registration from any import order, on fixture files in the upstream formats."""
import contextlib
import errno
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import ir_datasets
import pytest
from citation_fixtures import N_PAPERS, write_collection
from ir_datasets.util.download import RequestsDownload
from nci_fixtures import NQ_TRAIN, nq_train_record, write_jsonl_gz, write_nq, write_trivia
from quoter_fixtures import TEST_LINES, write_quoter_file

from irmeasures_ext.datasets import register, titles
from irmeasures_ext.datasets.citation_rec import COLLECTIONS
from irmeasures_ext.datasets.metadata import CACHE_NAME, known_counts
from irmeasures_ext.datasets.quoter import LANGUAGES

pytestmark = pytest.mark.filterwarnings('ignore:.*using it as it is')  # fixture files: other checksums

ENTITIES = ('docs', 'queries', 'qrels')


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Any download attempt fails the test."""
    def refuse(self):
        raise AssertionError(f'tried to download {self.url}')
    monkeypatch.setattr(RequestsDownload, '__iter__', refuse)


@pytest.fixture(scope='module')
def fixture_home(tmp_path_factory) -> Path:
    """Every collection in place: QuoteR's three files, Gu et al.'s four releases, ArSyTa, NQ and TriviaQA."""
    home = tmp_path_factory.mktemp('irds_all')
    write_nq(home)
    write_trivia(home)
    for name, language in LANGUAGES.items():
        write_quoter_file(home / 'quoter' / language.file_name, name)
    for name, layout in COLLECTIONS.items():
        write_collection(home, name, arsyta=layout.source == 'arsyta')
    return home


@pytest.fixture
def home(fixture_home, monkeypatch) -> Path:
    monkeypatch.setenv('IR_DATASETS_HOME', str(fixture_home))
    monkeypatch.setenv(titles.ENVIRONMENT, 'basic')
    register()
    return fixture_home


def our_ids() -> list[str]:
    register()
    return sorted(i for i in ir_datasets.registry if i.split('/')[0] in ('quoter', 'citation-rec', 'nci'))


def ir_datasets_command(*argv: str) -> str:
    """ir_datasets' own command line, in this process; its standard output."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            ir_datasets.main(list(argv))
        except SystemExit as exit_:
            assert not exit_.code, out.getvalue()
    return out.getvalue()


@pytest.mark.parametrize('dataset_id', [i for i in our_ids() if i.count('/') >= 1])
def test_export_prints_every_field_of_every_record(home, dataset_id):
    dataset = ir_datasets.load(dataset_id)
    for entity in ENTITIES:
        if not dataset.has(entity):
            continue
        records = list(getattr(dataset, f'{entity}_iter')())
        lines = ir_datasets_command('export', dataset_id, entity, '--format', 'jsonl').splitlines()
        assert [json.loads(line) for line in lines] == [
            {field: list(value) if isinstance(value, tuple) else value for field, value in record._asdict().items()}
            for record in records], (dataset_id, entity)
        if entity != 'qrels':  # (qrels export as TREC lines by default)
            tsv = ir_datasets_command('export', dataset_id, entity, '--format', 'tsv').splitlines()
            assert [line.split('\t')[0] for line in tsv] == [record[0] for record in records]


def test_export_fields_and_tuple_fields(home):
    lines = ir_datasets_command('export', 'quoter/english/test', 'queries', '--format', 'tsv',
                                '--fields', 'query_id', 'masked_text').splitlines()
    first = LANGUAGES['english'].test_start
    assert lines[0] == f'{first}\tbefore {first}[MASK]after {first}'
    docs = ir_datasets_command('export', 'citation-rec/arsyta', 'docs', '--format', 'tsv').splitlines()
    assert docs[7] == 'P7\tTitle 7\tAbstract 7\tcs.CL\tcs.LG'  # a tuple field: one column per element


def test_lookup_by_query_id_and_doc_id(home):
    out = ir_datasets_command('lookup', 'citation-rec/acl-200/test', '--qid', 'C27', 'C25', '--format', 'jsonl')
    assert [json.loads(line)['query_id'] for line in out.splitlines()] == ['C27', 'C25']
    out = ir_datasets_command('lookup', 'quoter/modern-chinese/valid', '--qid',
                              str(LANGUAGES['modern-chinese'].valid_start), '--format', 'jsonl')
    assert json.loads(out)['left_context'] == f'前文 {LANGUAGES["modern-chinese"].valid_start}'
    assert json.loads(ir_datasets_command('lookup', 'citation-rec/arsyta', 'P7', '--format', 'jsonl')) == {
        'doc_id': 'P7', 'title': 'Title 7', 'abstract': 'Abstract 7', 'categories': ['cs.CL', 'cs.LG']}
    assert json.loads(ir_datasets_command('lookup', 'nci/trivia-qa/dev', '3', '--format', 'jsonl'))['title'] == 'Zebra'
    out = ir_datasets_command('lookup', 'nci/nq320k/dev', '--qid', '203', '--format', 'jsonl')
    assert json.loads(out) == {'query_id': '203', 'text': 'how big is new york'}


def test_the_plain_ir_datasets_command_sees_our_datasets(home):
    """`python -m ir_datasets` (the stock command; the installed hook registers ours)."""
    env = {**os.environ, 'IR_DATASETS_HOME': str(home)}
    out = subprocess.run([sys.executable, '-m', 'ir_datasets', 'export', 'citation-rec/acl-200/val', 'queries',
                          '--format', 'jsonl'], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    assert [json.loads(line)['query_id'] for line in out.stdout.splitlines()] == ['C24', 'C23', 'C22', 'C21', 'C20']


def test_metadata_check_of_ir_datasets_passes_on_our_ids(home):
    """ir_datasets' test/metadata.py: every entity a dataset has must have a count in its metadata."""
    (home / 'quoter' / CACHE_NAME).unlink(missing_ok=True)
    for dataset_id in ('nci/nq320k', 'nci/trivia-qa'):
        ir_datasets.load(dataset_id).docs_count()  # builds: metadata() reads NCI's counts from the builds
    for dataset_id in our_ids():
        dataset = ir_datasets.load(dataset_id)
        metadata = dataset.metadata()
        for entity in ENTITIES:
            if dataset.has(entity):
                assert entity in metadata and 'count' in metadata[entity], (dataset_id, entity)
    # Counted from the files where not known offline, once, and kept beside them.
    assert ir_datasets.load('quoter/english/test').metadata()['queries'] == {'count': TEST_LINES}
    cached = json.loads((home / 'quoter' / CACHE_NAME).read_text())
    assert {entity: entry['count'] for entity, entry in cached['quoter/english/test'].items()} == {
        'docs': 4, 'queries': TEST_LINES, 'qrels': TEST_LINES}
    assert ir_datasets.load('citation-rec/refseer/test').metadata() == {
        'docs': {'count': N_PAPERS}, 'queries': {'count': 5}, 'qrels': {'count': 6}}


def test_counts_known_offline_need_no_file(tmp_path, monkeypatch):
    monkeypatch.setenv('IR_DATASETS_HOME', str(tmp_path))
    register()
    assert ir_datasets.load('quoter/english/train').queries_metadata() == {'count': 101171, 'official': True}
    assert ir_datasets.load('citation-rec/acl-200/test').metadata() == {
        'docs': {'count': 19776, 'official': True}, 'queries': {'count': 9585, 'official': True},
        'qrels': {'count': 9585, 'official': True}}
    assert not list(tmp_path.iterdir())  # nothing read, downloaded or written
    assert all(entry['source'] for counts in known_counts().values() for entry in counts.values())


# --- metadata(): never a download or a build; counts kept by the files they were counted from ---------------

def test_metadata_with_no_files_answers_from_shipped_counts_and_leaves_the_rest_unknown(tmp_path, monkeypatch):
    """Offline, with nothing in place: what ships with the package, and ir_datasets' ``{}`` (not known) for the
    rest, never an error (issue 39: metadata() raised MissingFilesError, counts shipped or not)."""
    monkeypatch.setenv('IR_DATASETS_HOME', str(tmp_path))
    monkeypatch.setenv(titles.ENVIRONMENT, 'basic')
    register()
    for dataset_id in our_ids():
        dataset = ir_datasets.load(dataset_id)
        everything = dataset.metadata()
        for entity in ENTITIES:
            if not dataset.has(entity):
                continue
            known = known_counts().get(dataset_id, {}).get(entity)
            want = {} if known is None else {'count': known['count'], 'official': True}
            assert getattr(dataset, f'{entity}_metadata')() == want == everything[entity], (dataset_id, entity)
    assert not list(tmp_path.iterdir())  # nothing downloaded, built or written
    assert ir_datasets.load('nci/nq320k/dev').metadata() == {'docs': {}, 'queries': {'count': 7830, 'official': True},
                                                             'qrels': {'count': 7830, 'official': True}}


def test_metadata_never_builds(tmp_path, monkeypatch):
    write_nq(tmp_path)
    write_trivia(tmp_path)
    monkeypatch.setenv('IR_DATASETS_HOME', str(tmp_path))
    monkeypatch.setenv(titles.ENVIRONMENT, 'basic')
    register()
    for dataset_id in ('nci/nq320k/dev', 'nci/trivia-qa'):
        assert ir_datasets.load(dataset_id).metadata()['docs'] == {}  # (not built: not known)
    assert not list((tmp_path / 'nci' / 'nq320k').glob('*built*'))
    assert not list((tmp_path / 'nci' / 'trivia-qa').glob('*built*'))
    assert ir_datasets.load('nci/nq320k/dev').queries_metadata() == {'count': 7830, 'official': True}  # shipped
    assert ir_datasets.load('nci/nq320k').docs_count() == 5  # builds
    assert ir_datasets.load('nci/nq320k/dev').metadata() == {'docs': {'count': 5},
                                                             'queries': {'count': 7830, 'official': True},
                                                             'qrels': {'count': 7830, 'official': True}}
    assert ir_datasets.load('nci/trivia-qa').docs_count() == 4
    assert ir_datasets.load('nci/trivia-qa/train').metadata() == {'docs': {'count': 4},
                                                                  'queries': {'count': 61888, 'official': True},
                                                                  'qrels': {'count': 4}}


def test_counts_follow_the_files_they_were_counted_from(tmp_path, monkeypatch):
    collection = write_nq(tmp_path)
    write_quoter_file(tmp_path / 'quoter' / LANGUAGES['english'].file_name, 'english')
    monkeypatch.setenv('IR_DATASETS_HOME', str(tmp_path))
    monkeypatch.setenv(titles.ENVIRONMENT, 'basic')
    register()
    assert ir_datasets.load('nci/nq320k').docs_count() == 5
    assert ir_datasets.load('nci/nq320k').docs_metadata() == {'count': 5}
    # Other sources: train holds only 101 (Python); dev adds Cafe society, New York City and Heroes: 4 docs.
    write_jsonl_gz(collection / 'simplified-nq-train.jsonl.gz', [nq_train_record(*NQ_TRAIN[0])])
    assert ir_datasets.load('nci/nq320k').docs_count() == 4  # rebuilt
    assert ir_datasets.load('nci/nq320k').docs_metadata() == {'count': 4}
    test = ir_datasets.load('quoter/english/test')
    assert test.queries_metadata() == {'count': TEST_LINES}
    english = tmp_path / 'quoter' / LANGUAGES['english'].file_name
    with english.open('a', encoding='utf-8') as more:
        more.write('left\tA new quote\tright\n' * 3)
    assert test.queries_metadata() == {'count': TEST_LINES + 3}
    assert test.docs_metadata() == {'count': 5}  # the 4 quotes (lowercased) and the new one
    cached = json.loads((tmp_path / 'quoter' / CACHE_NAME).read_text())
    assert cached['quoter/english/test']['queries'] == {
        'count': TEST_LINES + 3, 'sources': {'english.txt': [english.stat().st_size, english.stat().st_mtime_ns]}}


def test_shipped_counts_are_labelled_official_beside_files_placed_by_hand(home):
    """ACL-200's files here were placed by hand (5 test contexts, not the release's 9,585): metadata() gives the
    official counts, never read from the files, labelled as such; the ones counted from the files carry no label."""
    test = ir_datasets.load('citation-rec/acl-200/test')
    assert test.queries_metadata() == {'count': 9585, 'official': True}
    assert sum(1 for _ in test.queries_iter()) == 5  # what is there
    assert ir_datasets.load('citation-rec/refseer/test').queries_metadata() == {'count': 5}  # counted: no label


def quoter_home_without_counts(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / 'quoter'
    write_quoter_file(folder / LANGUAGES['modern-chinese'].file_name, 'modern-chinese')
    monkeypatch.setenv('IR_DATASETS_HOME', str(tmp_path))
    register()
    return folder


def test_a_full_disk_does_not_fail_metadata_nor_leave_a_temporary_file(tmp_path, monkeypatch):
    folder = quoter_home_without_counts(tmp_path, monkeypatch)

    def full_disk(counts, out, **options):
        out.write('{"quoter/modern-ch')
        out.flush()
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(json, 'dump', full_disk)
    assert ir_datasets.load('quoter/modern-chinese/test').metadata() == {
        'docs': {'count': 4}, 'queries': {'count': TEST_LINES}, 'qrels': {'count': TEST_LINES}}
    assert [path.name for path in folder.iterdir()] == ['modern_chinese.txt']


def test_a_read_only_home_does_not_fail_metadata(tmp_path, monkeypatch):
    folder = quoter_home_without_counts(tmp_path, monkeypatch)
    real_open = os.open

    def read_only(path, flags, *args, **kwargs):  # (chmod does not stop root, who runs the tests)
        if flags & os.O_CREAT and Path(path).parent == folder:
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)
        return real_open(path, flags, *args, **kwargs)
    monkeypatch.setattr(os, 'open', read_only)
    assert ir_datasets.load('quoter/modern-chinese/test').metadata() == {
        'docs': {'count': 4}, 'queries': {'count': TEST_LINES}, 'qrels': {'count': TEST_LINES}}
    assert [path.name for path in folder.iterdir()] == ['modern_chinese.txt']


IMPORT_ORDERS = {
    'datasets function first (the README example)':
        'from irmeasures_ext.datasets import remove_citing_papers\nimport ir_datasets',
    'package, then a dataset module':
        'import irmeasures_ext\nimport irmeasures_ext.datasets.quoter\nimport ir_datasets',
    'a dataset module alone': 'import irmeasures_ext.datasets.citation_rec\nimport ir_datasets',
    'ir_datasets, then the package': 'import ir_datasets\nimport irmeasures_ext',
    'ir_measures, then ir_datasets': 'import ir_measures\nimport irmeasures_ext\nimport ir_datasets',
}


@pytest.mark.parametrize('hook', ['on', 'off'])
@pytest.mark.parametrize('order', IMPORT_ORDERS)
def test_registration_from_any_import_order(tmp_path, order, hook):
    script = IMPORT_ORDERS[order] + ('\nprint(sorted(i for i in ir_datasets.registry if i.startswith(("quoter/", '
                                     '"citation-rec/")))[:2], ir_datasets.load("citation-rec/acl-200/test"))')
    env = {**os.environ, 'IR_DATASETS_HOME': str(tmp_path), 'IRMEASURES_EXT_NO_AUTOLOAD': '1' if hook == 'off' else ''}
    result = subprocess.run([sys.executable, '-W', 'error', '-c', script], capture_output=True, text=True, env=env,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("['citation-rec/acl-200', 'citation-rec/acl-200/test'] Dataset("), result.stdout
    assert result.stderr == ''


def test_pyterrier_topics_carry_no_gold(home):
    import pyterrier as pt
    topics = pt.get_dataset('irds:citation-rec/acl-200/test').get_topics()
    assert list(topics.columns) == ['qid', 'text', 'citing_id']
    topics = pt.get_dataset('irds:citation-rec/arsyta/test').get_topics()
    assert 'ref_id' not in topics.columns and 'refid' not in topics.columns


@pytest.mark.parametrize('dataset_id', [i for i in our_ids() if i.count('/') >= 1])
def test_every_dataset_documents_source_checksums_licence_counts_and_protocol(dataset_id):
    doc = ir_datasets.load(dataset_id).documentation()
    assert {'desc', 'protocol', 'download', 'license', 'counts', 'bibtex'} <= set(doc), dataset_id
    sources = {'quoter': ['e585fab668685c827ee84ba9a77022827250a7f1'],
               'citation-rec': ['1QwQuJsBOGEESFTgl-7wWbqcig7vJNlQ2', 'goyalkaraniit/ArSyTa'],
               'nci': ['storage.googleapis.com/natural_questions', 'nlp.cs.washington.edu/triviaqa']}
    assert any(source in doc['download'] for source in sources[dataset_id.split('/')[0]])
    if dataset_id.count('/') == 2:
        assert doc['split']
