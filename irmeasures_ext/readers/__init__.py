"""Inputs as Arrow tables: TREC run and qrels files (:mod:`.trec`), Parquet and Arrow IPC files
(:mod:`.columnar`) and every other form ir_measures accepts (:mod:`.inputs`), with the fixed columns
of :mod:`.schemas`."""

#: The formats an input file may be in (the command's ``--format``), light to import.
FORMATS = ('trec', 'parquet', 'arrow')
