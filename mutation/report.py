"""The report of a mutation round: the score, the verdict tables (TSV, one line per mutant and per
rule), the `## Last run` section of the round's Markdown page, and the results file a round run
in parts is reported from."""

from __future__ import annotations

import csv
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from mutation.model import MUTANTS_FILE, ROOT, Mutant, Rule, area_of, load_areas, load_rules, mutated_text


def score(mutants: list[Mutant]) -> dict[str, Any]:
    counted = [m for m in mutants if m.status not in ("not applicable", "pending")]
    killed = [m for m in counted if m.status in ("killed", "timeout")]
    survived = [m for m in counted if m.status == "survived"]
    equivalent = [m for m in survived if m.equivalent]
    non_equivalent = len(counted) - len(equivalent)
    return {
        "total": len(mutants),
        "counted": len(counted),
        "killed": len(killed),
        "survived": len(survived),
        "equivalent": len(equivalent),
        "not_applicable": len([m for m in mutants if m.status == "not applicable"]),
        "not_run": len([m for m in mutants if m.status == "pending"]),
        "errors": len([m for m in counted if m.status == "error"]),
        "score": 100.0 * len(killed) / len(counted) if counted else 0.0,
        "score_non_equivalent": 100.0 * len(killed) / non_equivalent if non_equivalent else 0.0,
    }


VERDICT_COLUMNS = ("id", "class", "file", "rule", "result", "killed by", "seconds", "change", "description", "detail")
RULE_COLUMNS = ("rule", "stated in", "quote", "pinned by", "mutants", "verdict")
LAST_RUN = "## Last run"


def _result(mutant: Mutant) -> str:
    shown = "not run" if mutant.status == "pending" else mutant.status
    return shown + (" (equivalent)" if mutant.status == "survived" and mutant.equivalent else "")


def _flat(text: str) -> str:
    """One line of text: a TSV cell holds no tab and no line break."""
    return " ".join(text.split())


def verdict_rows(mutants: list[Mutant]) -> list[list[str]]:
    """One row per mutant (VERDICT_COLUMNS), in the file's order."""
    rows = []
    for m in mutants:
        change = " | ".join(f"{_flat(original)} -> {_flat(replacement)}" for original, replacement in m.replacements)
        killed_by = " ".join(t.split("::", 1)[-1] for t in m.killed_by)
        rows.append(
            [
                m.id,
                m.klass,
                m.file,
                m.rule,
                _result(m),
                killed_by,
                f"{m.seconds:.0f}",
                change,
                _flat(m.description),
                _flat(m.detail),
            ]
        )
    return rows


def rule_verdict(own: list[Mutant]) -> str:
    """A rule's verdict: how many of its mutants were killed, or why it is a gap. A rule none of
    whose mutants ran (not run, not applicable, error) is no gap yet: it is `not run`."""
    killed = [m for m in own if m.status in ("killed", "timeout")]
    if not own:
        return "gap: no mutant breaks it"
    if killed:
        return f"{len(killed)}/{len(own)} killed"
    return "gap: no mutant killed" if any(m.status == "survived" for m in own) else "not run"


def rule_rows(rules: list[Rule], mutants: list[Mutant]) -> list[list[str]]:
    """One row per rule of rules.yml (RULE_COLUMNS): its page, quote, tests, mutants and verdict."""
    rows = []
    for rule in rules:
        own = [m for m in mutants if m.rule == rule.id]
        rows.append(
            [
                rule.id,
                rule.doc,
                _flat(rule.quote),
                " ".join(rule.tests),
                " ".join(f"{m.id}:{_result(m).replace(' ', '_')}" for m in own),
                rule_verdict(own),
            ]
        )
    return rows


def write_tsv(path: Path, columns: tuple[str, ...], rows: list[list[str]]) -> None:
    """A tab-separated table, one line per row (csv's quoting for a cell holding a quote)."""
    with path.open("w", encoding="utf-8", newline="") as out:
        writer = csv.writer(out, delimiter="\t", lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(rows)


def read_tsv(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8", newline="") as source:
        return list(csv.DictReader(source, delimiter="\t"))


def table_paths(mutants_file: Path, folder: Path) -> tuple[Path, Path | None]:
    """Where a round's tables go: `<mutants file stem>-verdicts.tsv` in `folder`, and for
    mutants.yml the rule table `rules-verdicts.tsv` (another file's rules are free text, a column
    of its verdicts)."""
    own_file = mutants_file.resolve() != MUTANTS_FILE
    return folder / f"{mutants_file.stem}-verdicts.tsv", None if own_file else folder / "rules-verdicts.tsv"


def _link(target: Path, page: Path) -> str:
    shown = target.resolve().relative_to(ROOT) if target.resolve().is_relative_to(ROOT) else target.name
    return f"[`{shown}`]({os.path.relpath(target.resolve(), page.resolve().parent)})"


def area_totals(mutants: list[Mutant], areas: dict[str, list[str]]) -> list[str]:
    """A Markdown table: per area of areas.yml, how many mutants and their verdicts."""
    lines = [
        "| area | mutants | killed | survived (equivalent) | not run | not applicable or error |",
        "|---|---|---|---|---|---|",
    ]
    grouped: dict[str, list[Mutant]] = {}
    for m in mutants:
        grouped.setdefault(area_of(m.file, areas) or "(no area)", []).append(m)
    for area, own in sorted(grouped.items()):
        survived = [m for m in own if m.status == "survived"]
        lines.append(
            f"| `{area}` | {len(own)} | {len([m for m in own if m.status in ('killed', 'timeout')])} | "
            f"{len(survived)} ({len([m for m in survived if m.equivalent])}) | "
            f"{len([m for m in own if m.status == 'pending'])} | "
            f"{len([m for m in own if m.status in ('not applicable', 'error')])} |"
        )
    return lines


def score_line(figures: dict[str, Any]) -> str:
    return (
        f"**Score: {figures['killed']}/{figures['counted']} mutants killed ({figures['score']:.1f} %)**; "
        f"{figures['equivalent']} surviving mutant(s) are equivalent, so "
        f"{figures['score_non_equivalent']:.1f} % of the non-equivalent mutants are killed. "
        f"Not applicable: {figures['not_applicable']}; errors: {figures['errors']}"
        + (f"; not run: {figures['not_run']}." if figures["not_run"] else ".")
    )


def _listed(mutants: list[Mutant]) -> list[str]:
    """The mutants the Markdown names one by one: survivors (with the reason), earlier
    survivors, and the ids of those not run, not applicable or in error."""
    lines = ["### Surviving mutants", ""]
    survivors = [m for m in mutants if m.status == "survived"]
    lines += [
        f"- **{m.id}** ({m.description}): {m.equivalent or 'NOT marked equivalent: a missing test.'}" for m in survivors
    ] or ["None."]
    turned = [m for m in mutants if any(e.startswith(("survived", "timeout")) for e in m.earlier)]
    if turned:
        lines += ["", "### Survived or timed out in an earlier part", ""]
        lines += [f"- **{m.id}**: {'; '.join(m.earlier)}; now {m.status}" for m in turned]
    for title, statuses in (("Not run", ("pending",)), ("Not applicable or errors", ("not applicable", "error"))):
        ids = [m.id for m in mutants if m.status in statuses]
        if ids:
            lines += ["", f"**{title}** ({len(ids)}; each has its line in the verdicts table): {', '.join(ids)}."]
    return lines


def last_run_section(
    mutants: list[Mutant], figures: dict[str, Any], timing: str, page: Path, tables: tuple[Path, Path | None]
) -> list[str]:
    """The generated part of a report page: the score, the links to the tables, per-area totals,
    the gaps of the rule table and the mutants that need a reader's eye."""
    verdicts, rules = tables
    lines = [LAST_RUN, "", score_line(figures), "", timing, ""]
    lines.append(f"Every mutant's verdict, one line each ({', '.join(VERDICT_COLUMNS)}): {_link(verdicts, page)}.")
    if rules is not None:
        gaps = [row[0] for row in rule_rows(load_rules(), mutants) if row[-1].startswith("gap")]
        lines += [
            "",
            f"The rule table, one line per rule of `mutation/rules.yml` ({', '.join(RULE_COLUMNS)}; each "
            f"quote is checked to be in its page by `tests/test_mutation_rules.py`): {_link(rules, page)}. "
            f"Gaps (a rule no mutant breaks, or whose mutants all survived): {', '.join(gaps) or 'none'}.",
        ]
    lines += ["", "### By area (`mutation/areas.yml`)", "", *area_totals(mutants, load_areas()), "", *_listed(mutants)]
    return lines


def write_report(
    mutants: list[Mutant],
    figures: dict[str, Any],
    timing: str,
    path: Path,
    mutants_file: Path = MUTANTS_FILE,
    tables_folder: Path | None = None,
) -> None:
    """Write the round's tables (TSV) and its Markdown page. For mutants.yml the page is
    docs/testing.md, whose text above `## Last run` is kept as written; another mutants file
    gets a page of its own."""
    tables = table_paths(mutants_file, tables_folder or mutants_file.resolve().parent)
    write_tsv(tables[0], VERDICT_COLUMNS, verdict_rows(mutants))
    if tables[1] is not None:
        write_tsv(tables[1], RULE_COLUMNS, rule_rows(load_rules(), mutants))
        written = path.read_text(encoding="utf-8") if path.is_file() else "# Testing\n"
        head = written.split(f"\n{LAST_RUN}\n", 1)[0].rstrip()
    else:
        resolved = mutants_file.resolve()
        shown = resolved.relative_to(ROOT) if resolved.is_relative_to(ROOT) else mutants_file
        head = f"# Mutation round: `{shown}`\n\nRun with `python -m mutation --mutants {shown}`."
    lines = [head, "", *last_run_section(mutants, figures, timing, path, tables)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def record_result(mutant: Mutant, path: Path, commit: str) -> None:
    """Append one mutant's verdict as a JSON line, so that a round can be run in parts (several
    `--only` runs, several machines) and reported once from all of them (`--report-from-results`)."""
    entry = {
        "id": mutant.id,
        "status": mutant.status,
        "killed_by": mutant.killed_by,
        "seconds": round(mutant.seconds, 1),
        "detail": mutant.detail,
        "commit": commit,
        "file_text_sha": mutant.text_sha or mutant_sha(mutant),
    }
    with path.open("a", encoding="utf-8") as out:
        out.write(json.dumps(entry, ensure_ascii=False) + "\n")


def mutant_sha(mutant: Mutant, project: Path = ROOT) -> str:
    """Names the code a verdict is about: the mutated file's text (the copy's, when it ran)."""
    text, _ = mutated_text(mutant, project)
    return hashlib.sha256((text or "").encode("utf-8")).hexdigest()[:16]


def load_results(mutants: list[Mutant], path: Path) -> list[str]:
    """Set each mutant's verdict from the results file (the last line of an id wins). A result
    recorded for another text of the mutated file (the code or the mutant changed since) is not
    used: the mutant stays not run. Returns one line per result left out."""
    by_id = {m.id: m for m in mutants}
    latest: dict[str, dict[str, Any]] = {}
    history: dict[str, list[str]] = {}
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                entry = json.loads(line)
            except json.JSONDecodeError as error:
                raise SystemExit(f"{path}:{number}: not a JSON line: {error}") from None
            if entry["id"] in latest:
                old = latest[entry["id"]]
                history.setdefault(entry["id"], []).append(f"{old['status']} at {old.get('commit', '?')}")
            latest[entry["id"]] = entry
    stale = []
    for mutant_id, entry in latest.items():
        mutant = by_id.get(mutant_id)
        if mutant is None:
            stale.append(f"{mutant_id}: no such mutant in this file")
        elif entry.get("file_text_sha") != mutant_sha(mutant):
            stale.append(f"{mutant_id}: recorded at {entry.get('commit', '?')} for another text of {mutant.file}")
        else:
            mutant.status, mutant.killed_by = entry["status"], list(entry["killed_by"])
            mutant.seconds, mutant.detail = float(entry["seconds"]), entry.get("detail", "")
            mutant.earlier = history.get(mutant_id, [])
    return stale
