"""ir_measures' ``Judged`` (judgment rate), which our provider also computes.

Not a new measure (ir_measures declares it, and its ``judged`` provider answers it by default):
declaring it here lets our provider compute it in the same pass as the others, with trec_eval's tie
rule (kernel in ``irmeasures_ext.engine.kernels.judged``). ``Judged@k`` is the fraction of the top
min(k, n) retrieved docs that have a qrels entry (any label, negative ones too); ``Judged`` without a
cutoff, of all n retrieved docs.
"""
from ir_measures import measures as irm
from ir_measures.providers.base import Any

from irmeasures_ext.measures.base import also_compute

also_compute(irm._Judged(cutoff=Any()))
