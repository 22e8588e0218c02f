"""Load stamps: columns a loader writes into each delivery when it delivers it (`_loaded_at`,
`delivered_on`). A split that delivers the batches in another order (reverse, shuffled) keeps
a loader's behaviour only if those columns are stamped at delivery time: the i-th delivery
gets the stamp the i-th delivery of the natural order had. Without that, a correct model
whose incremental filter is `>= max(<load stamp>)` would be blamed for a delivery no loader
makes (a later delivery stamped earlier).

Which columns are load stamps: declared (`meta.rerun_safe.load_stamp_columns` on a source, a
source table or a model; `--load-stamp-columns`), or, with `--load-sources` (the harness is the
loader), found in the deliveries: a column with one value per batch that rises with the batch
order."""

from __future__ import annotations

import csv
import itertools
import shutil
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import duckdb

from harness.deliveries import Batch


def _csv_columns(path: Path) -> list[str]:
    with path.open(newline="", encoding="utf-8") as handle:
        return next(csv.reader(handle), [])


def _values(path: Path, column: str) -> set[str]:
    """The distinct text values of one column of a delivery file (empty if it has none)."""
    if path.suffix.lower() == ".parquet":
        con = duckdb.connect()
        try:
            names = [row[0] for row in con.execute(f"describe select * from {_parquet(path)}").fetchall()]
            if column not in names:
                return set()
            rows = con.execute(f"select distinct cast({_ident(column)} as varchar) from {_parquet(path)}").fetchall()
            return {str(row[0]) for row in rows if row[0] is not None}
        finally:
            con.close()
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        if column not in (reader.fieldnames or []):
            return set()
        return {row[column] for row in reader if row.get(column)}


def _lit(text: Path | str) -> str:
    return str(text).replace("'", "''")


def _parquet(path: Path) -> str:
    """The file's own columns: a `name=value` folder of its path is no column."""
    return f"read_parquet('{_lit(path)}', hive_partitioning = false)"


def _ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _number(value: str) -> Decimal:
    number = Decimal(value)
    if not number.is_finite():
        raise ValueError(value)
    return number


def _instant(value: str) -> datetime:
    return datetime.fromisoformat(value)


def order_key(values: Iterable[str]) -> Callable[[str], Any]:
    """How a stamp column's values compare: as numbers if every one is a number, else as
    timestamps if every one is one (all with a UTC offset, or none), else as text."""
    values = list(values)
    for parse in (_number, _instant):
        try:
            sorted(parse(value) for value in values)
        except (ValueError, TypeError, ArithmeticError):
            continue
        return parse
    return str


def columns_of(path: Path) -> list[str]:
    if path.suffix.lower() == ".parquet":
        con = duckdb.connect()
        try:
            return [row[0] for row in con.execute(f"describe select * from {_parquet(path)}").fetchall()]
        finally:
            con.close()
    return _csv_columns(path)


def batch_stamps(batches: Sequence[Batch], columns: Iterable[str]) -> list[dict[str, str]]:
    """Per batch of the natural order, each stamp column's value at that delivery: the
    greatest value its files hold (order_key: as numbers, else as timestamps, else as text)."""
    stamps: list[dict[str, str]] = [{} for _ in batches]
    for column in columns:
        per_batch = [set().union(*(_values(path, column) for path in batch.files)) for batch in batches]
        key = order_key(set().union(*per_batch))
        for found, values in zip(stamps, per_batch, strict=True):
            if values:
                found[column] = max(values, key=key)
    return stamps


def detect(batches: Sequence[Batch]) -> tuple[str, ...]:
    """Columns a loader stamped: present in every file, one value per batch, strictly rising
    with the batch order (2 batches at least)."""
    if len(batches) < 2:
        return ()
    files = [path for batch in batches for path in batch.files]
    common = set(columns_of(files[0]))
    for path in files[1:]:
        common &= set(columns_of(path))
    found = []
    for column in sorted(common):
        per_batch = []
        for batch in batches:
            values = set().union(*(_values(path, column) for path in batch.files))
            if len(values) != 1:
                break
            per_batch.append(values.pop())
        else:
            key = order_key(per_batch)
            if all(key(a) < key(b) for a, b in itertools.pairwise(per_batch)):
                found.append(column)
    return tuple(found)


def _rewrite(source: Path, target: Path, stamp: dict[str, str]) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    if source.suffix.lower() == ".parquet":
        con = duckdb.connect()
        try:
            names = columns_of(source)
            replaced = [
                f"cast('{_lit(stamp[c])}' as {_type(con, source, c)}) as {_ident(c)}" for c in stamp if c in names
            ]
            select = "*" if not replaced else f"* replace ({', '.join(replaced)})"
            con.execute(f"copy (select {select} from {_parquet(source)}) to '{_lit(target)}' (format parquet)")
        finally:
            con.close()
    else:
        with source.open(newline="", encoding="utf-8") as handle:
            rows = list(csv.reader(handle))
        if rows:
            header = rows[0]
            for column, value in stamp.items():
                if column in header:
                    index = header.index(column)
                    for row in rows[1:]:
                        if index < len(row):
                            row[index] = value
        with target.open("w", newline="", encoding="utf-8") as handle:
            csv.writer(handle, lineterminator="\n").writerows(rows)
    shutil.copystat(source, target)


def _type(con: duckdb.DuckDBPyConnection, path: Path, column: str) -> str:
    for name, type_, *_ in con.execute(f"describe select * from {_parquet(path)}").fetchall():
        if name == column:
            return str(type_)
    return "varchar"


def restamp(split: Sequence[Batch], stamps: Sequence[dict[str, str]], root: Path, folder: Path) -> list[Batch]:
    """The split's files rewritten under `folder` (same paths relative to the deliveries
    folder `root`, same mtimes): every row of its i-th delivery carries stamps[i]."""
    restamped = []
    for slot, (batch, stamp) in enumerate(zip(split, stamps, strict=True), start=1):
        files = []
        for path in batch.files:
            target = folder / f"delivery_{slot:03d}" / path.relative_to(root)
            _rewrite(path, target, stamp)
            files.append(target)
        restamped.append(Batch(batch.key, tuple(files)))
    return restamped
