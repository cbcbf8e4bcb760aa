"""The functions ``import irmeasures_ext`` gives, which import their module on first use, take what the functions
they call take: the same parameters, in the same order, with the same defaults."""
import importlib
import inspect

import pytest

import irmeasures_ext

FORWARDED = {
    'per_intent_frame': 'irmeasures_ext.per_intent',
    'reproducibility': 'irmeasures_ext.reproduce.statistics',
    'replicability': 'irmeasures_ext.reproduce.statistics',
    'ranked_list_agreement': 'irmeasures_ext.reproduce.agreement',
    'read_metadata': 'irmeasures_ext.ir_metadata',
    'write_run': 'irmeasures_ext.ir_metadata',
}


def parameters(function):
    return [(p.name, p.kind, p.default) for p in inspect.signature(function).parameters.values()]


@pytest.mark.parametrize('name', sorted(FORWARDED))
def test_a_top_level_function_takes_the_parameters_of_the_one_it_calls(name):
    called = getattr(importlib.import_module(FORWARDED[name]), name)
    assert parameters(getattr(irmeasures_ext, name)) == parameters(called)


def test_intent_qrels_takes_the_parameters_of_the_class_it_makes():
    from irmeasures_ext.readers.intent_probabilities import IntentQrels
    assert parameters(irmeasures_ext.intent_qrels) == parameters(IntentQrels)


def test_every_top_level_function_is_checked():
    functions = {name for name, value in vars(irmeasures_ext).items()
                 if inspect.isfunction(value) and not name.startswith('_') and value.__module__ == 'irmeasures_ext'}
    assert functions == set(FORWARDED) | {'intent_qrels'}
