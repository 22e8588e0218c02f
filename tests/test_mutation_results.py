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


def test_a_mutant_runs_the_longest_matching_area_without_its_own_whole_modules() -> None:
    from mutation.runner import area_of, area_tests

    areas = {"macros/": ["tests/a.py", "tests/b.py"], "macros/audit/": ["tests/c.py", "tests/d.py"]}
    assert area_of("macros/audit/x.sql", areas) == "macros/audit/"
    assert area_of("macros/dedup/x.sql", areas) == "macros/"
    assert area_of("models/x.sql", areas) is None
    mutant = load_mutants(MUTANTS_FILE)[0]
    mutant.file, mutant.tests, mutant.equivalent = "macros/audit/x.sql", ["tests/c.py", "tests/d.py::test_y"], None
    assert area_tests(mutant, areas) == ["tests/d.py"]
    mutant.equivalent = "no test can see it"
    assert area_tests(mutant, areas) == []


def _fake_runs(monkeypatch, outcomes: dict[tuple[str, ...], str]) -> list[tuple[str, ...]]:
    """run_mutant without copies or pytest: each run's outcome by the tests it was given."""
    from mutation import runner

    ran: list[tuple[str, ...]] = []

    def run_tests(project: Path, tests: list[str], workers: int, timeout: float):
        ran.append(tuple(tests))
        unmutated = "area_baseline_" in str(project)  # AreaBaselines' copy: every module passes there
        outcome = "passed" if unmutated else outcomes[tuple(tests)]
        return outcome, (["tests/d.py::test_z"] if outcome == "failed" else []), ""

    monkeypatch.setattr(runner, "copy_project", lambda destination: destination)
    monkeypatch.setattr(runner, "apply", lambda mutant, project: None)
    monkeypatch.setattr(runner, "run_tests", run_tests)
    return ran


def test_a_mutant_its_own_tests_miss_is_killed_by_its_area(monkeypatch, tmp_path: Path) -> None:
    from mutation.runner import AreaBaselines, run_mutant

    ran = _fake_runs(monkeypatch, {("tests/c.py::test_y",): "passed", ("tests/d.py",): "failed"})
    mutant = load_mutants(MUTANTS_FILE)[0]
    mutant.tests = ["tests/c.py::test_y"]
    run_mutant(mutant, tmp_path, 60, ["tests/d.py"], AreaBaselines(tmp_path, 60))
    assert (mutant.status, mutant.killed_by) == ("killed", ["tests/d.py::test_z"])
    assert "area" in mutant.detail
    # the area ran unmutated first (its baseline), then on the mutant
    assert ran == [("tests/c.py::test_y",), ("tests/d.py",), ("tests/d.py",)]


def test_an_area_that_fails_unmutated_kills_nothing(monkeypatch, tmp_path: Path) -> None:
    from mutation.runner import AreaBaselines, run_mutant

    _fake_runs(monkeypatch, {("tests/c.py::test_y",): "passed", ("tests/d.py",): "failed"})
    baselines = AreaBaselines(tmp_path, 60)
    baselines.problems[("tests/d.py",)] = "failed ['tests/d.py::test_z']"  # as if its baseline failed
    mutant = load_mutants(MUTANTS_FILE)[0]
    mutant.tests = ["tests/c.py::test_y"]
    run_mutant(mutant, tmp_path, 60, ["tests/d.py"], baselines)
    assert mutant.status == "error" and "unmutated" in mutant.detail
