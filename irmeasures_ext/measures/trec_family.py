"""ir_measures' own measures that the seed papers report and our provider also computes.

These are not new measures (ir_measures declares them): declaring them here lets our
provider compute them in the same pass as ours, with trec_eval's semantics and tie rule
(kernels in ``irmeasures_ext.engine.kernels.trec_family``, checked against pytrec_eval).
"""
from ir_measures import measures as irm
from ir_measures.providers.base import NOT_PROVIDED, Any, Choices

from irmeasures_ext.measures.base import also_compute

# judged_only=True: on the condensed list, as trec_eval -J (engine/transforms.py). For nDCG only without
# gains: ir_measures maps the qrels labels by the gains before trec_eval drops the negative ones, so a
# gain for a negative label would keep its docs; that case is left to other providers.
for _spec in (irm._AP(cutoff=Any(), rel=Any(), judged_only=Any()),
              irm._P(cutoff=Any(), rel=Any(), judged_only=Any()),
              irm._R(cutoff=Any(), rel=Any(), judged_only=Any()),
              irm._Success(cutoff=Any(), rel=Any(), judged_only=Any()),
              irm._RR(cutoff=Any(), rel=Any(), judged_only=Any()),
              irm._Rprec(rel=Any(), judged_only=Any()),
              irm._nDCG(cutoff=Any(), dcg=Choices('log2'), gains=Any(), judged_only=Choices(False)),
              irm._nDCG(cutoff=Any(), dcg=Choices('log2'), gains=Choices(NOT_PROVIDED), judged_only=Any()),
              irm._NumRel(rel=Any()),
              irm._NumRet(rel=Any())):
    also_compute(_spec)

# trec_eval 9.0.8's other measures that ir_measures names (kernels in
# ``irmeasures_ext.engine.kernels.trec_eval_rest``): negative qrels labels are trec_eval's "in the pool, not
# judged" marks, which bpref and infAP skip; judged_only as trec_eval -J where ir_measures' spec has it.
for _other in (irm._Bpref(rel=Any()),
               irm._infAP(rel=Any()),
               irm._IPrec(recall=Any(), rel=Any(), judged_only=Any()),
               irm._NumQ(),
               irm._SetP(rel=Any(), relative=Any(), judged_only=Any()),
               irm._SetR(rel=Any()),
               irm._SetF(rel=Any(), beta=Any(), judged_only=Any()),
               irm._SetAP(rel=Any(), judged_only=Any())):
    also_compute(_other)
