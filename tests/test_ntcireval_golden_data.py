"""The vendored NTCIREVAL golden data is the reference set, byte for byte (SHA256SUMS of the originals)."""
import gzip
import hashlib

import ntcireval_golden


def test_vendored_files_match_the_reference_checksums():
    sums = dict(reversed(line.split()) for line in (ntcireval_golden.FOLDER / 'SHA256SUMS').read_text().splitlines())
    assert len(sums) == 13
    for name, digest in sums.items():
        path = ntcireval_golden.FOLDER / name
        data = path.read_bytes() if path.exists() else gzip.decompress((path.parent / (name + '.gz')).read_bytes())
        assert hashlib.sha256(data).hexdigest() == digest, name


def test_every_row_is_loaded():
    assert sum(map(len, ntcireval_golden.golden().values())) == 233033
    assert sum(map(len, ntcireval_golden.undefined().values())) == 117
