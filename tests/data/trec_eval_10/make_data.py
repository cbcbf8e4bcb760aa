"""Writes this folder's qrels and run (seeded) and trec_eval 10.0's outputs on them.

usage: python make_data.py --trec-eval PATH [--seed 20261204] [--out DIR]

The data are this project's own; the outputs are those of the trec_eval binary given (README.md: which
one, and the exact commands). Data only: nothing here builds trec_eval.
"""
import argparse
import random
import subprocess
from pathlib import Path

#: (output file, trec_eval arguments before the qrels and run files).
COMMANDS = [
    ('out.default.q.c', ['-q', '-c', '-m', 'rbp', '-m', 'rbp_resid', '-m', 'unj']),
    ('out.p.q.c', ['-q', '-c', '-m', 'rbp.p=0.8', '-m', 'rbp_resid.p=0.5', '-m', 'unj.1,3,7,50,1000']),
    ('out.gains_exp.q.c', ['-q', '-c', '-m', 'rbp.p=0.95,1=1,2=3,3=7,4=15']),
    ('out.gains_mixed.q.c', ['-q', '-c', '-m', 'rbp.p=0.5,0=0.2,1=0.5,2=0.25,3=1']),
    ('out.M10.q.c', ['-q', '-c', '-M10', '-m', 'rbp', '-m', 'rbp_resid', '-m', 'unj']),
    ('out.J.q.c', ['-q', '-c', '-J', '-m', 'rbp', '-m', 'rbp_resid', '-m', 'unj']),
]


def doc_id(rng: random.Random, number: int) -> str:
    """Id shapes whose byte order differs from their numeric order."""
    return rng.choice([f'd{number}', f'D{number}', f'0{number}', f'doc-{number}', f'{number}'])


def label_of(rng: random.Random, kind: int) -> int:
    if kind == 0:
        return rng.choice([0, 0, 0, -1])                           # no relevant doc
    if kind == 1:
        return -1                                                  # judged only -1 ("in the pool, not judged")
    if kind == 2:
        return rng.choices([-2, -1, 0, 1], weights=[1, 1, 4, 3])[0]  # binary, negatives mixed in
    if kind == 3:
        return rng.choices([0, 1, 2], weights=[3, 2, 1])[0]          # graded up to 2
    return rng.choices([-2, -1, 0, 1, 2, 3, 4], weights=[1, 1, 6, 3, 2, 1, 1])[0]


def scores(rng: random.Random, count: int) -> list[float]:
    """Scores in ranking order of one query: distinct, all tied, tied in threes, or pairs that differ only beyond
    float32 precision (distinct for trec_eval 10.0, tied for trec_eval 9)."""
    mode = rng.choice(['distinct', 'all', 'threes', 'float32'])
    if mode == 'distinct':
        return [round(50 - i * 0.37 + rng.uniform(0, 0.3), 6) for i in range(count)]
    if mode == 'all':
        return [1.0] * count
    if mode == 'threes':
        return [50 - (i // 3) * 0.5 for i in range(count)]
    return [10 - (i // 2) * 0.5 + (1e-7 if i % 2 == 0 else 0.0) for i in range(count)]


def make_data(rng: random.Random) -> tuple[list[str], list[str]]:
    qrels, run = [], []
    for q in range(1, 41):
        qid = f'{200 + q}' if q % 6 else f'T{q}'
        kind = (q + 3) % 10  # (not kind 1 first: trec_eval 10.0 stops on a first query judged only below 0)
        n_docs = rng.choice([1, 3, 8, 25, 120, 600])
        pool = list(dict.fromkeys(doc_id(rng, rng.randrange(10 ** 5)) for _ in range(n_docs + 40)))
        retrieved, others = pool[:n_docs], pool[n_docs:]
        judged = rng.sample(retrieved, k=min(len(retrieved), rng.randint(1, 60))) + others[:rng.randint(0, 8)]
        for doc in judged:
            qrels.append(f'{qid} 0 {doc} {label_of(rng, kind)}')
        if kind == 9:
            continue                                               # a qrels query the run does not answer
        lines = [(qid, doc, i, score) for i, (doc, score) in enumerate(zip(retrieved, scores(rng, len(retrieved))))]
        rng.shuffle(lines)                                         # line order and rank column are not the ranking
        for qid_, doc, rank, score in lines:
            sep = rng.choice([' ', '\t'])
            run.append(f'{qid_}{sep}Q0{sep}{doc}{sep}{rank}{sep}{score!r}{sep}ours')
    for qid in ('999', 'T999'):                                    # run-only queries
        run.extend(f'{qid} Q0 {doc_id(rng, i)} {i} {1.0 / (i + 1)!r} ours' for i in range(5))
    return qrels, run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument('--trec-eval', required=True, help='the trec_eval 10.0 binary')
    parser.add_argument('--seed', type=int, default=20261204)
    parser.add_argument('--out', type=Path, default=Path(__file__).parent)
    args = parser.parse_args()
    qrels, run = make_data(random.Random(args.seed))
    (args.out / 'qrels.txt').write_text('\n'.join(qrels) + '\n')
    (args.out / 'run.txt').write_text('\n'.join(run) + '\n')
    for name, options in COMMANDS:
        output = subprocess.run([args.trec_eval, *options, 'qrels.txt', 'run.txt'], cwd=args.out, check=True,
                                capture_output=True, text=True).stdout
        (args.out / name).write_text(output)


if __name__ == '__main__':
    main()
