"""Equivalence classes: qrels with a class id per doc in every form, their errors, and ``classes=True``
(the transform of :func:`irmeasures_ext.engine.transforms.equivalence_classes`) against the plain
reference ``reference.ClassJudged`` on generated data, through every public path."""
from __future__ import annotations

import ir_measures
import pandas as pd
import pyarrow as pa
import pytest
import reference
from class_qrels import qrels_with_classes, split
from hypothesis import given
from hypothesis import strategies as st
from public_paths import CommandError, via_cli, via_ir_measures, via_provider
from reference_checks import CUTOFFS, SETTINGS, assert_matches, gains_maps, rankings, with_gains

import irmeasures_ext
from irmeasures_ext import DECLARED, InputError, MeanRank, MeasureParamError, MSnDCG, Q, nDCG_JK, nDCG_Z1, nERR
from irmeasures_ext.cli import main
from irmeasures_ext.engine.judgments import Judgments
from irmeasures_ext.engine.ranking import RankedRun, rank_run
from irmeasures_ext.engine.transforms import condensed, equivalence_classes, reorder, truncated
from irmeasures_ext.frames import iter_calc
from irmeasures_ext.readers.inputs import read_input

pytestmark = pytest.mark.filterwarnings('ignore::irmeasures_ext.errors.NoOverlapWarning')

PATHS = {'ir_measures': via_ir_measures, 'provider': via_provider, 'cli': via_cli}

# README.equivalence's example: aaa (L3) and bbb (L1) are one class, ccc (L0) another; the run lists bbb, aaa.
# bbb is the class's first member, at its own level 1; aaa is redundant; R = 1 class, of level 3.
EXAMPLE_QRELS = {'q': {'aaa': (3, 1), 'bbb': (1, 1), 'ccc': (0, 2)}}
EXAMPLE_RUN = {'q': {'bbb': 2.0, 'aaa': 1.0}}


def values(measures, qrels, run) -> dict[str, float]:
    return {str(metric.measure): metric.value for metric in iter_calc(measures, qrels, run)}


def test_readme_equivalence_example_by_hand():
    """Q = BR(1) = (1 + 1)/(1 + 3) = 0.5 (its README's value); nDCG_JK@10 = 1/3; without classes both docs count:
    Q = ((1 + 1)/(1 + 3) + (2 + 4)/(2 + 4))/2 = 0.75."""
    got = values([Q(classes=True), nDCG_JK(classes=True) @ 10, Q], EXAMPLE_QRELS, EXAMPLE_RUN)
    assert got == {'Q(classes=True)': 0.5, 'nDCG_JK(classes=True)@10': pytest.approx(1 / 3), 'Q': 0.75}


def test_classes_under_a_depth_cut_by_hand():
    """ccc, bbb, aaa cut at depth 2: ccc (L0) uses up class 2, bbb is class 1's first member at level 1, aaa is
    cut; the class's best is 3. Q = BR(2) = (1 + 1)/(2 + 3) = 0.4, R = 1."""
    run = {'q': {'ccc': 3.0, 'bbb': 2.0, 'aaa': 1.0}}
    got = irmeasures_ext.provider.configured(depth=2).iter_calc([Q(classes=True)], EXAMPLE_QRELS, run)
    assert [(metric.query_id, metric.value) for metric in got] == [('q', pytest.approx(0.4))]


def test_an_l0_member_retrieved_first_uses_up_its_class():
    """c (L0) comes first: its class earns nothing, a (L2) is redundant; R is still 1 (the class's best is 2)."""
    qrels = {'q': {'a': (2, 7), 'c': (0, 7), 'b': (0, 0)}}
    run = {'q': {'c': 3.0, 'a': 2.0}}
    assert values([Q(classes=True), MeanRank(classes=True)], qrels, run) == {'Q(classes=True)': 0.0,
                                                                              'MeanRank(classes=True)': 3.0}
    assert values([Q(classes=True)], qrels, {'q': {'a': 3.0, 'c': 2.0}}) == {'Q(classes=True)': 1.0}


@pytest.mark.parametrize('form', ['trec', 'dataframe', 'arrow', 'dict'])
def test_every_form_carries_the_classes(form, tmp_path):
    rows = [('q', docid, label, group) for docid, (label, group) in EXAMPLE_QRELS['q'].items()]
    frame = pd.DataFrame(rows, columns=['query_id', 'doc_id', 'relevance', 'equivalence_class'])
    path = tmp_path / 'qrels'
    path.write_text(''.join(f'{q} 0 {d} {label} {group}\n' for q, d, label, group in rows))
    qrels = {'trec': str(path), 'dataframe': frame, 'arrow': pa.Table.from_pandas(frame), 'dict': EXAMPLE_QRELS}[form]
    assert read_input(qrels, 'qrels').table.column_names == ['query_id', 'doc_id', 'relevance', 'equivalence_class']
    assert values([Q(classes=True)], qrels, EXAMPLE_RUN) == {'Q(classes=True)': 0.5}


@pytest.mark.parametrize(('lines', 'message'), [
    ('q 0 a 1 2\nq 0 b 0 x\n', r':2: class id .x. is not an integer'),
    ('q 0 a 1 2\nq 0 b 0 1.5\n', r':2: class id .1\.5. is not an integer'),
    ('q 0 a 1 2\nq 0 b 0 -3\n', r":2: class id -3 of doc 'b' in query 'q' is not a non-negative integer"),
    ('q 0 a 1 2\nq 0 b 0 3\nq 0 a 1 5\n', r":3: conflicting classes for doc 'a' in query 'q': 5 here, 2 at line 1"),
    ('q 0 a 1 2\nq 0 b 0\n', r':2: expected 5 fields .*got 4; a class id \(the fifth field\) is on every line or '
                              'on none'),
    ('q 0 a 1\nq 0 b 0 3\n', r':2: expected 4 fields .*got 5; a class id \(the fifth field\) is on every line or '
                              'on none'),
])
def test_bad_class_data_in_a_file_names_its_line(lines, message, tmp_path):
    path = tmp_path / 'qrels.txt'
    path.write_text(lines)
    with pytest.raises(InputError, match=f'qrels.txt{message}'):
        values([Q(classes=True)], str(path), {'q': {'a': 1.0}})
    assert main([str(path), str(tmp_path / 'qrels.txt'), 'Q(classes=True)']) != 0  # (the command refuses it too)


@pytest.mark.parametrize(('qrels', 'message'), [
    ({'q': {'a': (1, 2), 'b': 0}}, r"value 0 for doc 'b' in query 'q' is not a \(relevance, class\) pair"),
    ({'q': {'a': (1, 2), 'b': (0, 1, 1)}}, r"value \(0, 1, 1\) for doc 'b'"),
    ({'q': {'a': (1, -1)}}, r"class id -1 of doc 'a' in query 'q' is not a non-negative integer"),
    (pd.DataFrame({'query_id': ['q', 'q'], 'doc_id': ['a', 'a'], 'relevance': [1, 1], 'equivalence_class': [3, 4]}),
     r"conflicting classes for doc 'a' in query 'q' \(classes 3 and 4\)"),
    (pd.DataFrame({'query_id': ['q', 'q'], 'doc_id': ['a', 'b'], 'relevance': [1, 1],
                   'equivalence_class': [3, None]}), r"column 'equivalence_class' has 1 missing value"),
    (pd.DataFrame({'query_id': ['q'], 'doc_id': ['a'], 'relevance': [1], 'equivalence_class': [1.5]}),
     r"column 'equivalence_class': equivalence_class must be an integer, got 1.5 at row 0"),
])
def test_bad_class_data_in_other_forms_is_an_input_error(qrels, message):
    with pytest.raises(InputError, match=message):
        values([Q(classes=True)], qrels, {'q': {'a': 1.0}})


def test_classes_need_qrels_with_classes_and_an_order_of_tied_docs():
    with pytest.raises(InputError) as refused:
        values([Q(classes=True)], {'q': {'a': 1}}, {'q': {'a': 1.0}})
    assert str(refused.value) == ('classes=True needs qrels with equivalence classes (a fifth field, the class id, '
                                  'on every line of a TREC file, an equivalence_class column, or dict values '
                                  '(relevance, class)); these qrels have none')
    assert values([Q(classes=False)], {'q': {'a': 1}}, {'q': {'a': 1.0}}) == {'Q': 1.0}  # (the default)
    for ties in ('expected', 'optimistic', 'pessimistic'):
        with pytest.raises(MeasureParamError, match=f'classes=True needs ties=trec_eval or ties=rank, not ties={ties}'):
            values([Q(classes=True, ties=ties)], EXAMPLE_QRELS, EXAMPLE_RUN)
    with pytest.raises(MeasureParamError, match='classes must be True or False'):
        Q(classes=1)
    # ties=rank orders by the rank column: aaa first (rank 1) keeps its level 3 and Q = BR(1) = (1 + 3)/(1 + 3)
    run = pd.DataFrame({'query_id': ['q', 'q'], 'doc_id': ['aaa', 'bbb'], 'score': [1.0, 1.0], 'rank': [1, 2]})
    assert values([Q(classes=True, ties='rank')], EXAMPLE_QRELS, run) == {"Q(classes=True,ties='rank')": 1.0}


@SETTINGS
@given(qrels_with_classes(), st.sampled_from([0.0, 1.0, 2.5]), gains_maps(), st.integers(1, 3),
       st.sampled_from([None, *CUTOFFS]), st.sampled_from(CUTOFFS), st.sampled_from(sorted(PATHS)))
def test_measures_with_classes_equal_their_reference(data, beta, gains, rel, cutoff, k, path):
    qrels, run = data
    labels, classes = split(qrels)
    ranked = rankings(run)
    q = Q(beta=beta, rel=rel, classes=True, **with_gains(gains))
    depth = reference.run_depth(labels, run)
    functions = {
        q if cutoff is None else q @ cutoff: lambda r, j: reference.q_measure(r, j, beta, gains, rel, cutoff),
        nDCG_JK(rel=rel, classes=True, **with_gains(gains)) @ k: lambda r, j: reference.ndcg_jk(r, j, k, gains, rel),
        MSnDCG(rel=rel, classes=True, **with_gains(gains)) @ k: lambda r, j: reference.msndcg(r, j, k, gains, rel),
        nDCG_Z1(rel=rel, classes=True, **with_gains(gains)) @ k: lambda r, j: reference.ndcg_z1(r, j, k, gains, rel),
        nERR(rel=rel, max_level=4, classes=True) @ k: lambda r, j: reference.nerr(r, j, k, 4, None, rel),
        MeanRank(rel=rel, classes=True): lambda r, j: reference.first_relevant_rank(r, j, depth, rel),
    }
    expected = {measure: {qid: function(ranked.get(qid, []),
                                        reference.ClassJudged(ranked.get(qid, []), judged, classes[qid]))
                          for qid, judged in labels.items()}
                for measure, function in functions.items()}
    if path == 'cli' and not any(run.values()):
        return  # a TREC file needs a line; the other paths cover empty runs
    try:
        assert_matches(expected, *PATHS[path](list(expected), qrels, run), path)
    except CommandError as error:
        raise AssertionError(error) from None


@SETTINGS
@given(qrels_with_classes())
def test_the_transform_relabels_rows_as_the_reference_and_commutes_with_the_condensed_list(data):
    """Each row's label after the transform is ClassJudged's for its doc; the condensed list of the transformed
    run is the transform of the condensed list (so the order of the two transforms does not matter)."""
    qrels, run = data
    labels, classes = split(qrels)
    judgments = Judgments(read_input(qrels, 'qrels').table)
    ranked = rank_run(read_input(run, 'run').table, judgments)
    transformed = equivalence_classes(ranked)
    query_ids = judgments.query_ids.to_pylist()
    expected = []
    for query_id in query_ids:
        ranking = reference.trec_ranking(run.get(query_id, {}))
        view = reference.ClassJudged(ranking, labels[query_id], classes[query_id])
        expected += [(query_id, rank, view[doc]) for rank, doc in enumerate(ranking, 1) if doc in view]
    assert [(query_ids[q], r, label) for q, r, label in zip(transformed.query.tolist(), transformed.rank.tolist(),
                                                             transformed.label.tolist(), strict=True)] == expected
    assert transformed.judgments is judgments.by_class() and transformed.equivalence_class is None
    assert transformed.judgments.n_relevant(1).tolist() == [
        sum(best >= 1 for best in reference.ClassJudged([], labels[q], classes[q]).values()) for q in query_ids]
    first, second = condensed(transformed), equivalence_classes(condensed(ranked))
    for name in ('query', 'rank', 'label', 'tie_start', 'tie_size', 'starts', 'n_retrieved'):
        assert getattr(first, name).tolist() == getattr(second, name).tolist(), name


def test_every_measure_of_ours_takes_classes_and_ir_measures_own_do_not():
    assert DECLARED and all('classes' in measure.SUPPORTED_PARAMS for measure in DECLARED.values())
    assert 'classes' not in ir_measures.AP.SUPPORTED_PARAMS


@SETTINGS
@given(qrels_with_classes(), st.sampled_from(CUTOFFS))
def test_transforms_that_drop_or_reorder_rows_keep_each_rows_class(data, cutoff):
    """top, condensed and reorder take the same rows of the class column as of the others: each (query, label,
    class) row of a tie group stays together."""
    qrels, run = data
    ranked = rank_run(read_input(run, 'run').table, Judgments(read_input(qrels, 'qrels').table))

    def rows(run_: RankedRun) -> list[tuple[int, int, int, int]]:
        return sorted(zip(run_.query.tolist(), run_.tie_start.tolist(), run_.label.tolist(),
                          run_.equivalence_class.tolist(), strict=True))

    def kept(keep) -> list[tuple[int, int, int, int]]:
        return sorted(zip(ranked.query[keep].tolist(), ranked.tie_start[keep].tolist(), ranked.label[keep].tolist(),
                          ranked.equivalence_class[keep].tolist(), strict=True))

    assert rows(ranked.top(cutoff)) == kept(ranked.rank <= cutoff)
    assert rows(truncated(ranked, cutoff)) == kept(ranked.rank <= cutoff)
    assert rows(reorder(ranked, 'optimistic')) == rows(ranked)
    dropped = condensed(ranked, 0)
    assert [row[::2] for row in rows(dropped)] == [row[::2] for row in kept(ranked.label >= 0)]
