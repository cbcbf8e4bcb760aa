"""Reports beside the evaluation, each serving one subcommand: the papers' own evaluation scripts
(:mod:`.protocols`, ``--protocol``) and how far ties move each measure (:mod:`.tie_report`,
``irmeasures-ext ties``). They use the engine; the engine does not know them."""
from typing import NamedTuple


class Protocol(NamedTuple):
    """A paper's protocol (``--protocol NAME``): its ``function`` in :mod:`.protocols` (which loads numpy and pyarrow;
    this registry does not, so the command's options are known before they load), whether it ``needs_citing`` ids,
    and what it ``prints``."""

    function: str
    needs_citing: bool
    prints: str


#: The protocols by name, computed by :func:`.protocols.compute`.
PROTOCOLS: dict[str, Protocol] = {
    'quoter-official': Protocol('quoter_official', False, "QuoteR's test(): MRR, NDCG, Mean/Median Rank, Variance, "
                                                          'Recall@K'),
    'gu-prefetch': Protocol('gu_prefetch', True, "Gu et al.'s prefetch Recall@K; QRELS must be a citation-rec "
                                                 'ir_datasets id, for the citing papers'),
    'symtax': Protocol('symtax', False, "SymTax's Recall@K, NDCG@10, MRR@10"),
}
