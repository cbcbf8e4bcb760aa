"""Peak memory and time of building nci/nq320k and nci/trivia-qa from generated multi-GB sources.

    python benchmarks/nci_build_memory.py [--examples 30000] [--page-kb 20 80]

For each page size, writes seeded synthetic sources in the upstream formats under
benchmarks/data/nci-<page-kb>kb/ (NQ: a simplified train file and five dev shards, ``--examples``
examples over a third as many distinct titles; TriviaQA: a triviaqa-rc.tar.gz with ``--examples``
evidence pages and as many questions), then builds each collection in a fresh process
(``IRMEASURES_EXT_NCI_TITLES=basic``) and records its wall time and peak RSS (GNU time). The same
numbers of examples, titles and questions with larger pages show whether memory follows the size
of the files (it should not) or the number of records. Writes benchmarks/results/nci-build-<date>.md.
"""
from __future__ import annotations

import argparse
import gzip
import io
import json
import os
import random
import shutil
import sys
import tarfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from common import child_environment, machine, run_measured, write_results  # noqa: E402

WORDS = [f'w{i}' for i in range(20_000)]
BUILD = "import ir_datasets, irmeasures_ext.datasets; print(ir_datasets.load('{}').docs_count())"


def page(rng: random.Random, title: str, page_bytes: int) -> str:
    """An NQ-like page: H1 title, a paragraph, lists and tables, about ``page_bytes`` long."""
    parts = [f'<H1> {title} </H1> <P> {" ".join(rng.choices(WORDS, k=40))} </P>']
    size = sum(map(len, parts))
    while size < page_bytes:
        block = (f'<Ul> <Li> {" ".join(rng.choices(WORDS, k=30))} </Li> </Ul> '
                 f'<P> {" ".join(rng.choices(WORDS, k=60))} </P>')
        parts.append(block)
        size += len(block) + 1
    return ' '.join(parts)


def write_nq(directory: Path, examples: int, page_bytes: int) -> int:
    rng = random.Random(1)
    directory.mkdir(parents=True, exist_ok=True)
    titles = [f'Title {i} ({rng.choice(WORDS)})' for i in range(examples // 3)]
    written = 0
    with gzip.open(directory / 'simplified-nq-train.jsonl.gz', 'wt', encoding='utf-8', compresslevel=1) as out:
        for example_id in range(examples):
            record = {'example_id': example_id, 'question_text': ' '.join(rng.choices(WORDS, k=8)),
                      'document_text': page(rng, rng.choice(titles), page_bytes), 'annotations': [],
                      'long_answer_candidates': [], 'document_url': 'https://example.org'}
            line = json.dumps(record) + '\n'
            written += len(line)
            out.write(line)
    for shard in range(5):
        with gzip.open(directory / f'nq-dev-0{shard}.jsonl.gz', 'wt', encoding='utf-8', compresslevel=1) as out:
            for example_id in range(examples + shard * 100, examples + shard * 100 + 100):
                tokens = page(rng, rng.choice(titles), page_bytes // 4).split(' ')
                record = {'example_id': example_id, 'question_text': 'q', 'document_title': rng.choice(titles),
                          'document_tokens': [{'token': t, 'html_token': t.startswith('<')} for t in tokens],
                          'annotations': []}
                line = json.dumps(record) + '\n'
                written += len(line)
                out.write(line)
    return written


def write_trivia(directory: Path, examples: int, page_bytes: int) -> int:
    rng = random.Random(2)
    directory.mkdir(parents=True, exist_ok=True)
    names = [f'Page_{i}_{rng.choice(WORDS)}.txt' for i in range(examples)]
    written = 0

    def add(archive: tarfile.TarFile, name: str, content: bytes) -> None:
        info = tarfile.TarInfo(name)
        info.size = len(content)
        archive.addfile(info, io.BytesIO(content))

    with tarfile.open(directory / 'triviaqa-rc.tar.gz', 'w:gz', compresslevel=1) as archive:
        for split in ('train', 'dev'):
            data = [{'QuestionId': f'{split}_{i}', 'Question': ' '.join(rng.choices(WORDS, k=10)) + '?',
                     'EntityPages': [{'Filename': name} for name in rng.sample(names, 2)]}
                    for i in range(examples if split == 'train' else examples // 8)]
            content = json.dumps({'Data': data, 'Domain': 'Wikipedia'}).encode()
            written += len(content)
            add(archive, f'qa/wikipedia-{split}.json', content)
        for name in names:
            words = rng.choices(WORDS, k=page_bytes // 6)
            content = '\n'.join(' '.join(words[i:i + 12]) for i in range(0, len(words), 12)).encode()
            written += len(content)
            add(archive, f'evidence/wikipedia/{name}', content)
    return written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--examples', type=int, default=30_000)
    parser.add_argument('--page-kb', type=int, nargs='+', default=[20, 80])
    args = parser.parse_args()
    rows = []
    for page_kb in args.page_kb:
        home = HERE / 'data' / f'nci-{page_kb}kb-{args.examples}'
        sizes = {}
        for collection, writer in (('nq320k', write_nq), ('trivia-qa', write_trivia)):
            directory = home / 'nci' / collection
            marker = directory / 'generated.json'
            if not marker.exists():
                print(f'writing {directory} ...', flush=True)
                marker.parent.mkdir(parents=True, exist_ok=True)
                size = writer(directory, args.examples, page_kb * 1024)
                marker.write_text(json.dumps({'uncompressed_bytes': size}))
            sizes[collection] = json.loads(marker.read_text())['uncompressed_bytes']
        for collection in ('nq320k', 'trivia-qa'):
            for built in (home / 'nci' / collection).glob('built-*'):
                shutil.rmtree(built)
            compressed = sum(p.stat().st_size for p in (home / 'nci' / collection).glob('*.gz'))
            env = child_environment(IR_DATASETS_HOME=str(home), IRMEASURES_EXT_NCI_TITLES='basic')
            seconds, peak_mb = run_measured([sys.executable, '-c', BUILD.format(f'nci/{collection}')], env)
            rows.append({'collection': collection, 'page_kb': page_kb, 'examples': args.examples,
                         'source_gb_uncompressed': sizes[collection] / 1e9, 'source_gb_compressed': compressed / 1e9,
                         'seconds': seconds, 'peak_rss_mb': peak_mb})
            print(rows[-1], flush=True)
    lines = [f'# Building the NCI collections — {time.strftime("%Y-%m-%d %H:%M")}', '',
             f'Fresh process per build, peak RSS from GNU time. Machine: {json.dumps(machine())}. '
             f'Load average after: {os.getloadavg()[0]:.2f}.', '',
             '| collection | records | page KB | source GB (uncompressed / gz) | build s | peak RSS MB |',
             '| --- | --- | --- | --- | --- | --- |']
    lines += [f'| {r["collection"]} | {r["examples"]:,} | {r["page_kb"]} | {r["source_gb_uncompressed"]:.2f} / '
              f'{r["source_gb_compressed"]:.2f} | {r["seconds"]:.0f} | {r["peak_rss_mb"]:.0f} |' for r in rows]
    write_results('nci-build', rows, '\n'.join(lines) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main())
