"""What the subcommands share: names, exit codes, the input arguments and their errors."""
from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from irmeasures_ext.errors import InputError, IrMeasuresExtError

PROG = 'irmeasures-ext'
EXIT_DIFFER = 1
EXIT_ERROR = 2
STDIN = '-'

T = TypeVar('T')


class CliError(IrMeasuresExtError):
    """A problem with the command line's arguments (not with the data)."""


def add_inputs(parser: argparse.ArgumentParser) -> None:
    parser.add_argument('qrels', metavar='QRELS', help='TREC qrels file, or an ir_datasets id with qrels')
    parser.add_argument('run', metavar='RUN', help=f'TREC run file ("{STDIN}": read it from standard input)')


@dataclass(frozen=True)
class InputFile:
    """A run or qrels file of the command line (``path`` is a temporary copy for standard input)."""

    kind: str  # 'run' or 'qrels'
    name: str  # as shown in messages
    path: Path


def load(qrels_arg: str, run_arg: str, stack: contextlib.ExitStack) -> tuple[Any, Any, list[InputFile]]:
    """The qrels and run to evaluate (file paths, or ir_datasets qrels records) and the files among them."""
    if qrels_arg == STDIN:
        raise CliError(f'only RUN may be "{STDIN}" (standard input)')
    run = InputFile('run', '<stdin>', _copy_stdin(stack)) if run_arg == STDIN else InputFile('run', run_arg,
                                                                                               Path(run_arg))
    if os.path.exists(qrels_arg):  # a directory too: the reader names it as the problem
        qrels = InputFile('qrels', qrels_arg, Path(qrels_arg))
        return qrels.path, run.path, [qrels, run]
    return _ir_datasets_qrels(qrels_arg), run.path, [run]


def _copy_stdin(stack: contextlib.ExitStack) -> Path:
    path = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix='irmeasures-ext-'))) / 'stdin'
    with open(path, 'wb') as handle:
        shutil.copyfileobj(sys.stdin.buffer, handle)
    return path


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


def checked(files: list[InputFile], compute: Callable[[], T]) -> T:
    """Runs ``compute``; an InputError from it is re-raised naming the file and line at fault.

    Errors found while reading already name them; errors found later (duplicate docs,
    conflicting qrels labels) name a query and doc, so the files are parsed again to find the line.
    """
    from irmeasures_ext.readers import trec
    try:
        return compute()
    except InputError as error:
        located: Exception = error
        if not isinstance(error, trec.TrecFileError):
            for file in files:
                try:
                    trec.find_problem(file.path, file.kind)
                except trec.TrecFileError as problem:
                    located = problem
                    break
        message = str(located)
        for file in files:
            message = message.replace(str(file.path), file.name)
        raise InputError(message) from None
