"""``python -m irmeasures_ext.sample qrels|run`` prints the path of a bundled sample file."""
import sys

from irmeasures_ext.sample import QRELS, RUN

PATHS = {'qrels': QRELS, 'run': RUN}
USAGE = 'usage: python -m irmeasures_ext.sample qrels|run'
HELP = (f'{USAGE}\n\nPrints the path of a sample file shipped with irmeasures_ext (20 queries, graded labels), '
        'e.g.\n  irmeasures-ext "$(python -m irmeasures_ext.sample qrels)" "$(python -m irmeasures_ext.sample run)" '
        'Q@10')

if __name__ == '__main__':
    if sys.argv[1:] in (['-h'], ['--help']):
        print(HELP)
    elif len(sys.argv) != 2 or sys.argv[1] not in PATHS:
        sys.exit(USAGE)
    else:
        print(PATHS[sys.argv[1]])
