"""Hypothesis strategies for (qrels, run) pairs that stress ranking and edge cases."""
from hypothesis import strategies as st

# Docids whose byte order differs from their numeric order, case variants, a non-ASCII one.
DOC_IDS = ['d9', 'd10', 'D99', 'd1', '9', '10', '100', '020', 'a', 'B', 'b', 'zz', 'Ä', 'doc-7', '1e3', 'x_y']
QUERY_IDS = ['1', '2', '10', 'q', 'Q']
# Few distinct scores, so ties are frequent; one pair differs only beyond float32 precision.
LABELS = st.integers(-2, 4)
# Real-valued labels (LLM judgments): a qrels drawing from these too has a float64 relevance column.
REAL_LABELS = st.sampled_from([-1.5, 0.35, 0.5, 1.25, 2.5, 3.75])
#: Half of the examples integer labels only, half integer and real ones mixed.
INTEGER_OR_REAL_LABELS = st.sampled_from([LABELS, LABELS | REAL_LABELS])
SCORES = [0.0, 1.0, 1.00000001, 2.5, -3.0, 7.0, 1e-3, 12.664297]


def doc_pool(draw):
    extra = draw(st.integers(0, 3))
    # occasionally long lists: many synthetic docids
    return DOC_IDS + [f'n{i}' for i in range(extra * 40)]


@st.composite
def qrels_and_run(draw, labels=LABELS):
    """``labels``: a strategy of labels, or a strategy of such strategies (one drawn per example)."""
    pool = doc_pool(draw)
    if labels is INTEGER_OR_REAL_LABELS:
        labels = draw(labels)
    qrels, run = {}, {}
    for i, query_id in enumerate(draw(st.lists(st.sampled_from(QUERY_IDS), min_size=1, max_size=4, unique=True))):
        sides = ['both', 'both', 'both', 'qrels', 'both-empty-run'] + ([] if i == 0 else ['run'])  # qrels never empty
        side = draw(st.sampled_from(sides))
        if side != 'run':
            judged = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=30, unique=True))
            qrels[query_id] = {doc: draw(labels) for doc in judged}
        if side in ('both', 'run'):
            retrieved = draw(st.lists(st.sampled_from(pool), max_size=len(pool), unique=True))
            run[query_id] = {doc: draw(st.sampled_from(SCORES)) for doc in retrieved}
        elif side == 'both-empty-run':
            run[query_id] = {}
    return qrels, run
