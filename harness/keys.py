"""The key check run after every build: each declared grain of each built model is unique.

A grain is a model's `unique_key` config, whatever its strategy, or a `unique` /
`unique_combination` data test on it (harness.project). Rows whose key columns are all NULL are
left out, as dbt's `unique` test does. A violation names the duplicate keys (a sample, with
their row counts, as SQL literals) and a hint for the model's strategy. A built model whose key
is not asserted (none declared, declared to repeat, not judged) is listed with the reason.
"""

from __future__ import annotations

import datetime
import decimal
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from harness.engines.base import Sql
from harness.project import CompareMode, Model

if TYPE_CHECKING:
    from harness.engines.base import Store

SAMPLE_KEYS = 5

DELETE_INSERT_DUPLICATES = (
    "delete+insert deletes the keys a run brings, then inserts every row it selected: two rows "
    "for one key both land; select one row per unique_key (deduplicate on it) or key the model "
    "on its real grain; if the key is a partition that repeats by design, declare "
    "meta.rerun_safe.unique_key_repeats: true"
)
MERGE_DUPLICATES = (
    "a merge on a key that matches two rows overwrites both or fails (MERGE error); key the "
    "model on its real grain, or select one row per unique_key"
)
KEY_DUPLICATES = (
    "the unique_key is not unique in the model's rows: select one row per key, or key the model "
    "on its real grain; if it repeats by design, declare meta.rerun_safe.unique_key_repeats: true"
)
TEST_GRAIN_DUPLICATES = "the grain its test declares is not unique: the project's own test fails too"


def key_hint(model: Model, declared_by: str) -> str:
    """What a duplicate key of `model` most likely means, for its strategy."""
    if declared_by != "unique_key config":
        return TEST_GRAIN_DUPLICATES
    # no strategy named: dbt-duckdb and dbt-postgres default to delete+insert for a keyed model
    if model.materialized == "incremental" and model.strategy in ("", "delete+insert"):
        return DELETE_INSERT_DUPLICATES
    if model.strategy == "merge":
        return MERGE_DUPLICATES
    return KEY_DUPLICATES


def sql_literal(value: Any) -> str:
    """A key value as SQL would write it: NULL, 'text', 42, '2025-01-07', true."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float, decimal.Decimal)):
        return str(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "'\\x" + bytes(value).hex() + "'"
    if isinstance(value, (datetime.date, datetime.time)):  # datetime is a date
        text = value.isoformat(sep=" ") if isinstance(value, datetime.datetime) else value.isoformat()
    else:
        text = str(value)
    return "'" + text.replace("'", "''") + "'"


@dataclass
class KeyViolation:
    model: str  # model name
    table: str  # schema.identifier
    columns: tuple[str, ...]
    declared_by: str  # "unique_key config", "unique test", ...
    duplicate_keys: int  # keys held by more than one row
    extra_rows: int  # rows beyond one per key
    sample: list[str] = field(default_factory=list)  # "(k1, k2) x3"
    when: str = ""  # which build found it
    explained_by: str = ""  # an earlier check that already reported this model
    hint: str = ""  # what it most likely means, for the model's strategy (key_hint)

    def line(self) -> str:
        keys = ", ".join(self.sample)
        more = f" (+{self.duplicate_keys - len(self.sample)} more)" if self.duplicate_keys > len(self.sample) else ""
        return (
            f"{self.model}: ({', '.join(self.columns)}) [{self.declared_by}] is not unique: "
            f"{self.duplicate_keys} duplicate key(s), {self.extra_rows} extra row(s): {keys}{more}"
            + (f" [{self.when}]" if self.when else "")
        )


@dataclass(frozen=True)
class KeyNotAsserted:
    """A built model whose key no build asserted, and why (harness.project.Model.key_not_asserted)."""

    model: str  # model name
    table: str  # schema.identifier
    why: str
    key: tuple[str, ...] = ()  # its unique_key config, if any

    @property
    def cell(self) -> str:
        """Its cell in the keys column of the models x checks table."""
        if "declared to repeat" in self.why:
            return "key repeats (declared)"
        if self.why.startswith("no unique_key"):
            return "no key"
        return "key not asserted"


@dataclass
class KeyCheck:
    """What one key check of one warehouse did."""

    violations: list[KeyViolation] = field(default_factory=list)
    grains_checked: int = 0
    rows_checked: int = 0
    not_checked: list[str] = field(default_factory=list)  # "model: why"
    not_asserted: list[KeyNotAsserted] = field(default_factory=list)


def check_keys(store: Store, place: str, models: Iterable[Model], built: Collection[str], when: str = "") -> KeyCheck:
    """Assert every grain of the `built` models (unique_ids) in a lane's place (a DuckDB file
    dbt has let go, a server schema)."""
    result = KeyCheck()
    models = [m for m in models if m.unique_id in built]
    result.not_asserted = [
        KeyNotAsserted(m.name, m.display_name, m.key_not_asserted, m.config_key) for m in models if m.key_not_asserted
    ]
    wanted = [m for m in models if m.grains and m.rerun_safe.compare is not CompareMode.SKIP]
    if not wanted or not store.exists(place):
        return result
    with store.reading(place) as (con, name_of):
        for model in wanted:
            relation = name_of(model.schema, model.identifier)
            try:
                columns = {name.lower() for name, _ in con.columns(relation)}
                rows = int(con.fetchone(f"select count(*) from {relation}")[0])  # type: ignore[index]
            except con.errors as exc:
                result.not_checked.append(f"{model.name}: {str(exc).splitlines()[0]}")
                continue
            for grain, declared_by in model.grains:
                missing = [c for c in grain if c.lower() not in columns]
                if missing:
                    result.not_checked.append(
                        f"{model.name}: grain ({', '.join(grain)}) [{declared_by}]: no column {', '.join(missing)}"
                    )
                    continue
                result.grains_checked += 1
                result.rows_checked += rows
                violation = _duplicates(con, relation, model, grain, declared_by, when)
                if violation is not None:
                    result.violations.append(violation)
    return result


def _duplicates(
    con: Sql, relation: str, model: Model, grain: tuple[str, ...], declared_by: str, when: str
) -> KeyViolation | None:
    quote = con.quote
    cols = ", ".join(quote(c) for c in grain)
    not_all_null = " or ".join(f"{quote(c)} is not null" for c in grain)
    duplicates = (
        f"select {cols}, count(*) as __n from {relation} as __t where {not_all_null} "
        f"group by {cols} having count(*) > 1"
    )
    row = con.fetchone(f"select count(*), coalesce(sum(__n - 1), 0) from ({duplicates}) as __d")
    if not row or not row[0]:
        return None
    sample = con.fetchall(f"select * from ({duplicates}) as __d order by __n desc, {cols} limit {SAMPLE_KEYS}")
    shown = [
        ("(" + ", ".join(sql_literal(v) for v in values[:-1]) + ")" if len(grain) > 1 else sql_literal(values[0]))
        + f" x{values[-1]}"
        for values in sample
    ]
    return KeyViolation(
        model=model.name,
        table=model.display_name,
        columns=grain,
        declared_by=declared_by,
        duplicate_keys=int(row[0]),
        extra_rows=int(row[1]),
        sample=shown,
        when=when,
        hint=key_hint(model, declared_by),
    )
