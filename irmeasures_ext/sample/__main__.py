"""``python -m irmeasures_ext.sample qrels|run|judges`` prints the path of a bundled sample file (or folder)."""
import sys

from irmeasures_ext.sample import JUDGES, QRELS, RUN

PATHS = {'qrels': QRELS, 'run': RUN, 'judges': JUDGES}
USAGE = 'usage: python -m irmeasures_ext.sample qrels|run|judges'
HELP = (f'{USAGE}\n\nPrints the path of a sample file shipped with irmeasures_ext (20 queries, graded labels), '
        'e.g.\n  irmeasures-ext "$(python -m irmeasures_ext.sample qrels)" "$(python -m irmeasures_ext.sample run)" '
        'Q@10\n(judges: the folder of the judging-the-judges sample: nist.txt, llm.txt, llm_weak.txt and runs/)')

if __name__ == '__main__':
    if sys.argv[1:] in (['-h'], ['--help']):
        print(HELP)
    elif len(sys.argv) != 2 or sys.argv[1] not in PATHS:
        sys.exit(USAGE)
    else:
        print(PATHS[sys.argv[1]])
