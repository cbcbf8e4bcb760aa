"""``irmeasures-ext datasets ...``: ir_datasets' own command line, with this package's datasets."""
from __future__ import annotations


def run(argv: list[str]) -> int:
    """ir_datasets' own command line, with this package's datasets registered."""
    import ir_datasets

    from irmeasures_ext.plugin import register_datasets
    register_datasets()
    ir_datasets.main(argv)
    return 0
