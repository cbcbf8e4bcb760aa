"""``python -m irmeasures_ext``: the ``irmeasures-ext`` command."""
import sys

from irmeasures_ext.cli import main

if __name__ == '__main__':
    sys.exit(main())
