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

Each backend, MariaDB included, runs ``tests/`` with ``tests.settings``,
``tests/studio/`` (the second host: UUID primary keys, custom user model) with
``tests.settings_studio``, ``tests/dojo/`` (the third host: text keys without a
default, an integer status, a duration, German) with ``tests.settings_dojo`` and
``example_project/`` with ``example_project.settings``.
Arguments other than ``--backend`` go to pytest unchanged, e.g. ``make test ARGS="-k dst -x"``.
``--backend sqlite`` / ``--backend postgresql`` run one backend only (the tox
envs use that); ``postgresql`` then fails instead of skipping when no server
is reachable.

After the backends, ``make test`` runs the notebooks in a pass of their own:
``pytest --nbval notebooks/`` without pytest-django (each notebook sets Django up
in its own kernel, on a throwaway SQLite database). ``--backend notebooks`` runs
only that pass; it needs the ``notebooks`` extra.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCAL_PG = "postgres://postgres@127.0.0.1:5432/test"
LOCAL_MARIADB = "mysql://root@127.0.0.1:3306/test"

# (settings module, test paths); a pair is skipped while its paths do not exist.
SUITES = (
    ("tests.settings", ["tests"]),
    # The second test host (UUID primary keys, a custom user model); tests/conftest.py
    # keeps each settings module to its own host's tests.
    ("tests.settings_studio", ["tests/studio"]),
    # The third test host (text keys without a default, an integer status, German).
    ("tests.settings_dojo", ["tests/dojo"]),
    ("example_project.settings", ["example_project"]),
)

# The browser tests (marker ``browser``) drive this Chromium; they skip themselves without it.
CHROMIUM = Path(os.environ.get("REVEL_TEST_CHROMIUM", "/usr/bin/chromium"))

# pytest's "no tests were collected": not a failure for a suite still being written.
NO_TESTS_COLLECTED = 5

NOTEBOOKS = ROOT / "notebooks"
NOTEBOOK_SANITIZERS = NOTEBOOKS / "nbval-sanitize.cfg"


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


def run(
    label: str,
    env_updates: dict[str, str | None],
    extra: list[str],
    suites: tuple[tuple[str, list[str]], ...] = SUITES,
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
        print(f"\n=== {label}: {settings} ===", flush=True)
        command = [sys.executable, "-m", "pytest", "--ds", settings, *paths, *extra]
        returncode = subprocess.run(command, cwd=ROOT, env=env, check=False).returncode
        if returncode == NO_TESTS_COLLECTED and settings != "tests.settings":
            print(f"({settings}: no tests collected)")
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


def run_notebooks(extra: list[str]) -> bool:
    """``pytest --nbval notebooks/``: every stored output must come out again exactly."""
    print("\n=== Notebooks: pytest --nbval notebooks/ ===", flush=True)
    try:
        import nbval  # noqa: F401
    except ImportError:
        print("nbval is not installed: pip install -e '.[notebooks]' (make test does)")
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
    returncode = subprocess.run(command, cwd=ROOT, env=env, check=False).returncode
    if returncode == NO_TESTS_COLLECTED:
        print("(notebooks: no cells selected)")
        return True
    return returncode == 0


def _verdict(ok: bool) -> str:
    return "passed" if ok else "FAILED"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument(
        "--backend",
        choices=("auto", "sqlite", "postgresql", "mariadb", "notebooks"),
        default="auto",
    )
    options, extra = parser.parse_known_args(argv)
    print(browser_notice(), flush=True)
    results: dict[str, bool] = {}
    if options.backend in ("auto", "sqlite"):
        results["sqlite"] = run("SQLite", {"DATABASE_URL": None}, extra)
    url = postgres_url() if options.backend in ("auto", "postgresql") else None
    if url:
        results["postgresql"] = run("PostgreSQL", {"DATABASE_URL": url}, extra)
    elif options.backend == "postgresql":
        results["postgresql"] = False
        print("PostgreSQL: asked for, but no DATABASE_URL and nothing on 127.0.0.1:5432")
    maria = mariadb_url() if options.backend in ("auto", "mariadb") else None
    if maria:
        results["mariadb"] = run("MariaDB", {"DATABASE_URL": maria}, extra)
    elif options.backend == "mariadb":
        results["mariadb"] = False
        print("MariaDB: asked for, but no REVEL_TEST_MARIADB_URL and nothing on 127.0.0.1:3306")
    notebooks = None
    if options.backend in ("auto", "notebooks") and NOTEBOOKS.exists():
        notebooks = run_notebooks(extra)
    if options.backend == "auto" and not url:
        print("PostgreSQL: not run (no DATABASE_URL and nothing on 127.0.0.1:5432)")
    summary = ", ".join(f"{k} ({_verdict(v)})" for k, v in results.items())
    if notebooks is not None:
        summary = "; ".join(filter(None, [summary, f"notebooks ({_verdict(notebooks)})"]))
    print(f"\nBackends run: {summary}")
    print(browser_notice())
    return 0 if all(results.values()) and notebooks is not False else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
