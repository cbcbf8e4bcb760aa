"""Registration of this package's datasets with ir_datasets (idempotent, from any import order).

A module of its own, not the package's ``__init__``: the registration runs as soon as ir_datasets
is imported, which may be while ``irmeasures_ext.datasets`` itself is still being imported.
"""
from ir_datasets.datasets.base import Dataset
from ir_datasets.util.metadata import MetadataComponent

from irmeasures_ext.datasets import citation_rec, nci_nq320k, nci_trivia_qa, quoter
from irmeasures_ext.datasets.metadata import CountsProvider

#: The dataset modules by the collection directory they use: each has ``datasets()``, its datasets by id.
MODULES = [('quoter', quoter), ('citation-rec', citation_rec), ('nci', nci_nq320k), ('nci', nci_trivia_qa)]


def register() -> None:
    """Registers every dataset with ir_datasets, with its metadata (counts); ids already registered
    are left alone."""
    import ir_datasets
    registered = set(ir_datasets.registry)
    for collection, module in MODULES:
        datasets = module.datasets()
        provider = CountsProvider(collection, lambda dataset_id, entity, found=datasets: count(found[dataset_id],
                                                                                                entity))
        for dataset_id, dataset in datasets.items():
            if dataset_id not in registered:
                ir_datasets.registry.register(dataset_id, Dataset(MetadataComponent(dataset_id, dataset, provider),
                                                                  dataset))


def count(dataset: Dataset, entity: str) -> int:
    """The number of ``entity`` records (``'docs'``, ``'queries'``, ``'qrels'``) of a dataset, read from its files."""
    if entity == 'docs':
        return dataset.docs_count()
    return sum(1 for _ in getattr(dataset, f'{entity}_iter')())
