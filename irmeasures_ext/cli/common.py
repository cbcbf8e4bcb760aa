"""What the subcommands share: names, exit codes, the input arguments and their errors."""
from __future__ import annotations

import argparse
import contextlib
import math
import os
import re
import signal
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO, NoReturn

from irmeasures_ext.errors import InputError, IrMeasuresExtError, TemporaryFilesError
from irmeasures_ext.measures.base import DEFAULT_RANKING, INT64_MAX, SCORE_PRECISIONS, TIE_POLICIES, threshold_check
from irmeasures_ext.readers import FORMATS

PROG = 'irmeasures-ext'
EXIT_DIFFER = 1
EXIT_ERROR = 2
STDIN = '-'
#: The query id of the summary rows of ``-q`` output, as the ``ir_measures`` command writes them.
SUMMARY_QID = 'all'


class CliError(IrMeasuresExtError):
    """A problem with the command line's arguments (not with the data)."""


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser whose usage errors are one line and a hint, not the whole usage block."""

    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_ERROR, f"{PROG}: error: {message}\ntry '{self.prog} --help'\n")


def prepare_process() -> None:
    """Sets up this (command line) process for an evaluation, before numpy and pyarrow load.

    - OpenBLAS, which numpy loads, starts one thread per CPU that allocates its buffers at once;
      nothing here uses BLAS. One thread (unless ``OPENBLAS_NUM_THREADS`` is set) makes ``import numpy``
      sooner and cheaper.
    - malloc keeps to one arena (:func:`~irmeasures_ext._arrow.memory.use_one_malloc_arena`), and
      Arrow allocates with it (:func:`~irmeasures_ext._arrow.memory.use_malloc_for_arrow`).

    A library must not change its users' process like this, so only the command does.
    """
    os.environ.setdefault('OPENBLAS_NUM_THREADS', '1')
    from irmeasures_ext._arrow.memory import use_malloc_for_arrow, use_one_malloc_arena
    use_one_malloc_arena()
    use_malloc_for_arrow()


def add_ranking(parser: ArgumentParser) -> None:
    """The --ties and --score-precision options (irmeasures_ext.engine.ties)."""
    parser.add_argument('--ties', choices=TIE_POLICIES, default=DEFAULT_RANKING.ties,
                        help='how docs with equal scores are ordered, for the measures of irmeasures_ext: trec_eval '
                             '(default: doc_id descending), optimistic / pessimistic (higher labels first / last), '
                             'expected (the exact mean over all orderings of tied docs), rank (the run\'s rank column, '
                             'ascending, instead of scores). Our measures may also take ties=... themselves')
    parser.add_argument('--score-precision', choices=SCORE_PRECISIONS, default=DEFAULT_RANKING.score_precision,
                        help='scores tie when equal as float32 (default: trec_eval 9, pytrec_eval) or as float64 '
                             '(trec_eval 10)')


def add_depth(parser: ArgumentParser) -> None:
    """The --depth option (the provider's depth cut)."""
    parser.add_argument('--depth', type=positive_int, metavar='N',
                        help="evaluate only the first N ranked docs of each query, judged or not (trec_eval's -M N, "
                             "NTCIREVAL's label -truncate N); R and the ideal lists are the qrels' all the same")


def add_threshold(parser: ArgumentParser) -> None:
    """The --rel option (the provider's relevance threshold)."""
    parser.add_argument('--rel', type=threshold, metavar='T',
                        help='relevance threshold of every measure that has one and gives none other than the default: '
                             'a doc is relevant, and gains, when its label is at least T (a real number for '
                             'real-valued labels, e.g. 0.5); default: every label above 0, which for integer labels is '
                             "trec_eval's -l 1")


def threshold(text: str) -> float:
    """argparse type: a relevance threshold, as ``threshold_check`` takes it (a number above 0), in ASCII."""
    try:
        return threshold_check(PROG, '--rel', float(text) if text.isascii() else math.nan)
    except ValueError:  # (float's, or threshold_check's MeasureParamError)
        raise argparse.ArgumentTypeError(f'expected a number above 0, got {text!r}') from None


def positive_int(text: str) -> int:
    """argparse type: an integer from 1 to INT64_MAX, in ASCII digits (``int`` also reads ``'١٠'``)."""
    if not (text.isascii() and text.strip().lstrip('+').isdigit()) or not 1 <= int(text) <= INT64_MAX:
        raise argparse.ArgumentTypeError(f'expected an integer from 1 to {INT64_MAX}, got {text!r}')
    return int(text)


#: The most decimal places asked for (a float64 has 17 significant digits).
MOST_PLACES = 100


def places(text: str) -> int:
    """argparse type of --places: decimal places, 0 to :data:`MOST_PLACES`, or -1 for all digits."""
    number = text.strip()
    if not re.fullmatch(r'[+-]?[0-9]+', number) or not -1 <= int(number) <= MOST_PLACES:
        raise argparse.ArgumentTypeError(f'expected decimal places (0 to {MOST_PLACES}), or -1 for all digits, got '
                                         f'{text!r}')
    return int(number)


#: The commands' default --places.
DEFAULT_PLACES = 4


def add_places(parser: ArgumentParser | argparse._ArgumentGroup, p_values: bool = False) -> None:
    """The --places (-p) option: decimal places of the text output (``p_values``: their significant digits)."""
    digits = 'p-values: significant digits; ' if p_values else ''
    parser.add_argument('--places', '-p', type=places, default=DEFAULT_PLACES, metavar='N',
                        help=f'decimal places ({digits}default {DEFAULT_PLACES}; -1: all digits)')


def note_ignored_options(args: argparse.Namespace) -> None:
    """Says on stderr which options given are ignored: --places with ``--output_format jsonl`` (numbers in full), and
    --overwrite without --plot (in the commands with both: it lets the plot replace a file, and nothing else)."""
    if args.output_format == 'jsonl' and args.places != DEFAULT_PLACES:
        print(f'{PROG}: --places is ignored with --output_format jsonl', file=sys.stderr)
    if getattr(args, 'overwrite', False) and hasattr(args, 'plot') and not args.plot:
        print(f'{PROG}: --overwrite is ignored without --plot (it lets the plot replace an existing file)',
              file=sys.stderr)


def add_intents(parser: ArgumentParser) -> None:
    """The --intents option: the intents' probabilities beside QRELS (NTCIREVAL's diversity measures), and
    --renormalise-intents."""
    parser.add_argument('--intents', metavar='FILE',
                        help="the intents' probabilities for NTCIREVAL's diversity measures (D_nDCG@10, IA_nERR@10, "
                             'PplusQ@10, ...): an Iprob file (qid intent prob) or DINprob file (qid intent prob '
                             'inf|nav); QRELS then gives the intent of each judgment (qid intent docid relevance, '
                             "relevance a number or NTCIREVAL's level L0, L1, ...). Used as written, as NTCIREVAL "
                             "uses them, with a warning where a query's do not sum to 1")
    add_renormalise(parser, '--intents FILE')


def add_renormalise(parser: ArgumentParser, option: str) -> None:
    """The --renormalise-intents option (of the intent probabilities of ``option``)."""
    parser.add_argument('--renormalise-intents', action='store_true',
                        help=f'divide the intent probabilities of {option} by their sum in each query (NTCIREVAL '
                             "uses them as written, and so do we by default, with a warning where a query's do not "
                             'sum to 1)')


def with_intents(qrels: Any, intents: str | None, renormalise: bool = False) -> Any:
    """``qrels`` with the intents' probabilities of ``--intents`` (if given), renormalised with
    ``--renormalise-intents``."""
    if intents is None:
        if renormalise:
            raise CliError('--renormalise-intents renormalises the intent probabilities of --intents FILE: give '
                           '--intents too')
        return qrels
    from irmeasures_ext.readers.intent_probabilities import IntentQrels
    return IntentQrels(qrels, intents, renormalise)


def add_inputs(parser: ArgumentParser) -> None:
    """The QRELS and RUN arguments, and the options choosing their format."""
    parser.add_argument('qrels', metavar='QRELS', help='qrels file (TREC, Parquet or Arrow), or an ir_datasets id '
                                                       'with qrels')
    parser.add_argument('run', metavar='RUN', help=f'run file (TREC, Parquet or Arrow; "{STDIN}": read it from '
                                                   'standard input)')
    add_formats(parser)


def add_formats(parser: ArgumentParser) -> None:
    """The --format and --qrels-format options."""
    parser.add_argument('--format', choices=FORMATS,
                        help='the format of the input files, instead of choosing it by extension: parquet for '
                             '.parquet and a folder holding .parquet files (a pyarrow dataset), arrow (Arrow IPC '
                             'file or stream, Feather) for .arrow, .feather and .ipc, trec for any other. Columns: '
                             'query_id, doc_id, score|relevance, or PyTerrier\'s qid, docno, score|label')
    parser.add_argument('--qrels-format', choices=FORMATS, help='the format of QRELS, if not that of --format')


def load(args: argparse.Namespace) -> tuple[Any, Any]:
    """The qrels (a file, or an ir_datasets id's qrels records) and the run (a file, or standard input
    read once for "-") of the arguments of :func:`add_inputs`."""
    return load_qrels(args.qrels, args.qrels_format or args.format), load_run(args.run, args.format)


def load_qrels(qrels_arg: str, file_format: str | None = None) -> Any:
    """A qrels file (in ``file_format``, else as its extension says), or an ir_datasets id's qrels records."""
    from irmeasures_ext.readers.source import open_file
    if qrels_arg == STDIN:
        raise CliError(f'the qrels cannot be "{STDIN}" (standard input): only a run can')
    if os.path.exists(qrels_arg):  # a directory too: the reader says whether it can read it
        return open_file(qrels_arg, file_format)
    return _ir_datasets_qrels(qrels_arg)


def load_run(run_arg: str, file_format: str | None = None) -> Any:
    """A run file (in ``file_format``, else as its extension says), or standard input for "-" and a pipe such as
    ``<(...)``, copied to a temporary file (a TREC run unless ``file_format`` says otherwise)."""
    from irmeasures_ext.readers.source import open_file
    if run_arg == STDIN:
        if sys.stdin is None:
            raise CliError(f'RUN is "{STDIN}" but standard input is closed')
        copy, name = _copy_of(sys.stdin.buffer, '<stdin>'), '<stdin>'
    elif _is_a_stream(run_arg):
        with _opened(run_arg) as stream:
            copy, name = _copy_of(stream, run_arg), run_arg
    else:
        return open_file(run_arg, file_format)
    return open_file(copy, file_format or 'trec', name)


def _is_a_stream(path: str) -> bool:
    """Whether ``path`` is a pipe, FIFO or other file that can be read only once (``<(...)``, ``/dev/stdin``)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False  # (the reader names a missing file)
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


@contextlib.contextmanager
def _opened(path: str) -> Iterator[BinaryIO]:
    try:
        handle = open(path, 'rb')  # noqa: SIM115
    except OSError as error:
        raise CliError(f'{path}: cannot read: {error.strerror or error}') from None
    with handle:
        yield handle


def _copy_of(stream: BinaryIO, name: str) -> Path:
    """``stream`` (standard input, a pipe) copied, in pieces, to a file in a temporary directory that the
    command removes when it ends (:data:`ON_EXIT`): the copy can be read again (naming the line of a problem)
    and evaluated as it is read, in bounded memory, like any file."""
    from irmeasures_ext.engine.stream import temporary_directory
    try:
        folder = ON_EXIT.enter_context(temporary_directory())
    except OSError as error:
        raise _no_room(name, error) from None
    copy = folder / 'run'
    try:
        with open(copy, 'wb') as handle:
            while piece := _piece_of(stream, name):
                handle.write(piece)
    except OSError as error:  # (reading raises CliError)
        raise _no_room(name, error) from None
    return copy


def _piece_of(stream: BinaryIO, name: str) -> bytes:
    """The next MB of ``stream`` (b'' at its end); CliError if it cannot be read."""
    try:
        return stream.read(1 << 20)
    except (OSError, ValueError) as error:  # ValueError: I/O operation on closed file
        raise CliError(f'{name} cannot be read: {error}') from None


def _no_room(name: str, error: OSError) -> TemporaryFilesError:
    """The error for a copy of ``name`` that its temporary folder could not hold."""
    return TemporaryFilesError.of(f'{name} is read from a copy in a temporary file', error)


#: What the command removes when it ends, normally, by an error, or by SIGINT or SIGTERM
#: (:func:`exit_on_signals`): the copy of standard input. (Reusable: each command empties it.)
ON_EXIT = contextlib.ExitStack()


def exit_on_signals() -> None:
    """Makes SIGTERM (and SIGHUP) end the command as SIGINT does, by an exception, so that its temporary files
    are removed on the way out (:data:`ON_EXIT`, :func:`~irmeasures_ext.engine.stream.temporary_directory`);
    status 128 + the signal's number. For the command's own process only."""
    def exit_(number: int, _frame: Any) -> NoReturn:
        raise SystemExit(128 + number)

    for name in ('SIGTERM', 'SIGHUP'):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), exit_)


def _ir_datasets_qrels(dataset_id: str) -> Any:
    import ir_datasets

    from irmeasures_ext.plugin import register_datasets
    register_datasets()
    try:
        dataset = ir_datasets.load(dataset_id)
    except KeyError:
        raise InputError(f'{dataset_id}: no such file, nor an ir_datasets id') from None
    if not dataset.has_qrels():
        raise InputError(f'ir_datasets id {dataset_id!r} has no qrels')
    return dataset.qrels_iter()
