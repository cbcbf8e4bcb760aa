"""Writes the judging-the-judges sample shipped in ``irmeasures_ext/sample/judges/`` (synthetic, seeded, of our own
making): 30 queries of 60 docs each with a hidden graded relevance 0-3 and an "appeal" (what makes a doc look
relevant to a language model, whether it is or not); ten runs of close quality, the last five ("neural") drawn to
appealing docs too; and three judgement sets of the runs' pool: ``nist`` (assessors, top 10 pool: the hidden
label, a tenth moved by one level), ``llm`` (an LLM judge, top 20 pool: lenient, and a level higher for an
appealing doc) and ``llm_weak`` (a noisier one, top 10 pool, a third of its labels off by one level).

    python notebooks/make_judges_sample.py
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent.parent / 'irmeasures_ext' / 'sample' / 'judges'
QUERIES, DOCS, RETRIEVED, RUNS = 30, 60, 25, 10


def main() -> None:
    rng = np.random.default_rng(46)
    hidden = rng.choice(4, size=(QUERIES, DOCS), p=[0.55, 0.25, 0.12, 0.08])
    appeal = rng.normal(0, 1, hidden.shape)
    quality = np.linspace(1.2, 0.7, RUNS)
    rankings = []
    for run in range(RUNS):
        scores = quality[run] * hidden + 0.9 * (run >= RUNS // 2) * appeal + rng.normal(0, 1, hidden.shape)
        rankings.append(np.argsort(-scores, axis=1, kind='stable')[:, :RETRIEVED])
        scores_of = np.take_along_axis(scores, rankings[-1], axis=1)
        lines = [f'q{q + 1:02d} Q0 d{q + 1:02d}_{doc:02d} {rank + 1} {scores_of[q, rank]:.4f} run{run:02d}\n'
                 for q in range(QUERIES) for rank, doc in enumerate(rankings[-1][q])]
        (OUT / 'runs').mkdir(parents=True, exist_ok=True)
        (OUT / 'runs' / f'run{run:02d}.txt').write_text(''.join(lines), encoding='utf-8')
    judges = {'nist': (10, [0.05, 0.9, 0.05], 0), 'llm': (20, [0.05, 0.7, 0.25], 1),
              'llm_weak': (10, [0.17, 0.66, 0.17], 0)}
    for name, (depth, moves, swayed) in judges.items():
        lines = []
        for q in range(QUERIES):
            pool = sorted({int(doc) for ranking in rankings for doc in ranking[q, :depth]})
            labels = np.clip(hidden[q, pool] + rng.choice([-1, 0, 1], size=len(pool), p=moves)
                             + swayed * (appeal[q, pool] > 1), 0, 3)
            lines += [f'q{q + 1:02d} 0 d{q + 1:02d}_{doc:02d} {label}\n'
                      for doc, label in zip(pool, labels, strict=True)]
        (OUT / f'{name}.txt').write_text(''.join(lines), encoding='utf-8')


if __name__ == '__main__':
    main()
