"""Idempotent registration with ir_measures and ir_datasets."""
import ir_measures

from irmeasures_ext.datasets import register as register_datasets
from irmeasures_ext.provider import provider


def register() -> None:
    """Registers the provider (by name, and once at the end of the default pipeline) and the datasets."""
    registered = ir_measures.providers.registry.setdefault(provider.NAME, provider)
    pipeline = ir_measures.DefaultPipeline.providers
    if not any(p.NAME == provider.NAME for p in pipeline):
        pipeline.append(registered)
    register_datasets()
