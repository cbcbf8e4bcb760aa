"""The vendored reference data are the files tests/data/README.md describes, byte for byte."""
import hashlib
import re

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
