"""gdeval's ERR@k and nDCG(dcg='exp-log2')@k on our provider: against the plain references (tests/reference.py)
through our provider and the command line, against gdeval itself (ir_measures' ``bin/gdeval.pl``, run by perl:
through ir_measures' gdeval provider, which reads its 5 printed decimals, and run directly with every digit
printed), under every tie policy by brute force, and refusing what gdeval refuses."""
from __future__ import annotations

import importlib.resources
import re
import shutil
import statistics
import subprocess
import tempfile
from pathlib import Path

import ir_measures
import numpy as np
import pytest
import reference
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from public_paths import write_trec_files
from strategies import INTEGER_OR_REAL_LABELS, qrels_and_run
from ties_brute_force import orderings, tied_runs
from tool_checks import NUMERIC_QUERY_IDS, check_against_provider, check_path, distinct_scores, ours

import irmeasures_ext
from irmeasures_ext import InputError, MeasureParamError

pytestmark = pytest.mark.filterwarnings('ignore::irmeasures_ext.errors.NoOverlapWarning')

ERR, nDCG = ir_measures.ERR, ir_measures.nDCG(dcg='exp-log2')
CUTOFFS = [1, 2, 3, 5, 10, 50]
SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
needs_perl = pytest.mark.skipif(shutil.which('perl') is None, reason='gdeval.pl needs perl')

#: Runs gdeval.pl (the script ir_measures ships, unchanged) with every digit of its values: its printf of
#: "%.5f" goes through a tied STDOUT that prints "%.17g" instead.
FULL_PRECISION = r'''
package FullPrecision;
sub TIEHANDLE { my ($class, $out) = @_; return bless { out => $out }, $class; }
sub PRINT { my $self = shift; return print { $self->{out} } @_; }
sub PRINTF {
    my ($self, $format, @values) = @_;
    $format =~ s/%\.5f/%.17g/g;
    return printf { $self->{out} } $format, @values;
}
package main;
open(my $out, '>&', \*STDOUT) or die "cannot duplicate STDOUT: $!";
tie *STDOUT, 'FullPrecision', $out;
my $script = shift @ARGV;
do $script or die $@ || $!;
'''


def measures_at(cutoffs: list[int]) -> list:
    return [measure @ k for k in cutoffs for measure in (ERR, nDCG)]


def reference_of(measure, ranking: list[str], judged: dict[str, int]) -> float:
    function = reference.gdeval_err if measure.NAME == 'ERR' else reference.gdeval_ndcg
    return function(ranking, judged, measure['cutoff'])


def reference_values(measures: list, qrels: dict, run: dict) -> dict[tuple[str, str], float]:
    return {(str(measure), qid): reference_of(measure, reference.trec_ranking(run.get(qid, {})), judged)
            for measure in measures for qid, judged in qrels.items()}


@SETTINGS
@given(qrels_and_run(INTEGER_OR_REAL_LABELS), st.lists(st.sampled_from(CUTOFFS), min_size=1, max_size=3, unique=True),
       st.sampled_from(['provider', 'cli']))
def test_gdeval_measures_equal_their_references_through_every_path(data, cutoffs, path):
    """Ties (doc_id descending), negative labels, unjudged docs, queries without a label above 0, absent and
    run-only queries, from the generated data. (ir_measures' pipeline gives them to its gdeval provider.)"""
    qrels, run = data
    measures = measures_at(cutoffs)
    check_path(path, measures, qrels, run, reference_values(measures, qrels, run))


@needs_perl
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(distinct_scores(numeric_ids=True), st.lists(st.sampled_from(CUTOFFS), min_size=1, max_size=2, unique=True))
def test_gdeval_measures_equal_ir_measures_gdeval_provider(data, cutoffs):
    """ir_measures' gdeval provider (gdeval.pl; 5 decimals printed, so to 5e-6) on distinct scores: a qrels
    query gdeval prints no line for (no label above 0, or not in the run) gets ir_measures' default, 0."""
    check_against_provider(ir_measures.gdeval, measures_at(cutoffs), *data, tolerance=5e-6 + 1e-12)


def gdeval_full_precision(qrels: dict, run: dict, cutoff: int) -> dict[str, tuple[float, float]]:
    """{query id: (nDCG@k, ERR@k)} as gdeval.pl prints them for the queries it prints, every digit kept."""
    script = importlib.resources.files('ir_measures') / 'bin' / 'gdeval.pl'
    with tempfile.TemporaryDirectory() as folder, importlib.resources.as_file(script) as path:
        qrels_path, run_path = write_trec_files(Path(folder), qrels, run)
        output = subprocess.run(['perl', '-e', FULL_PRECISION, str(path), qrels_path, run_path, str(cutoff)],
                                capture_output=True, text=True, check=True).stdout
    lines = output.splitlines()
    assert lines[0] == f'runid,topic,ndcg@{cutoff},err@{cutoff}', output
    values = {}
    for line in lines[1:]:
        _, topic, ndcg, err = line.split(',')
        values[topic] = (float(ndcg), float(err))
    return values


@needs_perl
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(qrels_and_run(), st.sampled_from(CUTOFFS))
def test_gdeval_measures_equal_gdeval_with_every_digit_on_tied_runs(data, cutoff):
    """gdeval.pl itself, every digit printed, on the generated data with its ties: gdeval ranks ties by doc_id
    descending, as we do, comparing scores as doubles (score_precision='float64'). Query ids made numeric."""
    qrels, run = data
    qrels = {NUMERIC_QUERY_IDS[qid]: judged for qid, judged in qrels.items()}
    run = {NUMERIC_QUERY_IDS[qid]: docs for qid, docs in run.items()}
    if not any(run.values()):
        return  # gdeval needs a run line
    theirs = gdeval_full_precision(qrels, run, cutoff)
    got = ours([nDCG @ cutoff, ERR @ cutoff], qrels, run, score_precision='float64')
    assert set(theirs) == {qid for qid, judged in qrels.items() if run.get(qid) and max(judged.values()) > 0}
    for qid in qrels:
        ndcg, err = theirs.get(qid, (0.0, 0.0))
        assert got[str(nDCG @ cutoff), qid] == pytest.approx(ndcg, rel=1e-12, abs=1e-12), qid
        assert got[str(ERR @ cutoff), qid] == pytest.approx(err, rel=1e-12, abs=1e-12), qid


TIED_MEASURES = measures_at([1, 2, 4])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tied_runs())
def test_tie_policies_are_the_mean_best_and_worst_over_the_orderings(data):
    """expected (nDCG): the exact mean over every ordering of every tie group; optimistic/pessimistic (both): the
    largest and smallest value over them."""
    qrels, run = data
    ndcgs = [m for m in TIED_MEASURES if m.NAME == 'nDCG']
    expected = ours(ndcgs, qrels, run, ties='expected')
    optimistic = ours(TIED_MEASURES, qrels, run, ties='optimistic')
    pessimistic = ours(TIED_MEASURES, qrels, run, ties='pessimistic')
    for measure in TIED_MEASURES:
        for qid, judged in qrels.items():
            values = [reference_of(measure, ranking, judged) for ranking in orderings(run.get(qid, {}))]
            values = values or [reference_of(measure, [], judged)]
            key = str(measure), qid
            if measure in ndcgs:
                assert expected[key] == pytest.approx(statistics.fmean(values), abs=1e-12), key
            assert optimistic[key] == pytest.approx(max(values), abs=1e-12), key
            assert pessimistic[key] == pytest.approx(min(values), abs=1e-12), key


def test_gdeval_measures_by_hand():
    """Query 1 ranks a (label 3), u (unjudged), c (-1), d (4): ERR@2 = R(a) = (2^3 - 1)/16; nDCG@3 = 7 / (15 +
    7/log2 3), its ideal list d, a. Query 2's only doc is its only relevant one; query 3 has no label above 0."""
    qrels = {'1': {'a': 3, 'b': 0, 'c': -1, 'd': 4}, '2': {'x': 1}, '3': {'y': 0}}
    run = {'1': {'a': 3.0, 'u': 2.0, 'c': 1.0, 'd': 0.5}, '2': {'x': 1.0}, '3': {'y': 1.0}}
    got = ours([ERR @ 2, nDCG @ 3], qrels, run)
    assert got == {('ERR@2', '1'): 7 / 16, ('ERR@2', '2'): 1 / 16, ('ERR@2', '3'): 0.0,
                   ("nDCG(dcg='exp-log2')@3", '1'): pytest.approx(7 / (15 + 7 / np.log2(3)), abs=1e-15),
                   ("nDCG(dcg='exp-log2')@3", '2'): 1.0, ("nDCG(dcg='exp-log2')@3", '3'): 0.0}


@pytest.mark.parametrize('measure', [ERR @ 5, nDCG @ 5])
def test_a_label_above_gdevals_maximum_grade_is_refused_by_name(measure):
    """gdeval stops on a label above 4 ("format error"): so do we, naming the measure and the label."""
    with pytest.raises(InputError, match=re.escape(f"{measure}: qrels label 5 exceeds gdeval's maximum grade 4")):
        irmeasures_ext.provider.calc_aggregate([measure], {'q': {'a': 5, 'b': 1}}, {'q': {'a': 1.0}})


@pytest.mark.parametrize('measure', [ERR @ 5, nDCG @ 5])
def test_the_refusal_names_the_label_above_the_maximum_grade_where_it_is(measure):
    """The label above 4 on a later row of a later query: the refusal names it and its doc, not the first row."""
    qrels = {'p': {'x': 2}, 'q': {'b': 1, 'a': 5}}
    with pytest.raises(InputError, match=re.escape(f"{measure}: qrels label 5 exceeds gdeval's maximum grade 4 "
                                                   "(doc 'a' in query 'q')")):
        irmeasures_ext.provider.calc_aggregate([measure], qrels, {'q': {'a': 1.0}})


def test_err_refuses_the_expected_policy_by_name():
    with pytest.raises(MeasureParamError, match=r'^ERR@5 is not supported under ties=expected \(no closed form'):
        irmeasures_ext.provider.configured(ties='expected').calc_aggregate([ERR @ 5], {'q': {'a': 1}},
                                                                           {'q': {'a': 1.0}})


@pytest.mark.parametrize('measure', [ERR, nDCG, nDCG(judged_only=True) @ 5])
def test_what_the_gdeval_provider_does_not_take_is_not_ours_either(measure):
    """gdeval needs a cutoff; nDCG(dcg='exp-log2') with judged_only is left to other providers."""
    assert not irmeasures_ext.provider.supports(measure)
    with pytest.raises(MeasureParamError, match='does not support measure'):
        irmeasures_ext.provider.calc_aggregate([measure], {'q': {'a': 1}}, {'q': {'a': 1.0}})


def test_trec_evals_ndcg_is_still_trec_evals():
    """nDCG@k (dcg='log2', trec_eval's) and nDCG(dcg='exp-log2')@k are two kernels of one name."""
    qrels, run = {'q': {'a': 1, 'b': 2}}, {'q': {'a': 2.0, 'b': 1.0}}
    got = irmeasures_ext.provider.calc_aggregate([ir_measures.nDCG @ 2, nDCG @ 2], qrels, run)
    assert got[ir_measures.nDCG @ 2] == pytest.approx((1 + 2 / np.log2(3)) / (2 + 1 / np.log2(3)))
    assert got[nDCG @ 2] == pytest.approx((1 + 3 / np.log2(3)) / (3 + 1 / np.log2(3)))


def test_a_real_valued_label_gains_as_the_formulas_extend():
    """gdeval reads integer grades; 2.5 gains 2^2.5 − 1 here (ERR's stop probability (2^2.5 − 1)/16)."""
    got = ours([ERR @ 1, nDCG @ 2], {'q': {'a': 2.5, 'b': 1}}, {'q': {'b': 2.0, 'a': 1.0}})
    gain = 2 ** 2.5 - 1
    assert got == {('ERR@1', 'q'): pytest.approx(1 / 16, abs=1e-15),
                   ("nDCG(dcg='exp-log2')@2", 'q'): pytest.approx((1 + gain / np.log2(3)) / (gain + 1 / np.log2(3)),
                                                                  abs=1e-15)}
