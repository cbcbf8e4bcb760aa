"""This package's measures (registered in ``ir_measures.measures.registry`` on import) and kernels."""
from irmeasures_ext.measures import trec_family
from irmeasures_ext.measures.base import KERNELS, ExtMeasure, Kernel
from irmeasures_ext.measures.ndcg_z1 import nDCG_Z1
from irmeasures_ext.measures.nerr import nERR
from irmeasures_ext.measures.ntcir_ndcg import MSnDCG, nDCG_JK
from irmeasures_ext.measures.q import Q
from irmeasures_ext.measures.rank_stats import MeanRank, MedianAgg, MedianRank

__all__ = ['KERNELS', 'ExtMeasure', 'Kernel', 'Q', 'nDCG_Z1', 'MeanRank', 'MedianRank', 'MedianAgg', 'nERR', 'MSnDCG',
           'nDCG_JK', 'trec_family']
