"""Delivery files, grouped into batches, and landing them.

A delivery is a CSV or Parquet file. Flat files are grouped by a file-name pattern whose
first group is the batch key (`2026-11-01_orders.csv`); files in Hive-style folders
(`orders/batch=2026-11-01/part-0.parquet`) take the value of their first `name=value` folder
as the batch key, and the folder above it names their table. Landing keeps that layout."""

from __future__ import annotations

import os
import re
import shutil
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from harness.errors import InputError, MissingInput

DEFAULT_BATCH_PATTERN = r"^(\d{4}-\d{2}-\d{2})_"


@dataclass(frozen=True)
class Batch:
    key: str
    files: tuple[Path, ...]


SUFFIXES = (".csv", ".parquet")
PARTITION = re.compile(r"^([^=/]+)=(.+)$")


def partition_index(path: Path) -> int | None:
    """Index in `path.parts` of its first Hive-style `name=value` folder, or None."""
    for index, part in enumerate(path.parts[:-1]):
        if PARTITION.match(part):
            return index
    return None


def delivery_files(folder: Path) -> list[Path]:
    return sorted(
        path
        for path in folder.rglob("*")
        if path.is_file() and path.suffix.lower() in SUFFIXES and not path.name.startswith(".")
    )


def discover_batches(deliveries: Path, pattern: str = DEFAULT_BATCH_PATTERN) -> list[Batch]:
    """CSV and Parquet files of a folder (and its Hive-style subfolders) grouped by batch key;
    keys sort batches, paths sort the files of a batch."""
    if not deliveries.is_dir():
        raise MissingInput(f"--deliveries {deliveries} is not a folder")
    regex = re.compile(pattern)
    grouped: dict[str, list[Path]] = {}
    unmatched: list[str] = []
    for path in delivery_files(deliveries):
        relative = path.relative_to(deliveries)
        hive = partition_index(relative)
        if hive is not None:
            match_value = PARTITION.match(relative.parts[hive])
            assert match_value is not None
            grouped.setdefault(match_value.group(2), []).append(path)
            continue
        if len(relative.parts) > 1:
            unmatched.append(f"{relative} (in a subfolder that is not name=value)")
            continue
        match = regex.search(path.name)
        if not match:
            unmatched.append(path.name)
            continue
        grouped.setdefault(match.group(1) if match.groups() else match.group(0), []).append(path)
    if unmatched:
        raise InputError(
            f"{len(unmatched)} delivery file(s) do not match --batch-pattern {pattern!r}: " + ", ".join(unmatched[:5])
        )
    if not grouped:
        raise InputError(f"no CSV or Parquet delivery file in {deliveries}")
    return [Batch(key, tuple(files)) for key, files in sorted(grouped.items())]


def landed_path(source: Path) -> Path:
    """Where a delivery goes inside a landing folder: its name, or for a Hive-style file its
    table folder and partition folders too."""
    hive = partition_index(source)
    if hive is None or hive == 0:
        return Path(source.name)
    return Path(*source.parts[hive - 1 :])


def regroup(batches: Sequence[Batch], keys_per_batch: int) -> list[Batch]:
    """Merge consecutive batches, keys_per_batch keys at a time."""
    merged: list[Batch] = []
    for start in range(0, len(batches), keys_per_batch):
        chunk = batches[start : start + keys_per_batch]
        merged.append(Batch("+".join(b.key for b in chunk), tuple(f for b in chunk for f in b.files)))
    return merged


def land(files: Iterable[Path], landing: Path) -> list[Path]:
    """Copy delivery files into a landing folder, keeping their names and mtimes."""
    landing.mkdir(parents=True, exist_ok=True)
    landed = []
    for source in files:
        target = landing / landed_path(source)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
        landed.append(target)
    return landed


def redeliver_same_name(landing: Path) -> list[Path]:
    """Write every landed file again under its own name: same content, a new mtime."""
    touched = []
    later = time.time() + 60
    for path in delivery_files(landing):
        content = path.read_bytes()
        path.write_bytes(content)
        os.utime(path, (later, later))
        touched.append(path)
    return touched


def redelivered_name(name: str, pattern: str = DEFAULT_BATCH_PATTERN, marker: str = "redelivered_") -> str:
    """A new name that a project's glob most likely still matches: the marker goes right after
    the batch key (`2026-11-01_orders.csv` -> `2026-11-01_redelivered_orders.csv`), so the
    prefix, the suffix and the extension stay; without a match, before the name."""
    match = re.search(pattern, name)
    cut = match.end() if match else 0
    return name[:cut] + marker + name[cut:]


def redeliver_new_names(landing: Path, pattern: str = DEFAULT_BATCH_PATTERN) -> list[Path]:
    """Copy every landed file under a new name next to it (same content, another delivery)."""
    copies = []
    for path in delivery_files(landing):
        name = redelivered_name(path.name, pattern if partition_index(path.relative_to(landing)) is None else "^")
        copy = path.with_name(name)
        shutil.copy2(path, copy)
        copies.append(copy)
    return copies


# Whether a build read a file: its access time. Linux (relatime) updates atime on a read when
# atime <= mtime, so a file whose atime is set a day before its mtime shows any later read.
UNREAD_AGE_NS = 86_400 * 10**9


def mark_unread(files: Iterable[Path]) -> None:
    for path in files:
        stat = path.stat()
        os.utime(path, ns=(stat.st_mtime_ns - UNREAD_AGE_NS, stat.st_mtime_ns))


def was_read(path: Path) -> bool:
    stat = path.stat()
    return stat.st_atime_ns > stat.st_mtime_ns - UNREAD_AGE_NS


def reads_observable(folder: Path) -> bool:
    """Does this file system record reads (atime)? Mounted noatime it does not."""
    folder.mkdir(parents=True, exist_ok=True)
    probe = folder / ".rerun_safe_atime_probe"
    probe.write_bytes(b"probe\n")
    try:
        mark_unread([probe])
        probe.read_bytes()
        return was_read(probe)
    finally:
        probe.unlink(missing_ok=True)


def _csv_records(text: str) -> list[str]:
    """The raw records of CSV text, each with its line end: a quoted field may span lines (a
    record ends where its count of `"` is even), so every record keeps its bytes."""
    records: list[str] = []
    pending = ""
    for line in text.splitlines(keepends=True):
        pending += line
        if pending.count('"') % 2 == 0:
            records.append(pending)
            pending = ""
    if pending:
        records.append(pending)
    return records


def write_reversed(source: Path, target: Path) -> None:
    """Write `source` to `target` with its rows in reverse order (the header first, every
    value and the mtime kept): the same delivery, stored in another physical order."""
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.suffix.lower() == ".parquet":
        import duckdb

        with duckdb.connect() as con:
            path = str(source).replace("'", "''")
            out = str(target).replace("'", "''")
            con.execute(
                f"copy (select * exclude (file_row_number) from read_parquet('{path}', file_row_number = true) "
                f"order by file_row_number desc) to '{out}' (format parquet)"
            )
    else:
        records = _csv_records(source.read_text())
        if records and not records[-1].endswith(("\n", "\r")):
            records[-1] += "\n"
        target.write_text("".join(records[:1] + records[:0:-1]))
    shutil.copystat(source, target)


def reversed_deliveries(batches: Sequence[Batch], folder: Path) -> list[Batch]:
    """Every batch again, written under `folder` (names and Hive folders kept) with each file's
    rows in reverse order and the files of a batch in reverse order."""
    rewritten = []
    for batch in batches:
        files = []
        for source in reversed(batch.files):
            target = folder / batch.key / landed_path(source)
            write_reversed(source, target)
            files.append(target)
        rewritten.append(Batch(batch.key, tuple(files)))
    return rewritten
