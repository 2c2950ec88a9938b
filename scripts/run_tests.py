"""`make test`: the suite on SQLite, then on PostgreSQL when one is reachable.

PostgreSQL is used when DATABASE_URL is set, or when a server answers on
127.0.0.1:5432 (then postgres://postgres@127.0.0.1:5432/test is used).
Prints which backends ran; exits non-zero if any run failed.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCAL_PG = "postgres://postgres@127.0.0.1:5432/test"


def postgres_url() -> str | None:
    if os.environ.get("DATABASE_URL"):
        return os.environ["DATABASE_URL"]
    try:
        with socket.create_connection(("127.0.0.1", 5432), timeout=1):
            return LOCAL_PG
    except OSError:
        return None


def run(label: str, env_updates: dict[str, str | None], extra: list[str]) -> bool:
    env = dict(os.environ)
    for key, value in env_updates.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    ok = True
    for settings, paths in (
        ("tests.settings", ["tests"]),
        ("example_project.settings", ["example_project"]),
    ):
        if not any((ROOT / p).exists() for p in paths):
            continue
        print(f"\n=== {label}: {settings} ===", flush=True)
        command = [sys.executable, "-m", "pytest", "--ds", settings, *paths, *extra]
        ok = subprocess.run(command, cwd=ROOT, env=env).returncode == 0 and ok
    return ok


def main() -> int:
    extra = sys.argv[1:]
    results: dict[str, bool] = {}
    results["sqlite"] = run("SQLite", {"DATABASE_URL": None}, extra)
    url = postgres_url()
    if url:
        results["postgresql"] = run("PostgreSQL", {"DATABASE_URL": url}, extra)
    print("\nBackends run: " + ", ".join(f"{k} ({'passed' if v else 'FAILED'})" for k, v in results.items()))
    if not url:
        print("PostgreSQL: not run (no DATABASE_URL and nothing on 127.0.0.1:5432)")
    return 0 if all(results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
