"""`make test`: the suite on SQLite, then on PostgreSQL and MariaDB when reachable.

PostgreSQL is used when DATABASE_URL is set, or when a server answers on
127.0.0.1:5432 (then postgres://postgres@127.0.0.1:5432/test is used).
MariaDB (the backend without ``FOR UPDATE OF`` or conditional constraints) is
used when REVEL_TEST_MARIADB_URL is set or a server answers on 127.0.0.1:3306
(then mysql://root@127.0.0.1:3306/test is used); its server needs the time zone
tables (docs/howto/mariadb.md; the suites stop at once, saying how, without them).
Prints which backends ran and whether the browser tests (marker ``browser``)
can run: they need Chromium at /usr/bin/chromium (or REVEL_TEST_CHROMIUM) and
skip themselves without it. Exits non-zero if any run failed.

Each backend runs ``tests/default/`` with ``tests.settings`` (the pass named after
the backend) and, in a second pass (``<backend>-hosts``), ``tests/studio/`` (the second
host: UUID primary keys, custom user model) with ``tests.settings_studio``,
``tests/dojo/`` (the third host: text keys without a default, an integer status, a
duration, German) with ``tests.settings_dojo`` and ``example_project/`` with
``example_project.settings``. What does not vary with the backend runs on one
(docs/decisions/0058-one-backend-for-what-does-not-vary.md): the browser tests on
PostgreSQL only, the tests with a SQLite file of their own (marker ``own_database``)
in the SQLite passes only, and the example project not on MariaDB.
Arguments other than ``--backend`` go to pytest unchanged, e.g. ``make test ARGS="-k dst -x"``.
``--backend sqlite`` / ``--backend postgresql`` run one backend only (the tox
envs use that); ``postgresql`` then fails instead of skipping when no server
is reachable.

``--coverage`` (``make test`` passes it) runs the SQLite passes under the coverage package: line
coverage of ``revel_recurring`` over the four suites, one data file each in
``test-output/coverage/``, combined after the passes and reported with the floor of
``[tool.coverage.report] fail_under`` in pyproject.toml (a pass of its own in the
summary, ``coverage``). With pytest arguments (``ARGS``) the run is partial: the
figure is printed but the floor is not applied. The other backends and the notebooks
run without it.

Beside the backends, ``make test`` runs the notebooks in a pass of their own:
``pytest --nbval notebooks/`` without pytest-django (each notebook sets Django up
in its own kernel, on a throwaway SQLite database). ``--backend notebooks`` runs
only that pass; it needs the ``notebooks`` extra.

The passes run side by side, ``--jobs`` at a time (default: the machine's cores, at
most 4; ``REVEL_TEST_JOBS`` sets it too). They share nothing: each backend has its
own database server or an in-memory SQLite (a backend's two passes use two test
databases of their own), and each pass gets its own Redis database for the worker
tests (``REVEL_TEST_REDIS_URL``'s number, minus the pass's position). The longest
passes start first. With more than one job, each pass writes to
``test-output/passes/<pass>.log`` (follow it with ``tail -f``) and the whole log is
printed when the pass ends; ``--jobs 1`` runs them one after the other with live output.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent.parent
LOCAL_PG = "postgres://postgres@127.0.0.1:5432/test"
LOCAL_MARIADB = "mysql://root@127.0.0.1:3306/test"

# (settings module, test paths); a pair is skipped while its paths do not exist.
# Each backend runs them as two passes: the app's own suite (the first) and the hosts
# (the rest), so that the passes, two at a time, end close together.
SUITES = (
    # The smallest host (tests/hosts/testapp); each host's tree holds the same concern
    # folders, and tests/conftest.py keeps each settings module to its own host's tree.
    ("tests.settings", ["tests/default"]),
    # The second test host (UUID primary keys, a custom user model).
    ("tests.settings_studio", ["tests/studio"]),
    # The third test host (text keys without a default, an integer status, German).
    ("tests.settings_dojo", ["tests/dojo"]),
    ("example_project.settings", ["example_project"]),
)

# The browser tests (marker ``browser``) drive this Chromium; they skip themselves without it.
CHROMIUM = Path(os.environ.get("REVEL_TEST_CHROMIUM", "/usr/bin/chromium"))

# What each backend leaves out (docs/decisions/0058-one-backend-for-what-does-not-vary.md):
# the browser tests run on PostgreSQL only (what a person sees is drawn from the
# services, which every backend runs), the tests of the demo and of fresh projects on
# their own SQLite file (marker ``own_database``) in the SQLite pass only, and the
# example project (SQLite by default, PostgreSQL in production) not on MariaDB.
BROWSER_BACKEND = "postgresql"
LEFT_OUT_MARKERS = {
    "postgresql": ("own_database",),
    "mariadb": ("browser", "own_database"),
    "sqlite": ("browser",),
}
EXAMPLE_SETTINGS = "example_project.settings"
NOT_ON = {"mariadb": (EXAMPLE_SETTINGS,)}

# pytest's "no tests were collected": not a failure for a suite still being written.
NO_TESTS_COLLECTED = 5

NOTEBOOKS = ROOT / "notebooks"
NOTEBOOK_SANITIZERS = NOTEBOOKS / "nbval-sanitize.cfg"

PASS_LOGS = ROOT / "test-output" / "passes"
# pyproject.toml's [tool.coverage.run] data_file lives here (one file per suite).
COVERAGE_DATA = ROOT / "test-output" / "coverage"
DEFAULT_REDIS = "redis://127.0.0.1:6379/15"


def _answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


def postgres_url() -> str | None:
    if os.environ.get("DATABASE_URL"):
        return os.environ["DATABASE_URL"]
    return LOCAL_PG if _answers(5432) else None


def mariadb_url() -> str | None:
    if os.environ.get("REVEL_TEST_MARIADB_URL"):
        return os.environ["REVEL_TEST_MARIADB_URL"]
    return LOCAL_MARIADB if _answers(3306) else None


def redis_url_for(position: int) -> str:
    """The worker tests' Redis database for the pass at ``position``: two passes side by
    side must never share a queue, or one pass's worker would run the other's tasks."""
    base = os.environ.get("REVEL_TEST_REDIS_URL", DEFAULT_REDIS)
    found = re.search(r"/(\d+)$", base)
    number = int(found.group(1)) if found else 15
    stem = base[: found.start()] if found else base.rstrip("/")
    return f"{stem}/{(number - position) % 16}"


def run(
    label: str,
    env_updates: dict[str, str | None],
    extra: list[str],
    suites: tuple[tuple[str, list[str]], ...] = SUITES,
    out: IO[str] | None = None,
    coverage: bool = False,
) -> bool:
    env = dict(os.environ)
    for key, value in env_updates.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    ok = True
    for settings, paths in suites:
        if not any((ROOT / p).exists() for p in paths):
            continue
        print(f"\n=== {label}: {settings} ===", file=out, flush=True)
        runner = ["coverage", "run", "-m", "pytest"] if coverage else ["pytest"]
        command = [sys.executable, "-m", *runner, "--ds", settings, *paths, *extra]
        returncode = subprocess.run(
            command, cwd=ROOT, env=env, check=False, stdout=out, stderr=out
        ).returncode
        if returncode == NO_TESTS_COLLECTED and settings != "tests.settings":
            print(f"({settings}: no tests collected)", file=out, flush=True)
            continue
        ok = returncode == 0 and ok
    return ok


def browser_notice() -> str:
    if CHROMIUM.is_file() and os.access(CHROMIUM, os.X_OK):
        return f"Browser tests: run with Chromium at {CHROMIUM}"
    return (
        f"Browser tests: SKIPPED, no Chromium at {CHROMIUM} "
        "(apt-get install chromium, or set REVEL_TEST_CHROMIUM)"
    )


def run_notebooks(extra: list[str], out: IO[str] | None = None) -> bool:
    """``pytest --nbval notebooks/``: every stored output must come out again exactly."""
    print("\n=== Notebooks: pytest --nbval notebooks/ ===", file=out, flush=True)
    try:
        import nbval  # noqa: F401
    except ImportError:
        print(
            "nbval is not installed: pip install -e '.[notebooks]' (make test does)",
            file=out,
            flush=True,
        )
        return False
    env = {key: value for key, value in os.environ.items() if key != "DATABASE_URL"}
    # Nothing left in the checkout: no __pycache__ beside the notebooks' helpers.
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    command = [
        sys.executable,
        "-m",
        "pytest",
        # The kernels set Django up themselves; pytest-django would want settings here.
        "-p",
        "no:django",
        # pyproject's DJANGO_SETTINGS_MODULE is an unknown option without the plugin.
        "-W",
        "ignore::pytest.PytestConfigWarning",
        "-p",
        "no:cacheprovider",
        "--nbval",
        "--nbval-current-env",
        "--nbval-cell-timeout=300",
        f"--nbval-sanitize-with={NOTEBOOK_SANITIZERS}",
        "notebooks",
        *extra,
    ]
    returncode = subprocess.run(
        command, cwd=ROOT, env=env, check=False, stdout=out, stderr=out
    ).returncode
    if returncode == NO_TESTS_COLLECTED:
        print("(notebooks: no cells selected)", file=out, flush=True)
        return True
    return returncode == 0


def start_coverage() -> None:
    """No data file of an earlier run may be combined into this one."""
    shutil.rmtree(COVERAGE_DATA, ignore_errors=True)
    COVERAGE_DATA.mkdir(parents=True)


def report_coverage(whole: bool) -> bool:
    """Combine the SQLite pass's data files and report; the floor holds for a whole run."""
    print("\n=== Coverage of revel_recurring (the SQLite pass) ===", flush=True)
    coverage = [sys.executable, "-m", "coverage"]
    combined = subprocess.run([*coverage, "combine", "--quiet"], cwd=ROOT, check=False)
    if combined.returncode != 0:
        return False
    command = [*coverage, "report"]
    if not whole:
        print("(pytest arguments given: a partial run, the floor is not applied)", flush=True)
        command.append("--fail-under=0")
    return subprocess.run(command, cwd=ROOT, check=False).returncode == 0


def _verdict(ok: bool) -> str:
    return "passed" if ok else "FAILED"


# A pass: its name in the summary and the callable that runs it, writing to the stream.
Pass = tuple[str, Callable[[IO[str] | None], bool]]


def default_jobs() -> int:
    if os.environ.get("REVEL_TEST_JOBS"):
        return max(1, int(os.environ["REVEL_TEST_JOBS"]))
    return max(1, min(4, os.cpu_count() or 1))


def marker_args(backend: str, extra: list[str]) -> list[str]:
    """``-m`` leaving out what ``backend`` does not run; none when the caller chose with ``-m``."""
    markers = LEFT_OUT_MARKERS.get(backend, ())
    if not markers or "-m" in extra:
        return []
    return ["-m", " and ".join(f"not {marker}" for marker in markers)]


# Rough seconds of each pass on an idle two-core machine: the longest start first.
PASS_WEIGHTS = {
    "postgresql-hosts": 350,
    "sqlite-hosts": 340,
    "postgresql": 220,
    "mariadb": 200,
    "sqlite": 170,
    "mariadb-hosts": 80,
}


def order_passes(passes: list[Pass]) -> list[Pass]:
    """The longest passes first, so that the short ones fill in beside them."""
    return sorted(passes, key=lambda one: -PASS_WEIGHTS.get(one[0], 0))


def backend_passes(
    backend: str,
    label: str,
    env: dict[str, str | None],
    coverage: bool,
    extra: list[str],
) -> list[Pass]:
    """One backend's two passes: the app's own suite, and the hosts' suites.

    Each pass gets its own Redis database for the worker tests (two passes side by side
    must never share a queue, or one pass's worker would run the other's tasks).
    """
    suites = tuple(suite for suite in SUITES if suite[0] not in NOT_ON.get(backend, ()))
    arguments = [*extra, *marker_args(backend, extra)]
    position = {"postgresql": 0, "mariadb": 2, "sqlite": 4}[backend]
    found: list[Pass] = []
    for offset, (name, group, title) in enumerate(
        ((backend, suites[:1], label), (f"{backend}-hosts", suites[1:], f"{label} (hosts)"))
    ):
        if not group:
            continue
        pass_env = {**env, "REVEL_TEST_REDIS_URL": redis_url_for(position + offset)}
        found.append((name, _pass_body(title, pass_env, arguments, group, coverage)))
    return found


def _pass_body(
    title: str,
    env: dict[str, str | None],
    arguments: list[str],
    suites: tuple[tuple[str, list[str]], ...],
    coverage: bool,
) -> Callable[[IO[str] | None], bool]:
    def body(out: IO[str] | None) -> bool:
        return run(title, env, arguments, suites=suites, out=out, coverage=coverage)

    return body


def run_passes(passes: list[Pass], jobs: int) -> dict[str, bool]:
    """Run the passes ``jobs`` at a time; each one's log is printed whole when it ends."""
    if jobs == 1 or len(passes) == 1:
        return {name: body(None) for name, body in passes}
    PASS_LOGS.mkdir(parents=True, exist_ok=True)

    def one(name: str, body: Callable[[IO[str] | None], bool]) -> bool:
        path = PASS_LOGS / f"{name}.log"
        started = time.monotonic()
        print(f"--- {name}: started (log: {path.relative_to(ROOT)})", flush=True)
        with path.open("w", encoding="utf-8") as log:
            ok = body(log)
        seconds = time.monotonic() - started
        print(path.read_text(encoding="utf-8"), end="", flush=True)
        print(f"--- {name}: {_verdict(ok)} in {seconds:.0f} s", flush=True)
        return ok

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {name: pool.submit(one, name, body) for name, body in passes}
        return {name: future.result() for name, future in futures.items()}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument(
        "--backend",
        choices=("auto", "sqlite", "postgresql", "mariadb", "notebooks"),
        default="auto",
    )
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--coverage", action="store_true")
    options, extra = parser.parse_known_args(argv)
    jobs = options.jobs if options.jobs is not None else default_jobs()
    print(browser_notice(), flush=True)
    results: dict[str, bool] = {}
    backends: list[tuple[str, str, dict[str, str | None], bool]] = []
    url = postgres_url() if options.backend in ("auto", "postgresql") else None
    if url:
        backends.append(("postgresql", "PostgreSQL", {"DATABASE_URL": url}, False))
    elif options.backend == "postgresql":
        results["postgresql"] = False
        print("PostgreSQL: asked for, but no DATABASE_URL and nothing on 127.0.0.1:5432")
    maria = mariadb_url() if options.backend in ("auto", "mariadb") else None
    if maria:
        backends.append(("mariadb", "MariaDB", {"DATABASE_URL": maria}, False))
    elif options.backend == "mariadb":
        results["mariadb"] = False
        print("MariaDB: asked for, but no REVEL_TEST_MARIADB_URL and nothing on 127.0.0.1:3306")
    if options.backend in ("auto", "sqlite"):
        if options.coverage:
            start_coverage()
        backends.append(("sqlite", "SQLite", {"DATABASE_URL": None}, options.coverage))
    passes = order_passes([one for backend in backends for one in backend_passes(*backend, extra)])
    if options.backend in ("auto", "notebooks") and NOTEBOOKS.exists():
        passes.append(("notebooks", lambda out: run_notebooks(extra, out=out)))
    results.update(run_passes(passes, jobs))
    if options.coverage and "sqlite" in results:
        results["coverage"] = report_coverage(whole=not extra)
    if options.backend == "auto" and not url:
        print("PostgreSQL: not run (no DATABASE_URL and nothing on 127.0.0.1:5432)")
    order = [
        name
        for backend in ("sqlite", "coverage", "postgresql", "mariadb")
        for name in (backend, f"{backend}-hosts")
    ] + ["notebooks"]
    summary = ", ".join(f"{name} ({_verdict(results[name])})" for name in order if name in results)
    print(f"\nPasses run ({jobs} at a time): {summary}")
    print(browser_notice())
    return 0 if all(results.values()) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
