"""trec_eval 9.0.8's measure names on the command line: ``map``, ``P.5,10`` (or ``P_5``), ``iprec_at_recall.0.1``,
``Rprec_mult.0.2``, ``set_F.0.5``, ``utility.1,-1,0,0``, ``G.1=3,2=9`` (its gains), and its measure sets
``official``, ``set`` and ``all_trec`` (everything trec_eval prints for them but ``runid`` and ``relstring``).

A name alone stands for trec_eval's default parameters: ``P`` is P@5, P@10, ..., P@1000, as ``-m P`` is.
"""
from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, NamedTuple

import ir_measures
from ir_measures.measures import Measure

from irmeasures_ext import measures as ours
from irmeasures_ext.errors import MeasureParamError

CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALLS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)
NUMBER = r'[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?'
#: (Patterns, compiled by ``re`` on first use: most commands name no trec_eval measure with parameters.)
NUMBERS = rf'{NUMBER}(?:,{NUMBER})*'
PAIRS = rf'\d+={NUMBER}(?:,\d+={NUMBER})*'


class TrecName(NamedTuple):
    """One trec_eval measure: how its parameters (the text after ``name.``) make our measures.

    ``kind``: ``None`` (no parameters), ``'cutoffs'`` (integers), ``'values'`` (numbers, one measure each),
    ``'value'`` (one number), ``'weights'`` (utility's four), ``'gains'`` (``label=gain`` pairs)."""

    make: Callable[..., Measure]
    kind: str | None = None
    defaults: tuple[Any, ...] = ()

    def measures(self, name: str, params: str | None) -> list[Measure]:
        if params is None:
            return [self.make(value) for value in self.defaults] if self.defaults else [self.make()]
        if self.kind is None:
            raise MeasureParamError(f'trec_eval measure {name!r} takes no parameters, got {params!r}')
        if self.kind == 'gains':
            if not re.fullmatch(PAIRS, params):
                raise MeasureParamError(f'{name}: parameters must be label=gain pairs such as {name}.1=3,2=9; got '
                                        f'{params!r}')
            return [self.make({int(label): float(gain) for label, gain in
                               (pair.split('=') for pair in params.split(','))})]
        if not re.fullmatch(NUMBERS, params):
            raise MeasureParamError(f'{name}: parameters must be comma-separated numbers, got {params!r}')
        values = params.split(',')
        if self.kind == 'cutoffs':
            if not all(value.isdigit() for value in values):
                raise MeasureParamError(f'{name}: cutoffs must be whole numbers, got {params!r}')
            return [self.make(int(value)) for value in values]
        numbers = [float(value) for value in values]
        if self.kind == 'weights':
            if len(numbers) != 4:
                raise MeasureParamError(f'{name}: takes four weights (relevant retrieved, non-relevant retrieved, '
                                        f'relevant missed, non-relevant missed), got {params!r}')
            return [self.make(*numbers)]
        if self.kind == 'value' and len(numbers) != 1:
            raise MeasureParamError(f'{name}: takes one value, got {params!r}')
        return [self.make(number) for number in numbers]


irm = ir_measures
#: trec_eval 9.0.8's measures (its measures.c) by name, but runid and relstring, which are no measures, and the
#: preference and jg measures, which need other qrels.
TREC_EVAL_NAMES: dict[str, TrecName] = {
    'num_q': TrecName(lambda: irm.NumQ),
    'num_ret': TrecName(lambda: irm.NumRet),
    'num_rel': TrecName(lambda: irm.NumRel),
    'num_rel_ret': TrecName(lambda: irm.NumRet(rel=1)),
    'map': TrecName(lambda: irm.AP),
    'gm_map': TrecName(lambda: ours.gm_map),
    'Rprec': TrecName(lambda: irm.Rprec),
    'bpref': TrecName(lambda: irm.Bpref),
    'recip_rank': TrecName(lambda: irm.RR),
    'iprec_at_recall': TrecName(lambda recall: irm.IPrec @ recall, 'values', RECALLS),
    'P': TrecName(lambda k: irm.P @ k, 'cutoffs', CUTOFFS),
    'recall': TrecName(lambda k: irm.R @ k, 'cutoffs', CUTOFFS),
    'infAP': TrecName(lambda: irm.infAP),
    'gm_bpref': TrecName(lambda: ours.gm_bpref),
    'Rprec_mult': TrecName(lambda mult: ours.Rprec_mult @ mult, 'values', MULTIPLES),
    'utility': TrecName(lambda *weights: ours.utility(**dict(zip(
        ('rel_ret', 'nonrel_ret', 'rel_missed', 'nonrel_missed'), weights, strict=True))) if weights else ours.utility,
                        'weights'),
    '11pt_avg': TrecName(lambda: ours.eleven_pt_avg),
    'binG': TrecName(lambda: ours.binG),
    'G': TrecName(lambda gains=None: ours.G(gains=gains) if gains else ours.G, 'gains'),
    'ndcg': TrecName(lambda gains=None: irm.nDCG(gains=gains) if gains else irm.nDCG, 'gains'),
    'ndcg_rel': TrecName(lambda gains=None: ours.ndcg_rel(gains=gains) if gains else ours.ndcg_rel, 'gains'),
    'Rndcg': TrecName(lambda gains=None: ours.Rndcg(gains=gains) if gains else ours.Rndcg, 'gains'),
    'ndcg_cut': TrecName(lambda k: irm.nDCG @ k, 'cutoffs', CUTOFFS),
    'map_cut': TrecName(lambda k: irm.AP @ k, 'cutoffs', CUTOFFS),
    'relative_P': TrecName(lambda k: ours.relative_P @ k, 'cutoffs', CUTOFFS),
    'success': TrecName(lambda k: irm.Success @ k, 'cutoffs', (1, 5, 10)),
    'set_P': TrecName(lambda: irm.SetP),
    'set_relative_P': TrecName(lambda: irm.SetP(relative=True)),
    'set_recall': TrecName(lambda: irm.SetR),
    'set_map': TrecName(lambda: irm.SetAP),
    'set_F': TrecName(lambda beta=1.0: irm.SetF(beta=float(beta)), 'value', (1.0,)),
    'num_nonrel_judged_ret': TrecName(lambda: ours.num_nonrel_judged_ret),
}
#: trec_eval's measure sets (``-m official`` ...), as it lists them, without runid and relstring.
TREC_EVAL_SETS: dict[str, tuple[str, ...]] = {
    'official': ('num_q', 'num_ret', 'num_rel', 'num_rel_ret', 'map', 'gm_map', 'Rprec', 'bpref', 'recip_rank',
                 'iprec_at_recall', 'P'),
    'set': ('num_q', 'num_ret', 'num_rel', 'num_rel_ret', 'utility', 'set_P', 'set_recall', 'set_relative_P',
            'set_map', 'set_F'),
    'all_trec': ('num_q', 'num_ret', 'num_rel', 'num_rel_ret', 'map', 'gm_map', 'Rprec', 'bpref', 'recip_rank',
                 'iprec_at_recall', 'P', 'recall', 'infAP', 'gm_bpref', 'Rprec_mult', 'utility', '11pt_avg', 'binG',
                 'G', 'ndcg', 'ndcg_rel', 'Rndcg', 'ndcg_cut', 'map_cut', 'relative_P', 'success', 'set_P',
                 'set_relative_P', 'set_recall', 'set_map', 'set_F', 'num_nonrel_judged_ret'),
}
#: A trec_eval name, then its parameters after ``.`` or ``_`` (numbers, ``,`` and ``=`` only: ``Rprec_mult@0.5``
#: is ir_measures' syntax, not ``Rprec`` with parameters).
_NAME = '({})(?:[._]([-+0-9.,=eE]+))?'.format('|'.join(re.escape(name) for name in
                                                       sorted(TREC_EVAL_NAMES, key=len, reverse=True)))


def trec_eval_measures(text: str) -> list[Measure] | None:
    """The measures a trec_eval measure name or set stands for; None if ``text`` is neither; MeasureParamError for a
    trec_eval name with parameters it cannot take."""
    if text in TREC_EVAL_SETS:
        return [measure for name in TREC_EVAL_SETS[text] for measure in TREC_EVAL_NAMES[name].measures(name, None)]
    match = re.fullmatch(_NAME, text)
    if match is None:
        return None
    name, params = match.groups()
    try:
        return TREC_EVAL_NAMES[name].measures(name, params)
    except (ValueError, TypeError) as error:  # our measures' own parameter checks
        raise MeasureParamError(f'bad measure {text!r}: {error}') from None
