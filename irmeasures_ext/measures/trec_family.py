"""ir_measures' own measures that the seed papers report and our provider also computes.

These are not new measures (ir_measures declares them): declaring them here lets our
provider compute them in the same pass as ours, with trec_eval's semantics and tie rule
(kernels in ``irmeasures_ext.engine.kernels.trec_family``, checked against pytrec_eval).
"""
from ir_measures import measures as irm
from ir_measures.providers.base import Any, Choices

from irmeasures_ext.measures.base import also_compute

_ALL_DOCS = Choices(False)  # judged_only=True is left to other providers

for _spec in (irm._AP(cutoff=Any(), rel=Any(), judged_only=_ALL_DOCS),
              irm._P(cutoff=Any(), rel=Any(), judged_only=_ALL_DOCS),
              irm._R(cutoff=Any(), rel=Any(), judged_only=_ALL_DOCS),
              irm._Success(cutoff=Any(), rel=Any(), judged_only=_ALL_DOCS),
              irm._RR(cutoff=Any(), rel=Any(), judged_only=_ALL_DOCS),
              irm._Rprec(rel=Any(), judged_only=_ALL_DOCS),
              irm._nDCG(cutoff=Any(), dcg=Choices('log2'), gains=Any(), judged_only=_ALL_DOCS),
              irm._NumRel(rel=Any()),
              irm._NumRet(rel=Any())):
    also_compute(_spec)
