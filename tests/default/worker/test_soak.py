"""The soak (bench/soak.py) at a few hundred series: real workers, Redis, PostgreSQL.

Two Celery worker processes (concurrency 2 each) and two dispatchers per
simulated day contend for the same chunks; the script checks the rows itself
(duplicates, lost slots, cursors, logged errors) and exits non-zero on any
violation.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any
from urllib.parse import urlparse, urlunparse

import pytest
from django.db import connection

from tests.default.worker.test_worker import REDIS_URL, _database_url, _redis_answers

ROOT = Path(__file__).resolve().parents[3]

pytestmark = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.skipif(connection.vendor != "postgresql", reason="the soak needs PostgreSQL"),
    pytest.mark.skipif(not _redis_answers(), reason="no Redis on 127.0.0.1:6379"),
]


def test_two_days_of_contended_chunks_lose_and_duplicate_nothing() -> None:
    server = urlparse(_database_url())._replace(path="/postgres")
    soak_db = f"{connection.settings_dict['NAME']}_soak"
    env = {**os.environ, "DATABASE_URL": urlunparse(server)}
    completed = subprocess.run(
        [
            sys.executable,
            str(ROOT / "bench" / "soak.py"),
            "--series",
            "300",
            "--timeout",
            "240",
            "--database",
            soak_db,
            "--redis",
            REDIS_URL,
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = completed.stdout + completed.stderr
    assert completed.returncode == 0, output[-4000:]
    lines = [json.loads(line) for line in completed.stdout.splitlines() if line.startswith("{")]
    days: list[dict[str, Any]] = [line for line in lines if "day" in line]
    summary = lines[-1]
    assert [d["day"] for d in days] == [1, 2]
    for day in days:
        assert not any(day["checks"].values()), day
        assert all(d["result"]["failed"] == 0 for d in day["dispatchers"])
    # Every series a dispatcher counted as due went through a chunk task (the
    # other dispatcher's copy too); "Generate now" tasks took some first on day 1.
    dispatched = sum(d["result"]["dispatched"] for day in days for d in day["dispatchers"])
    assert dispatched > 300
    assert summary["chunks"]["series"] == dispatched
    assert summary["chunks"]["failed"] == 0
    assert summary["ok"] is True
