"""What the harness knows about a dbt project: its models, keys, meta, and vars."""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

import yaml

from harness.errors import InputError, NotFound

# Node types that own a relation in the warehouse whose rows the harness judges.
DATA_RESOURCE_TYPES = ("model", "seed", "snapshot")
# Generic tests that declare a grain over several columns, and the kwarg naming the columns.
UNIQUE_COMBINATION_TESTS = {
    "unique_combination": "columns",
    "unique_combination_of_columns": "combination_of_columns",  # dbt_utils
}


class CompareMode(StrEnum):
    """`meta.rerun_safe.compare` of a model: how the harness judges its table."""

    EXACT = "exact"  # every row, as a multiset (the default)
    SKIP = "skip"  # not judged (`reason` says why)
    # an append-only history: compared by balances (`sum_columns` per `group_by`) when the same
    # inputs took another route (convergence, batches, crash); row by row on a re-run
    HISTORY = "history"

    @classmethod
    def parse(cls, value: object, model: str) -> CompareMode:
        """The mode a model's meta names (any case); ValueError naming the model otherwise."""
        text = str(value).lower()
        try:
            return cls(text)
        except ValueError:
            modes = ", ".join(mode.value for mode in cls)
            raise InputError(f"{model}: meta.rerun_safe.compare must be one of {modes}, got {value!r}") from None


@dataclass(frozen=True)
class RerunSafeMeta:
    """`meta: {rerun_safe: {...}}` of a model: how the harness may compare it."""

    compare: CompareMode = CompareMode.EXACT
    volatile_columns: tuple[str, ...] = ()
    sum_columns: tuple[str, ...] = ()
    group_by: tuple[str, ...] = ()
    reason: str = ""
    # The model keeps one row per delivered row (a staging log, duplicate counts, quarantined
    # copies): a redelivery under a new name adds rows by design, so replay does not judge it.
    records_deliveries: bool = False
    # The model's unique_key may hold several rows by design (a partition replaced whole, an
    # event whose copies are replaced together): it is not asserted, and the report says so.
    unique_key_repeats: bool = False
    # Columns a loader stamps into each delivery when it delivers it (`_loaded_at`): a split
    # that reorders the deliveries stamps them at delivery time (harness.stamps).
    load_stamp_columns: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        # RerunSafeMeta(compare="history") from Python: the enum, so `is CompareMode.X` holds
        object.__setattr__(self, "compare", CompareMode(self.compare))

    @classmethod
    def from_meta(cls, meta: dict[str, Any] | None, model: str = "a model") -> RerunSafeMeta:
        """`meta.rerun_safe` of `model` (its name, for the errors), parsed once."""
        raw = (meta or {}).get("rerun_safe") or {}
        return cls(
            compare=CompareMode.parse(raw.get("compare", CompareMode.EXACT.value), model),
            volatile_columns=tuple(raw.get("volatile_columns") or ()),
            sum_columns=tuple(raw.get("sum_columns") or ()),
            group_by=tuple(raw.get("group_by") or ()),
            reason=str(raw.get("reason") or ""),
            records_deliveries=_as_bool(raw.get("records_deliveries", False), "records_deliveries"),
            unique_key_repeats=_as_bool(raw.get("unique_key_repeats", False), "unique_key_repeats"),
            load_stamp_columns=_as_key(raw.get("load_stamp_columns")),
        )


def _as_bool(value: Any, name: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise InputError(f"meta.rerun_safe.{name} must be true or false, got {value!r}")


@dataclass(frozen=True)
class Model:
    unique_id: str
    name: str
    resource_type: str
    database: str
    schema: str
    identifier: str
    materialized: str
    unique_key: tuple[str, ...] = ()
    key_source: str = ""  # "config" | "unique test" | "unique_combination test" | ""
    rerun_safe: RerunSafeMeta = field(default_factory=RerunSafeMeta)
    # Every declared grain, asserted unique after each build: the unique_key config and each
    # unique / unique_combination test, with where it was declared.
    grains: tuple[tuple[tuple[str, ...], str], ...] = ()
    # The unique_key config, when there is one ("" when the model declares none).
    config_key: tuple[str, ...] = ()
    strategy: str = ""  # incremental_strategy as configured ("" when none is named)
    # Why its unique_key is not asserted ("" when it is, or when a test declares its grain).
    key_not_asserted: str = ""
    # Columns its incremental filter trusts: `max(<column>)` in its SQL (an `is_incremental()`
    # model), the high-water marks a reordered delivery can defeat.
    trusted_columns: tuple[str, ...] = ()
    parents: tuple[str, ...] = ()  # unique_ids it depends on (depends_on.nodes)
    # A snapshot with the `check` strategy stamps its meta columns (dbt_scd_id, dbt_updated_at,
    # dbt_valid_from, dbt_valid_to) with the time the snapshot ran: two lanes built at other times
    # differ there by dbt's design, so they are left out of every comparison, and the report says so.
    snapshot_time_columns: tuple[str, ...] = ()

    @property
    def relation_key(self) -> tuple[str, str]:
        return (self.schema.lower(), self.identifier.lower())

    @property
    def display_name(self) -> str:
        return f"{self.schema}.{self.identifier}"


@dataclass(frozen=True)
class Project:
    name: str
    models: tuple[Model, ...]
    # (schema, identifier) of the project's sources, lower case: the input tables, never judged
    sources: frozenset[tuple[str, str]] = frozenset()
    # load stamp columns declared on sources and source tables (meta.rerun_safe.load_stamp_columns)
    source_load_stamps: tuple[str, ...] = ()

    def load_stamps(self) -> tuple[str, ...]:
        """Every declared load stamp column: on sources, source tables and models."""
        found = list(self.source_load_stamps)
        for model in self.models:
            found += [c for c in model.rerun_safe.load_stamp_columns if c not in found]
        return tuple(found)

    def trusted_by(self, name: str) -> tuple[str, ...]:
        """The columns the incremental filters of a model and of every model upstream of it
        trust (`max(<column>)`), nearest first."""
        by_id = {model.unique_id: model for model in self.models}
        try:
            start = self.by_name(name)
        except KeyError:
            return ()
        found: list[str] = []
        queue, seen = [start.unique_id], set()
        while queue:
            node = queue.pop(0)
            if node in seen or node not in by_id:
                continue
            seen.add(node)
            found += [c for c in by_id[node].trusted_columns if c not in found]
            queue += list(by_id[node].parents)
        return tuple(found)

    def by_relation(self) -> dict[tuple[str, str], Model]:
        return {model.relation_key: model for model in self.models}

    def by_name(self, name: str) -> Model:
        for model in self.models:
            if model.name == name or model.unique_id == name:
                return model
        raise NotFound(name)


def _as_key(value: Any) -> tuple[str, ...]:
    if not value:
        return ()
    if isinstance(value, str):
        return (value,)
    return tuple(str(item) for item in value)


SNAPSHOT_META_COLUMNS = ("dbt_scd_id", "dbt_updated_at", "dbt_valid_from", "dbt_valid_to")


def snapshot_time_columns(node: dict[str, Any]) -> tuple[str, ...]:
    """The meta columns a `check`-strategy snapshot fills with the time it ran (renamed where its
    `snapshot_meta_column_names` config says so); none for any other node or strategy (the
    `timestamp` strategy takes them from the rows' own `updated_at`)."""
    config = node.get("config") or {}
    if node.get("resource_type") != "snapshot" or str(config.get("strategy") or "").lower() != "check":
        return ()
    names = config.get("snapshot_meta_column_names") or {}
    names = names if isinstance(names, dict) else {}
    return tuple(str(names.get(column) or column) for column in SNAPSHOT_META_COLUMNS)


def keys_from_tests(nodes: dict[str, Any]) -> dict[str, tuple[tuple[str, ...], str]]:
    """A key per model from its data tests, when its config declares none: a `unique` column
    that is also `not_null`, else a unique combination, else any `unique` column."""
    unique: dict[str, list[str]] = {}
    not_null: dict[str, set[str]] = {}
    combos: dict[str, list[tuple[str, ...]]] = {}
    for node in nodes.values():
        metadata = node.get("test_metadata") or {}
        model = node.get("attached_node")
        if node.get("resource_type") != "test" or not model:
            continue
        name, kwargs = metadata.get("name"), metadata.get("kwargs") or {}
        column = kwargs.get("column_name")
        if name == "unique" and column:
            unique.setdefault(model, []).append(str(column))
        elif name == "not_null" and column:
            not_null.setdefault(model, set()).add(str(column))
        elif name in UNIQUE_COMBINATION_TESTS and kwargs.get(UNIQUE_COMBINATION_TESTS[name]):
            combos.setdefault(model, []).append(_as_key(kwargs[UNIQUE_COMBINATION_TESTS[name]]))
    keys: dict[str, tuple[tuple[str, ...], str]] = {}
    for model in set(unique) | set(combos):
        columns = sorted(unique.get(model, []))
        required = [c for c in columns if c in not_null.get(model, set())]
        if required:
            keys[model] = ((required[0],), "unique test")
        elif combos.get(model):
            keys[model] = (sorted(combos[model])[0], "unique_combination test")
        else:
            keys[model] = ((columns[0],), "unique test")
    return keys


def grains_from_tests(nodes: dict[str, Any]) -> dict[str, list[tuple[tuple[str, ...], str]]]:
    """Every grain a model's data tests declare: each `unique` column, each unique
    combination (a test with a `where` config is a partial grain and is left out)."""
    grains: dict[str, list[tuple[tuple[str, ...], str]]] = {}
    for node in nodes.values():
        metadata = node.get("test_metadata") or {}
        model = node.get("attached_node")
        if node.get("resource_type") != "test" or not model:
            continue
        if (node.get("config") or {}).get("where"):
            continue
        name, kwargs = metadata.get("name"), metadata.get("kwargs") or {}
        grain: tuple[tuple[str, ...], str]
        if name == "unique" and kwargs.get("column_name"):
            grain = ((str(kwargs["column_name"]),), "unique test")
        elif name in UNIQUE_COMBINATION_TESTS and kwargs.get(UNIQUE_COMBINATION_TESTS[name]):
            grain = (_as_key(kwargs[UNIQUE_COMBINATION_TESTS[name]]), f"{name} test")
        else:
            continue
        if grain not in grains.setdefault(model, []):
            grains[model].append(grain)
    return grains


def logical_schema(schema: str, rename: tuple[str, str] | None) -> str:
    """A schema as the user's target names it: with `rename` = (a lane's schema, the target's
    schema), `rs_<run>_l01_marts` -> `analytics_marts` (harness.engines). Others unchanged."""
    if rename is None:
        return schema
    physical, logical = rename
    if schema.lower() == physical.lower():
        return logical
    if schema.lower().startswith(physical.lower() + "_"):
        return logical + schema[len(physical) :]
    return schema


def load_manifest(target_path: Path, rename: tuple[str, str] | None = None) -> Project:
    """The project's models from a run's manifest.json; `rename`: see `logical_schema`."""
    manifest = json.loads((target_path / "manifest.json").read_text())
    project_name = manifest.get("metadata", {}).get("project_name", "")
    nodes = manifest.get("nodes", {})
    tested_keys, tested_grains = keys_from_tests(nodes), grains_from_tests(nodes)
    models = [
        _model(unique_id, node, rename, tested_keys.get(unique_id), tested_grains.get(unique_id, []))
        for unique_id, node in nodes.items()
        if node.get("resource_type") in DATA_RESOURCE_TYPES
        and node.get("package_name") == project_name
        and str((node.get("config") or {}).get("materialized", "")) != "ephemeral"
    ]
    declared = list((manifest.get("sources") or {}).values())
    sources = frozenset(
        (
            logical_schema(str(source.get("schema") or ""), rename).lower(),
            str(source.get("identifier") or source.get("name") or "").lower(),
        )
        for source in declared
    )
    return Project(
        name=project_name,
        models=tuple(sorted(models, key=lambda m: m.unique_id)),
        sources=sources,
        source_load_stamps=_source_load_stamps(declared),
    )


def _model(
    unique_id: str,
    node: dict[str, Any],
    rename: tuple[str, str] | None,
    tested_key: tuple[tuple[str, ...], str] | None,
    tested_grains: list[tuple[tuple[str, ...], str]],
) -> Model:
    """One data node of the manifest; `tested_key`, `tested_grains`: what its data tests assert
    (keys_from_tests, grains_from_tests)."""
    config = node.get("config") or {}
    meta = dict(node.get("meta") or {})
    meta.update(config.get("meta") or {})
    key = config_key = _as_key(config.get("unique_key"))
    key_source = "config" if key else ""
    rerun_safe = RerunSafeMeta.from_meta(meta, str(node.get("name") or unique_id))
    # Every unique_key is a grain, whatever the strategy: two rows for one key are the bug
    # users mean (a merge matching two rows, a delete+insert inserting a batch's duplicates).
    # Only the project can say a key repeats by design (meta.rerun_safe.unique_key_repeats);
    # a snapshot keeps one row per version of its key.
    not_asserted = ""
    if rerun_safe.compare is CompareMode.SKIP:
        not_asserted = "not judged: meta.rerun_safe.compare is skip"
    elif key and node["resource_type"] == "snapshot":
        not_asserted = "snapshot: one row per version of its unique_key"
    elif key and rerun_safe.unique_key_repeats:
        not_asserted = "unique_key declared to repeat (meta.rerun_safe.unique_key_repeats)"
    grains = [(key, "unique_key config")] if key and not not_asserted else []
    if not key and tested_key is not None:
        key, key_source = tested_key
    grains += [g for g in tested_grains if g[0] not in [k for k, _ in grains]]
    if not not_asserted and not grains:
        not_asserted = "no unique_key and no unique / unique_combination test"
    return Model(
        unique_id=unique_id,
        name=node["name"],
        resource_type=node["resource_type"],
        database=str(node.get("database") or ""),
        schema=logical_schema(str(node.get("schema") or ""), rename),
        identifier=str(node.get("alias") or node.get("identifier") or node["name"]),
        materialized=str(config.get("materialized", "")),
        unique_key=key,
        key_source=key_source,
        rerun_safe=rerun_safe,
        grains=tuple(grains),
        config_key=config_key,
        strategy=str(config.get("incremental_strategy") or "").lower(),
        key_not_asserted=not_asserted,
        trusted_columns=trusted_columns(str(node.get("raw_code") or "")),
        parents=tuple((node.get("depends_on") or {}).get("nodes") or ()),
        snapshot_time_columns=snapshot_time_columns(node),
    )


def _source_load_stamps(sources: list[dict[str, Any]]) -> tuple[str, ...]:
    """The load stamp columns the project's sources declare (meta.rerun_safe.load_stamp_columns
    in source_meta, meta or config.meta), each once, in order."""
    stamps: list[str] = []
    for source in sources:
        metas: tuple[dict[str, Any] | None, ...] = (
            source.get("source_meta"),
            source.get("meta"),
            (source.get("config") or {}).get("meta"),
        )
        for declared in metas:
            for column in RerunSafeMeta.from_meta(declared, f"source {source.get('name')}").load_stamp_columns:
                if column not in stamps:
                    stamps.append(column)
    return tuple(stamps)


HIGH_WATER_MARK = re.compile(r"\bmax\s*\(\s*(?:[\w\"]+\s*\.\s*)?\"?(\w+)\"?\s*\)", re.IGNORECASE)


def trusted_columns(raw_code: str) -> tuple[str, ...]:
    """The columns an incremental model's filter takes a high-water mark of: `max(col)` (or
    `max(alias.col)`) in a model that uses is_incremental()."""
    if "is_incremental" not in raw_code:
        return ()
    found: list[str] = []
    for match in HIGH_WATER_MARK.finditer(raw_code):
        if match.group(1) not in found:
            found.append(match.group(1))
    return tuple(found)


def build_order(target_path: Path, unique_ids: Collection[str]) -> list[str]:
    """`unique_ids` in an order dbt may build them: every node after all of its parents
    (ephemeral models and nodes left out are followed through), ties by unique_id. Any prefix
    of it is a state a build stopped between two models can leave behind."""
    manifest = json.loads((target_path / "manifest.json").read_text())
    parent_map: dict[str, list[str]] = manifest.get("parent_map") or {}
    wanted = set(unique_ids)

    def data_parents(node: str, seen: set[str]) -> set[str]:
        found: set[str] = set()
        for parent in parent_map.get(node, []):
            if parent in seen:
                continue
            seen.add(parent)
            if parent in wanted:
                found.add(parent)
            else:  # an ephemeral model or an unselected node: its parents still come first
                found |= data_parents(parent, seen)
        return found

    parents = {node: data_parents(node, set()) for node in wanted}
    order: list[str] = []
    done: set[str] = set()
    while len(order) < len(wanted):
        ready = sorted(node for node in wanted - done if parents[node] <= done)
        if not ready:
            raise InputError("the manifest's parent_map has a cycle among the selected nodes")
        order.append(ready[0])
        done.add(ready[0])
    return order


def project_vars(project_dir: Path) -> dict[str, Any]:
    """Vars declared in dbt_project.yml: global ones, then the project's own scope on top."""
    config = yaml.safe_load((project_dir / "dbt_project.yml").read_text()) or {}
    declared = config.get("vars") or {}
    flat = {k: v for k, v in declared.items() if not isinstance(v, dict)}
    scoped = declared.get(config.get("name", ""))
    if isinstance(scoped, dict):
        flat.update(scoped)
    return flat
