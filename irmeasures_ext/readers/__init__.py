"""Inputs as Arrow tables with the fixed columns of :mod:`.schemas`, each read through a
:class:`~.source.Source`: TREC run and qrels files (:mod:`.trec`), Parquet and Arrow IPC files
(:mod:`.columnar`) and every other form ir_measures accepts (:mod:`.inputs`); whether a run is read
whole or in pieces is decided in :mod:`.pieces`. A new file format is a module with an
``open_path(path, format_name, name)`` returning its Source, and one line of :data:`FORMATS` (docs/development.md,
"Adding a format")."""
from __future__ import annotations

from typing import NamedTuple


class Format(NamedTuple):
    """A file format: the module that reads it (its ``open_path``), the suffixes that name it (a folder holding
    files of those suffixes, at any depth, is in it too), and how messages name a file of it."""

    module: str
    suffixes: tuple[str, ...]
    description: str


#: The formats an input file may be in (the command's ``--format``), light to import; the first is the default.
FORMATS = {
    'trec': Format('irmeasures_ext.readers.trec', (), 'a TREC file'),
    'parquet': Format('irmeasures_ext.readers.columnar', ('.parquet',), 'a Parquet file'),
    'arrow': Format('irmeasures_ext.readers.columnar', ('.arrow', '.feather', '.ipc'), 'an Arrow IPC (Feather) file'),
}
