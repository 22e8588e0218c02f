"""Determinism: the same deliveries built twice, changing only what a correct model must not
depend on; every table must be identical.

The first build reads the deliveries as they are. The second reads the same rows written in
reverse order within each file (the first row last; the header, every value, names, Hive
folders and mtimes kept), the files of each batch created (landing) or loaded
(--load-sources) in reverse order. A tie in an ORDER BY or a window (`row_number() over
(partition by buyer order by order_date desc)` with two orders on one day), `any_value`, or a
`limit` without an order then picks another row. The batches keep their order: what a
reordered delivery does is the `batches` check's question.

Both builds run their queries without parallelism where the harness can set it (DuckDB:
`threads = 1`; PostgreSQL: no parallel workers): rows then reach a query in the order they are
read, so the reversal is the only difference and the verdict is the same on every run. With
threads, which of two tied rows wins also depends on which thread reads first: the verdict
would change from run to run. The price: a tie between rows of two files read in name order
(files keep their names) goes the same way in both builds and is not found.

A reversed file is another file to a model that reads its layout: its bytes (a content hash
identifying the delivery) or a row's line number. Such a model declares
`meta.rerun_safe.reads_file_layout: true`; in landing folders a difference in it, or in a
model downstream of it, is then a WARNING naming it (the check still passes). With
--load-sources the rows go into a table, which has no layout: every model is judged.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

from harness.checks.base import NeedsDeliveries, NoOptions
from harness.compare import Purpose, compare_snapshots
from harness.context import CheckContext, build_failed, finish, manifest_of
from harness.deliveries import reversed_deliveries
from harness.project import Project
from harness.results import CheckResult, Comparison

LAYOUT_WARNING = (
    "{model} reads its delivery files' layout (meta.rerun_safe.reads_file_layout: a content hash, "
    "a line number), and the reversed files are other files to it: not a row-order finding"
)


def layout_readers(manifest: Path) -> list[str]:
    """The models whose meta declares `rerun_safe.reads_file_layout: true`."""
    nodes = json.loads(manifest.read_text()).get("nodes") or {}
    found = []
    for unique_id, node in nodes.items():
        meta = dict(node.get("meta") or {})
        meta.update((node.get("config") or {}).get("meta") or {})
        declared = (meta.get("rerun_safe") or {}).get("reads_file_layout", False)
        if declared is True or str(declared).lower() == "true":
            found.append(unique_id)
    return sorted(found)


def downstream_of(project: Project, roots: list[str]) -> dict[str, str]:
    """Relation name (lower case) -> the declaring model it is (or is downstream of)."""
    by_id = {model.unique_id: model for model in project.models}
    found: dict[str, str] = {}
    for model in project.models:
        queue, seen = [model.unique_id], set()
        while queue:
            node = queue.pop(0)
            if node in seen:
                continue
            seen.add(node)
            if node in roots:
                found[model.identifier.lower()] = node.split(".")[-1]
                break
            queue += list(by_id[node].parents) if node in by_id else []
    return found


def warn_layout(comparison: Comparison, readers: dict[str, str]) -> None:
    for diff in comparison.diffs:
        name = diff.table.split(".")[-1].lower()
        if not diff.identical and name in readers:
            diff.warning = LAYOUT_WARNING.format(model=readers[name])


NAME = "determinism"


class Determinism(NeedsDeliveries[NoOptions]):
    name = NAME
    help = "build the same deliveries twice, rows and files in reverse physical order; every table must be identical"
    without_deliveries = "needs --deliveries DIR (the rows to write in another physical order)"
    options_type = NoOptions

    def run(self, ctx: CheckContext, options: NoOptions) -> CheckResult:
        started = time.monotonic()
        batches = ctx.batches()
        natural = ctx.lane(NAME, "as_delivered")
        serial, setting = natural.store.serial_env()
        natural.extra_env.update(serial)
        for batch in batches:
            natural.deliver(batch.files)
        first = natural.dbt("build", select=ctx.build_select)
        failed = build_failed(NAME, started, natural, first)
        if failed is not None:
            return failed
        project = manifest_of(first)

        reordered = ctx.lane(NAME, "rows_reversed")
        reordered.extra_env.update(serial)
        rewritten = reversed_deliveries(batches, reordered.root / "deliveries")
        if ctx.loader is None:  # a landing folder: every file created in reverse order
            reordered.deliver(f for batch in reversed(rewritten) for f in batch.files)
        else:  # source tables: batches in their order, a batch's files and rows reversed
            for batch in rewritten:
                reordered.deliver(batch.files)
        reordered.dbt("build", select=ctx.build_select)

        comparison = compare_snapshots(
            natural.snapshot("rows as delivered", project),
            reordered.snapshot("rows and files in reverse order", project),
            project,
            label="rows as delivered vs rows and files in reverse physical order",
            purpose=Purpose.RERUN,
            selected=ctx.selected,
            sample_size=ctx.sample_size,
        )
        readers = layout_readers(first.target_path / "manifest.json")
        notes: list[str] = []
        if ctx.loader is None and readers:
            warn_layout(comparison, downstream_of(project, readers))
            notes.append(
                "read their files' layout (meta.rerun_safe.reads_file_layout; a difference in them or "
                "downstream is a warning): " + ", ".join(r.split(".")[-1] for r in readers)
            )
        exercised: dict[str, object] = {
            "files rewritten in reverse row order": sum(len(b.files) for b in rewritten),
        }
        notes.append(f"parallelism: {setting} in both builds" if serial else f"parallelism: {setting}")
        return finish(NAME, started, [comparison], [natural, reordered], notes, ctx=ctx, exercised=exercised)
