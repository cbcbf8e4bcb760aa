"""The kernels: one function per measure family computing its value for every query of a ranked run.

Importing this package imports each kernel module, whose ``@kernel(NAME)`` functions fill
:data:`KERNELS`. A new kernel module is imported here (a test checks that every declared measure
has a kernel and that no module is left out).
"""
from irmeasures_ext.engine.kernels import (  # noqa: F401
    compat,
    cwl,
    diversity,
    gdeval,
    judged,
    ndcg_z1,
    nerr,
    ntcir_bpref,
    ntcir_br,
    ntcir_cascade,
    ntcir_diversity,
    ntcir_gap,
    ntcir_ndcg,
    q,
    rank_stats,
    trec10,
    trec_eval_rest,
    trec_family,
)
from irmeasures_ext.engine.kernels.common import KERNELS, Kernel, kernel_of

__all__ = ['KERNELS', 'Kernel', 'kernel_of']
