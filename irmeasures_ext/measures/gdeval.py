"""gdeval's measures, ir_measures' own, which our provider also computes: ``ERR@k`` and
``nDCG(dcg='exp-log2')@k``.

Not new measures (ir_measures declares them, and its ``gdeval`` provider answers them by default, running
the TREC Web track's ``gdeval.pl``): declaring them here lets our provider compute them in the same pass as
the others (kernels in ``irmeasures_ext.engine.kernels.gdeval``), exact to the script: labels above its
maximum grade 4 are refused as it refuses them, negative labels gain nothing, ERR's stop probability is
(2^label − 1)/2^4 (real-valued labels too, which the script does not read). The specs are the gdeval
provider's: a cutoff is required, nDCG takes neither ``gains`` nor ``judged_only``.
"""
from ir_measures import measures as irm
from ir_measures.providers.base import NOT_PROVIDED, Any, Choices

from irmeasures_ext.measures.base import also_compute

also_compute(irm._nDCG(cutoff=Any(required=True), dcg=Choices('exp-log2'), gains=Choices(NOT_PROVIDED),
                       judged_only=Choices(False)))
also_compute(irm._ERR(cutoff=Any(required=True)))
