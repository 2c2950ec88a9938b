"""`make demo`: migrate the example project's SQLite database, create and generate the
demo series, print its dates, its URLs and the admin login (superuser ``admin``, a new
random password each run), then serve the site on 127.0.0.1 at ``PORT`` (default 8000).

``PORT=8001 make demo`` (or ``make demo PORT=8001``) serves on another port; every
URL the demo prints, and the links in its digest e-mails, name the port it serves
(``EXAMPLE_SITE_URL`` is set to ``http://127.0.0.1:PORT``). NOSERVE=1 stops before
serving (the tests use that). EXAMPLE_DB_PATH points the SQLite database elsewhere
than example_project/db.sqlite3.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROJECT = ROOT / "example_project"
HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def port_from(environ: Mapping[str, str]) -> int:
    """``PORT`` from the environment (default 8000); a readable exit when it is no port."""
    value = environ.get("PORT", "").strip() or str(DEFAULT_PORT)
    if not value.isdigit() or not 1 <= int(value) <= 65535:
        raise SystemExit(f"make demo: PORT must be a port number from 1 to 65535, got {value!r}.")
    return int(value)


def demo_environment(port: int) -> dict[str, str]:
    env = dict(os.environ)
    # The demo is the embedded SQLite setup whatever the shell exports for other work.
    env.pop("DATABASE_URL", None)
    env["DJANGO_SETTINGS_MODULE"] = "example_project.settings"
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    # The site's address for everything the demo prints and mails: the one it serves.
    env["EXAMPLE_SITE_URL"] = f"http://{HOST}:{port}"
    return env


def manage(*args: str, env: dict[str, str]) -> None:
    command = [sys.executable, "manage.py", *args]
    print(f"$ {' '.join(command[1:])}", flush=True)
    result = subprocess.run(command, cwd=PROJECT, env=env, check=False)
    if result.returncode != 0:
        raise SystemExit(result.returncode)


def main() -> int:
    port = port_from(os.environ)
    env = demo_environment(port)
    manage("migrate", "--noinput", env=env)
    # --admin: the superuser "admin" with a fresh random password, printed with the URL.
    manage("events_demo", "--admin", env=env)
    if os.environ.get("NOSERVE", "").strip().lower() in {"1", "true", "yes"}:
        print("NOSERVE set: not starting the server.")
        return 0
    address = f"{HOST}:{port}"
    print(f"Serving on http://{address}/ (Ctrl-C stops it)", flush=True)
    try:
        return subprocess.run(
            [sys.executable, "manage.py", "runserver", address], cwd=PROJECT, env=env, check=False
        ).returncode
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
