"""Batch discovery and landing."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from harness.checks.batches import variants
from harness.deliveries import discover_batches, land, redeliver_new_names, redeliver_same_name, regroup
from tests.harness.helpers import DELIVERIES


def test_batches_group_by_the_pattern_and_sort_by_name() -> None:
    batches = discover_batches(DELIVERIES)
    assert [b.key for b in batches] == ["2026-11-01", "2026-11-02", "2026-11-03"]
    assert [f.name for f in batches[0].files] == ["2026-11-01_a.csv", "2026-11-01_b.csv"]


def test_a_file_outside_the_pattern_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "2026-11-01_a.csv").write_text("x\n")
    (tmp_path / "late.csv").write_text("x\n")
    with pytest.raises(ValueError, match=re.escape("late.csv")):
        discover_batches(tmp_path)


def test_variants_drop_splits_equal_to_an_earlier_one() -> None:
    batches = discover_batches(DELIVERIES)
    names = [name for name, _ in variants(batches, 2)]
    assert names == ["one batch per key", "all at once", "2 keys per batch", "one batch per key, reverse order"]
    assert [name for name, _ in variants(batches[:1], 2)] == ["one batch per key"]
    assert [len(b.files) for b in regroup(batches, 2)] == [3, 1]


def test_landing_keeps_mtimes_and_redelivery_changes_them(tmp_path: Path) -> None:
    source = DELIVERIES / "2026-11-02_a.csv"
    (landed,) = land([source], tmp_path)
    assert landed.stat().st_mtime == source.stat().st_mtime
    before = os.stat(landed).st_mtime
    redeliver_same_name(tmp_path)
    assert landed.stat().st_mtime > before and landed.read_bytes() == source.read_bytes()
    (copy,) = redeliver_new_names(tmp_path)
    assert copy.name == "2026-11-02_redelivered_a.csv" and copy.read_bytes() == source.read_bytes()


def test_batches_sort_by_key_whatever_order_their_files_are_found_in(tmp_path: Path) -> None:
    """Hive folders: table `a` has only batch 2 and table `b` only batch 1, so a walk of the paths
    finds batch 2 first; batches still come in key order."""
    for table, key in (("a", "2026-11-02"), ("b", "2026-11-01")):
        folder = tmp_path / table / f"batch={key}"
        folder.mkdir(parents=True)
        (folder / "part-0.csv").write_text("id\n1\n", encoding="utf-8")
    assert [b.key for b in discover_batches(tmp_path)] == ["2026-11-01", "2026-11-02"]


def test_a_hidden_file_is_no_delivery(tmp_path: Path) -> None:
    """An editor's or a sync tool's dot file beside the deliveries is neither a batch's file nor
    an unmatched name (`.2026-11-01_x.csv` matches no pattern once its dot is there)."""
    (tmp_path / "2026-11-01_orders.csv").write_text("id\n1\n", encoding="utf-8")
    (tmp_path / ".2026-11-01_orders.csv").write_text("id\n1\n", encoding="utf-8")
    (tmp_path / ".~lock.2026-11-01_orders.csv").write_text("x\n", encoding="utf-8")
    batches = discover_batches(tmp_path)
    assert [(b.key, [f.name for f in b.files]) for b in batches] == [("2026-11-01", ["2026-11-01_orders.csv"])]
