"""Files written for the user: into a new file beside their path, renamed onto it once whole, so that any failure (a
full disk, an interrupt, an error in what is written) leaves the path as it was."""
from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

#: The bytes of a file's name kept in the name of the file written beside it (which adds 19: within the 255 bytes of a
#: name on every common file system).
NAME_BYTES = 200


@contextlib.contextmanager
def written_beside(path: Path, check: Callable[[], object], error: Callable[[str], Exception],
                   what: str) -> Iterator[BinaryIO]:
    """A new file beside ``path`` (hidden, named after it) to write into, renamed onto ``path`` when the block ends
    without an error, its bytes on disk, after ``check()`` (which raises to leave ``path`` as it is). On any failure the
    new file is removed and ``path`` is as it was; an OSError (opening, writing, renaming) is raised as ``error``
    (:func:`os_errors_as`)."""
    name = path.name.encode()[:NAME_BYTES].decode(errors='ignore')
    temporary = path.with_name(f'.{name}.{uuid.uuid4().hex[:12]}.tmp')
    with os_errors_as(error, path, what):
        try:
            with open(temporary, 'xb') as file:
                yield file
                file.flush()
                os.fsync(file.fileno())
            check()
            os.replace(temporary, path)
        except BaseException:
            temporary.unlink(missing_ok=True)
            raise


@contextlib.contextmanager
def os_errors_as(error: Callable[[str], Exception], path: Path, what: str) -> Iterator[None]:
    """An OSError of the block (a name too long, no permission, a full disk) raised as ``error`` of
    ``'{path}: cannot write {what}: {reason}; nothing was written there'``."""
    try:
        yield
    except OSError as failure:
        raise error(f'{path}: cannot write {what}: {failure.strerror or failure}; nothing was written '
                    'there') from None
