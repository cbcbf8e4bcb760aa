"""What the benchmark scripts share: the machine description and where results go."""
from __future__ import annotations

import datetime
import json
import os
import platform
import shutil
import site
import statistics
import subprocess
import tempfile
import time
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any, TypeVar

HERE = Path(__file__).resolve().parent
RESULTS_DIR = HERE / 'results'
#: The measured children's working directory: not the repository (see run_measured).
NEUTRAL_DIRECTORY = tempfile.gettempdir()


def machine() -> dict:
    """CPUs, Python, platform and the versions of the packages measured."""
    def version(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return 'not installed'
    return {
        'cpu_count': os.cpu_count(), 'cpu': _cpu_model(), 'platform': platform.platform(),
        'python': platform.python_version(),
        'packages': {name: version(name) for name in ('irmeasures_ext', 'ir_measures', 'pytrec_eval-terrier',
                                                      'numpy', 'pyarrow', 'pandas')},
        'install': install_kind(),
    }


def install_kind() -> str:
    """How irmeasures_ext is installed: 'regular', 'editable' or 'not installed'.

    An editable install's import hook (a ``.pth`` file) runs in every process of its environment, the
    pyarrow read's included: on the project's machine it adds about 12 ms to each start and makes the
    whole-process ratios look better than a user's, so the quoted figures come from a regular install."""
    try:
        direct_url = metadata.distribution('irmeasures_ext').read_text('direct_url.json')
    except metadata.PackageNotFoundError:
        return 'not installed'
    return 'editable' if direct_url and json.loads(direct_url).get('dir_info', {}).get('editable') else 'regular'


def _cpu_model() -> str:
    try:
        for line in Path('/proc/cpuinfo').read_text().splitlines():
            if line.startswith('model name'):
                return line.split(':', 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or 'unknown'


T = TypeVar('T')


def rotated(names: Sequence[T], round_no: int) -> list[T]:
    """``names`` in the order round ``round_no`` measures them: each round starts one further along, so
    that no variant always runs first (on a cold cache) or right after the same one."""
    shift = round_no % len(names)
    return [*names[shift:], *names[:shift]]


def results_stem(name: str) -> Path:
    """results/<name>-<date>, numbered so that earlier results are never overwritten."""
    RESULTS_DIR.mkdir(exist_ok=True)
    base = f'{name}-{datetime.date.today().isoformat()}'
    stem, number = RESULTS_DIR / base, 1
    while stem.with_suffix('.json').exists() or stem.with_suffix('.md').exists():
        number += 1
        stem = RESULTS_DIR / f'{base}-{number}'
    return stem


def write_results(name: str, data: Any, report: str) -> Path:
    """Writes results/<name>-<date>.json (``data``) and .md (``report``), numbered rather than overwriting
    earlier results; prints the report and returns the stem."""
    stem = results_stem(name)
    stem.with_suffix('.json').write_text(json.dumps(data, indent=1, default=str) + '\n')
    stem.with_suffix('.md').write_text(report)
    print(report)
    return stem


def child_environment(**extra: str) -> dict[str, str]:
    """The environment of a measured child: as a user's, with bytecode caching on (this workspace sets
    PYTHONDONTWRITEBYTECODE, which would make every child compile every module from source)."""
    env = {key: value for key, value in os.environ.items() if key != 'PYTHONDONTWRITEBYTECODE'}
    env.update(extra)
    return env


def warm_page_cache(paths: Sequence[Path]) -> None:
    """Reads every file of ``paths`` through, so that the next process finds it in the page cache.

    This virtual machine's page cache does not keep files for long, whatever the free memory: a
    150 MB run read at once was a quarter evicted 100 s later, with 23 GB free. A child then reads
    part of its input from disk: pyarrow's read of the 1M-line run took 46-64 ms from the cache and
    64-120 ms once evicted (posix_fadvise DONTNEED), a slowdown that fell on whichever tool read the
    file first. Every measurement now starts with its inputs cached.
    """
    for file in (part for path in paths for part in (sorted(path.iterdir()) if path.is_dir() else [path])):
        with open(file, 'rb') as handle:
            while handle.read(1 << 24):
                pass


def drop_cached_libraries() -> int:
    """Drops the shared libraries of this environment's packages from the page cache (those no process
    maps); returns how many files were dropped.

    Run once after installing the environment to measure. The libraries' pages as pip wrote them stay in
    the cache as large folios, which a process maps whole: on the project's machine (ext4, Linux 6.18),
    libarrow then counted 30 MB of a process's RSS instead of 12, and importing pyarrow 68 MB of mapped
    files instead of 35. Read back from disk by the processes that map them, they are mapped as used.
    """
    dropped = 0
    for directory in {Path(path) for path in site.getsitepackages()}:
        for library in (path for path in directory.rglob('*.so*') if path.is_file()):
            with open(library, 'rb') as handle:
                os.posix_fadvise(handle.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
            dropped += 1
    return dropped


def run_measured(command: list[str], env: dict[str, str], stdout: Any = subprocess.DEVNULL,
                 expected_status: int = 0, inputs: Sequence[Path] = ()) -> tuple[float, float]:
    """(wall seconds, peak RSS MB) of one fresh process, its ``inputs`` read into the page cache just
    before (:func:`warm_page_cache`); raises RuntimeError if it exits otherwise than with ``expected_status``.

    The child runs in :data:`NEUTRAL_DIRECTORY`, so that ``python -m irmeasures_ext`` imports the installed
    package, not a source tree in the current directory. The peak RSS comes from GNU time
    (``/usr/bin/time -f %M``) when installed: a child forked from this (larger) benchmark process would
    otherwise report at least this process's own size.
    Without GNU time, ``os.wait4``'s figure is used: an upper bound for small processes.
    """
    gnu_time = shutil.which('time', path='/usr/bin')
    warm_page_cache(inputs)
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        child = subprocess.Popen([gnu_time, '-f', '%M', *command] if gnu_time else command, env=env,
                                 stdout=stdout, stderr=err, cwd=NEUTRAL_DIRECTORY)
        _, status, usage = os.wait4(child.pid, 0)
        seconds = time.perf_counter() - start
        err.seek(0)
        errors = err.read().decode(errors='replace')
    if os.waitstatus_to_exitcode(status) != expected_status:
        raise RuntimeError(f'{command} failed: {errors[-2000:]}')
    peak_mb = int(errors.split()[-1]) / 1024 if gnu_time else usage.ru_maxrss / 1024
    return seconds, peak_mb


if __name__ == '__main__':
    print(f'{drop_cached_libraries()} shared libraries dropped from the page cache')


def interleaved_rounds(commands: dict[str, tuple[list[str], tuple[Path, ...]]],
                       repeat: int) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Each command ``repeat`` times, each in a fresh process, the commands in a rotating order round by round,
    after a warm-up round that is not counted: (seconds, peak RSS MB) per command."""
    names = list(commands)
    seconds: dict[str, list[float]] = {name: [] for name in names}
    peak_mb: dict[str, list[float]] = {name: [] for name in names}
    for round_no in range(repeat + 1):  # round 0 warms up, not counted
        for name in rotated(names, round_no):
            command, inputs = commands[name]
            wall, peak = run_measured(command, child_environment(), inputs=inputs)
            if round_no:
                seconds[name].append(wall)
                peak_mb[name].append(peak)
                print(f'  [round {round_no}/{repeat}] {name:14s} {wall:.3f} s, {peak:.0f} MB', flush=True)
    return seconds, peak_mb


def timing_cells(seconds: dict[str, list[float]], peak_mb: dict[str, list[float]], name: str) -> str:
    """The ``median | min–max | peak RSS`` cells of a report's table row for one command of
    :func:`interleaved_rounds`."""
    return (f'{statistics.median(seconds[name]):.3f} | {min(seconds[name]):.3f}–{max(seconds[name]):.3f} '
            f'| {statistics.median(peak_mb[name]):.0f}')


def rounds_record(commands: dict[str, Any], seconds: dict[str, list[float]], peak_mb: dict[str, list[float]],
                  ratios: dict[str, dict], load: list[tuple[float, float, float]]) -> dict[str, Any]:
    """The JSON record of :func:`interleaved_rounds`' measurements (``load``: the load average before and
    after)."""
    return {'commands': commands, 'seconds': seconds, 'peak_rss_mb': peak_mb,
            'median_seconds': {name: statistics.median(values) for name, values in seconds.items()},
            'ratios': ratios, 'machine': machine(), 'load_average': load}


def target_ratios(seconds: dict[str, list[float]], targets: list[tuple[str, str, float]]) -> dict[str, dict]:
    """Per target (command, the command it is compared with, the largest ratio allowed): the ratio of the medians,
    each round's ratio (sorted) and the target."""
    median = {name: statistics.median(values) for name, values in seconds.items()}
    return {f'{name} / {base}': {
        'of_medians': median[name] / median[base],
        'per_round': sorted(mine / theirs for mine, theirs in zip(seconds[name], seconds[base], strict=True)),
        'target': target} for name, base, target in targets}


def target_lines(ratios: dict[str, dict]) -> list[str]:
    """A report line per target of :func:`target_ratios`: met or MISSED, on medians and within rounds."""
    lines = []
    for label, ratio in ratios.items():
        per_round = ratio['per_round']
        met = 'met' if ratio['of_medians'] <= ratio['target'] else 'MISSED'
        lines.append(f'- {label} ≤ {ratio["target"]:g}×: {met} ({ratio["of_medians"]:.2f}× on medians; within '
                     f'each round: median {statistics.median(per_round):.2f}×, '
                     f'{per_round[0]:.2f}–{per_round[-1]:.2f}×)')
    return lines

