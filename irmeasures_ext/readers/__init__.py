"""Inputs as Arrow tables: TREC run and qrels files (:mod:`.trec`) and every other form ir_measures
accepts (:mod:`.inputs`), with the fixed columns of :mod:`.schemas`."""
