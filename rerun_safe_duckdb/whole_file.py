"""A truncated warehouse file fails at once, naming it, instead of at some later read.

DuckDB opens a cut file without a word: its header and catalog are at the start, and it reads a
table's blocks only when a query needs them ("IO Error: Could not read enough bytes from file").
So once the plugin holds the file (writer_lock.py), before dbt runs anything, this module asks
DuckDB where every block it still needs lies, and compares the furthest one with the file's size.

What DuckDB needs: the metadata blocks (pragma_metadata_info) and every persistent segment of
every table, with its overflow blocks (pragma_storage_info: block_id, additional_block_ids).
Both come from DuckDB's own catalog, so nothing of its file format is parsed here. What is not
compared: the header's block count, and pragma_database_size's total_blocks (the same number).
DuckDB writes that count, then cuts the free blocks at the end of the file (a checkpoint:
SingleFileBlockManager::WriteHeader, then Truncate), so a whole file, one written by a
compaction in particular, is often shorter than it; that check refused good warehouses (a94cca4).
Index blocks are not listed by DuckDB; a cut that reaches only them still fails at its read.

The header's block count is still a sufficient condition: every block id DuckDB uses (metadata or
segment) is below it (SingleFileBlockManager hands out ids from its free list or max_block++, and
raises max_block past any block it marks used), so a file that reaches the end of block
total_blocks - 1 holds every block it needs. That is one metadata query (holds_every_block), and
it is the common case (every warehouse of the benchmark). Only a file shorter than that is
listed segment by segment.

Cost: the segment listing reads no data but costs ~30 us per column segment: 0.08 s on a 400 MB
warehouse of 60 tables (6 of 65 MB), 0.4-1.3 s at 10M events (3.8 GB, ~25k segments), so it grew
with the history; the header test alone costs ~1 ms at any size (docs/bad-input.md).
"""

from __future__ import annotations

import os
from typing import Any

BLOCK_START = 3 * 4096  # the main header and the two database headers; block i starts at BLOCK_START + i * size
PATH_VAR = "DBT_DUCKDB_PATH"
# DuckDB's words when a read ends before the file does, or the header is not a database's
_CUT_ERRORS = ("Could not read enough bytes", "not a valid DuckDB database file")


class WarehouseDamagedError(RuntimeError):
    """The warehouse file lacks blocks its catalog points to. A RuntimeError, so that dbt-duckdb
    reports it as a connection error with this message only."""


def damaged_message(path: str, what: str) -> str:
    return (
        f"rerun_safe: the warehouse {path!r} (env var {PATH_VAR}) is truncated or damaged: {what}. "
        "This run wrote nothing. Restore the file from a backup; or move it aside and rebuild it "
        "with `dbt build --full-refresh` (which needs every delivery still in the landing folder)."
    )


def is_cut_error(error: BaseException) -> bool:
    return any(words in str(error) for words in _CUT_ERRORS)


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def furthest_block(conn: Any) -> tuple[int, int]:
    """(the highest block id the database of `conn` still uses, -1 when none; its block size)."""
    block_size = int(
        conn.execute(
            "select block_size from pragma_database_size() where database_name = current_database()"
        ).fetchone()[0]
    )
    furthest = conn.execute("select coalesce(max(block_id), -1) from pragma_metadata_info()").fetchone()[0]
    tables = conn.execute(
        "select schema_name, table_name from duckdb_tables() where database_name = current_database() and not temporary"
    ).fetchall()
    if tables:  # one query for all tables: a statement each cost 0.33 s on 60 tables, this 0.07 s
        segments = " union all ".join(
            "select max(greatest(block_id, coalesce(list_max(additional_block_ids), -1))) as used "
            "from pragma_storage_info(?) where persistent"
            for _ in tables
        )
        used = conn.execute(
            f"select coalesce(max(used), -1) from ({segments})",
            [f"{_quoted(schema)}.{_quoted(table)}" for schema, table in tables],
        ).fetchone()[0]
        furthest = max(furthest, used)
    return int(furthest), block_size


def holds_every_block(conn: Any, path: str) -> bool:
    """True when the file at `path` reaches the end of every block DuckDB has allocated
    (pragma_database_size's total_blocks: every block id DuckDB uses, metadata or segment, is
    below it), so no block it needs can lie past the end. One metadata read, whatever the size of
    the warehouse. False says nothing: a whole file is often shorter (the free blocks at its end
    are cut), and check_whole then asks for every segment."""
    total_blocks, block_size = conn.execute(
        "select total_blocks, block_size from pragma_database_size() where database_name = current_database()"
    ).fetchone()
    return os.path.getsize(path) >= BLOCK_START + int(total_blocks) * int(block_size)


def check_whole(conn: Any, path: str) -> None:
    """Raise WarehouseDamagedError when the file at `path` (open in `conn`) ends before a block
    DuckDB still needs, or when reading its catalog reaches the end of the file."""
    try:
        if holds_every_block(conn, path):
            # the per-segment listing below costs ~30 us per column segment (0.7-1.3 s at 10M
            # events, ~25k segments); a file as long as every allocated block needs none of it
            return
        furthest, block_size = furthest_block(conn)
    except Exception as error:  # only a read past the end is ours
        if is_cut_error(error):
            raise WarehouseDamagedError(damaged_message(path, f"DuckDB read past its end ({error})")) from None
        raise
    if furthest < 0:
        return
    needed = BLOCK_START + (furthest + 1) * block_size
    size = os.path.getsize(path)
    if size < needed:
        raise WarehouseDamagedError(
            damaged_message(
                path, f"its tables use block {furthest}, which ends at byte {needed}, but the file has {size} bytes"
            )
        )
