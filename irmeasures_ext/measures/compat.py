"""ir_measures' ``Compat`` (Clarke, Vtyurina & Smucker's compatibility), which our provider also computes.

Not a new measure (ir_measures declares it, and its ``compat`` provider answers it by default): declaring
it here lets our provider compute it in the same pass as the others, with trec_eval's tie rule (kernel in
``irmeasures_ext.engine.kernels.compat``).
"""
from ir_measures import measures as irm
from ir_measures.providers.base import Any

from irmeasures_ext.measures.base import also_compute

also_compute(irm._Compat(p=Any(), normalize=Any()))
