"""`make demo`: migrate the example project's SQLite database, create and generate the
demo series, print its dates and the admin login (superuser ``admin``, a new random
password each run), then serve the site on 127.0.0.1:8000.

NOSERVE=1 stops before serving (the tests use that). EXAMPLE_DB_PATH points the
SQLite database elsewhere than example_project/db.sqlite3.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROJECT = ROOT / "example_project"
ADDRESS = "127.0.0.1:8000"


def demo_environment() -> dict[str, str]:
    env = dict(os.environ)
    # The demo is the embedded SQLite setup whatever the shell exports for other work.
    env.pop("DATABASE_URL", None)
    env["DJANGO_SETTINGS_MODULE"] = "example_project.settings"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return env


def manage(*args: str, env: dict[str, str]) -> None:
    command = [sys.executable, "manage.py", *args]
    print(f"$ {' '.join(command[1:])}", flush=True)
    result = subprocess.run(command, cwd=PROJECT, env=env, check=False)
    if result.returncode != 0:
        raise SystemExit(result.returncode)


def main() -> int:
    env = demo_environment()
    manage("migrate", "--noinput", env=env)
    # --admin: the superuser "admin" with a fresh random password, printed with the URL.
    manage("events_demo", "--admin", env=env)
    if os.environ.get("NOSERVE", "").strip().lower() in {"1", "true", "yes"}:
        print("NOSERVE set: not starting the server.")
        return 0
    print(f"Serving on http://{ADDRESS}/ (Ctrl-C stops it)", flush=True)
    try:
        return subprocess.run(
            [sys.executable, "manage.py", "runserver", ADDRESS], cwd=PROJECT, env=env, check=False
        ).returncode
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
