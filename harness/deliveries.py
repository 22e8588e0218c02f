"""Delivery files, grouped into batches by a file-name pattern, and landing them."""

from __future__ import annotations

import os
import re
import shutil
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

DEFAULT_BATCH_PATTERN = r"^(\d{4}-\d{2}-\d{2})_"


@dataclass(frozen=True)
class Batch:
    key: str
    files: tuple[Path, ...]


def discover_batches(deliveries: Path, pattern: str = DEFAULT_BATCH_PATTERN) -> list[Batch]:
    """CSV files of a folder grouped by the pattern's first group; names sort batches and files."""
    if not deliveries.is_dir():
        raise FileNotFoundError(f"--deliveries {deliveries} is not a folder")
    regex = re.compile(pattern)
    grouped: dict[str, list[Path]] = {}
    unmatched: list[str] = []
    for path in sorted(deliveries.glob("*.csv")):
        match = regex.search(path.name)
        if not match:
            unmatched.append(path.name)
            continue
        grouped.setdefault(match.group(1) if match.groups() else match.group(0), []).append(path)
    if unmatched:
        raise ValueError(
            f"{len(unmatched)} delivery file(s) do not match --batch-pattern {pattern!r}: "
            + ", ".join(unmatched[:5])
        )
    if not grouped:
        raise ValueError(f"no *.csv delivery file in {deliveries}")
    return [Batch(key, tuple(files)) for key, files in sorted(grouped.items())]


def regroup(batches: Sequence[Batch], keys_per_batch: int) -> list[Batch]:
    """Merge consecutive batches, keys_per_batch keys at a time."""
    merged: list[Batch] = []
    for start in range(0, len(batches), keys_per_batch):
        chunk = batches[start : start + keys_per_batch]
        merged.append(
            Batch("+".join(b.key for b in chunk), tuple(f for b in chunk for f in b.files))
        )
    return merged


def land(files: Iterable[Path], landing: Path) -> list[Path]:
    """Copy delivery files into a landing folder, keeping their names and mtimes."""
    landing.mkdir(parents=True, exist_ok=True)
    landed = []
    for source in files:
        target = landing / source.name
        shutil.copy2(source, target)
        landed.append(target)
    return landed


def redeliver_same_name(landing: Path) -> list[Path]:
    """Write every landed file again under its own name: same content, a new mtime."""
    touched = []
    later = time.time() + 60
    for path in sorted(landing.glob("*.csv")):
        content = path.read_bytes()
        path.write_bytes(content)
        os.utime(path, (later, later))
        touched.append(path)
    return touched


def redeliver_new_names(landing: Path, suffix: str = "__redelivered") -> list[Path]:
    """Copy every landed file under a new name next to it (same content, another delivery)."""
    copies = []
    for path in sorted(landing.glob("*.csv")):
        copy = path.with_name(f"{path.stem}{suffix}{path.suffix}")
        shutil.copy2(path, copy)
        copies.append(copy)
    return copies
