"""``python -m irmeasures_ext.sample qrels|run`` prints the path of a bundled sample file."""
import sys

from irmeasures_ext.sample import QRELS, RUN

PATHS = {'qrels': QRELS, 'run': RUN}

if __name__ == '__main__':
    if len(sys.argv) != 2 or sys.argv[1] not in PATHS:
        sys.exit('usage: python -m irmeasures_ext.sample qrels|run')
    print(PATHS[sys.argv[1]])
