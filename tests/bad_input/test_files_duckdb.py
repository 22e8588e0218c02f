"""Every hostile or careless delivery of the catalogue, landed together with good ones in a
folder whose own name is hostile, on DuckDB: one build must succeed, load each good file
exactly once under its own name, reject each bad file whole with its reason, quarantine
each bad row, and lose nothing."""

from __future__ import annotations

import pytest

from tests.bad_input.catalogue import FILE_CASES, HOSTILE_FOLDER_NAME, FileCase
from tests.bad_input.judge import FileVerdicts, check_file_case, land_catalogue
from tests.pipeline.project import Pipeline


@pytest.fixture(scope="module")
def verdicts(tmp_path_factory: pytest.TempPathFactory) -> FileVerdicts:
    root = tmp_path_factory.mktemp("catalogue")
    pipeline = Pipeline(root)
    pipeline.landing = root / HOSTILE_FOLDER_NAME
    land_catalogue(pipeline.landing, root / "outside.csv")
    pipeline.run_ok()  # asserts every model succeeded: no bad file blocks it
    first = FileVerdicts.read(pipeline)
    # the same folder again: nothing new is read, nothing changes; a build, whose data tests
    # check the state the verdicts are read from
    pipeline.build()
    again = FileVerdicts.read(pipeline)
    assert again == first
    return first


@pytest.mark.parametrize("case", FILE_CASES, ids=[c.id for c in FILE_CASES])
def test_file_case(case: FileCase, verdicts: FileVerdicts) -> None:
    check_file_case(case, verdicts)
