"""The vendored reference data are the files tests/data/README.md describes, byte for byte; NTCIREVAL's golden
data (tests/data/ntcireval_full) is the reference set, byte for byte (SHA256SUMS of the originals), every row read.
"""
import gzip
import hashlib
import re

import ntcireval_golden
from conftest import DATA


def listed_checksums() -> dict[str, str]:
    readme = (DATA / 'README.md').read_text(encoding='utf-8')
    return {path: digest for digest, path in re.findall(r'^([0-9a-f]{64})  (\S+)$', readme, re.MULTILINE)}


def test_every_reference_file_matches_its_listed_checksum():
    listed = listed_checksums()
    on_disk = {str(path.relative_to(DATA)) for path in DATA.rglob('*') if path.is_file() and path != DATA / 'README.md'}
    assert on_disk == set(listed)  # every file listed, every listed file present
    for path, digest in listed.items():
        assert hashlib.sha256((DATA / path).read_bytes()).hexdigest() == digest, path


def test_the_ntcireval_golden_files_are_the_originals_byte_for_byte():
    sums = dict(reversed(line.split()) for line in (ntcireval_golden.FOLDER / 'SHA256SUMS').read_text().splitlines())
    assert len(sums) == 13
    for name, digest in sums.items():
        path = ntcireval_golden.FOLDER / name
        data = path.read_bytes() if path.exists() else gzip.decompress((path.parent / (name + '.gz')).read_bytes())
        assert hashlib.sha256(data).hexdigest() == digest, name


def test_every_ntcireval_golden_row_is_loaded():
    assert sum(map(len, ntcireval_golden.golden().values())) == 233033
    assert sum(map(len, ntcireval_golden.undefined().values())) == 117
