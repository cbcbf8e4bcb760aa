"""ir_measures' C/W/L measures (from cwl_eval) and trectools' RBP, which our provider also computes.

These are ir_measures' own measures: declaring them here lets our provider compute them in the same pass as
the others, each exactly as the tool ir_measures takes it from (kernels in
``irmeasures_ext.engine.kernels.cwl``). The specs are those of ir_measures' providers: ``RBP`` with ``rel``
and without a cutoff is cwl_eval's (binary gains), ``RBP`` without ``rel`` trectools' (the labels as gains,
any cutoff); ``RBP(rel=...)@k`` is neither tool's, and not ours either.
"""
from ir_measures import measures as irm
from ir_measures.providers.base import NOT_PROVIDED, Any, Choices

from irmeasures_ext.measures.base import also_compute

for _spec in (irm._RBP(cutoff=Choices(NOT_PROVIDED), rel=Any(required=True), p=Any()),
              irm._RBP(cutoff=Any(), rel=Choices(NOT_PROVIDED), p=Any()),
              irm._BPM(cutoff=Any(), T=Any(), min_rel=Any(), max_rel=Any(required=True)),
              irm._SDCG(cutoff=Any(required=True), dcg=Choices('log2'), min_rel=Any(), max_rel=Any(required=True)),
              irm._NERR8(cutoff=Any(required=True), min_rel=Any(), max_rel=Any(required=True)),
              irm._NERR9(cutoff=Any(required=True), min_rel=Any(), max_rel=Any(required=True)),
              irm._NERR10(p=Any(), min_rel=Any(), max_rel=Any(required=True)),
              irm._NERR11(T=Any(), min_rel=Any(), max_rel=Any(required=True)),
              irm._INST(T=Any(), min_rel=Any(), max_rel=Any(required=True)),
              irm._INSQ(T=Any(), min_rel=Any(), max_rel=Any(required=True))):
    also_compute(_spec)
