"""ir_measures' novelty and diversity measures (TREC ndeval's), which our provider also computes.

Not new measures (ir_measures declares them, and its ``pyndeval`` provider answers them by default): declaring
them here lets our provider compute them in the same pass as the others, from qrels with the intent (subtopic)
of each judgment (a TREC file's second field, ir_measures' ``iteration``), with no cutoff limit and with our
tie policies (kernels and definitions in ``irmeasures_ext.engine.kernels.diversity``). The measures that take
a cutoff need one (ndeval computes them at a cutoff).
"""
from ir_measures import measures as irm
from ir_measures.providers.base import Any

from irmeasures_ext.measures.base import also_compute

for _spec in (irm._alpha_DCG(cutoff=Any(), alpha=Any(), rel=Any(), judged_only=Any()),
              irm._alpha_nDCG(cutoff=Any(), alpha=Any(), rel=Any(), judged_only=Any()),
              irm._ERR_IA(cutoff=Any(), rel=Any(), judged_only=Any()),
              irm._nERR_IA(cutoff=Any(), rel=Any(), judged_only=Any()),
              irm._NRBP(alpha=Any(), beta=Any(), rel=Any()),
              irm._nNRBP(alpha=Any(), beta=Any(), rel=Any()),
              irm._AP_IA(rel=Any(), judged_only=Any()),
              irm._P_IA(cutoff=Any(), rel=Any(), judged_only=Any()),
              irm._StRecall(cutoff=Any(), rel=Any())):
    also_compute(_spec)
