"""Idempotent registration of the provider with ir_measures."""
import ir_measures

from irmeasures_ext.provider import provider


def register() -> None:
    """Registers the provider by name and appends it to the end of the default pipeline (once)."""
    registered = ir_measures.providers.registry.setdefault(provider.NAME, provider)
    pipeline = ir_measures.DefaultPipeline.providers
    if not any(p.NAME == provider.NAME for p in pipeline):
        pipeline.append(registered)
