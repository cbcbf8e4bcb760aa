"""irmeasures_ext: Q-measure, nDCG_Z1, rank statistics and NTCIREVAL's measures inside ir_measures,
plus quote and citation recommendation datasets for ir_datasets.

Importing the package registers the measures in ``ir_measures.measures.registry`` and the
``irmeasures_ext`` provider (``irmeasures_ext.provider``, also ``ir_measures.irmeasures_ext``) in
``ir_measures.providers.registry``, appended to the end of ``ir_measures.DefaultPipeline``
(built-in measures keep their usual providers), and the datasets with ir_datasets: at once if
ir_datasets is imported, else as soon as it is. It imports nothing but ir_measures: the engine
(numpy, pyarrow) loads on the first evaluation.

Layout: ``measures/`` declares the measures, ``engine/`` computes them (``engine/kernels/``: one
kernel module per measure family), ``readers/`` turns TREC files and every other input form into
Arrow tables, ``cli/`` is the ``irmeasures-ext`` command, ``datasets/`` the ir_datasets wrappers, ``dask`` the
distributed engine (the ``dask`` extra).
The submodules are attributes of the package (``irmeasures_ext.frames.evaluate_frame``), each imported
when first used.
"""
from __future__ import annotations

import importlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ir_measures.measures import Measure

from irmeasures_ext import suites
from irmeasures_ext.comparison import compare
from irmeasures_ext.errors import (
    ComparisonError,
    InputError,
    IrMeasuresExtError,
    IrMeasuresExtWarning,
    MeasureParamError,
    NoOverlapWarning,
    ReversedScoresWarning,
)
from irmeasures_ext.guest import register
from irmeasures_ext.measures import DECLARED
from irmeasures_ext.plugin import provider

if TYPE_CHECKING:
    import os

    import pandas as pd

    from irmeasures_ext.ir_metadata import MetadataLike
    from irmeasures_ext.readers.forms import ProbabilitiesLike, QrelsLike, RunLike
    from irmeasures_ext.readers.source import Source

__version__ = '0.2.0'

register()
globals().update(DECLARED)  # (our measures by name: ``irmeasures_ext.Q``)

#: Submodules imported on first access as attributes (``import irmeasures_ext`` loads only the declarations;
#: ``comparison``, ``measures``, ``plugin`` and ``suites`` are imported with it).
_LAZY_SUBMODULES = ('cli', 'dask', 'datasets', 'engine', 'frames', 'ir_metadata', 'readers', 'reproduce', 'sample')


def intent_qrels(qrels: QrelsLike, probabilities: ProbabilitiesLike, renormalise: bool = False) -> Source:
    """``qrels`` with the intent of each judgment (e.g. NTCIREVAL's Dqrels file, TREC diversity qrels) and their
    intents' ``probabilities`` P(i|q) and types (an Iprob or DINprob file, a table or a dict): the qrels of
    NTCIREVAL's diversity measures (``D_nDCG``, ``IA_nERR``, ...), given wherever qrels are. The probabilities are
    used as written, as NTCIREVAL uses them, with a ProbabilitySumWarning where a query's do not sum to 1 to the
    precision they are written with; ``renormalise=True`` divides each by its query's sum."""
    from irmeasures_ext.readers.intent_probabilities import IntentQrels  # (reading loads on first use)
    return IntentQrels(qrels, probabilities, renormalise)


def per_intent_frame(measures: Iterable[Measure | str], qrels: QrelsLike, run: RunLike, rel: float = 1,
                     ties: str | None = None, score_precision: str | None = None,
                     depth: int | None = None) -> pd.DataFrame:
    """Each intent's values of ``measures`` on diversity ``qrels`` (:func:`intent_qrels`), as NTCIREVAL's IA and P+Q
    scripts compute them per intent: a long DataFrame (see :func:`irmeasures_ext.per_intent.per_intent_frame`)."""
    from irmeasures_ext.per_intent import per_intent_frame as frame  # (pandas loads on first use)
    return frame(measures, qrels, run, rel, ties, score_precision, depth)


def reproducibility(qrels: QrelsLike, original_baseline: RunLike, original_advanced: RunLike,
                    reproduced_baseline: RunLike, reproduced_advanced: RunLike,
                    measures: Iterable[Measure | str], ranked_lists: bool = False, topics: str = 'original',
                    order: str = 'trec_eval', rel: float | None = None) -> pd.DataFrame:
    """RMSE, nRMSE, paired t-test p-values, ER and ΔRI of a reproduction, as repro_eval 0.5.0 computes them, and
    with ``ranked_lists`` the means of KTU and RBO (:func:`irmeasures_ext.reproduce.statistics.reproducibility`)."""
    from irmeasures_ext.reproduce import reproducibility as statistics  # (numpy, pandas load on first use)
    return statistics(qrels, original_baseline, original_advanced, reproduced_baseline, reproduced_advanced, measures,
                      ranked_lists, topics, order, rel)


def replicability(original_qrels: QrelsLike, original_baseline: RunLike, original_advanced: RunLike,
                  qrels_b: QrelsLike, replicated_baseline: RunLike, replicated_advanced: RunLike,
                  measures: Iterable[Measure | str], rel: float | None = None) -> pd.DataFrame:
    """ER, ΔRI and unpaired t-test p-values of a replication on other qrels, as repro_eval 0.5.0 computes them
    (:func:`irmeasures_ext.reproduce.statistics.replicability`)."""
    from irmeasures_ext.reproduce import replicability as statistics  # (numpy, pandas load on first use)
    return statistics(original_qrels, original_baseline, original_advanced, qrels_b, replicated_baseline,
                      replicated_advanced, measures, rel)


def ranked_list_agreement(original: RunLike, reproduced: RunLike, topics: str = 'original', p: float = 0.95,
                          depth: int = 1000, order: str = 'trec_eval') -> pd.DataFrame:
    """Per topic, Kendall's τ over the documents, KTU and RBO as repro_eval 0.5.0 computes them, and Webber et al.'s
    RBO_ext (:func:`irmeasures_ext.reproduce.agreement.ranked_list_agreement`)."""
    from irmeasures_ext.reproduce import ranked_list_agreement as agreement  # (numpy, pandas load on first use)
    return agreement(original, reproduced, topics, p, depth, order)


def read_metadata(run: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The ir_metadata a run file carries, None if none (:func:`irmeasures_ext.ir_metadata.read_metadata`)."""
    from irmeasures_ext.ir_metadata import read_metadata as read  # (pyarrow, PyYAML load on first use)
    return read(run)


def write_run(run: RunLike, path: str | os.PathLike[str], metadata: MetadataLike | None = None, *,
              tag: str | None = None, overwrite: bool = False) -> None:
    """Writes a run as a TREC, Parquet or Arrow file, with its ir_metadata if given
    (:func:`irmeasures_ext.ir_metadata.write_run`)."""
    from irmeasures_ext.ir_metadata import write_run as write  # (pyarrow, PyYAML load on first use)
    write(run, path, metadata, tag=tag, overwrite=overwrite)


def __getattr__(name: str) -> Any:
    """A submodule, imported on first access."""
    if name in _LAZY_SUBMODULES:
        return importlib.import_module(f'{__name__}.{name}')
    raise AttributeError(f'module {__name__!r} has no attribute {name!r}')


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY_SUBMODULES})

__all__ = ['DECLARED', 'compare', 'IrMeasuresExtError', 'InputError', 'MeasureParamError', 'ComparisonError',
           'IrMeasuresExtWarning', 'NoOverlapWarning', 'ReversedScoresWarning', 'provider', 'register', 'suites',
           '__version__', 'intent_qrels', 'per_intent_frame', 'reproducibility', 'replicability',
           'ranked_list_agreement', 'read_metadata', 'write_run', *DECLARED]
