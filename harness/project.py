"""What the harness knows about a dbt project: its models, keys, meta, and vars."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

# Node types that own a relation in the warehouse whose rows the harness judges.
DATA_RESOURCE_TYPES = ("model", "seed", "snapshot")
COMPARE_MODES = ("exact", "skip", "history")


@dataclass(frozen=True)
class RerunSafeMeta:
    """`meta: {rerun_safe: {...}}` of a model: how the harness may compare it."""

    compare: str = "exact"
    volatile_columns: tuple[str, ...] = ()
    sum_columns: tuple[str, ...] = ()
    group_by: tuple[str, ...] = ()
    reason: str = ""

    @classmethod
    def from_meta(cls, meta: dict[str, Any] | None) -> "RerunSafeMeta":
        raw = (meta or {}).get("rerun_safe") or {}
        compare = str(raw.get("compare", "exact")).lower()
        if compare not in COMPARE_MODES:
            raise ValueError(f"meta.rerun_safe.compare must be one of {COMPARE_MODES}, got {compare!r}")
        return cls(
            compare=compare,
            volatile_columns=tuple(raw.get("volatile_columns") or ()),
            sum_columns=tuple(raw.get("sum_columns") or ()),
            group_by=tuple(raw.get("group_by") or ()),
            reason=str(raw.get("reason") or ""),
        )


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
    rerun_safe: RerunSafeMeta = field(default_factory=RerunSafeMeta)

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

    def by_relation(self) -> dict[tuple[str, str], Model]:
        return {model.relation_key: model for model in self.models}

    def by_name(self, name: str) -> Model:
        for model in self.models:
            if model.name == name or model.unique_id == name:
                return model
        raise KeyError(name)


def _as_key(value: Any) -> tuple[str, ...]:
    if not value:
        return ()
    if isinstance(value, str):
        return (value,)
    return tuple(str(item) for item in value)


def load_manifest(target_path: Path) -> Project:
    manifest = json.loads((target_path / "manifest.json").read_text())
    project_name = manifest.get("metadata", {}).get("project_name", "")
    models: list[Model] = []
    for unique_id, node in manifest.get("nodes", {}).items():
        if node.get("resource_type") not in DATA_RESOURCE_TYPES:
            continue
        if node.get("package_name") != project_name:
            continue
        config = node.get("config") or {}
        materialized = str(config.get("materialized", ""))
        if materialized == "ephemeral":
            continue
        meta = dict(node.get("meta") or {})
        meta.update(config.get("meta") or {})
        models.append(
            Model(
                unique_id=unique_id,
                name=node["name"],
                resource_type=node["resource_type"],
                database=str(node.get("database") or ""),
                schema=str(node.get("schema") or ""),
                identifier=str(node.get("alias") or node.get("identifier") or node["name"]),
                materialized=materialized,
                unique_key=_as_key(config.get("unique_key")),
                rerun_safe=RerunSafeMeta.from_meta(meta),
            )
        )
    return Project(name=project_name, models=tuple(sorted(models, key=lambda m: m.unique_id)))


def project_vars(project_dir: Path) -> dict[str, Any]:
    """Vars declared in dbt_project.yml: global ones, then the project's own scope on top."""
    config = yaml.safe_load((project_dir / "dbt_project.yml").read_text()) or {}
    declared = config.get("vars") or {}
    flat = {k: v for k, v in declared.items() if not isinstance(v, dict)}
    scoped = declared.get(config.get("name", ""))
    if isinstance(scoped, dict):
        flat.update(scoped)
    return flat
