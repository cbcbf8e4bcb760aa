"""Files written for the user: checked before any work (:func:`check_target`), then written into a new file beside
their path and renamed onto it once whole (:func:`written_beside`), so that any failure (a full disk, an interrupt, an
error in what is written) leaves the path as it was."""
from __future__ import annotations

import contextlib
import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO

#: The bytes of a file's name kept in the name of the file written beside it (which adds 18: within the 255 bytes of a
#: name on every common file system).
NAME_BYTES = 200


def check_target(path: Path, overwrite: bool, error: Callable[[str], Exception], what: str, replace: str) -> None:
    """``error`` unless ``what`` can be written at ``path``: not a folder, not a file (or a symbolic link, even to
    nothing) already unless ``overwrite`` (``replace`` says how to ask for it), in a folder that exists and can be
    written into, a name the file system takes."""
    with os_errors_as(error, path, what):
        if path.is_dir():
            raise error(f'{path}: is a folder; give a file name')
        if os.path.lexists(path) and not overwrite:
            raise error(f'{path}: exists; give another file name, or replace it with {replace}')
        folder = path.parent
        if not folder.is_dir():
            raise error(f'{path}: {folder} is not a folder' if folder.exists() else f'{path}: no such folder {folder}')
        if not os.access(folder, os.W_OK | os.X_OK):
            raise error(f'{path}: cannot write into the folder {folder} (no permission, or a read-only file system)')


@contextlib.contextmanager
def written_beside(path: Path, check: Callable[[], object], error: Callable[[str], Exception],
                   what: str) -> Iterator[BinaryIO]:
    """A new file beside ``path`` (hidden, named after it) to write into, renamed onto ``path`` when the block ends
    without an error, its bytes on disk, after ``check()`` (which raises to leave ``path`` as it is). On any failure the
    new file is removed and ``path`` is as it was; an OSError, of the block (which writes the file) or of the file's
    opening, syncing or renaming, is raised as ``error`` (:func:`os_errors_as`)."""
    name = os.fsdecode(os.fsencode(path.name)[:NAME_BYTES])  # (any bytes: a cut character is kept as its bytes)
    temporary = path.with_name(f'.{name}.{uuid.uuid4().hex[:12]}.tmp')
    with os_errors_as(error, path, what):
        file = open(temporary, 'xb')  # noqa: SIM115  (before the try: a file that was there is not ours to remove)
        try:
            with file:
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
    ``'{path}: cannot write {what}: {reason}; nothing was written there'`` (the OSError its cause)."""
    try:
        yield
    except OSError as failure:
        raise error(f'{path}: cannot write {what}: {failure.strerror or failure}; nothing was written '
                    'there') from failure
