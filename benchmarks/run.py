"""Wall time and peak memory of irmeasures_ext against ir_measures, pytrec_eval and a pyarrow read.

    python benchmarks/run.py --size 1m|5m|7m|all [--repeat 3] [--tools ours,default,...]
    python benchmarks/run.py --tools ours,baseline,floor --baseline OTHER_VENV/bin/python --baseline-label COMMIT

Generates the seeded synthetic data on first use (benchmarks/data/, see datagen.py), then
measures every tool ``--repeat`` times, interleaved (one round runs each tool once, in a
rotating order), each measurement in a fresh Python process with bytecode caching on as for
users, so that peak RSS (from GNU time, see common.run_measured) belongs to one tool. Each child reports the
wall time of its timed section (after interpreter start-up and imports); the parent also
records the child's whole-process wall time. Writes benchmarks/results/<size>-<date>.json
and .md with medians, ratios and the machine description (with the tools in the name when
``--tools`` picks some, and numbered rather than overwriting earlier results). The ``baseline`` tool
is ``ours`` run by another environment's Python (``--baseline``), e.g. an earlier commit installed
there: a change's effect measured in the same rounds, against the same floor.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from common import RESULTS_DIR, child_environment, machine, results_stem, rotated, run_measured  # noqa: E402

SIZES = ('1m', '5m', '7m')

#: Our command-equivalent: the QuoteR suite, Q@1000 and the four trec_eval measures.
OURS_MEASURES = ['RR', 'nDCG_Z1@5', 'Success@1', 'Success@10', 'Success@100', 'MedianRank', 'MeanRank',
                 'Q@1000', 'nDCG@5', 'RR@100', 'R@100', 'AP']
#: What the ir_measures default pipeline is asked for.
DEFAULT_MEASURES = ['nDCG@5', 'RR@100', 'R@100', 'AP']
#: DataFrame comparison: measures both providers support (pytrec_eval has no RR@k).
FRAME_MEASURES = ['nDCG@5', 'RR', 'R@100', 'AP']
#: A mixed list through ir_measures (issue 48): two of ours, then two that ir_measures gives pytrec_eval.
MIXED_MEASURES = ['Q@1000', 'nDCG_Z1@5', 'nDCG@5', 'AP']
#: Plain ir_measures (no plugin) on the mixed list's measures it computes.
PLAIN_MIXED_MEASURES = ['nDCG@5', 'AP']
PYTREC_MEASURES = {'map': 'AP', 'ndcg_cut_5': 'nDCG@5', 'recall_100': 'R@100', 'recip_rank': 'RR'}

TOOLS = {
    'ours': 'irmeasures_ext provider, file paths: QuoteR suite + Q@1000 + nDCG@5 RR@100 R@100 AP',
    'cli': '`python -m irmeasures_ext QRELS RUN --suite quoter Q@1000 nDCG@5 RR@100 R@100 AP` '
           '(whole process)',
    'ir_measures_cli': "the plain `ir_measures QRELS RUN 'nDCG@5 RR@100 R@100 AP'` command (hook off; whole process)",
    'default': 'ir_measures.calc_aggregate([nDCG@5, RR@100, R@100, AP], read_trec_qrels, read_trec_run)',
    'pytrec_eval': 'pytrec_eval direct: dicts built from the files + map, ndcg_cut.5, recall.100, '
                   'recip_rank',
    'floor': 'pyarrow.csv.read_csv of the run (query_id, doc_id as string, score as float64)',
    'frame_ours': 'DataFrames (qrels, run) -> irmeasures_ext provider by name, [nDCG@5, RR, R@100, AP]',
    'frame_pytrec': 'DataFrames (qrels, run) -> ir_measures.pytrec_eval provider, [nDCG@5, RR, R@100, AP]',
    'mixed': 'ir_measures.calc_aggregate([Q@1000, nDCG_Z1@5, nDCG@5, AP], qrels_path, run_path): two of ours, '
             "two of pytrec_eval's",
    'plain_mixed': 'plain ir_measures (hook off): calc_aggregate([nDCG@5, AP], read_trec_qrels, read_trec_run)',
    'baseline': '"ours" run by the Python given as --baseline (another install of irmeasures_ext)',
    'baseline_mixed': '"mixed" run by the Python given as --baseline',
    'baseline_cli': '"cli" run by the Python given as --baseline (whole process)',
}
#: The tools that run the --baseline install.
BASELINE_TOOLS = ('baseline', 'baseline_cli', 'baseline_mixed')
#: The tools measured unless --tools says otherwise.
DEFAULT_TOOLS = [tool for tool in TOOLS if tool not in BASELINE_TOOLS]


# ---------------------------------------------------------------- children (one tool per process)

def _child(tool: str, qrels: str, run: str) -> None:
    """Runs one tool and prints {"seconds": timed section, "values": {measure: value}}."""
    prepare, timed = CHILDREN[tool]
    state = prepare(qrels, run)
    start = time.perf_counter()
    values = timed(state)
    print(json.dumps({'seconds': time.perf_counter() - start, 'values': values}))


def _ours_prepare(qrels: str, run: str) -> tuple:
    import ir_measures

    import irmeasures_ext  # noqa: F401  (registers the provider and measures)
    try:
        import irmeasures_ext.engine.evaluator  # noqa: F401  (the engine, which the provider loads on first use)
    except ModuleNotFoundError:  # a baseline from before the light core (c0ea38f) loads everything on import
        pass
    measures = [ir_measures.parse_measure(text) for text in OURS_MEASURES]
    return ir_measures.providers.registry['irmeasures_ext'], measures, qrels, run


def _ours(state: tuple) -> dict[str, float]:
    provider, measures, qrels, run = state
    return {str(m): v for m, v in provider.calc_aggregate(measures, qrels, run).items()}


def _default_prepare(qrels: str, run: str, measures: list[str] = DEFAULT_MEASURES) -> tuple:
    import ir_measures
    return ir_measures, [ir_measures.parse_measure(text) for text in measures], qrels, run


def _default(state: tuple) -> dict[str, float]:
    ir_measures, measures, qrels, run = state
    result = ir_measures.calc_aggregate(measures, ir_measures.read_trec_qrels(qrels), ir_measures.read_trec_run(run))
    return {str(m): v for m, v in result.items()}


def _mixed_prepare(qrels: str, run: str) -> tuple:
    import ir_measures

    import irmeasures_ext  # noqa: F401  (registers the provider and measures)
    return ir_measures, [ir_measures.parse_measure(text) for text in MIXED_MEASURES], qrels, run


def _mixed(state: tuple) -> dict[str, float]:
    ir_measures, measures, qrels, run = state
    return {str(m): v for m, v in ir_measures.calc_aggregate(measures, qrels, run).items()}


def _pytrec_prepare(qrels: str, run: str) -> tuple:
    import pytrec_eval
    return pytrec_eval, qrels, run


def _pytrec(state: tuple) -> dict[str, float]:
    pytrec_eval, qrels_path, run_path = state
    qrels: dict[str, dict[str, int]] = {}
    with open(qrels_path) as handle:
        for line in handle:
            query_id, _, doc_id, relevance = line.split()
            qrels.setdefault(query_id, {})[doc_id] = int(relevance)
    run: dict[str, dict[str, float]] = {}
    with open(run_path) as handle:
        for line in handle:
            query_id, _, doc_id, _, score, _ = line.split()
            run.setdefault(query_id, {})[doc_id] = float(score)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {'map', 'ndcg_cut.5', 'recall.100', 'recip_rank'})
    per_query = evaluator.evaluate(run)
    # ir_measures' convention: every qrels query counts, 0 when absent from the run.
    return {name: sum(values.get(key, 0.0) for values in per_query.values()) / len(qrels)
            for key, name in PYTREC_MEASURES.items()}


def _floor_prepare(qrels: str, run: str) -> tuple:
    import pyarrow as pa
    import pyarrow.csv as pacsv
    return pa, pacsv, run


def _floor(state: tuple) -> dict[str, float]:
    pa, pacsv, run = state
    table = pacsv.read_csv(
        run, read_options=pacsv.ReadOptions(column_names=['query_id', 'q0', 'doc_id', 'rank', 'score', 'tag']),
        parse_options=pacsv.ParseOptions(delimiter=' ', quote_char=False),
        convert_options=pacsv.ConvertOptions(
            column_types={'query_id': pa.string(), 'doc_id': pa.string(), 'score': pa.float64()},
            include_columns=['query_id', 'doc_id', 'score']))
    return {'rows': table.num_rows}


def _frames_prepare(provider_name: str) -> Callable[[str, str], tuple]:
    def prepare(qrels: str, run: str) -> tuple:
        import ir_measures
        import pandas as pd

        import irmeasures_ext  # noqa: F401
        qrels_frame = pd.read_csv(qrels, sep=' ', header=None, names=['query_id', 'iteration', 'doc_id', 'relevance'],
                                  usecols=['query_id', 'doc_id', 'relevance'],
                                  dtype={'query_id': str, 'doc_id': str, 'relevance': 'int64'})
        run_frame = pd.read_csv(run, sep=' ', header=None, names=['query_id', 'q0', 'doc_id', 'rank', 'score', 'tag'],
                                usecols=['query_id', 'doc_id', 'score'],
                                dtype={'query_id': str, 'doc_id': str, 'score': 'float64'})
        provider = ir_measures.providers.registry[provider_name]
        return provider, [ir_measures.parse_measure(text) for text in FRAME_MEASURES], qrels_frame, run_frame
    return prepare


CHILDREN: dict[str, tuple[Callable[[str, str], tuple], Callable[[tuple], dict]]] = {
    'ours': (_ours_prepare, _ours),
    'default': (_default_prepare, _default),
    'pytrec_eval': (_pytrec_prepare, _pytrec),
    'floor': (_floor_prepare, _floor),
    'mixed': (_mixed_prepare, _mixed),
    'plain_mixed': (lambda qrels, run: _default_prepare(qrels, run, PLAIN_MIXED_MEASURES), _default),
    'frame_ours': (_frames_prepare('irmeasures_ext'), _ours),
    'frame_pytrec': (_frames_prepare('pytrec_eval'), _ours),
}


# ---------------------------------------------------------------- parent: measure, aggregate, report

def _measure(tool: str, qrels: Path, run: Path, baseline: str | None = None) -> dict:
    """Runs ``tool`` in a fresh process (``baseline``: the Python that runs the baseline tool); its timed
    seconds, whole-process seconds, peak RSS and values."""
    env = child_environment()
    if tool in ('baseline', 'baseline_mixed'):
        command = [baseline, str(Path(__file__).resolve()), '--child', 'ours' if tool == 'baseline' else 'mixed',
                   str(qrels), str(run)]
    elif tool in ('cli', 'baseline_cli'):
        command = [baseline if tool == 'baseline_cli' else sys.executable, '-m', 'irmeasures_ext', str(qrels),
                   str(run), '--suite', 'quoter', 'Q@1000', 'nDCG@5', 'RR@100', 'R@100', 'AP']
    elif tool == 'ir_measures_cli':
        command = [sys.executable, '-m', 'ir_measures', str(qrels), str(run), ' '.join(DEFAULT_MEASURES)]
        env['IRMEASURES_EXT_NO_AUTOLOAD'] = '1'
    else:
        command = [sys.executable, str(Path(__file__).resolve()), '--child', tool, str(qrels), str(run)]
        if tool == 'plain_mixed':
            env['IRMEASURES_EXT_NO_AUTOLOAD'] = '1'
    with tempfile.TemporaryFile() as out:
        process_seconds, peak_rss_mb = run_measured(command, env, stdout=out, inputs=(qrels, run))
        out.seek(0)
        output = out.read().decode()
    result = {'tool': tool, 'process_seconds': process_seconds, 'peak_rss_mb': peak_rss_mb}
    if tool in ('cli', 'baseline_cli', 'ir_measures_cli'):
        result.update(seconds=None, values=_cli_values(output))
    else:
        result.update(json.loads(output.strip().splitlines()[-1]))
    return result


def _cli_values(output: str) -> dict[str, float]:
    values = {}
    for line in output.splitlines():
        fields = line.split('\t')
        if len(fields) == 2:
            values[fields[0]] = float(fields[1])
    return values


def benchmark(size: str, repeat: int, tools: list[str], baseline: dict[str, str] | None = None) -> dict:
    """Measures every tool ``repeat`` times (interleaved) on one data size (``baseline``: the
    ``python`` and ``label`` of the baseline tool)."""
    from datagen import SHAPES, paths
    qrels, run = paths(size)
    runs: dict[str, list[dict]] = {tool: [] for tool in tools}
    load_before = os.getloadavg()
    for round_no in range(repeat):
        for tool in rotated(tools, round_no):
            measurement = _measure(tool, qrels, run, baseline and baseline['python'])
            runs[tool].append(measurement)
            timed = '' if measurement['seconds'] is None else f"{measurement['seconds']:.3f} s timed, "
            print(f'  [{size} round {round_no + 1}/{repeat}] {tool:13s} {timed}'
                  f"{measurement['process_seconds']:.3f} s process, {measurement['peak_rss_mb']:.0f} MB", flush=True)
    shape = SHAPES[size]
    return {
        'size': size, 'date': datetime.datetime.now().isoformat(timespec='seconds'), 'repeat': repeat,
        'data': {'queries': shape.n_queries, 'run_lines': sum(1 for _ in open(run, 'rb')),
                 'qrels_lines': sum(1 for _ in open(qrels, 'rb')), 'run': str(run.relative_to(HERE.parent)),
                 'qrels': str(qrels.relative_to(HERE.parent))},
        'machine': machine(), 'load_average_before': load_before, 'load_average_after': os.getloadavg(),
        'tools': {tool: TOOLS[tool] for tool in tools},
        'baseline': baseline if any(tool in BASELINE_TOOLS for tool in tools) else None,
        'runs': runs,
        'summary': _summary(runs),
    }


def _summary(runs: dict[str, list[dict]]) -> dict:
    def median(tool: str, key: str) -> float | None:
        values = [r[key] for r in runs.get(tool, []) if r[key] is not None]
        return statistics.median(values) if values else None
    summary = {tool: {'seconds': median(tool, 'seconds'), 'process_seconds': median(tool, 'process_seconds'),
                      'peak_rss_mb': median(tool, 'peak_rss_mb'),
                      'seconds_range': [min(r['seconds'] for r in runs[tool]), max(r['seconds'] for r in runs[tool])]
                      if runs[tool] and runs[tool][0]['seconds'] is not None else None} for tool in runs}
    default, floor = summary.get('default'), summary.get('floor')
    for row in summary.values():
        timed = row['seconds']
        row['speedup_vs_default'] = default['seconds'] / timed if default and timed else None
        row['rss_vs_default'] = row['peak_rss_mb'] / default['peak_rss_mb'] if default else None
        row['time_vs_floor'] = timed / floor['seconds'] if floor and timed else None
        row['process_speedup_vs_default'] = default['process_seconds'] / row['process_seconds'] if default else None
    return summary


def _agreement(runs: dict[str, list[dict]]) -> list[str]:
    """Differences between tools' values on the measures they share (first run of each)."""
    values = {tool: r[0]['values'] for tool, r in runs.items() if r}
    pairs = [('ours', 'pytrec_eval', ['AP', 'nDCG@5', 'R@100', 'RR']), ('ours', 'default', DEFAULT_MEASURES),
             ('frame_ours', 'frame_pytrec', FRAME_MEASURES), ('ours', 'cli', OURS_MEASURES),
             ('default', 'ir_measures_cli', DEFAULT_MEASURES), ('ours', 'baseline', OURS_MEASURES),
             ('cli', 'baseline_cli', OURS_MEASURES), ('mixed', 'ours', MIXED_MEASURES),
             ('mixed', 'plain_mixed', PLAIN_MIXED_MEASURES), ('mixed', 'baseline_mixed', MIXED_MEASURES)]
    lines = []
    for left, right, measures in pairs:
        if left in values and right in values:
            diffs = {m: abs(values[left][m] - values[right][m]) for m in measures
                     if m in values[left] and m in values[right]}
            worst = max(diffs, key=diffs.get) if diffs else None
            text = f'max |diff| {diffs[worst]:.2e} ({worst})' if worst else 'no shared measure'
            lines.append(f'- {left} vs {right}: {text} over {", ".join(diffs)}')
    return lines


def _markdown(result: dict) -> str:
    s, machine = result['summary'], result['machine']
    def fmt(value: float | None, pattern: str) -> str:
        return '—' if value is None else pattern.format(value)
    data = result['data']
    lines = [
        f"# Benchmark {result['size']} — {result['date']}", '',
        f"Data: {data['run_lines']:,} run lines, {data['qrels_lines']:,} qrels lines, {data['queries']:,} queries "
        f"(`{data['run']}`). Medians of {result['repeat']} interleaved repetitions, each in a fresh process.",
        f"Machine: {machine['cpu_count']} CPUs ({machine['cpu']}), Python {machine['python']}, {machine['platform']}; "
        + ', '.join(f'{k} {v}' for k, v in machine['packages'].items())
        + f" ({machine.get('install', 'unrecorded')} install).",
        f"Load average before/after: {result['load_average_before'][0]:.2f} / {result['load_average_after'][0]:.2f}.",
        '', '"timed" excludes interpreter start-up and imports (and, for the DataFrame rows, building the '
        'DataFrames); "process" is the whole child process.', '',
        '| tool | timed s | timed min–max | process s | peak RSS MB | speed-up vs default (timed) | RSS vs default '
        '| timed vs floor |',
        '| --- | --- | --- | --- | --- | --- | --- | --- |',
    ]
    for tool, row in s.items():
        spread = '—' if row['seconds_range'] is None else '{:.3f}–{:.3f}'.format(*row['seconds_range'])
        lines.append(f"| {tool} | {fmt(row['seconds'], '{:.3f}')} | {spread} | {row['process_seconds']:.3f} | "
                     f"{row['peak_rss_mb']:.0f} | {fmt(row['speedup_vs_default'], '{:.1f}×')} | "
                     f"{fmt(row['rss_vs_default'], '{:.2f}')} | {fmt(row['time_vs_floor'], '{:.2f}×')} |")
    lines += ['', '## Targets', '']
    lines += _targets(s, result['runs'])
    lines += ['', '## Agreement between tools', ''] + _agreement(result['runs'])
    lines += ['', 'ir_measures answers RR@100 with its msmarco provider, which breaks score ties by doc_id '
              'ascending; ours (and pytrec_eval) use trec_eval\'s rule, so RR@100 may differ from "default".',
              '', '## Tools', ''] + [f'- **{tool}**: {text}' for tool, text in result['tools'].items()]
    if result.get('baseline'):
        lines.append(f"- baseline: `{result['baseline']['python']}`, {result['baseline']['label']}")
    return '\n'.join(lines) + '\n'


def _paired(runs: dict[str, list[dict]], tool: str, key: str, against: str = 'floor') -> str:
    """The ratio of ``tool`` to ``against`` (the floor) within each round (measured minutes apart at most, so
    slow drifts of a shared machine cancel): median and range."""
    ratios = sorted(mine[key] / theirs[key] for mine, theirs in zip(runs[tool], runs[against], strict=True))
    return f'within each round: median {statistics.median(ratios):.2f}×, {ratios[0]:.2f}–{ratios[-1]:.2f}×'


def _targets(s: dict, runs: dict[str, list[dict]]) -> list[str]:
    lines = []
    def check(label: str, ok: bool | None, detail: str) -> None:
        lines.append(f"- {label}: {'—' if ok is None else ('met' if ok else 'MISSED')} ({detail})")
    ours, frame_ours, frame_pytrec = s.get('ours'), s.get('frame_ours'), s.get('frame_pytrec')
    if ours and ours['speedup_vs_default']:
        check('≥ 5× faster than the default pipeline', ours['speedup_vs_default'] >= 5,
              f"{ours['speedup_vs_default']:.1f}×")
        check('≤ 0.6× its peak RSS', ours['rss_vs_default'] <= 0.6, f"{ours['rss_vs_default']:.2f}×")
    floor = s.get('floor')
    if ours and ours['time_vs_floor']:
        fastest = ours['seconds_range'][0] / floor['seconds_range'][0]
        check('≤ 2× the pyarrow read floor', ours['time_vs_floor'] <= 2,
              f"{ours['time_vs_floor']:.2f}× on medians; fastest run vs fastest run {fastest:.2f}×; "
              f"{_paired(runs, 'ours', 'seconds')}")
    baseline = s.get('baseline')
    if baseline and ours and floor and baseline['seconds']:
        lines.append(f"- baseline (not a target): {baseline['time_vs_floor']:.2f}× the floor on medians, "
                     f"{_paired(runs, 'baseline', 'seconds')}; ours {baseline['seconds'] / ours['seconds']:.2f}× "
                     "faster than the baseline on medians")
    cli, plain, baseline_cli = s.get('cli'), s.get('ir_measures_cli'), s.get('baseline_cli')
    if cli and baseline_cli:
        ratio = cli['process_seconds'] / baseline_cli['process_seconds']
        lines.append(f"- the command against the baseline's (not a target): {ratio:.2f}× its whole-process time on "
                     f"medians, {_paired(runs, 'cli', 'process_seconds', 'baseline_cli')}; peak RSS "
                     f"{cli['peak_rss_mb'] / baseline_cli['peak_rss_mb']:.2f}×")
    if cli and plain:
        speedup = plain['process_seconds'] / cli['process_seconds']
        check('whole command ≥ 8× faster than the plain ir_measures command', speedup >= 8, f'{speedup:.1f}×')
        rss = cli['peak_rss_mb'] / plain['peak_rss_mb']
        check('whole command ≤ 0.5× its peak RSS', rss <= 0.5, f'{rss:.2f}×')
    if cli and floor:
        ratio = cli['process_seconds'] / floor['process_seconds']
        check('whole command ≤ 1.6× the whole-process pyarrow read', ratio <= 1.6,
              f"{ratio:.2f}× on medians; {_paired(runs, 'cli', 'process_seconds')}")
    mixed, plain_mixed, baseline_mixed = s.get('mixed'), s.get('plain_mixed'), s.get('baseline_mixed')
    if mixed and plain_mixed:
        def against_plain(row: dict) -> str:
            return (f"{row['seconds'] / plain_mixed['seconds']:.2f}× plain ir_measures' time for its two measures, "
                    f"{row['peak_rss_mb'] / plain_mixed['peak_rss_mb']:.2f}× its peak RSS")
        before = f'; before (the baseline): {against_plain(baseline_mixed)}' if baseline_mixed else ''
        lines.append(f'- the mixed list with paths through ir_measures.calc_aggregate (not a target): '
                     f'{against_plain(mixed)}{before}')
    if frame_ours and frame_pytrec and frame_ours['seconds']:
        speedup = frame_pytrec['seconds'] / frame_ours['seconds']
        check('DataFrame run through ir_measures: ≥ 3× faster than the pytrec_eval provider', speedup >= 3,
              f'{speedup:.1f}×')
    return lines


def _results_stem(size: str, tools: list[str]) -> Path:
    """results/<size>-<date>[-<tools>], numbered so that earlier results are never overwritten."""
    return results_stem(size + ('' if set(tools) == set(DEFAULT_TOOLS) else '-' + '+'.join(tools)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    parser.add_argument('--size', choices=[*SIZES, 'all'], default='1m')
    parser.add_argument('--repeat', type=int, default=3)
    parser.add_argument('--tools', default=','.join(DEFAULT_TOOLS), help=f'comma-separated subset of {",".join(TOOLS)}')
    parser.add_argument('--baseline', metavar='PYTHON', help='the Python of the environment the baseline tool runs in')
    parser.add_argument('--baseline-label', default='', help='what the baseline is (e.g. the commit installed there)')
    parser.add_argument('--child', nargs=3, metavar=('TOOL', 'QRELS', 'RUN'), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        _child(*args.child)
        return 0
    tools = args.tools.split(',')
    unknown = sorted(set(tools) - set(TOOLS))
    if unknown:
        parser.error(f'unknown tool(s) {unknown}')
    if any(tool in BASELINE_TOOLS for tool in tools) != bool(args.baseline):
        parser.error('the baseline tools and --baseline go together')
    sys.path.insert(0, str(HERE))
    RESULTS_DIR.mkdir(exist_ok=True)
    for size in SIZES if args.size == 'all' else [args.size]:
        result = benchmark(size, args.repeat, tools, {'python': args.baseline, 'label': args.baseline_label})
        stem = _results_stem(size, tools)
        stem.with_suffix('.json').write_text(json.dumps(result, indent=1, default=str) + '\n')
        stem.with_suffix('.md').write_text(_markdown(result))
        print(_markdown(result))
    return 0


if __name__ == '__main__':
    sys.exit(main())
