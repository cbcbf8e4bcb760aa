"""Seeded TREC files and the checks of a streamed evaluation against the in-memory one (tests/engine/test_stream.py,
tests/engine/test_stream_columnar.py, tests/measures/test_trec_eval_rest.py)."""
from __future__ import annotations

import gzip
import os
import random
import tempfile
from pathlib import Path

import ir_measures
import pytest
import pytrec_eval

from irmeasures_ext.engine import evaluator as evaluators
from irmeasures_ext.engine import stream
from irmeasures_ext.errors import MeasureParamError
from irmeasures_ext.measures.base import DEFAULT_RANKING, Ranking
from irmeasures_ext.readers import pieces
from irmeasures_ext.readers.trec import TrecSource

#: One or more measures of every kernel family, ir_measures' own among them.
MEASURES = [ir_measures.parse_measure(text) for text in [
    'AP', 'AP@5', 'P@5', 'R@10', 'RR', 'RR@10', 'Rprec', 'nDCG', 'nDCG@5', 'Success@3', 'NumRet', 'NumRel',
    'Q', 'Q@10', 'Q(beta=0.5,gains={1:1,2:3,3:7})', 'nDCG_Z1@5', 'MeanRank', 'MedianRank', 'RankVariance',
    'nERR@10', 'MSnDCG@10', 'nDCG_JK@10', 'ERR_NTCIR@10', 'RBP_NTCIR', 'iRBU(u=0.9)@10', 'GAP', 'bpref_NTCIR',
    'bpref_R', 'rpref_relative2', 'O_measure', 'P_measure', 'P_plus', 'NCU', 'EBR', 'nDCG(gains={0:0,1:1,2:5,3:9})']]
#: Measures that take ties='expected' (an exact expected value).
EXPECTED = [ir_measures.parse_measure(text) for text in ['AP', 'P@5', 'RR', 'nDCG@5', 'Q', 'nDCG_Z1@5', 'MeanRank']]
BLOCKS = (17, 64, 300, 1 << 20)


def write_files(directory: Path, seed: int, interleave: bool = False, classes: bool = False,
                compress: bool = False) -> tuple[Path, Path]:
    """Seeded qrels (some queries absent from the run, graded labels, a negative one; with ``classes`` a class
    per doc) and a run (some queries absent from the qrels, tied scores, one to 60 docs a query), lines in
    query order or shuffled."""
    rng = random.Random(seed)
    qrels_lines, run_lines = [], []
    for query in range(30):
        for doc in rng.sample(range(80), rng.randint(1, 20)):
            label = rng.choice([-1, 0, 0, 1, 1, 2, 3])
            qrels_lines.append(f'q{query} 0 d{doc} {label}' + (f' {doc % 7}' if classes else '') + '\n')
    for query in range(5, 36):
        docs = rng.sample(range(90), rng.randint(1, 60))
        run_lines += [f'q{query} Q0 d{doc} {rank} {rng.randint(0, 12) / 4} tag\n' for rank, doc in enumerate(docs, 1)]
    if interleave:
        rng.shuffle(run_lines)
    qrels, run = directory / 'qrels.txt', directory / ('run.txt.gz' if compress else 'run.txt')
    qrels.write_text(''.join(qrels_lines))
    if compress:
        with gzip.open(run, 'wt') as handle:
            handle.writelines(run_lines)
    else:
        run.write_text(''.join(run_lines))
    return qrels, run


def streamed(run: Path, with_rank: bool, block: int, bucket: int = 200) -> pieces.RunStream:
    return pieces.RunStream(TrecSource(run), with_rank, block, bucket)


def supported(measure: ir_measures.Measure, ranking: Ranking) -> bool:
    try:
        evaluators.ranking_of(measure, ranking)
    except MeasureParamError:
        return False
    return True


def assert_streams_as_in_memory(measures: list, qrels: Path, run: Path, ranking: Ranking = DEFAULT_RANKING) -> None:
    """The measures ``ranking`` supports, streamed in blocks of every size of BLOCKS: the in-memory bits."""
    measures = [measure for measure in measures if supported(measure, ranking)]
    built = evaluators.evaluator(measures, qrels, ranking)
    whole = built.values(run)
    for block in BLOCKS:
        values = built.values(streamed(run, built.reads_rank, block))
        for measure in measures:
            assert values[measure].tobytes() == whole[measure].tobytes(), (measure, block)


def assert_streamed_as_pytrec_eval(qrels: Path, run_dict: dict, run: pieces.RunStream) -> None:
    """``run`` streamed gives pytrec_eval's values on the qrels file and ``run_dict`` (its rows, query ->
    doc -> score) for AP, P@5, nDCG@5 and RR, per query (qrels queries the run misses: 0)."""
    qrels_dict: dict = {}
    for qrel in ir_measures.read_trec_qrels(str(qrels)):
        qrels_dict.setdefault(qrel.query_id, {})[qrel.doc_id] = qrel.relevance
    names = {'map': ir_measures.AP, 'P_5': ir_measures.P @ 5, 'ndcg_cut_5': ir_measures.nDCG @ 5,
             'recip_rank': ir_measures.RR}
    answered = {query: docs for query, docs in run_dict.items() if query in qrels_dict}
    theirs = pytrec_eval.RelevanceEvaluator(qrels_dict, {'map', 'P.5', 'ndcg_cut.5', 'recip_rank'}).evaluate(answered)
    built = evaluators.evaluator(list(names.values()), qrels)
    values = built.values(run)
    for name, measure in names.items():
        for query, value in zip(built.qrel_qids, values[measure].tolist(), strict=True):
            assert value == pytest.approx(theirs[query][name] if query in theirs else 0.0, abs=1e-12), (name, query)


def leftovers(directory: Path) -> list[str]:
    return [name for name in os.listdir(directory) if name.startswith(stream.TEMPORARY_PREFIX)]


def watched_partitions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, list[Path]]:
    """A fresh ``$TMPDIR`` for the test, and the list the directories of the partitions will be added to."""
    scratch = tmp_path / 'tmp'
    scratch.mkdir()
    monkeypatch.setattr(tempfile, 'tempdir', str(scratch))
    made: list[Path] = []
    monkeypatch.setattr(stream, '_partitioned', lambda run, directory, original=stream._partitioned: (
        made.append(directory), original(run, directory))[1])
    return scratch, made

