"""Registration is idempotent and leaves ir_measures' own behaviour unchanged."""
import os
import subprocess
import sys

import ir_measures
import pytest

import irmeasures_ext
from irmeasures_ext.engine.kernels import KERNELS

BUILT_IN_NAMES = ['RR', 'MRR', 'nDCG', 'NDCG', 'AP', 'MAP', 'P', 'R', 'Success', 'Rprec', 'NumRel', 'NumRet']


def provider_names():
    return [p.NAME for p in ir_measures.DefaultPipeline.providers]


def test_measures_and_provider_registered():
    for name in ['Q', 'nDCG_Z1', 'MeanRank', 'MedianRank', 'RankVariance', 'nERR', 'MSnDCG', 'nDCG_JK']:
        assert ir_measures.measures.registry[name].NAME == name
    assert ir_measures.providers.registry['irmeasures_ext'].NAME == 'irmeasures_ext'
    assert provider_names()[-1] == 'irmeasures_ext'


#: Registers twice and reloads measure modules, then checks nothing was registered twice and ir_measures' own measures
#: are the same objects. In a process of its own: a reloaded module's classes are new classes, which pickle no longer
#: finds (a later Dask test in this process would hang sending its measures to the workers).
IDEMPOTENCE = f"""
import importlib, sys
import ir_measures, irmeasures_ext

def provider_names():
    return [p.NAME for p in ir_measures.DefaultPipeline.providers]

before = (dict(ir_measures.measures.registry), provider_names())
irmeasures_ext.register()
irmeasures_ext.register()
for module in ['irmeasures_ext.measures.q', 'irmeasures_ext.measures.ndcg_z1', 'irmeasures_ext.measures.nerr']:
    importlib.reload(sys.modules[module])
assert provider_names() == before[1], provider_names()
assert provider_names().count('irmeasures_ext') == 1
assert set(ir_measures.measures.registry) == set(before[0])
for name in {BUILT_IN_NAMES!r}:
    assert ir_measures.measures.registry[name] is before[0][name], name
print('idempotent')
"""


def test_registration_is_idempotent():
    done = subprocess.run([sys.executable, '-c', IDEMPOTENCE], capture_output=True, text=True)
    assert (done.returncode, done.stdout.strip()) == (0, 'idempotent'), done.stderr


@pytest.mark.parametrize('measure_text', ['RR@100', 'RR', 'nDCG@10', 'AP', 'P@5', 'R@100', 'Success@10', 'Rprec'])
def test_built_in_measures_keep_their_default_provider(measure_text):
    """The provider that answers a built-in measure by default is the same with and without us."""
    measure = ir_measures.parse_measure(measure_text)
    ours = [p.NAME for p in ir_measures.DefaultPipeline.providers if p.supports(measure) and p.is_available()]
    assert ours[0] != 'irmeasures_ext'
    script = (f'import ir_measures; m = ir_measures.parse_measure({measure_text!r}); '
              'print([p.NAME for p in ir_measures.DefaultPipeline.providers if p.supports(m) and p.is_available()][0])')
    env = {**os.environ, 'IRMEASURES_EXT_NO_AUTOLOAD': '1'}  # the installed package must not load itself
    without_us = subprocess.run([sys.executable, '-c', script], capture_output=True, text=True, check=True,
                                env=env).stdout.strip()
    assert ours[0] == without_us


def test_default_pipeline_numbers_unchanged_for_built_ins():
    """RR@k still goes to the msmarco provider (doc_id ascending ties), as without the plugin."""
    qrels = {'q': {'a': 1}}
    run = {'q': {'a': 1.0, 'b': 1.0}}  # tie: msmarco ranks a first, trec_eval ranks b first
    assert ir_measures.calc_aggregate([ir_measures.RR @ 10], qrels, run)[ir_measures.RR @ 10] == 1.0
    ours = ir_measures.providers.registry['irmeasures_ext'].calc_aggregate([ir_measures.RR @ 10], qrels, run)
    assert ours[ir_measures.RR @ 10] == 0.5


def test_no_built_in_name_is_shadowed():
    """Every name ir_measures registers without us still maps to its own measure; ours are new names."""
    script = ('import ir_measures; print(" ".join(f"{name}={type(m).__module__}.{type(m).__qualname__}" '
              'for name, m in sorted(ir_measures.measures.registry.items())))')
    env = {**os.environ, 'IRMEASURES_EXT_NO_AUTOLOAD': '1'}
    without_us = dict(item.split('=') for item in subprocess.run([sys.executable, '-c', script], capture_output=True,
                                                                 text=True, check=True, env=env).stdout.split())
    registry = ir_measures.measures.registry
    with_us = {name: f'{type(m).__module__}.{type(m).__qualname__}' for name, m in registry.items()}
    assert {name: with_us[name] for name in without_us} == without_us
    added = set(with_us) - set(without_us)
    assert added and all(with_us[name].startswith('irmeasures_ext.') for name in added)
    assert all(registry[name].NAME == name and name in KERNELS for name in added)


@pytest.mark.parametrize('package', ['irmeasures_ext.measures', 'irmeasures_ext.engine.kernels'])
def test_every_module_of_a_registry_is_imported_by_it(package):
    """The declarations and the kernels are imported by name by their packages (as ir_measures' and ranx's
    registries are): a module left out would declare or compute nothing. In a fresh interpreter, so that
    nothing else has imported them."""
    script = (f'import pkgutil, sys, importlib; package = importlib.import_module("{package}"); '
              'names = {info.name for info in pkgutil.iter_modules(package.__path__)}; '
              f'loaded = sorted(n for n in names if "{package}." + n in sys.modules); '
              'print(" ".join(sorted(names)), "|", " ".join(loaded))')
    env = {**os.environ, 'IRMEASURES_EXT_NO_AUTOLOAD': '1'}
    listed, imported = subprocess.run([sys.executable, '-c', script], capture_output=True, text=True, check=True,
                                      env=env, timeout=120).stdout.split('|')
    assert {'q', 'rank_stats', 'trec_family'} <= set(listed.split())
    assert imported.split() == listed.split()


def test_every_parameter_of_ours_is_declared_with_its_check():
    """A parameter's check sits with its declaration (a Param), not in an if-chain apart; ``rel`` starts at 1 for
    ours (label 0 is not relevant) and at 0 for ir_measures' own measures (trec_eval's relevance level)."""
    from irmeasures_ext.errors import MeasureParamError
    from irmeasures_ext.measures import DECLARED
    from irmeasures_ext.measures.base import Param, check_measure
    measures = [getattr(irmeasures_ext.measures, name) for name in DECLARED]
    assert len(measures) > 30
    for measure in measures:
        assert all(isinstance(info, Param) for info in measure.SUPPORTED_PARAMS.values()), measure.NAME
    with pytest.raises(MeasureParamError, match=r'^Q: rel must be a number above 0 '):
        irmeasures_ext.Q(rel=0)
    check_measure(ir_measures.P(rel=0) @ 5)
    with pytest.raises(MeasureParamError, match=r'^P: rel must be an integer from 0 to '):
        check_measure(ir_measures.P(rel=-1) @ 5)


def test_a_measure_is_named_once_by_its_declaration():
    """``@declare class NAME``: the class's name is the measure's NAME, the module binds it to the singleton, and
    the package's public names (``irmeasures_ext.NAME``, ``irmeasures_ext.measures.NAME``, ``__all__``) come from
    DECLARED; a measure pickles by name (Dask's workers rebuild it), parameters kept."""
    import importlib
    import pickle

    from irmeasures_ext.measures import DECLARED
    assert len(DECLARED) > 80
    for name, measure in DECLARED.items():
        assert type(measure).__qualname__ == measure.NAME == str(measure) == name
        assert getattr(importlib.import_module(type(measure).__module__), name) is measure
        assert getattr(irmeasures_ext, name) is measure is getattr(irmeasures_ext.measures, name)
    assert set(DECLARED) <= set(irmeasures_ext.__all__) and set(DECLARED) <= set(irmeasures_ext.measures.__all__)
    measure = irmeasures_ext.DIN_NCU(utility='P', gamma=0.8) @ 5
    assert pickle.loads(pickle.dumps(measure)) == measure and str(measure) == "DIN_NCU(utility='P',gamma=0.8)@5"


def test_the_din_and_sharp_measures_are_generated_from_theirs():
    """Each DIN-measure takes its D-measure's parameters (and checks: DIN_NCU refuses beta with utility='P' as
    D_NCU does); each #-measure γ, a required cutoff, and its measure's β or p; their docstrings say so."""
    from irmeasures_ext.measures import DECLARED
    from irmeasures_ext.measures.ntcir_diversity import DIN_OF, SHARP_OF
    for d_name in DIN_OF:
        din = DECLARED['DIN' + d_name[1:]]
        assert din.SUPPORTED_PARAMS == DECLARED[d_name].SUPPORTED_PARAMS and f'``{d_name}``' in type(din).__doc__
    with pytest.raises(irmeasures_ext.MeasureParamError, match=r"^DIN_NCU: beta applies only with utility='BR'"):
        irmeasures_ext.DIN_NCU(utility='P', beta=2)
    for name in SHARP_OF:
        sharp = DECLARED[name.replace('_', '_sharp_', 1) if '_' in name else name + '_sharp']
        extra = {param for param in ('beta', 'p') if param in DECLARED[name].SUPPORTED_PARAMS}
        assert set(sharp.SUPPORTED_PARAMS) - {'ties', 'score_precision', 'judged_only', 'classes'} == {
            'cutoff', 'rel', 'gamma', *extra}
        assert sharp.SUPPORTED_PARAMS['cutoff'].required and 'γ·I-rec@k' in type(sharp).__doc__
    assert irmeasures_ext.D_sharp_RBP.PRETTY_NAME == 'D#-RBP (NTCIREVAL)'
    assert irmeasures_ext.PplusQ_sharp.PRETTY_NAME == 'P+Q# (NTCIREVAL)'
