"""The table that pairs a reproduced run's docs with the original's (``engine.doc_ids.GroupedHashes``), against a
plain dict of (group, hash) -> row: keys crowded into one slot (the probe passes the region's last slot and goes on
at its first), a hash shared by two groups, groups with no keys, and two keys of a group alike (no table)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irmeasures_ext.engine import doc_ids
from irmeasures_ext.engine.doc_ids import GroupedHashes

MULTIPLIER = int(doc_ids._SLOT_MULTIPLIERS[0])
#: Hashes whose first slot is the last of any region (their product with the multiplier has its top bits all 1):
#: looking past it wraps around to the region's first slot.
AT_REGION_END = [pow(MULTIPLIER, -1, 2 ** 64) * (2 ** 64 - 1 - k) % 2 ** 64 for k in range(8)]  # (any region's)


def looked_up(keys: list[tuple[int, int]], n_groups: int, queries: list[tuple[int, int]]) -> list[int] | None:
    """The rows of ``queries`` in the table of ``keys`` (one row each, in order), or None where it makes none."""
    group = np.array([g for g, _ in keys], dtype=np.int64)
    hashes = np.array([h for _, h in keys], dtype=np.uint64)
    table = GroupedHashes.of(group, hashes, n_groups)
    if table is None:
        return None
    return table.rows_of(np.array([g for g, _ in queries], dtype=np.int64),
                         np.array([h for _, h in queries], dtype=np.uint64)).tolist()


def plain(keys: list[tuple[int, int]], queries: list[tuple[int, int]]) -> list[int]:
    """The same, from the definition: each key's row, -1 for a key not in ``keys``."""
    row = {key: i for i, key in enumerate(keys)}
    return [row.get(query, -1) for query in queries]


hashes = st.one_of(st.sampled_from(AT_REGION_END), st.integers(0, 5), st.integers(0, 2 ** 64 - 1))


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 5).flatmap(lambda n_groups: st.tuples(
    st.just(n_groups),
    st.lists(st.tuples(st.integers(0, n_groups - 1), hashes), unique=True, max_size=60),
    st.lists(st.tuples(st.integers(0, n_groups - 1), hashes), max_size=60))))
def test_rows_as_a_dict_finds_them(case):
    """Every key held is found at its row, every other key is not: the rows in any group order (not grouped),
    queries held or not, a hash held in one group looked for in another."""
    n_groups, keys, others = case
    queries = keys[::-1] + others + [((g + 1) % n_groups, h) for g, h in keys]
    assert looked_up(keys, n_groups, queries) == plain(keys, queries)


def test_keys_crowded_into_the_last_slot_wrap_around():
    """Eight keys of one group (the second: its region starts at slot 4) all first looked for in the region's last
    slot (32 slots for 8 keys): one is placed there, seven past it, from the region's first slot on, and each is
    found; a ninth, absent, first looked for in the last slot too, is looked for through all eight, up to the
    empty slot after them, and found missing; no other region is entered."""
    keys = [(0, 7)] + [(1, h) for h in AT_REGION_END]
    absent = pow(MULTIPLIER, -1, 2 ** 64) * (2 ** 64 - 9) % 2 ** 64  # (as AT_REGION_END's)
    queries = [*keys, (1, absent), (1, 3), (0, AT_REGION_END[0])]
    assert looked_up(keys, 2, queries) == [0, 1, 2, 3, 4, 5, 6, 7, 8, -1, -1, -1]
    table = GroupedHashes.of(np.array([0] + [1] * 8), np.array([h for _, h in keys], dtype=np.uint64), 2)
    assert table.regions.start.tolist() == [0, 4]
    region = table.slot_row[4:36].tolist()
    assert sorted(region[:7] + region[-1:]) == list(range(1, 9))  # (one in the last slot, seven wrapped)
    assert region[7:-1] == [-1] * 24
    assert table.slot_row[:4].tolist().count(0) == 1


def slot_hash(slot: int, bits: int, k: int = 0) -> int:
    """The ``k``-th hash first looked for in ``slot`` of a region of 2^``bits`` slots."""
    return pow(MULTIPLIER, -1, 2 ** 64) * ((slot << (64 - bits)) + k) % 2 ** 64


def test_a_key_placed_is_never_moved_by_a_later_one():
    """Row 0 placed in slot 5 at once; rows 1 and 2 both first looked for in slot 4, the one that loses it passes
    slot 5 (taken by row 0, not empty) to slot 6: all three are found (a region of 16 slots for 3 keys)."""
    keys = [(0, slot_hash(5, 4)), (0, slot_hash(4, 4)), (0, slot_hash(4, 4, 1))]
    assert looked_up(keys, 1, keys) == [0, 1, 2]


@pytest.mark.parametrize('keys, n_groups', [([(0, 5), (0, 5)], 1), ([(1, 9), (0, 4), (1, 9)], 3),
                                            ([(0, h) for h in AT_REGION_END] + [(0, AT_REGION_END[7])], 1)])
def test_a_hash_twice_in_a_group_makes_no_table(keys, n_groups):
    """Two keys of one group alike (two docs of a topic sharing a hash): no table, also where they meet only
    after probing past others."""
    assert looked_up(keys, n_groups, []) is None


def test_a_hash_in_two_groups_is_two_keys():
    assert looked_up([(0, 5), (1, 5)], 2, [(1, 5), (0, 5)]) == [1, 0]


def test_no_keys_and_empty_groups():
    """A table of no rows (over groups with none) finds nothing; groups with no keys beside one with keys."""
    assert looked_up([], 3, [(0, 1), (2, 0)]) == [-1, -1]
    assert looked_up([(2, 1)], 4, [(2, 1), (0, 1), (3, 1)]) == [0, -1, -1]
    assert looked_up([], 0, []) == []
    nothing = GroupedHashes.of(np.array([], dtype=np.int64), np.array([], dtype=np.uint64), 2)
    assert nothing.rows_of(np.array([1]), np.array([5], dtype=np.uint64)).dtype == np.int64  # (rows: to index with)


def test_a_region_is_at_least_four_times_its_keys():
    """The table a quarter full or less in every region: 1, 2, 3, 4 and 1000 keys take 4, 8, 16, 16 and 4096
    slots; a group of none, 2."""
    sizes = [0, 1, 2, 3, 4, 1000]
    group = np.repeat(np.arange(len(sizes)), sizes)
    table = GroupedHashes.of(group, np.arange(len(group), dtype=np.uint64), len(sizes))
    assert (table.regions.mask + 1).tolist() == [2, 4, 8, 16, 16, 4096]
    assert table.regions.start.tolist() == [0, 2, 6, 14, 30, 46]
    assert len(table.slot_row) == 4142
