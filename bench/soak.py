"""Soak: real Celery workers on Redis run the chunked daily pass over many series.

``python bench/soak.py [--series 20000] [--days 2] [--workers 2] [--concurrency 2]``

Sets up a scratch PostgreSQL database (the example project's host, one ticket
tier per template), starts ``--workers`` Celery worker processes (prefork,
``--concurrency`` each) on Redis, then for each simulated day runs two
dispatchers at once (``generate_all_series`` twice: a duplicate beat, so every
chunk is contended) while "Generate now" tasks for one series in fifty go out
beside them and an "organiser" keeps locking random series for a second each
without generating (a chunk must retry those, not drop them). When the queue
is drained and the workers idle it checks, per day:

- no duplicate slot and no duplicate occurrence index in any series;
- nothing due is left, and every slot of every rule from the start to the
  horizon exists (none lost);
- every cursor agrees with its rows (horizon, index counter, next due moment);
- no task failed and no deadlock or serialization error reached a log.

It reports the dispatchers' counts, the sum of the chunk tasks' counts, wall
times, and the peak RSS of each dispatcher and of every worker process; it exits
1 when an invariant fails and 2 when ``--timeout`` (seconds, whole run) passes.
``--dispatch NOW`` is the dispatcher's own mode (a subprocess).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path[:0] = [str(ROOT), str(BENCH)]

SETTINGS = "soak_settings"
QUEUE = "celery"


class SoakTimeout(Exception):
    pass


def _child_env(database_url: str, redis_url: str) -> dict[str, str]:
    return {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": SETTINGS,
        "DATABASE_URL": database_url,
        "CELERY_BROKER_URL": redis_url,
        "PYTHONPATH": os.pathsep.join([str(ROOT), str(BENCH)]),
    }


def dispatch_main(now: str) -> None:
    """Child mode: one dispatcher pass; prints its counts and its peak RSS as JSON."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", SETTINGS)
    import django

    django.setup()
    from example_project.celery import app  # noqa: F401  (the broker configuration)
    from revel_recurring.tasks import generate_all_series

    started = time.perf_counter()
    result = generate_all_series(now=now)
    print(
        json.dumps(
            {
                "result": result,
                "seconds": time.perf_counter() - started,
                # VmHWM, not ru_maxrss: getrusage keeps the high-water mark across
                # the exec, so it would report the parent's size at the fork.
                "peak_rss_kb": _peak_rss_kb(os.getpid())[os.getpid()],
            }
        )
    )


def _peak_rss_kb(pid: int) -> dict[int, int]:
    """VmHWM of ``pid`` and of its children (the prefork pool)."""
    pids = [pid]
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        children = []
    pids += [int(c) for c in children]
    peaks = {}
    for item in pids:
        try:
            status = Path(f"/proc/{item}/status").read_text()
        except OSError:
            continue
        match = re.search(r"VmHWM:\s+(\d+) kB", status)
        if match:
            peaks[item] = int(match.group(1))
    return peaks


def _wait_idle(redis_url: str, workers: list[subprocess.Popen[bytes]], deadline: float) -> None:
    import redis
    from celery import Celery

    client = redis.Redis.from_url(redis_url)
    control = Celery("soak-control", broker=redis_url)
    quiet = 0
    while quiet < 2:
        if time.monotonic() > deadline:
            raise SoakTimeout("the queue did not drain in time")
        if any(w.poll() is not None for w in workers):
            raise RuntimeError("a worker process exited")
        busy = client.llen(QUEUE) > 0
        if not busy:
            replies = control.control.inspect(timeout=1.0).active() or {}
            busy = any(replies.values()) or len(replies) < len(workers)
        quiet = 0 if busy else quiet + 1
        time.sleep(0.5)


def _send_generate_now(redis_url: str, ids: list[int], now: str) -> None:
    from celery import Celery

    client = Celery("soak-client", broker=redis_url)
    for series_id in ids:
        client.send_task("revel_recurring.generate_series", args=[series_id], kwargs={"now": now})


class Organiser(threading.Thread):
    """Holds series locks the way an organiser's edit does, without generating anything.

    Each round locks five random due series (ascending, as the lock order wants)
    for a second, long enough for both dispatchers' copies of their chunks to
    meet the held rows: a chunk that dropped such a series instead of retrying
    it would lose it.
    """

    def __init__(self, ids: list[int], seed: int) -> None:
        super().__init__(daemon=True)
        self.ids, self.random = ids, random.Random(seed)
        self.stop, self.held = threading.Event(), 0

    def run(self) -> None:
        from django.db import connection, transaction

        from revel_recurring.services.toolbox.locking import lock_several_series

        try:
            while not self.stop.is_set() and self.ids:
                with transaction.atomic():
                    picked = self.random.sample(self.ids, min(5, len(self.ids)))
                    lock_several_series(picked)
                    self.held += len(picked)
                    time.sleep(1.0)
        finally:
            connection.close()


def verify(day: dt.datetime, start: dt.datetime) -> dict[str, int]:
    """The invariants after a pass at ``day``; counts of every kind of violation."""
    from django.db import connection

    from revel_recurring import rules
    from revel_recurring.models import EventSeries
    from revel_recurring.services.generation.dispatch import iter_due_series_ids

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM (SELECT 1 FROM events_event WHERE NOT is_template "
            "GROUP BY series_id, recurrence_id HAVING count(*) > 1) d"
        )
        duplicate_slots = cursor.fetchone()[0]
        cursor.execute(
            "SELECT count(*) FROM (SELECT 1 FROM events_event WHERE NOT is_template "
            "GROUP BY series_id, occurrence_index HAVING count(*) > 1) d"
        )
        duplicate_indices = cursor.fetchone()[0]
        cursor.execute(
            "SELECT series_id, array_agg(recurrence_id), max(occurrence_index), count(*) "
            "FROM events_event WHERE NOT is_template GROUP BY series_id"
        )
        rows = {r[0]: (set(r[1]), r[2], r[3]) for r in cursor.fetchall()}
    still_due = len(list(iter_due_series_ids(now=day, chunk_size=1000)))
    passes = {start + dt.timedelta(days=n) for n in range((day - start).days + 1)}
    lost = extra = bad_cursor = 0
    for series in EventSeries.objects.select_related("recurrence_rule").iterator(2000):
        rule = series.recurrence_rule
        assert rule is not None
        window = dt.timedelta(weeks=series.generation_window_weeks)
        # The cursor is the horizon of the last pass that generated the series.
        horizon = series.last_generated_until
        spec = rule.to_spec()
        expected: set[dt.datetime] = set()
        if horizon is not None:
            expected = {
                s
                for s in rules.occurrences_between(spec, start, horizon, inclusive=True)
                if s >= start
            }
        slots, top, count = rows.get(series.pk, (set(), 0, 0))
        lost += len(expected - slots)
        extra += len(slots - expected)
        following = None if horizon is None else rules.first_occurrence_after(spec, horizon)
        due = None if following is None else following - window
        if (
            horizon is None
            or horizon - window not in passes
            or series.last_occurrence_index != count
            or (top or 0) != count
            or series.next_due_at != due
            or (due is not None and due <= day)  # a slot within the window left undone
        ):
            bad_cursor += 1
    return {
        "duplicate_slots": duplicate_slots,
        "duplicate_indices": duplicate_indices,
        "still_due": still_due,
        "lost_slots": lost,
        "unexpected_slots": extra,
        "inconsistent_cursors": bad_cursor,
    }


def _chunk_totals(logs: list[Path]) -> dict[str, int]:
    totals = {"chunk_tasks": 0, "series": 0, "chunked": 0, "retried": 0, "fallen_back": 0}
    totals |= {"created": 0, "failed": 0, "requeued": 0, "per_series_tasks": 0}
    pattern = re.compile(r"generate_series_chunk\[[^\]]+\] succeeded in [\d.]+s: (\{.*\})")
    for log in logs:
        for line in log.read_text().splitlines():
            match = pattern.search(line)
            if match:
                data = json.loads(match.group(1).replace("'", '"'))
                totals["chunk_tasks"] += 1
                for key in ("series", "chunked", "retried", "fallen_back", "created"):
                    totals[key] += data[key]
                totals["failed"] += len(data["failed"])
                totals["requeued"] += len(data["requeued"])
            elif re.search(r"generate_series\[[^\]]+\] succeeded", line):
                totals["per_series_tasks"] += 1
    return totals


def _log_errors(logs: list[Path]) -> dict[str, int]:
    text = "\n".join(log.read_text() for log in logs)
    return {
        "deadlocks": text.count("deadlock detected"),
        "serialization_failures": text.count("could not serialize"),
        "task_failures": len(re.findall(r"Task \S+ raised unexpected", text)),
        "task_retries": len(re.findall(r"Task \S+ retry:", text)),
        "errors_logged": len(re.findall(r"\bERROR/", text)),
    }


def soak(args: argparse.Namespace) -> int:
    import generation

    deadline = time.monotonic() + args.timeout
    generation.BENCH_DB = args.database
    generation._prepare_database()
    database_url = os.environ["DATABASE_URL"]
    import redis

    redis.Redis.from_url(args.redis).delete(QUEUE)
    start = dt.datetime.now(dt.UTC).replace(microsecond=0)
    began = time.perf_counter()
    ids = generation.create_series(args.series, start)
    print(f"{args.series} series created in {time.perf_counter() - began:.1f} s")
    from revel_recurring.services.generation.dispatch import iter_due_series_ids

    env = _child_env(database_url, args.redis)
    logdir = Path(tempfile.mkdtemp(prefix="revel-soak-"))
    logs = [logdir / f"worker{n}.log" for n in range(args.workers)]
    workers = []
    for number, log in enumerate(logs):
        with log.open("w") as output:
            workers.append(
                subprocess.Popen(
                    [
                        sys.executable,
                        "-m",
                        "celery",
                        "-A",
                        "example_project",
                        "worker",
                        "--pool=prefork",
                        f"--concurrency={args.concurrency}",
                        f"--hostname=soak{number}@%h",
                        "--loglevel=INFO",
                        "--without-gossip",
                        "--without-mingle",
                        "--without-heartbeat",
                    ],
                    cwd=ROOT,
                    env=env,
                    stdout=output,
                    stderr=subprocess.STDOUT,
                )
            )
    summary: dict[str, Any] = {"series": args.series, "logs": str(logdir), "days": []}
    ok = True
    try:
        for day_number in range(args.days):
            day = start + dt.timedelta(days=day_number)
            began = time.perf_counter()
            dispatchers = [
                subprocess.Popen(
                    [sys.executable, str(BENCH / "soak.py"), "--dispatch", day.isoformat()],
                    cwd=ROOT,
                    env=env,
                    stdout=subprocess.PIPE,
                )
                for _ in range(2)
            ]
            due_ids = list(iter_due_series_ids(now=day, chunk_size=1000))
            organiser = Organiser(due_ids, seed=day_number)
            organiser.start()
            _send_generate_now(args.redis, ids[day_number::50], day.isoformat())
            outputs = []
            for dispatcher in dispatchers:
                out, _ = dispatcher.communicate(timeout=max(1.0, deadline - time.monotonic()))
                if dispatcher.returncode != 0:
                    raise RuntimeError("a dispatcher failed")
                outputs.append(json.loads(out.decode().strip().splitlines()[-1]))
            _wait_idle(args.redis, workers, deadline)
            organiser.stop.set()
            organiser.join()
            elapsed = time.perf_counter() - began
            checks = verify(day, start)
            report = {
                "day": day_number + 1,
                "seconds": round(elapsed, 1),
                "dispatchers": outputs,
                "organiser_locks": organiser.held,
                "checks": checks,
                "worker_peak_rss_kb": {
                    f"worker{n}": _peak_rss_kb(w.pid) for n, w in enumerate(workers)
                },
            }
            summary["days"].append(report)
            print(json.dumps(report))
            ok = ok and not any(checks.values())
    except SoakTimeout as exc:
        print(f"soak timed out: {exc}", file=sys.stderr)
        return 2
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            try:
                worker.wait(timeout=30)
            except subprocess.TimeoutExpired:
                worker.kill()
    summary["chunks"] = _chunk_totals(logs)
    summary["log_errors"] = _log_errors(logs)
    errors = summary["log_errors"]
    ok = ok and not any(errors[k] for k in ("deadlocks", "serialization_failures", "task_failures"))
    ok = ok and summary["chunks"]["failed"] == 0 and errors["errors_logged"] == 0
    summary["ok"] = ok
    print(json.dumps({k: v for k, v in summary.items() if k != "days"}))
    return 0 if ok else 1


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--series", type=int, default=20_000)
    parser.add_argument("--days", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--database", default=os.environ.get("REVEL_SOAK_DB", "revel_soak"))
    parser.add_argument(
        "--redis", default=os.environ.get("REVEL_SOAK_REDIS_URL", "redis://127.0.0.1:6379/5")
    )
    parser.add_argument("--dispatch", metavar="NOW", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.dispatch:
        dispatch_main(args.dispatch)
        return
    sys.exit(soak(args))


if __name__ == "__main__":
    main()
