"""Benchmark suites: the measures each seed paper reports, to reproduce its table in one call.

    from irmeasures_ext.suites import QUOTER
    ir_measures.calc_aggregate(QUOTER, qrels, run)

On the command line: ``irmeasures-ext QRELS RUN --suite quoter``.
"""
from ir_measures import measures as irm
from ir_measures.measures import Measure

from irmeasures_ext.measures import MeanRank, MedianRank, nDCG_Z1

#: QuoteR (Qi et al., ACL 2022): MRR, NDCG@5 (Z=1), Recall@1/10/100 (= Success@k), median and mean rank.
QUOTER: list[Measure] = [irm.RR, nDCG_Z1 @ 5, irm.Success @ 1, irm.Success @ 10, irm.Success @ 100, MedianRank,
                         MeanRank]

#: NCI (Wang et al., "A Neural Corpus Indexer for Document Retrieval", NeurIPS 2022): Recall@1/10/100,
#: MRR@100 and R-precision.
NCI: list[Measure] = [irm.R @ 1, irm.R @ 10, irm.R @ 100, irm.RR @ 100, irm.Rprec]

#: What NCI's own scripts compute under the paper's names (main_metrics.py, ensemble notebooks): "recall@N"
#: is a hit rate, Success@N (= R@N only with one relevant doc per query, as on NQ320k), MRR@100 is RR@100,
#: and TriviaQA's "R-Precision" cell is the same hit rate (at 1). The cutoffs are those main.py evaluates
#: (``--recall_num`` 1, 5, 10, 20, 50, 100); the paper reports NQ320k's Success@1/10/100 and RR@100,
#: TriviaQA's Success@5/20/100 and Success@1.
NCI_PAPER: list[Measure] = [*(irm.Success @ k for k in (1, 5, 10, 20, 50, 100)), irm.RR @ 100]

#: Local citation recommendation (Gu et al., 2022; SymTax, 2024): MRR, Recall@k and nDCG@k.
CITATION: list[Measure] = [irm.RR, *(irm.R @ k for k in (5, 10, 20, 50, 300)),
                           *(irm.nDCG @ k for k in (5, 10, 20, 50, 300))]

#: Suites by the name the command line uses (``--suite NAME``).
SUITES: dict[str, list[Measure]] = {'quoter': QUOTER, 'nci': NCI, 'nci-paper': NCI_PAPER, 'citation': CITATION}
