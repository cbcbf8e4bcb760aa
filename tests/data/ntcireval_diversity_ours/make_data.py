"""Seeded diversity test data for NTCIREVAL 190111's intent-aware measures (our own generator).

Writes, into the folder given as argv[1] (default .): DINprob.txt, Iprob.txt, Dqrels.txt, run.txt, topic_notes.tsv.
Deterministic for the seed under CPython 3.11 (random.Random).
"""
import random
import sys
from pathlib import Path

SEED = 20261205
N_TOPICS = 60
RUN_LENGTHS = [1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 15, 19, 20, 21, 25, 30, 40, 55, 80, 120, 200, 300]


def doc_id(rng: random.Random, used: set) -> str:
    """Doc ids of mixed shapes whose byte order is not their numeric order (d9 > d10 > d100 byte-wise)."""
    while True:
        shape = rng.random()
        n = rng.randint(1, 2500)
        if shape < 0.45:
            doc = f'd{n}'
        elif shape < 0.6:
            doc = f'D{n}'
        elif shape < 0.75:
            doc = f'doc-{n:04d}'
        elif shape < 0.85:
            doc = f'{n}'
        elif shape < 0.93:
            doc = f'w{n}.x_{rng.randint(0, 99)}'
        else:
            doc = f'Z{n}a'
        if doc not in used:
            used.add(doc)
            return doc


def probabilities(rng: random.Random, n: int, style: str) -> list[int]:
    """n probabilities in units of 1e-4 (each >= 1) summing to exactly 10000."""
    if style == 'uniform':
        base, extra = divmod(10000, n)
        return [base + (1 if i < extra else 0) for i in range(n)]
    if style == 'skewed':
        weights = [rng.random() ** 3 + 0.001 for _ in range(n)]
    else:
        weights = [rng.random() + 0.05 for _ in range(n)]
    units = [max(1, int(10000 * w / sum(weights))) for w in weights]
    units[max(range(n), key=lambda i: units[i])] += 10000 - sum(units)
    assert sum(units) == 10000 and min(units) >= 1
    return units


def make_topic(rng: random.Random, number: int) -> dict:
    qid = f't{number}'
    used: set = set()
    note = []
    n_intents = rng.randint(2, 8)
    if number == 12:
        n_intents = 8
    intent_ids = sorted(rng.sample(range(1, 15), n_intents)) if rng.random() < 0.3 or number == 12 \
        else list(range(1, n_intents + 1))
    style = rng.choice(['uniform', 'skewed', 'random', 'random'])
    units = probabilities(rng, n_intents, style)
    types = ['nav' if rng.random() < 0.35 else 'inf' for _ in intent_ids]
    if number == 10:
        types = ['nav'] * n_intents
        note.append('every intent navigational')
    if number == 11:
        types = ['inf'] * n_intents
        note.append('every intent informational')
    if number in (9, 15, 22):
        types[0] = 'nav'
    # judgments: {doc: {intent: level}}
    judged: dict[str, dict[int, int]] = {}
    shared_pool = [doc_id(rng, used) for _ in range(rng.randint(2, 10))]
    only_l0 = number in (7, 33)
    no_qrels = number in (8, 41)
    for k, intent in enumerate(intent_ids):
        if (only_l0 or no_qrels) and k == len(intent_ids) - 1:
            if only_l0:
                for _ in range(rng.randint(1, 3)):
                    doc = rng.choice(shared_pool) if rng.random() < 0.5 else doc_id(rng, used)
                    judged.setdefault(doc, {})[intent] = 0
                note.append(f'intent {intent} listed but judged only L0')
            else:
                note.append(f'intent {intent} listed without any qrels line')
            continue
        top = rng.randint(1, 4)
        n_rel = rng.randint(1, 12)
        for j in range(n_rel):
            doc = rng.choice(shared_pool) if rng.random() < 0.35 else doc_id(rng, used)
            level = top if j == 0 else rng.randint(1, top)
            judged.setdefault(doc, {})[intent] = level
        if rng.random() < 0.2:  # an explicit L0 for a real intent
            doc = doc_id(rng, used)
            judged.setdefault(doc, {})[intent] = 0
    if number == 6:  # no relevant doc at all: every line L0
        judged = {doc: {intent: 0 for intent in levels} for doc, levels in judged.items()}
        note = ['no relevant doc (only L0 lines): NTCIREVAL refuses it, not in the golden rows']
    if number in (9, 15, 22):  # a navigational intent with several relevant docs at different levels
        nav = intent_ids[0]
        low, high = doc_id(rng, used), doc_id(rng, used)
        judged[low] = {nav: 1}
        judged[high] = {nav: 4, intent_ids[1]: 2}
        note.append(f'nav intent {nav}: {low} (L1) ranked before {high} (L4)')
    nonrel = [doc_id(rng, used) for _ in range(rng.randint(0, 15))]
    for doc in nonrel:
        judged.setdefault(doc, {})[0] = 0
    unjudged = [doc_id(rng, used) for _ in range(rng.randint(0, 320))]
    prob = {intent: u / 10000 for intent, u in zip(intent_ids, units)}

    def gg(doc):
        return sum(prob.get(i, 0) * level for i, level in judged.get(doc, {}).items())

    relevant = sorted((d for d in judged if gg(d) > 0), key=lambda d: (-gg(d), d))
    # the run
    length = rng.choice(RUN_LENGTHS)
    quality = rng.random()
    candidates = list(judged) + unjudged
    if number == 1:
        ranked = relevant + [d for d in candidates if d not in relevant]
        length = len(ranked)
        note.append('ideal order, all docs')
    elif number == 13:
        length = 300
        pool = candidates + [doc_id(rng, used) for _ in range(max(0, 300 - len(candidates)))]
        ranked = sorted(pool, key=lambda d: -(gg(d) * quality * 3 + rng.random()))
        note.append('300 docs')
    elif number == 14:
        ranked = list(reversed(relevant))
        length = len(ranked)
        note.append('relevant docs in reverse ideal order')
    elif number == 3:
        ranked, length = relevant[-1:], 1
        note.append('one relevant doc')
    elif number == 4:
        ranked, length = [doc_id(rng, used)], 1
        note.append('one unjudged doc')
    elif number == 5:
        ranked = nonrel + unjudged + [doc_id(rng, used) for _ in range(3)]
        length = min(len(ranked), 25)
        note.append('only judged non-relevant and unjudged docs')
    elif number in (9, 15, 22):
        nav = intent_ids[0]
        low = next(d for d in judged if judged[d] == {nav: 1})
        high = next(d for d in judged if judged[d].get(nav) == 4)
        rest = [d for d in candidates if d not in (low, high)]
        rng.shuffle(rest)
        ranked = rest[:2] + [low] + rest[2:4] + [high] + rest[4:]
        length = max(length, 8)
    else:
        ranked = sorted(candidates, key=lambda d: -(gg(d) * quality * 4 + rng.random()))
    ranked = ranked[:min(length, 300)]
    if number == 2:
        ranked = []
        note.append('absent from the run')
    # distinct scores, descending (some negative)
    offset = rng.choice([0, 0, -5000, -100000])
    scores = sorted(rng.sample(range(1, 100000), len(ranked)), reverse=True)
    run = [(doc, (s + offset) / 10000) for doc, s in zip(ranked, scores)]
    n_nav = types.count('nav')
    return {'qid': qid, 'intents': list(zip(intent_ids, units, types)), 'judged': judged, 'run': run,
            'note': '; '.join(note) or f'{style} probabilities', 'n_nav': n_nav, 'n_rel': len(relevant)}


def main(out: Path) -> None:
    rng = random.Random(SEED)
    topics = [make_topic(rng, number) for number in range(1, N_TOPICS + 1)]
    with open(out / 'DINprob.txt', 'w') as din, open(out / 'Iprob.txt', 'w') as iprob:
        for t in topics:
            for intent, units, kind in t['intents']:
                din.write(f"{t['qid']} {intent} {units / 10000:.4f} {kind}\n")
                iprob.write(f"{t['qid']} {intent} {units / 10000:.4f}\n")
    with open(out / 'Dqrels.txt', 'w') as qrels:
        for t in topics:
            for doc in sorted(t['judged'], key=lambda d: d.encode()):
                for intent, level in sorted(t['judged'][doc].items()):
                    qrels.write(f"{t['qid']} {intent} {doc} L{level}\n")
    with open(out / 'run.txt', 'w') as run:
        for t in topics:
            for rank, (doc, score) in enumerate(t['run'], 1):
                run.write(f"{t['qid']} Q0 {doc} {rank} {score:.4f} ourrun\n")
        extra = random.Random(SEED + 1)  # a run-only topic
        for rank in range(1, 6):
            run.write(f"t99 Q0 d{extra.randint(1, 99)}x{rank} {rank} {1 - rank / 10:.4f} ourrun\n")
    with open(out / 'topic_notes.tsv', 'w') as notes:
        notes.write('qid\tn_intents\tn_nav\tn_reldocs\trun_len\tnote\n')
        for t in topics:
            notes.write(f"{t['qid']}\t{len(t['intents'])}\t{t['n_nav']}\t{t['n_rel']}\t{len(t['run'])}\t{t['note']}\n")
        notes.write('t99\t0\t0\t0\t5\trun-only topic (not in DINprob/Dqrels): never evaluated\n')


if __name__ == '__main__':
    main(Path(sys.argv[1] if len(sys.argv) > 1 else '.'))
