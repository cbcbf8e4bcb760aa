"""``irmeasures-ext datasets ...``: ir_datasets' own command line, with this package's datasets."""
from __future__ import annotations

from irmeasures_ext.cli.common import PROG

HELP_OPTIONS = ('-h', '--help')


def run(argv: list[str]) -> int:
    """ir_datasets' own command line, with this package's datasets registered; ``--help`` (``-h``) prints what it
    does and its commands (ir_datasets' own entry point answers that with a usage error, status 1)."""
    import ir_datasets

    if argv[:1] and argv[0] in HELP_OPTIONS:
        print(_help(list(ir_datasets.commands.COMMANDS)))
        return 0
    from irmeasures_ext.plugin import register_datasets
    register_datasets()
    ir_datasets.main(argv)
    return 0


def _help(commands: list[str]) -> str:
    return (f'usage: {PROG} datasets {{{",".join(commands)}}} ...\n\n'
            "ir_datasets' command line, with this package's datasets registered (quoter/..., citation-rec/..., "
            f'nci/...).\nEach command has its own help: {PROG} datasets COMMAND --help (e.g. '
            f'"{PROG} datasets export --help").\n\ncommands:\n  ' + '\n  '.join(commands))
