"""The `package` tox env: what a host site gets from ``pip install revel-recurring``.

1. Builds the wheel from the checkout (``python -m build --wheel``).
2. Asserts what must ship (migrations, ``py.typed``) and what must not (tests, the
   example project).
3. Installs it into a fresh venv in a temporary directory, outside the checkout.
4. From that directory, with no PYTHONPATH, imports it and asserts the import came
   from the venv, not the checkout.
5. Generates a throwaway host project whose Event uses RecurringEventMixin, and runs
   ``manage.py check``, ``makemigrations`` for the host app, ``migrate`` on SQLite
   and ``makemigrations --check`` (the wheel's migrations match its models).

Usage: ``python scripts/check_package.py [--keep]`` (``--keep`` leaves the
temporary directory for inspection). Exits non-zero on the first failure.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import venv
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "revel_recurring"

REQUIRED_IN_WHEEL = (
    f"{PACKAGE}/__init__.py",
    f"{PACKAGE}/py.typed",
    f"{PACKAGE}/migrations/__init__.py",
    f"{PACKAGE}/migrations/0001_initial.py",
)
FORBIDDEN_PREFIXES = ("tests/", "example_project/", "scripts/", "bench/", "notebooks/")

HOST_FILES = {
    "manage.py": """
        import os
        import sys

        if __name__ == "__main__":
            os.environ.setdefault("DJANGO_SETTINGS_MODULE", "host.settings")
            from django.core.management import execute_from_command_line

            execute_from_command_line(sys.argv)
    """,
    "host/__init__.py": "",
    "host/settings.py": """
        from pathlib import Path

        BASE_DIR = Path(__file__).resolve().parent.parent
        SECRET_KEY = "package-check"
        DEBUG = True
        USE_TZ = True
        ROOT_URLCONF = "host.urls"
        DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
        INSTALLED_APPS = [
            "django.contrib.admin",
            "django.contrib.auth",
            "django.contrib.contenttypes",
            "django.contrib.sessions",
            "django.contrib.messages",
            "rest_framework",
            "django_filters",
            "django_celery_beat",
            "revel_recurring",
            "events",
        ]
        MIDDLEWARE = [
            "django.contrib.sessions.middleware.SessionMiddleware",
            "django.contrib.auth.middleware.AuthenticationMiddleware",
            "django.contrib.messages.middleware.MessageMiddleware",
        ]
        TEMPLATES = [
            {
                "BACKEND": "django.template.backends.django.DjangoTemplates",
                "APP_DIRS": True,
                "OPTIONS": {
                    "context_processors": [
                        "django.template.context_processors.request",
                        "django.contrib.auth.context_processors.auth",
                        "django.contrib.messages.context_processors.messages",
                    ]
                },
            }
        ]
        DATABASES = {
            "default": {"ENGINE": "django.db.backends.sqlite3", "NAME": BASE_DIR / "db.sqlite3"}
        }
        REVEL_RECURRING_EVENT_MODEL = "events.Event"
    """,
    "host/urls.py": """
        from django.contrib import admin
        from django.urls import path

        urlpatterns = [path("admin/", admin.site.urls)]
    """,
    "events/__init__.py": "",
    "events/models.py": """
        from django.db import models

        from revel_recurring.models import RecurringEventMixin


        class Event(RecurringEventMixin, models.Model):
            title = models.CharField(max_length=200)
            start = models.DateTimeField()
            end = models.DateTimeField(null=True, blank=True)
            status = models.CharField(max_length=20, default="draft")

            class Meta(RecurringEventMixin.Meta):
                ordering = ("start",)

            def __str__(self):
                return self.title
    """,
}

IMPORT_CHECK = f"""
import pathlib, sys
import {PACKAGE}
location = pathlib.Path({PACKAGE}.__file__).resolve()
assert pathlib.Path(sys.prefix).resolve() in location.parents, location
assert (location.parent / "py.typed").exists()
print("imported", {PACKAGE}.__name__, {PACKAGE}.__version__, "from", location.parent)
"""


def step(message: str) -> None:
    print(f"--- {message}", flush=True)


def run(command: list[str | Path], *, cwd: Path, env: dict[str, str] | None = None) -> str:
    printable = " ".join("'...'" if "\n" in str(part) else str(part) for part in command)
    print(f"$ {printable}", flush=True)
    result = subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        sys.stdout.write(result.stdout)
        sys.stderr.write(result.stderr)
        raise SystemExit(f"FAILED ({result.returncode}): {printable}")
    return result.stdout


def build_wheel(out_dir: Path) -> Path:
    run([sys.executable, "-m", "build", "--wheel", "--outdir", out_dir, ROOT], cwd=ROOT)
    wheels = sorted(out_dir.glob(f"{PACKAGE}-*.whl"))
    if len(wheels) != 1:
        raise SystemExit(f"expected one wheel in {out_dir}, found {wheels}")
    return wheels[0]


def check_wheel_contents(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = [name for name in REQUIRED_IN_WHEEL if name not in names]
    if missing:
        raise SystemExit(f"{wheel.name} lacks {missing}")
    stray = sorted(n for n in names if n.startswith(FORBIDDEN_PREFIXES))
    if stray:
        raise SystemExit(f"{wheel.name} ships files that are not the app: {stray[:10]}")
    on_disk = {
        f"{PACKAGE}/migrations/{p.name}" for p in (ROOT / PACKAGE / "migrations").glob("*.py")
    }
    if not on_disk <= names:
        raise SystemExit(f"{wheel.name} lacks migrations {sorted(on_disk - names)}")
    print(f"{wheel.name}: {len(names)} files, {len(on_disk)} migration modules, py.typed")


def clean_env(venv_dir: Path) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in {"PYTHONPATH", "DJANGO_SETTINGS_MODULE", "VIRTUAL_ENV", "DATABASE_URL"}
    }
    env["VIRTUAL_ENV"] = str(venv_dir)
    env["PATH"] = os.pathsep.join([str(venv_dir / "bin"), env.get("PATH", "")])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def write_host(host_dir: Path) -> None:
    for relative, text in HOST_FILES.items():
        path = host_dir / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip(), encoding="utf-8")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="keep the temporary directory")
    options = parser.parse_args(argv)

    work = Path(tempfile.mkdtemp(prefix="revel-recurring-package-"))
    try:
        step("build the wheel")
        wheel = build_wheel(work / "dist")
        check_wheel_contents(wheel)

        step("install it into a fresh venv outside the checkout")
        venv_dir = work / "venv"
        venv.EnvBuilder(with_pip=True, clear=True).create(venv_dir)
        python = venv_dir / "bin" / "python"
        env = clean_env(venv_dir)
        run([python, "-m", "pip", "install", "--quiet", wheel], cwd=work, env=env)

        step("import it")
        print(run([python, "-c", IMPORT_CHECK], cwd=work, env=env), end="")

        step("a tiny host project: check, makemigrations, migrate")
        host_dir = work / "host"
        write_host(host_dir)
        manage = [python, "manage.py"]
        print(run([*manage, "check", "--fail-level", "WARNING"], cwd=host_dir, env=env), end="")
        run([*manage, "makemigrations", "events", "--noinput"], cwd=host_dir, env=env)
        migration = (host_dir / "events" / "migrations" / "0001_initial.py").read_text()
        if "('revel_recurring', " not in migration:
            raise SystemExit("the host migration does not depend on revel_recurring")
        run([*manage, "migrate", "--noinput"], cwd=host_dir, env=env)
        run([*manage, "makemigrations", "--check", "--dry-run"], cwd=host_dir, env=env)
        print(f"package check passed: {wheel.name}")
        return 0
    finally:
        if options.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
