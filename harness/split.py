"""Deliveries from data the project already has (`--split-source NAME --by COLUMN --batches N`):
a seed of the project (`<seed-path>/<NAME>.csv`) or a CSV/Parquet file cut into N deliveries by
a time column, so the checks run on a project with no delivery folders made by hand.

Names are taken literally: a name with a `.csv` or `.parquet` suffix is a file path, any other
name a seed's name; `*`, `?` and `[` are characters, never a pattern, and an unknown name is an
error (close seed names are only suggested). A symbolic link is refused, as source and as output.

Rows go to batches by their value of COLUMN (ordered as a timestamp, else a number, else text),
equal values always in one batch, about as many distinct values per batch. Each batch is written
as `<folder>/batch=NNN/part-0.csv` (Hive style; `part-0.parquet` for a Parquet source, its
columns and types unchanged; a CSV keeps the file's text). `<folder>` is the seed's name or the
file's stem with every character other than a letter, digit, `_` or `-` replaced by `_`, so it
stays inside the output folder; with `--load-sources` it names the source table fed."""

from __future__ import annotations

import difflib
import os
import re
import stat
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

import duckdb
import yaml

from harness.errors import InputError

MAX_BATCHES = 10_000
SEED_SUFFIX = ".csv"


class Format(Enum):
    CSV = ".csv"
    PARQUET = ".parquet"


@dataclass(frozen=True)
class Source:
    given: str  # the --split-source value
    path: Path
    format: Format
    folder: str  # its folder under the output folder: the source table it feeds


def shown(value: str) -> str:
    """A value quoted for a one-line message, whatever characters it holds."""
    return repr(value)


def ident(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def check_batches(batches: int) -> int:
    if isinstance(batches, bool) or not isinstance(batches, int) or not 1 <= batches <= MAX_BATCHES:
        raise InputError(f"--batches must be a whole number from 1 to {MAX_BATCHES}, got {batches!r}")
    return batches


def folder_name(stem: str) -> str:
    """A folder name from a seed's name or a file's stem: one path part, never `.` or `..`,
    never `name=value` (a Hive partition)."""
    return re.sub(r"[^\w-]", "_", stem)


def batch_folder(number: int, batches: int) -> str:
    """`batch=NNN`, zero-padded to the width of `batches`, so text order is batch order."""
    return f"batch={number:0{max(3, len(str(batches)))}d}"


def seed_files(project_dir: Path) -> dict[str, list[Path]]:
    """Seed name -> its files in the project's seed paths (symbolic links to folders not followed)."""
    config = yaml.safe_load((project_dir / "dbt_project.yml").read_text(encoding="utf-8")) or {}
    paths = config.get("seed-paths") if isinstance(config, dict) else None
    folders = [p for p in paths if isinstance(p, str)] if isinstance(paths, list) else ["seeds"]
    seeds: dict[str, list[Path]] = {}
    for folder in folders:
        top = project_dir / folder
        if not top.is_dir() or top.is_symlink():
            continue
        for parent, _, files in os.walk(top, followlinks=False):
            for file in sorted(files):
                if file.endswith(SEED_SUFFIX) and len(file) > len(SEED_SUFFIX):
                    seeds.setdefault(file[: -len(SEED_SUFFIX)], []).append(Path(parent) / file)
    return seeds


def find_source(project_dir: Path, name: str) -> Path:
    """The file a --split-source value names: a CSV/Parquet file path as given, else the
    project's seed of exactly that name."""
    if not name or "\x00" in name:
        raise InputError(f"--split-source {shown(name)}: not a seed name or a file path")
    given = Path(name)
    if given.suffix.lower() in (f.value for f in Format):
        if given.is_symlink():
            raise InputError(f"--split-source {shown(name)}: a symbolic link, not read; name the file it points to")
        if given.is_file():
            return given.absolute()
        seeds = seed_files(project_dir)
        hint = f"; the project has a seed named {shown(given.stem)}" if given.stem in seeds else ""
        raise InputError(f"--split-source {shown(name)}: no such CSV/Parquet file{hint}")
    seeds = seed_files(project_dir)
    found = seeds.get(name, [])
    if len(found) > 1:
        raise InputError(
            f"--split-source {shown(name)}: several seeds of that name ({', '.join(shown(str(p)) for p in found)})"
        )
    if not found:
        close = difflib.get_close_matches(name, list(seeds), n=3, cutoff=0.5)
        hint = f"; close seed names: {', '.join(close)}" if close else ""
        raise InputError(
            f"--split-source {shown(name)}: no seed of that name and no CSV/Parquet file "
            f"(names are taken literally, never as a pattern{hint})"
        )
    if found[0].is_symlink():
        raise InputError(f"--split-source {shown(name)}: the seed {shown(str(found[0]))} is a symbolic link, not read")
    return found[0].absolute()


def resolve_sources(project_dir: Path, names: Sequence[str]) -> list[Source]:
    """Every --split-source value as a Source; two that would share a folder are an error."""
    sources: list[Source] = []
    taken: dict[str, str] = {}
    for name in names:
        path = find_source(project_dir, name)
        format_ = Format.PARQUET if path.suffix.lower() == Format.PARQUET.value else Format.CSV
        folder = folder_name(path.stem)
        other = taken.setdefault(folder.casefold(), name)
        if other != name or any(s.given == name for s in sources):
            raise InputError(
                f"--split-source {shown(other)} and {shown(name)}: both would be delivered as {shown(folder)}; "
                "name each table once"
            )
        sources.append(Source(name, path, format_, folder))
    return sources


@contextmanager
def opened(source: Source) -> Iterator[str]:
    """A DuckDB table function reading exactly the source's file: through its open file
    descriptor, so no character of its name is a glob, no `name=value` folder of its path a
    column, and a link swapped in after the check is refused (O_NOFOLLOW)."""
    try:
        fd = os.open(source.path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError as exc:
        raise InputError(
            f"--split-source {shown(source.given)}: cannot open {shown(str(source.path))}: {exc.strerror}"
        ) from exc
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise InputError(f"--split-source {shown(source.given)}: {shown(str(source.path))} is not a regular file")
        path = literal(f"/dev/fd/{fd}")
        if source.format is Format.PARQUET:
            yield f"read_parquet({path}, hive_partitioning = false)"
        else:
            yield f"read_csv({path}, header = true, all_varchar = true, hive_partitioning = false)"
    finally:
        os.close(fd)


def _prepare(out: Path) -> None:
    """The output folder: created, or an empty folder; never a link."""
    if out.is_symlink():
        raise InputError(f"split output folder {shown(str(out))} is a symbolic link, not written through")
    out.mkdir(parents=True, exist_ok=True)
    if any(out.iterdir()):
        raise InputError(f"split output folder {shown(str(out))} is not empty")


def split_sources(project_dir: Path, names: Sequence[str], by: Sequence[str], batches: int, out: Path) -> Path:
    """Every named seed or file cut into `batches` deliveries under `out` (returned: the
    --deliveries folder). `by`: one column for all, or one per name. The cut points are common
    to every table (the distinct values of all their `by` columns, ranked together), so batch k
    of each table covers the same span of time. Every value is checked before the first write."""
    check_batches(batches)
    if not names:
        raise InputError("--split-source needs at least one seed name or file")
    if len(by) not in (1, len(names)):
        raise InputError(f"--by takes one column, or one per --split-source ({len(names)}), got {len(by)}")
    sources = resolve_sources(project_dir, names)
    con = duckdb.connect()
    try:
        with ExitStack() as stack:
            tables = [
                _load(con, index, source, by[0] if len(by) == 1 else by[index], stack.enter_context(opened(source)))
                for index, source in enumerate(sources)
            ]
        values = " union ".join(
            f"select distinct cast(src.{column} as varchar) as v from {table} as src" for table, column, _ in tables
        )
        con.execute(
            f"""
            create temp table "__rs_cuts" as
            with ranked as (
                select v, dense_rank() over (
                    order by try_cast(v as timestamp) nulls first, try_cast(v as double) nulls first, v
                ) as r
                from ({values}) as vals
            )
            select v as "__rs_value",
                1 + cast(floor((r - 1) * {batches} / (select max(r) from ranked)) as bigint) as "__rs_batch"
            from ranked
            """
        )
        _prepare(out)
        for (table, column, columns), source in zip(tables, sources, strict=True):
            _write(con, table, column, columns, source, batches, out)
    except duckdb.Error as exc:
        raise InputError(f"--split-source: DuckDB could not split: {str(exc).splitlines()[0]}") from exc
    except OSError as exc:
        raise InputError(
            f"--split-source: cannot write the deliveries under {shown(str(out))}: {exc.strerror}"
        ) from exc
    finally:
        con.close()
    return out


def _load(
    con: duckdb.DuckDBPyConnection, index: int, source: Source, by: str, reader: str
) -> tuple[str, str, list[str]]:
    """The source read into a temp table: (its name, the quoted --by column, its columns quoted)."""
    table = ident(f"__rs_source_{index}")
    file = shown(source.path.name)
    try:
        con.execute(f"create temp table {table} as select * from {reader}")
    except duckdb.Error as exc:
        raise InputError(
            f"--split-source {shown(source.given)}: DuckDB cannot read {file} as "
            f"{source.format.name}: {str(exc).splitlines()[0]}"
        ) from exc
    rows = con.execute(f"select count(*) from {table}").fetchone()
    if not rows or not rows[0]:
        raise InputError(f"--split-source {shown(source.given)}: {file} has no rows, nothing to deliver")
    columns = [str(row[0]) for row in con.execute(f"describe {table}").fetchall()]
    if by not in columns:
        raise InputError(f"--by {shown(by)}: no such column in {file} ({', '.join(map(shown, columns))})")
    return table, ident(by), [ident(c) for c in columns]


def _write(
    con: duckdb.DuckDBPyConnection,
    table: str,
    column: str,
    columns: list[str],
    source: Source,
    batches: int,
    out: Path,
) -> None:
    """One file per batch that holds rows of the table, in folders created here (none existed)."""
    join = (
        f'from {table} as src join "__rs_cuts" as cuts '
        f'on cuts."__rs_value" is not distinct from cast(src.{column} as varchar)'
    )
    numbers = con.execute(f'select distinct cuts."__rs_batch" {join} order by 1').fetchall()
    (out / source.folder).mkdir()
    selected = ", ".join(f"src.{c}" for c in columns)
    options = "format parquet" if source.format is Format.PARQUET else "format csv, header true"
    for (number,) in numbers:
        folder = out / source.folder / batch_folder(int(number), batches)
        folder.mkdir()
        target = folder / f"part-0{source.format.value}"
        con.execute(
            f'copy (select {selected} {join} where cuts."__rs_batch" = {int(number)} order by src.rowid) '
            f"to {literal(str(target))} ({options})"
        )
