"""Registration of this package's datasets with ir_datasets (idempotent, from any import order).

A module of its own, not the package's ``__init__``: the registration runs as soon as ir_datasets
is imported, which may be while ``irmeasures_ext.datasets`` itself is still being imported.
"""
import functools
from types import ModuleType

from ir_datasets.datasets.base import Dataset
from ir_datasets.util.metadata import MetadataComponent

from irmeasures_ext.datasets import citation_rec, nci_nq320k, nci_trivia_qa, quoter
from irmeasures_ext.datasets.metadata import CountsProvider

#: The dataset modules: each has ``datasets()``, its datasets by id, and ``count(dataset_id, entity,
#: dataset)``, a count from the files in place that never downloads or builds.
MODULES = [quoter, citation_rec, nci_nq320k, nci_trivia_qa]


def register() -> None:
    """Registers every dataset with ir_datasets, with its metadata (counts); ids already registered
    are left alone."""
    import ir_datasets
    registered = set(ir_datasets.registry)
    for module in MODULES:
        datasets = module.datasets()
        provider = CountsProvider(functools.partial(_count_in_place, module, datasets))
        for dataset_id, dataset in datasets.items():
            if dataset_id not in registered:
                ir_datasets.registry.register(dataset_id, Dataset(MetadataComponent(dataset_id, dataset, provider),
                                                                  dataset))


def _count_in_place(module: ModuleType, datasets: dict[str, Dataset], dataset_id: str, entity: str) -> int:
    """``module``'s count of ``entity`` for one of its ``datasets``."""
    return module.count(dataset_id, entity, datasets[dataset_id])
