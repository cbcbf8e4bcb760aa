"""The ``irmeasures-ext`` command (also ``python -m irmeasures_ext``).

``irmeasures-ext QRELS RUN [MEASURE...]`` works like the ``ir_measures`` command (``-q``, ``-n``,
``-p``, ``-o tsv|jsonl``, ``--provider``) plus ``--suite NAME``; ``irmeasures-ext crosscheck``
compares our provider with pytrec_eval; ``irmeasures-ext compare`` compares runs with significance
tests; ``irmeasures-ext ties`` shows how much score ties move each measure; ``irmeasures-ext
ntcireval`` is NTCIREVAL's ad hoc evaluation, its names and output; ``irmeasures-ext judges`` compares
judgement sets and ``irmeasures-ext holes`` shows what their unjudged docs could do; ``irmeasures-ext reproduce``
measures how far a reproduction or replication gives an experiment's results; ``irmeasures-ext fuse`` fuses runs
(ranx's methods); ``irmeasures-ext datasets`` is
ir_datasets' command line with this package's datasets registered. Bad input ends
with one line on stderr naming the file, line and problem, and exit status 2.

Starting the command imports only ir_measures and this package's declarations; each subcommand
module imports what it needs (numpy and pyarrow on evaluation, pandas only for other providers).
The console script (and ``python -m irmeasures_ext``) is :func:`command`, which ends the process
without tearing the interpreter down; :func:`main` is the same command as a function.
"""
from __future__ import annotations

import importlib
import os
import sys
import warnings
from typing import NoReturn

from irmeasures_ext.cli.common import EXIT_ERROR, ON_EXIT, PROG, exit_on_signals
from irmeasures_ext.errors import IrMeasuresExtWarning

#: Subcommands by name: the module under ``irmeasures_ext.cli`` whose ``run(argv)`` they call.
COMMANDS = {'compare': 'compare', 'crosscheck': 'crosscheck', 'datasets': 'datasets', 'fuse': 'fuse', 'holes': 'holes',
            'judges': 'judges', 'ntcireval': 'ntcireval', 'reproduce': 'reproduce', 'ties': 'ties'}


def _misspelt_command(argv: list[str]) -> str | None:
    """The subcommand ``argv[0]`` is close to, where it is no file, option nor ir_datasets id (``compar``)."""
    import difflib
    first = argv[0] if argv else ''
    if not first or first.startswith('-') or '/' in first or os.path.exists(first):
        return None
    close = difflib.get_close_matches(first, COMMANDS, n=1, cutoff=0.75)
    return close[0] if close else None


def main(argv: list[str] | None = None) -> int:
    """Runs the command with ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    name = COMMANDS.get(argv[0], 'evaluate') if argv else 'evaluate'
    arguments = argv[1:] if argv and argv[0] in COMMANDS else argv
    if name == 'evaluate' and (misspelt := _misspelt_command(argv)):
        print(f'{PROG}: error: unknown command {argv[0]!r}; did you mean {misspelt}? (or give QRELS RUN MEASURE...)',
              file=sys.stderr)
        return EXIT_ERROR
    try:
        with ON_EXIT, warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter('always', IrMeasuresExtWarning)
            status = importlib.import_module(f'{__name__}.{name}').run(arguments)
        for warning in caught:
            print(f'{PROG}: warning: {warning.message}', file=sys.stderr)
        return status
    except SystemExit as exit_:  # argparse (usage errors, --help) and ir_datasets' command line
        return exit_.code if isinstance(exit_.code, int) else (0 if exit_.code is None else EXIT_ERROR)
    except BrokenPipeError:  # `irmeasures-ext ... | head`: stop quietly, as the Python docs advise
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except (ValueError, OSError) as error:  # IrMeasuresExtError is a ValueError
        print(f'{PROG}: error: {error}', file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        return 130
    except Exception as error:  # a failing third-party provider (e.g. ir_measures' gdeval, --provider gdeval)
        print(f'{PROG}: error: {type(error).__name__}: {error}', file=sys.stderr)
        return EXIT_ERROR


def command() -> NoReturn:
    """The console script: :func:`main` on ``sys.argv``, then a quick exit, as mypy ends its runs.

    Once the output is flushed, the process ends with ``os._exit`` rather than by tearing the
    interpreter down (freeing every array, object and module): the whole command 13-22% faster
    (benchmarks/results/tricks-2026-12-02-2.md). The process exits normally, running its exit handlers, once
    ir_datasets is loaded (``datasets``, or QRELS given as a dataset id: it removes temporary downloads
    at exit) and when traced or profiled (coverage, ``python -m cProfile``).
    """
    exit_on_signals()
    status = main()
    if 'ir_datasets' in sys.modules or sys.gettrace() is not None or sys.getprofile() is not None:
        sys.exit(status)
    try:
        sys.stdout.flush()
    except BrokenPipeError:  # as in main: the reader left before the last of the output
        status = 1
    except OSError as error:  # e.g. a full disk
        print(f'{PROG}: error: cannot write the output: {error}', file=sys.stderr)
        status = EXIT_ERROR
    sys.stderr.flush()
    if 'logging' in sys.modules:  # what logging's exit handler does: flush and close its handlers
        sys.modules['logging'].shutdown()
    os._exit(status)
