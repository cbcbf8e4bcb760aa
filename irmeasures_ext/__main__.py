"""``python -m irmeasures_ext``: the ``irmeasures-ext`` command."""
from irmeasures_ext.cli import command

if __name__ == '__main__':
    command()
