"""The measures this package declares: each module declares measures with ``base.declare`` (ours) or
``base.also_compute`` (ir_measures' own that our provider also computes). Importing this package
imports them all, so registers our measures in ``ir_measures.measures.registry``; it imports nothing
but ir_measures. A new declaration module is imported here (a test checks that none is left out).
"""
from irmeasures_ext.measures import (  # noqa: F401  (ir_measures' measures our provider computes)
    compat,
    cwl_family,
    diversity,
    gdeval,
    judged,
    trec_family,
)
from irmeasures_ext.measures.base import PROVIDER_SPECS, ExtMeasure
from irmeasures_ext.measures.ndcg_z1 import nDCG_Z1
from irmeasures_ext.measures.nerr import nERR
from irmeasures_ext.measures.ntcir_bpref import (
    bpref_N,
    bpref_NTCIR,
    bpref_R,
    bpref_relative,
    rpref_N,
    rpref_relative,
    rpref_relative2,
)
from irmeasures_ext.measures.ntcir_br import EBR, NCU, O_measure, P_measure, P_plus
from irmeasures_ext.measures.ntcir_cascade import ERR_NTCIR, RBP_NTCIR, iRBU
from irmeasures_ext.measures.ntcir_diversity import (
    D_AP,
    D_EBR,
    D_ERR,
    D_GAP,
    D_NCU,
    D_P,
    D_Q,
    D_RBP,
    D_RR,
    DIN_AP,
    DIN_EBR,
    DIN_ERR,
    DIN_NCU,
    DIN_P,
    DIN_Q,
    DIN_RBP,
    DIN_RR,
    IA_EBR,
    IA_ERR,
    IA_Q,
    IA_RBP,
    D_Hit,
    D_nDCG,
    D_nDCG_JK,
    D_nERR,
    D_O_measure,
    D_P_measure,
    D_P_plus,
    D_sharp_EBR,
    D_sharp_ERR,
    D_sharp_nDCG,
    D_sharp_Q,
    D_sharp_RBP,
    DIN_Hit,
    DIN_nDCG,
    DIN_nDCG_JK,
    DIN_nERR,
    DIN_O_measure,
    DIN_P_measure,
    DIN_P_plus,
    DIN_sharp_nDCG,
    DIN_sharp_Q,
    I_rec,
    I_rec_n,
    IA_MSnDCG,
    IA_nERR,
    PplusQ,
    PplusQ_sharp,
    SUMp,
)
from irmeasures_ext.measures.ntcir_gap import GAP
from irmeasures_ext.measures.ntcir_ndcg import MSnDCG, nDCG_JK
from irmeasures_ext.measures.q import Q
from irmeasures_ext.measures.rank_stats import MeanRank, MedianRank, RankVariance
from irmeasures_ext.measures.trec10 import rbp, rbp_resid, unj
from irmeasures_ext.measures.trec_eval_rest import (
    G,
    Rndcg,
    Rprec_mult,
    binG,
    eleven_pt_avg,
    gm_bpref,
    gm_map,
    ndcg_rel,
    num_nonrel_judged_ret,
    relative_P,
    utility,
)

#: Our own measures by NAME (ir_measures' registry holds them under the same names).
DECLARED: dict[str, ExtMeasure] = {spec.NAME: spec for spec in PROVIDER_SPECS if isinstance(spec, ExtMeasure)}

__all__ = ['DECLARED', 'PROVIDER_SPECS', 'ExtMeasure', 'MSnDCG', 'MeanRank', 'MedianRank', 'Q', 'RankVariance',
           'nDCG_JK', 'nDCG_Z1', 'nERR', 'ERR_NTCIR', 'RBP_NTCIR', 'iRBU', 'GAP',
           'bpref_NTCIR', 'bpref_R', 'bpref_N', 'bpref_relative', 'rpref_N', 'rpref_relative', 'rpref_relative2',
           'O_measure', 'P_measure', 'P_plus', 'NCU', 'EBR',
           'rbp', 'rbp_resid', 'unj',
           'gm_map', 'gm_bpref', 'Rndcg', 'eleven_pt_avg', 'binG', 'G', 'utility', 'Rprec_mult', 'ndcg_rel',
           'relative_P', 'num_nonrel_judged_ret',
           'I_rec', 'D_nDCG', 'D_Q', 'D_nERR', 'D_sharp_nDCG', 'D_sharp_Q', 'DIN_nDCG', 'DIN_Q', 'DIN_sharp_nDCG',
           'DIN_sharp_Q', 'IA_MSnDCG', 'IA_nERR', 'IA_Q', 'PplusQ', 'PplusQ_sharp', 'D_ERR', 'D_RBP', 'D_EBR',
           'D_AP', 'D_P', 'D_Hit', 'D_nDCG_JK', 'D_sharp_ERR', 'D_sharp_RBP', 'D_sharp_EBR', 'IA_ERR',
           'IA_RBP', 'IA_EBR', 'I_rec_n', 'SUMp', 'D_RR', 'D_O_measure', 'D_P_measure', 'D_P_plus', 'D_NCU', 'D_GAP',
           'DIN_AP', 'DIN_nERR', 'DIN_ERR', 'DIN_RBP', 'DIN_EBR', 'DIN_P', 'DIN_Hit', 'DIN_nDCG_JK', 'DIN_RR',
           'DIN_O_measure', 'DIN_P_measure', 'DIN_P_plus', 'DIN_NCU']
