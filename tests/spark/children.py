"""dbt as a child process on the cluster (`--target spark_thrift`): the kill and concurrency
tests need a dbt process of their own (to kill it, or to run two at once)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.pipeline.project import PROJECT_DIR


class DbtChild:
    """`dbt <command> --target spark_thrift` of `pipeline` (its schema, its landing folder) in a
    process group of its own, writing its target/, logs/ and output under `folder`."""

    def __init__(
        self, pipeline: Any, folder: Path, command: str = "run", vars: dict[str, Any] | None = None, *args: str
    ) -> None:
        self.folder = folder
        folder.mkdir(parents=True)
        argv = [
            str(Path(sys.executable).parent / "dbt"),
            command,
            "--target",
            "spark_thrift",
            "--project-dir",
            str(PROJECT_DIR),
            "--profiles-dir",
            str(PROJECT_DIR),
            "--target-path",
            str(folder / "target"),
            "--log-path",
            str(folder / "logs"),
            "--vars",
            json.dumps({"landing_path": str(pipeline.landing), **(vars or {})}),
            *args,
        ]
        env = {**os.environ, **pipeline.dbt_env(), "TZ": "UTC"}
        with self.output.open("wb") as sink:
            self.process = subprocess.Popen(
                argv,
                env=env,
                cwd=PROJECT_DIR,
                stdout=sink,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
            )

    @property
    def output(self) -> Path:
        return self.folder / "child.log"

    @property
    def log(self) -> Path:
        return self.folder / "logs" / "dbt.log"

    def tail(self, chars: int = 3000) -> str:
        return self.output.read_text(errors="replace")[-chars:]

    def wait(self, timeout: float) -> int:
        return self.process.wait(timeout=timeout)

    def results(self) -> dict[str, tuple[str, str]]:
        """unique_id -> (status, message) from its run_results.json ({} if it wrote none)."""
        path = self.folder / "target" / "run_results.json"
        if not path.exists():
            return {}
        return {
            row["unique_id"]: (row["status"], row.get("message") or "")
            for row in json.loads(path.read_text())["results"]
        }
