"""The `package` tox env: what a host site gets from ``pip install revel-recurring``.

1. Builds the sdist from the checkout and the wheel from that sdist (``python -m
   build``), so a file the sdist leaves out is missing from the wheel too; both
   carry the version of ``revel_recurring.__version__`` and pass ``twine check
   --strict`` (what PyPI would refuse or render badly).
2. Asserts what must ship (migrations, ``py.typed``, the LICENSE with a PEP 639
   ``License-Expression``, the translations: each language's ``.po`` and ``.mo``)
   and what must not (tests, the example project); the sdist holds the package,
   its catalogues, the LICENSE and the changelog.
3. Installs it with the ``[redis,postgres]`` extras, as the README says, into a
   fresh venv in a temporary directory, outside the checkout.
4. From that directory, with no PYTHONPATH, imports it and asserts the import came
   from the venv, not the checkout.
5. Generates a throwaway host project whose Event uses RecurringEventMixin, and runs
   ``manage.py check``, ``makemigrations`` for the host app, ``migrate`` on SQLite
   and ``makemigrations --check`` (the wheel's migrations match its models), and
   renders a rule as a German sentence from the installed catalogue.
6. Starts a Celery worker and beat (DatabaseScheduler) of that host against Redis
   (``REVEL_TEST_REDIS_URL``, default ``redis://127.0.0.1:6379/15``), runs the daily
   task through the broker and checks both processes are still alive: the
   ``[redis]`` extra brings everything Celery's Redis transport imports.
7. Rewrites the host's Meta so it no longer inherits ``RecurringEventMixin.Meta``
   and asserts ``manage.py check`` fails with ``revel_recurring.E010``.
8. Installs the sdist (built into a wheel by pip) into a second fresh venv and
   imports it from there, with the distribution's version equal to the package's.

Usage: ``python scripts/check_package.py [--keep]`` (``--keep`` leaves the
temporary directory for inspection). Exits non-zero on the first failure.
"""

from __future__ import annotations

import argparse
import ast
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import textwrap
import time
import venv
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "revel_recurring"

REQUIRED_IN_WHEEL = (
    f"{PACKAGE}/__init__.py",
    f"{PACKAGE}/py.typed",
    f"{PACKAGE}/migrations/__init__.py",
    f"{PACKAGE}/migrations/0001_initial.py",
)
PROJECT_URLS = ("Documentation", "Source", "Changelog", "Issues")
FORBIDDEN_PREFIXES = ("tests/", "example_project/", "scripts/", "bench/", "notebooks/")
# Each shipped language's catalogue, source and compiled (revel_recurring/locale/).
LANGUAGES = sorted(p.name for p in (ROOT / PACKAGE / "locale").iterdir() if p.is_dir())
CATALOGUES = tuple(
    f"{PACKAGE}/locale/{language}/LC_MESSAGES/django.{suffix}"
    for language in LANGUAGES
    for suffix in ("po", "mo")
)

HOST_FILES = {
    "manage.py": """
        import os
        import sys

        if __name__ == "__main__":
            os.environ.setdefault("DJANGO_SETTINGS_MODULE", "host.settings")
            from django.core.management import execute_from_command_line

            execute_from_command_line(sys.argv)
    """,
    "host/__init__.py": """
        from .celery import app as celery_app
    """,
    "host/celery.py": """
        import os

        from celery import Celery

        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "host.settings")
        app = Celery("host")
        app.config_from_object("django.conf:settings", namespace="CELERY")
        app.autodiscover_tasks()
    """,
    "host/settings.py": """
        import os
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
        CELERY_BROKER_URL = os.environ["REVEL_TEST_REDIS_URL"]
        CELERY_RESULT_BACKEND = os.environ["REVEL_TEST_REDIS_URL"]
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

# The host's Meta as a site developer might first write it: its own, not the mixin's.
MODELS_WITHOUT_MIXIN_META = """
from django.db import models

from revel_recurring.models import RecurringEventMixin


class Event(RecurringEventMixin, models.Model):
    title = models.CharField(max_length=200)
    start = models.DateTimeField()
    end = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=20, default="draft")

    class Meta:
        ordering = ("start",)
"""

RUN_DAILY_TASK = """
from revel_recurring.tasks import generate_all_series
result = generate_all_series.delay().get(timeout=30)
assert set(result) == {"due", "dispatched", "failed", "skipped"}, result
print("daily task through the broker:", result)
"""

# The wheel's own German catalogue, read by a host that sets nothing about languages.
GERMAN_SENTENCE = """
import datetime as dt
import zoneinfo
from django.utils import translation
from revel_recurring.describe import describe_spec
from revel_recurring.rules import RuleSpec
vienna = zoneinfo.ZoneInfo("Europe/Vienna")
spec = RuleSpec(
    frequency="MONTHLY", interval=2, monthly_type="NTH_WEEKDAY", nth_weekday=2, weekday=1,
    dtstart=dt.datetime(2027, 1, 12, 18, 30, tzinfo=vienna), timezone="Europe/Vienna",
    until=dt.datetime(2027, 6, 1, 23, 59, tzinfo=vienna),
)
with translation.override("de"):
    sentence = describe_spec(spec)
expected = (
    "Alle 2 Monate am zweiten Dienstag um 18:30 Uhr (Europe/Vienna), bis zum 1. Juni 2027"
)
assert sentence == expected, sentence
print("in German:", sentence)
"""

DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/15"
WORKER_SECONDS = 5.0

IMPORT_CHECK = f"""
import pathlib, sys
import {PACKAGE}
location = pathlib.Path({PACKAGE}.__file__).resolve()
assert pathlib.Path(sys.prefix).resolve() in location.parents, location
assert (location.parent / "py.typed").exists()
import importlib.metadata
installed = importlib.metadata.version("revel-recurring")
assert installed == {PACKAGE}.__version__, (installed, {PACKAGE}.__version__)
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


def source_version() -> str:
    """``__version__`` as written in the checkout: the version's one source."""
    tree = ast.parse((ROOT / PACKAGE / "__init__.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == [
            "__version__"
        ]:
            return str(ast.literal_eval(node.value))
    raise SystemExit(f"{PACKAGE}/__init__.py sets no __version__")


def build(out_dir: Path) -> tuple[Path, Path]:
    """The sdist, and the wheel built from it (``python -m build`` without flags)."""
    run([sys.executable, "-m", "build", "--outdir", out_dir, ROOT], cwd=ROOT)
    version = source_version()
    sdists = sorted(out_dir.glob("revel_recurring-*.tar.gz"))
    wheels = sorted(out_dir.glob(f"{PACKAGE}-*.whl"))
    if len(sdists) != 1 or len(wheels) != 1:
        raise SystemExit(f"expected one sdist and one wheel in {out_dir}, found {sdists + wheels}")
    expected = (f"revel_recurring-{version}.tar.gz", f"{PACKAGE}-{version}-py3-none-any.whl")
    if (sdists[0].name, wheels[0].name) != expected:
        raise SystemExit(f"built {sdists[0].name}, {wheels[0].name}; expected {expected}")
    return sdists[0], wheels[0]


def check_sdist_contents(sdist: Path) -> None:
    with tarfile.open(sdist) as archive:
        top = sdist.name.removesuffix(".tar.gz")
        names = {name.removeprefix(f"{top}/") for name in archive.getnames()}
    needed = ("pyproject.toml", "LICENSE", "CHANGELOG.md", "README.md", "PKG-INFO")
    missing = [n for n in (*needed, *REQUIRED_IN_WHEEL, *CATALOGUES) if n not in names]
    if missing:
        raise SystemExit(f"{sdist.name} lacks {missing}")
    print(f"{sdist.name}: {len(names)} files, the package, its catalogues and the LICENSE")


def check_wheel_contents(wheel: Path) -> None:
    archive = zipfile.ZipFile(wheel)
    names = set(archive.namelist())
    missing = [name for name in (*REQUIRED_IN_WHEEL, *CATALOGUES) if name not in names]
    if not any(n.endswith(".dist-info/licenses/LICENSE") for n in names):
        missing.append("*.dist-info/licenses/LICENSE")
    metadata = next(n for n in names if n.endswith(".dist-info/METADATA"))
    metadata_text = archive.read(metadata).decode()
    if "License-Expression: MIT" not in metadata_text:
        missing.append("License-Expression: MIT in METADATA")
    # [project.urls]: the links PyPI shows.
    for label in PROJECT_URLS:
        if f"Project-URL: {label}, https://" not in metadata_text:
            missing.append(f"Project-URL: {label} in METADATA")
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
    print(
        f"{wheel.name}: {len(names)} files, {len(on_disk)} migration modules, py.typed, "
        f"catalogues for {', '.join(LANGUAGES)}"
    )


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


def start(command: list[str | Path], *, cwd: Path, env: dict[str, str], log: Path) -> Any:
    print(f"$ {' '.join(map(str, command))} &", flush=True)
    handle = log.open("w")
    return subprocess.Popen(
        [str(part) for part in command], cwd=cwd, env=env, stdout=handle, stderr=subprocess.STDOUT
    )


def wait_for(log: Path, text: str, *, process: Any, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if text in log.read_text(errors="replace"):
            return
        if process.poll() is not None:
            break
        time.sleep(0.5)
    sys.stdout.write(log.read_text(errors="replace"))
    raise SystemExit(f"'{text}' did not appear in {log.name} (exit code {process.poll()})")


def stop(process: Any) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def check_celery(python: Path, host_dir: Path, env: dict[str, str]) -> None:
    """A worker and beat of the host start on Redis, run the daily task and keep running."""
    celery = python.parent / "celery"
    worker_log, beat_log = host_dir / "worker.log", host_dir / "beat.log"
    worker = start(
        [
            celery,
            "-A",
            "host",
            "worker",
            "--pool=solo",
            "--loglevel=info",
            "--without-mingle",
            "--without-gossip",
            "--hostname",
            f"package-check-{os.getpid()}@%h",
        ],
        cwd=host_dir,
        env=env,
        log=worker_log,
    )
    beat = start(
        [
            celery,
            "-A",
            "host",
            "beat",
            "--loglevel=info",
            "--schedule",
            host_dir / "beat.db",
            "--scheduler",
            "django_celery_beat.schedulers:DatabaseScheduler",
        ],
        cwd=host_dir,
        env=env,
        log=beat_log,
    )
    try:
        wait_for(worker_log, " ready.", process=worker, timeout=60)
        wait_for(beat_log, "beat: Starting", process=beat, timeout=60)
        print(
            run([python, "manage.py", "shell", "-c", RUN_DAILY_TASK], cwd=host_dir, env=env), end=""
        )
        time.sleep(WORKER_SECONDS)
        for name, process, log in (("worker", worker, worker_log), ("beat", beat, beat_log)):
            if process.poll() is not None:
                sys.stdout.write(log.read_text(errors="replace"))
                raise SystemExit(f"the Celery {name} stopped (exit code {process.returncode})")
        print(
            f"Celery worker and beat ran {WORKER_SECONDS:.0f}+ s on {env['REVEL_TEST_REDIS_URL']}"
        )
    finally:
        stop(beat)
        stop(worker)


def check_meta_mistake_is_caught(python: Path, host_dir: Path, env: dict[str, str]) -> None:
    models_py = host_dir / "events" / "models.py"
    models_py.write_text(MODELS_WITHOUT_MIXIN_META.lstrip(), encoding="utf-8")
    result = subprocess.run(
        [str(python), "manage.py", "check"],
        cwd=host_dir,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode == 0 or "revel_recurring.E010" not in result.stderr:
        sys.stdout.write(result.stdout + result.stderr)
        raise SystemExit("check did not report revel_recurring.E010 for a Meta without the mixin's")
    print(
        "check on a Meta without RecurringEventMixin.Meta: revel_recurring.E010, exit "
        f"{result.returncode}"
    )


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
        step("build the sdist, and the wheel from it")
        sdist, wheel = build(work / "dist")
        check_wheel_contents(wheel)
        check_sdist_contents(sdist)

        step("twine check both")
        print(
            run(
                [sys.executable, "-m", "twine", "--no-color", "check", "--strict", sdist, wheel],
                cwd=work,
            )
        )

        step("install it into a fresh venv outside the checkout")
        venv_dir = work / "venv"
        venv.EnvBuilder(with_pip=True, clear=True).create(venv_dir)
        python = venv_dir / "bin" / "python"
        env = clean_env(venv_dir)
        env.setdefault("REVEL_TEST_REDIS_URL", DEFAULT_REDIS_URL)
        run(
            [python, "-m", "pip", "install", "--quiet", f"{wheel}[redis,postgres]"],
            cwd=work,
            env=env,
        )

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
        print(run([*manage, "shell", "-c", GERMAN_SENTENCE], cwd=host_dir, env=env), end="")

        step("a Celery worker and beat of the host on Redis")
        check_celery(python, host_dir, env)

        step("check catches a host Meta that drops RecurringEventMixin.Meta")
        check_meta_mistake_is_caught(python, host_dir, env)

        step("install the sdist into a second fresh venv")
        sdist_venv = work / "venv-sdist"
        venv.EnvBuilder(with_pip=True, clear=True).create(sdist_venv)
        sdist_python = sdist_venv / "bin" / "python"
        sdist_env = clean_env(sdist_venv)
        run([sdist_python, "-m", "pip", "install", "--quiet", sdist], cwd=work, env=sdist_env)
        print(run([sdist_python, "-c", IMPORT_CHECK], cwd=work, env=sdist_env), end="")
        print(f"package check passed: {sdist.name}, {wheel.name}")
        return 0
    finally:
        if options.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
