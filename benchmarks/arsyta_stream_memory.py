"""Peak memory of streaming an ArSyTa-format contexts.json, against json.load, as the file grows.

    python benchmarks/arsyta_stream_memory.py [--sizes-mb 50 200 400]

Each size writes a seeded synthetic contexts.json (SymTax layout) into benchmarks/data/, then
measures in fresh subprocesses the peak RSS of (a) iterating every record with
``irmeasures_ext.datasets.stream_contexts`` and (b) ``json.load`` of the same file. Results are
printed and written to benchmarks/results/arsyta-stream-<date>.md.
"""
from __future__ import annotations

import argparse
import datetime
import json
import platform
import random
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / 'data'
RESULTS = HERE / 'results'

STREAM = ('import sys, resource; from pathlib import Path; from irmeasures_ext.datasets import stream_contexts\n'
          'n = sum(1 for _ in stream_contexts(Path(sys.argv[1])))\n'
          'print(n, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)')
LOAD = ('import sys, json, resource\n'
        'n = len(json.load(open(sys.argv[1], encoding="utf-8")))\n'
        'print(n, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)')


def write_contexts(path: Path, size_mb: int, seed: int = 7) -> int:
    """Writes a contexts.json of about ``size_mb`` MB; returns the number of records."""
    rng = random.Random(seed)
    words = [f'w{i}' for i in range(5000)]
    target, written, count = size_mb * 1_000_000, 0, 0
    with open(path, 'w', encoding='utf-8') as out:
        out.write('{')
        while written < target:
            context_id = f'ctx{count}'
            record = {'context_id': context_id, 'citing_id': f'p{rng.randrange(10**6)}',
                      'ref_id': f'p{rng.randrange(10**6)}', 'heading': 'Related Work',
                      'masked_text': ' '.join(rng.choices(words, k=60)) + ' TARGETCIT.'}
            chunk = ('' if count == 0 else ',') + json.dumps(context_id) + ':' + json.dumps(record)
            out.write(chunk)
            written += len(chunk)
            count += 1
        out.write('}')
    return count


def peak_rss_mb(script: str, path: Path) -> tuple[int, float]:
    output = subprocess.run([sys.executable, '-c', script, str(path)], capture_output=True, text=True,
                            check=True).stdout.split()
    return int(output[0]), int(output[1]) / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument('--sizes-mb', type=int, nargs='+', default=[50, 200, 400])
    args = parser.parse_args()
    DATA.mkdir(exist_ok=True)
    RESULTS.mkdir(exist_ok=True)
    rows = ['| file size | records | stream_contexts peak RSS | json.load peak RSS |', '| --- | --- | --- | --- |']
    for size in args.sizes_mb:
        path = DATA / f'arsyta-contexts-{size}mb.json'
        if not path.exists():
            write_contexts(path, size)
        records, stream_mb = peak_rss_mb(STREAM, path)
        _, load_mb = peak_rss_mb(LOAD, path)
        rows.append(f'| {path.stat().st_size / 1e6:.0f} MB | {records:,} | {stream_mb:.0f} MB | {load_mb:.0f} MB |')
        print(rows[-1], flush=True)
    report = '\n'.join([f'# ArSyTa contexts.json streaming, {datetime.date.today()}', '',
                        f'Python {platform.python_version()}, {platform.machine()}; peak RSS of a fresh process.',
                        '', *rows, ''])
    (RESULTS / f'arsyta-stream-{datetime.date.today()}.md').write_text(report)
    print(report)


if __name__ == '__main__':
    main()
