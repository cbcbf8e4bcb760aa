"""QuoteR datasets read from synthetic files in the upstream format, under a temporary IR_DATASETS_HOME."""
import hashlib
import json
from pathlib import Path

import ir_datasets
import ir_measures
import pytest
from ir_datasets.formats import GenericDoc, GenericQrel
from ir_datasets.util.download import RequestsDownload
from quoter_fixtures import QUOTES, TEST_LINES, n_lines, sample, write_quoter_file

from irmeasures_ext.datasets import register
from irmeasures_ext.datasets.common import DownloadError
from irmeasures_ext.datasets.quoter import LANGUAGES, QuoteRQuery
from irmeasures_ext.errors import InputError

# The fixture files stand in for the real ones: their checksums differ from the pinned ones by design.
pytestmark = pytest.mark.filterwarnings('ignore:.*using it as it is')


def expected(name: str, index: int) -> tuple[str, str, str]:
    """What the official scripts read from a line: lowercased for English."""
    return tuple(field.lower() for field in sample(name, index)) if name == 'english' else sample(name, index)


def expected_pool(name: str) -> list[str]:
    return sorted({expected(name, i)[1] for i in range(len(QUOTES[name]))})


@pytest.fixture(scope='session')
def quoter_home(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp('irds_home')
    for name, language in LANGUAGES.items():
        write_quoter_file(home / 'quoter' / language.file_name, name)
    return home


@pytest.fixture(autouse=True)
def no_network(monkeypatch):
    """Any download attempt fails the test; also registers the datasets."""
    def refuse(self):
        raise AssertionError(f'tried to download {self.url}')
    monkeypatch.setattr(RequestsDownload, '__iter__', refuse)
    register()


@pytest.fixture
def home(quoter_home, monkeypatch) -> Path:
    monkeypatch.setenv('IR_DATASETS_HOME', str(quoter_home))
    return quoter_home


@pytest.mark.parametrize('name', LANGUAGES)
def test_split_sizes_follow_the_official_boundaries(home, name):
    language = LANGUAGES[name]
    sizes = {'train': language.valid_start, 'valid': language.test_start - language.valid_start, 'test': TEST_LINES}
    for split, size in sizes.items():
        ds = ir_datasets.load(f'quoter/{name}/{split}')
        assert sum(1 for _ in ds.queries_iter()) == size
        assert sum(1 for _ in ds.qrels_iter()) == size
    assert ir_datasets.load(f'quoter/{name}').docs_count() == len(expected_pool(name))


@pytest.mark.parametrize('name', LANGUAGES)
def test_first_and_last_records_of_each_split(home, name):
    pool = expected_pool(name)
    for split, rows in LANGUAGES[name].splits().items():
        ds = ir_datasets.load(f'quoter/{name}/{split}')
        queries, qrels = list(ds.queries_iter()), list(ds.qrels_iter())
        for position, index in ((0, rows.start), (-1, (rows.stop or n_lines(name)) - 1)):
            left, quote, right = expected(name, index)
            assert queries[position] == QuoteRQuery(str(index), f'{left} {right}', left, right, f'{left}[MASK]{right}')
            assert qrels[position] == GenericQrel(str(index), str(pool.index(quote)), 1)


def test_lines_are_stripped_and_english_lowercased(home):
    query = next(ir_datasets.load('quoter/english/train').queries_iter())
    assert query == QuoteRQuery('0', 'before 0 after 0', 'before 0', 'after 0', 'before 0[MASK]after 0')
    assert query.default_text() == 'before 0 after 0'
    # 'Carpe diem' and 'carpe Diem' are one quote once lowercased
    assert [doc.text for doc in ir_datasets.load('quoter/english').docs_iter()] == [
        'a penny saved is a penny earned', 'carpe diem', 'to be, or not to be', 'zeal']


def test_doc_ids_are_indices_in_the_sorted_pool_and_chinese_round_trips(home):
    ds = ir_datasets.load('quoter/modern-chinese/test')
    docs = list(ds.docs_iter())
    assert docs == [GenericDoc('0', 'ABC 中文'), GenericDoc('1', '书山有路勤为径'),
                    GenericDoc('2', '天下兴亡，匹夫有责'), GenericDoc('3', '学而不思则罔')]
    assert ds.docs_store().get('2').text == '天下兴亡，匹夫有责'
    assert ds.docs_lang() == 'zh' and ds.queries_lang() == 'zh'
    assert ir_datasets.load('quoter/classical-chinese').docs_lang() == 'lzh'
    first = next(ds.queries_iter())
    assert (first.left_context, first.right_context) == (f'前文 {LANGUAGES["modern-chinese"].test_start}',
                                                          f'After {LANGUAGES["modern-chinese"].test_start}')


def test_qrels_feed_ir_measures(home):
    ds = ir_datasets.load('quoter/classical-chinese/test')
    qrels = list(ds.qrels_iter())
    other = {qrel.doc_id: str((int(qrel.doc_id) + 1) % 3) for qrel in qrels}
    run = []  # gold first for even line indices, second for odd ones
    for qrel in qrels:
        gold_score = 2.0 if int(qrel.query_id) % 2 == 0 else 0.5
        run += [ir_measures.ScoredDoc(qrel.query_id, qrel.doc_id, gold_score),
                ir_measures.ScoredDoc(qrel.query_id, other[qrel.doc_id], 1.0)]
    n_even = sum(int(qrel.query_id) % 2 == 0 for qrel in qrels)
    expected_rr = (n_even + 0.5 * (len(qrels) - n_even)) / len(qrels)
    result = ir_measures.calc_aggregate([ir_measures.RR @ 100], ds.qrels_iter(), run)
    assert result[ir_measures.RR @ 100] == pytest.approx(expected_rr, abs=1e-12)


PINNED = 'https://raw.githubusercontent.com/thunlp/QuoteR/e585fab668685c827ee84ba9a77022827250a7f1/data/'


def serve(monkeypatch, payload: bytes | Exception) -> list[str]:
    """Make ir_datasets' downloads answer ``payload`` (or raise it); returns the URLs asked for."""
    urls = []

    def answer(self):
        urls.append(self.url)
        if isinstance(payload, Exception):
            raise payload
        yield payload[:10]
        yield payload[10:]
    monkeypatch.setattr(RequestsDownload, '__iter__', answer)
    return urls


def pin(monkeypatch, name: str, payload: bytes) -> None:
    """Pin the git blob SHA-1 of ``payload`` for ``name`` (the fixture stands in for the real file)."""
    from irmeasures_ext.datasets import common
    entries = json.loads(common.package_data('downloads.json'))
    entries['quoter'][name]['git_blob_sha1'] = hashlib.sha1(b'blob %d\0' % len(payload) + payload).hexdigest()
    monkeypatch.setattr(common, 'package_data', lambda file: json.dumps(entries).encode())


def test_missing_file_is_downloaded_from_the_pinned_commit_and_checked(quoter_home, tmp_path, monkeypatch):
    payload = (quoter_home / 'quoter' / 'modern_chinese.txt').read_bytes()
    urls = serve(monkeypatch, payload)
    pin(monkeypatch, 'modern-chinese', payload)
    monkeypatch.setenv('IR_DATASETS_HOME', str(tmp_path))
    assert ir_datasets.load('quoter/modern-chinese').docs_count() == len(QUOTES['modern-chinese'])
    assert urls == [PINNED + 'modern_chinese.txt']
    assert (tmp_path / 'quoter' / 'modern_chinese.txt').read_bytes() == payload
    assert list((tmp_path / 'quoter').iterdir()) == [tmp_path / 'quoter' / 'modern_chinese.txt']


def test_a_download_that_does_not_match_is_an_error_and_leaves_nothing(tmp_path, monkeypatch):
    serve(monkeypatch, b'<html>404: Not Found</html>')
    monkeypatch.setenv('IR_DATASETS_HOME', str(tmp_path))
    with pytest.raises(DownloadError) as raised:
        ir_datasets.load('quoter/english').docs_count()
    assert str(raised.value).startswith(f'english.txt downloaded from {PINNED}english.txt has git blob SHA-1 ')
    assert 'not the pinned 99d6afce31ac515abbed7f66fdc2a04496152d87' in str(raised.value)
    assert not (tmp_path / 'quoter').exists() or not list((tmp_path / 'quoter').iterdir())


def test_offline_is_one_clear_message_naming_url_and_target(tmp_path, monkeypatch):
    import requests
    serve(monkeypatch, requests.exceptions.ConnectionError('Max retries exceeded with url: /thunlp/QuoteR/...'))
    monkeypatch.setenv('IR_DATASETS_HOME', str(tmp_path))
    with pytest.raises(DownloadError) as raised:
        ir_datasets.load('quoter/classical-chinese/test').qrels_iter()
        list(ir_datasets.load('quoter/classical-chinese/test').qrels_iter())
    target = tmp_path / 'quoter' / 'ancient_chinese.txt'
    assert str(raised.value) == (f'could not download ancient_chinese.txt from {PINNED}ancient_chinese.txt '
                                 f'(ConnectionError); download {PINNED}ancient_chinese.txt yourself and place it at '
                                 f'{target} (ir_datasets reads $IR_DATASETS_HOME, default ~/.ir_datasets)')
    assert raised.value.__cause__ is None and raised.value.__suppress_context__


def test_a_file_placed_by_hand_is_used_as_it_is_with_a_warning(home):
    from irmeasures_ext.datasets import common
    common._warn_if_modified.cache_clear()  # (warned once per file version, maybe by an earlier test)
    with pytest.warns(UserWarning, match=r'english\.txt has git blob SHA-1 .* using it as it is') as warned:
        assert ir_datasets.load('quoter/english').docs_count() == 4
    assert [warning.filename for warning in warned] == [__file__]  # the user's call, not a frame of a library


def test_line_with_two_fields_is_an_input_error(tmp_path, monkeypatch):
    monkeypatch.setenv('IR_DATASETS_HOME', str(tmp_path))
    path = tmp_path / 'quoter' / 'english.txt'
    path.parent.mkdir()
    path.write_text('left\tquote\tright\nleft\tquote\tright\nleft only\tquote\n', encoding='utf-8')
    with pytest.raises(InputError, match=r'english\.txt, line 3: expected 3 tab-separated fields.*found 2'):
        ir_datasets.load('quoter/english').docs_count()


def test_file_too_short_for_the_splits_is_an_input_error(tmp_path, monkeypatch):
    monkeypatch.setenv('IR_DATASETS_HOME', str(tmp_path))
    path = tmp_path / 'quoter' / 'ancient_chinese.txt'
    path.parent.mkdir()
    path.write_text('左\t句\t右\n' * 10, encoding='utf-8')
    with pytest.raises(InputError, match=r'ancient_chinese\.txt has 10 lines; the official test split starts'):
        list(ir_datasets.load('quoter/classical-chinese/test').queries_iter())


def test_register_twice_is_harmless():
    register()
    register()
    assert {f'quoter/{name}/{split}' for name in LANGUAGES for split in ('train', 'valid', 'test')} <= set(
        ir_datasets.registry)


def test_documentation_carries_the_protocol_notes():
    doc = ir_datasets.load('quoter/english/valid').documentation()
    assert doc['split'] == 'valid split: lines [101171:113942] of english.txt'
    assert 'batch of 64' in doc['protocol'] and "gold quote's favour" in doc['protocol']
    assert 'qi2022quoter' in doc['bibtex'] and doc['language'] == 'en'
