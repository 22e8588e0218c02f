"""A mutation round can be run in parts and reported once: each finished mutant is appended to
a JSON-lines results file, and the report is written from it. A result recorded for another
text of the mutated file (the code or the mutant changed since) is not used, so a stale verdict
never counts as a kill."""
from __future__ import annotations

import json
from pathlib import Path

from mutation.runner import MUTANTS_FILE, load_mutants, load_results, main, record_result


def _two() -> list:
    return load_mutants(MUTANTS_FILE)[:2]


def test_a_recorded_verdict_is_read_back_and_an_unrecorded_mutant_is_not_run(tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    first, second = _two()
    first.status, first.killed_by, first.seconds = "killed", ["tests/x.py::test_y"], 12.5
    record_result(first, results, "abc1234")
    fresh = load_mutants(MUTANTS_FILE)[:2]
    assert load_results(fresh, results) == []
    assert (fresh[0].status, fresh[0].killed_by, fresh[0].seconds) == ("killed", ["tests/x.py::test_y"], 12.5)
    assert fresh[1].status == "pending" and second.id == fresh[1].id


def test_a_verdict_for_another_text_of_the_file_is_left_out(tmp_path: Path) -> None:
    results = tmp_path / "results.jsonl"
    first = _two()[0]
    first.status = "killed"
    record_result(first, results, "abc1234")
    entry = json.loads(results.read_text(encoding="utf-8"))
    entry["file_text_sha"] = "0" * 16  # as if the file had another text when it ran
    results.write_text(json.dumps(entry) + "\n", encoding="utf-8")
    fresh = load_mutants(MUTANTS_FILE)[:2]
    left_out = load_results(fresh, results)
    assert len(left_out) == 1 and left_out[0].startswith(f"{first.id}: recorded at abc1234")
    assert fresh[0].status == "pending"


def test_the_report_from_results_counts_only_what_ran(tmp_path: Path) -> None:
    mutants_file = tmp_path / "round.yml"
    mutants_file.write_text(MUTANTS_FILE.read_text(encoding="utf-8"), encoding="utf-8")
    results, report = tmp_path / "results.jsonl", tmp_path / "report.md"
    first, second = load_mutants(mutants_file)[:2]
    first.status, first.killed_by = "killed", ["tests/x.py::test_y"]
    second.status = "survived"
    record_result(first, results, "abc1234")
    record_result(second, results, "abc1234")
    second.status = "killed"  # a later run of the same mutant: the last line wins
    second.killed_by = ["tests/x.py::test_z"]
    record_result(second, results, "def5678")
    assert main(["--mutants", str(mutants_file), "--results", str(results), "--report-from-results",
                 "--report", str(report)]) == 0
    text = report.read_text(encoding="utf-8")
    total = len(load_mutants(mutants_file))
    assert "**Score: 2/2 mutants killed (100.0 %)**" in text, text[:600]
    assert f"not run: {total - 2}." in text
    assert f"- **{load_mutants(mutants_file)[2].id}** (" in text.split("## Not run", 1)[1]
