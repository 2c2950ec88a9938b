"""A real Celery worker process, a real Redis broker, a real PostgreSQL database."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.db import connection

from tests.support.factories import make_series, occurrences
from tests.support.worker_process import (
    REDIS_URL as REDIS_URL,  # tests/default/worker/test_soak.py reads it here
)
from tests.support.worker_process import (
    celery_worker,
    database_url,
    redis_answers,
    wait_until,
)

# The worker process itself lives in tests/support/worker_process.py (the dojo host starts one
# too); these names stay importable from here for the tests that used them.
_database_url = database_url
_redis_answers = redis_answers


# What a test with a real worker needs: tests/default/worker/test_admin_worker.py uses them too.
WORKER_MARKS = [
    pytest.mark.postgres,
    pytest.mark.redis,
    pytest.mark.django_db(transaction=True),
    pytest.mark.skipif(connection.vendor != "postgresql", reason="the worker needs PostgreSQL"),
    pytest.mark.skipif(not redis_answers(), reason="no Redis on 127.0.0.1:6379"),
]
pytestmark = WORKER_MARKS


def test_worker_materializes_due_series_through_redis(tmp_path: Path) -> None:
    series = make_series(auto_publish=True)
    log = tmp_path / "worker.log"
    with celery_worker(log) as client:
        result = client.send_task("revel_recurring.generate_all_series")
        assert result.get(timeout=60) == {"due": 1, "dispatched": 1, "failed": 0, "skipped": 0}
        wait_until(lambda: bool(occurrences(series)))
        created = occurrences(series)
        assert len(created) == 8, log.read_text()
        assert {e.state for e in created} == {"on_sale"}
        assert "revel_recurring.generate_series" in log.read_text()
