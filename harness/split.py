"""Deliveries from data the project already has (`--split-source NAME --by COLUMN --batches N`):
a seed of the project (`<seed-path>/<NAME>.csv`) or a CSV/Parquet file cut into N deliveries by
a time column, so the checks run on a project with no delivery folders made by hand.

Rows go to batches by their value of COLUMN (ordered as a timestamp, else a number, else text),
equal values always in one batch, about as many distinct values per batch. Each batch is written
as `<NAME>/batch=NNN/part-0.csv` (Hive style): with `--load-sources` it feeds the source table
named NAME (the folder above the partition); values are kept as the file's text."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import duckdb
import yaml


def find_source(project_dir: Path, name: str) -> Path:
    """A file path as given, else the project's seed of that name."""
    given = Path(name)
    if given.suffix.lower() in (".csv", ".parquet") and given.is_file():
        return given.resolve()
    config = yaml.safe_load((project_dir / "dbt_project.yml").read_text()) or {}
    configured = config.get("seed-paths") or ["seeds"]
    # a templated value ("{{ ... }}") is not rendered here: dbt's default folder then
    templated = not (isinstance(configured, list) and all(isinstance(folder, str) for folder in configured))
    seed_paths: list[str] = ["seeds"] if templated else configured
    for folder in seed_paths:
        for candidate in sorted((project_dir / folder).rglob(f"{name}.csv")):
            return candidate.resolve()
    raise ValueError(f"--split-source {name}: neither a CSV/Parquet file nor a seed of the project ({project_dir})")


def _reader(path: Path) -> str:
    literal = "'" + str(path).replace("'", "''") + "'"
    if path.suffix.lower() == ".parquet":
        return f"read_parquet({literal})"
    return f"read_csv({literal}, header = true, all_varchar = true)"


def split_sources(project_dir: Path, names: Sequence[str], by: Sequence[str], batches: int, out: Path) -> Path:
    """Every named seed or file cut into `batches` deliveries under `out` (returned: the
    --deliveries folder). `by`: one column for all, or one per name. The cut points are common
    to every table (the distinct values of all their `by` columns, ranked together), so batch k
    of each table covers the same span of time."""
    if batches < 1:
        raise ValueError(f"--batches must be at least 1, got {batches}")
    if len(by) not in (1, len(names)):
        raise ValueError(f"--by takes one column, or one per --split-source ({len(names)}), got {len(by)}")
    con = duckdb.connect()
    try:
        tables = []
        for index, name in enumerate(names):
            path = find_source(project_dir, name)
            column = by[0] if len(by) == 1 else by[index]
            columns = [row[0] for row in con.execute(f"describe select * from {_reader(path)}").fetchall()]
            if column not in columns:
                raise ValueError(f"--by {column}: no such column in {path.name} ({', '.join(columns)})")
            con.execute(f"create temp table t{index} as select * from {_reader(path)}")
            tables.append(
                (f"t{index}", path.stem if Path(name).suffix else name, '"' + column.replace('"', '""') + '"')
            )
        values = " union ".join(f"select distinct cast({col} as varchar) as v from {t}" for t, _, col in tables)
        con.execute(
            f"""
            create temp table cuts as
            with ranked as (
                select v, dense_rank() over (
                    order by try_cast(v as timestamp) nulls first, try_cast(v as double) nulls first, v
                ) as r
                from ({values}) as vals
            )
            select v, 1 + cast(floor((r - 1) * {batches} / (select max(r) from ranked)) as integer) as b
            from ranked
            """
        )
        for temp, table, column in tables:
            numbers = con.execute(
                f"select distinct b from {temp} join cuts on cuts.v is not distinct from cast({column} as varchar)"
                " order by 1"
            ).fetchall()
            for (number,) in numbers:
                target = out / table / f"batch={int(number):03d}" / "part-0.csv"
                target.parent.mkdir(parents=True, exist_ok=True)
                literal = str(target).replace("'", "''")
                con.execute(
                    f"copy (select {temp}.* from {temp} join cuts on cuts.v is not distinct from "
                    f"cast({column} as varchar) where cuts.b = {int(number)}) to '{literal}' (header true)"
                )
    finally:
        con.close()
    return out
