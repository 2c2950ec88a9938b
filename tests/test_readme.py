"""The README is the PyPI page: written for site developers, and complete."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from revel_recurring import checks as recurring_checks
from revel_recurring.conf import RecurringSettings

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_links_work_from_pypi() -> None:
    # PyPI shows the README without the repository around it: a relative link to
    # docs/ or DEVELOPERS.md goes nowhere (docs/decisions/0009-readme-for-pypi.md).
    targets = re.findall(r"\]\(([^)]+)\)", README)
    relative = [t for t in targets if not t.startswith(("https://", "http://", "#"))]

    assert relative == []


def test_installing_into_a_site_comes_before_working_on_the_app() -> None:
    install = README.index("## Installing it in a site")
    working = README.index("## Working on revel-recurring")

    assert install < working
    assert README.index("make demo") > working
    assert README.index("make test") > working


def test_every_system_check_id_is_documented() -> None:
    source = Path(recurring_checks.__file__).read_text(encoding="utf-8")
    declared = set(re.findall(r"""id=["'](revel_recurring\.[EW]\d{3})["']""", source))

    assert declared
    assert {i for i in declared if f"`{i}`" not in README} == set()


def test_every_setting_is_in_the_settings_table() -> None:
    names = [n for n in vars(RecurringSettings) if n.isupper()]
    table = README[README.index("## Settings") : README.index("## System checks")]

    assert {n for n in names if f"| `REVEL_RECURRING_{n}` |" not in table} == set()
    assert "E009" in table


def test_celery_wiring_and_hook_signatures_are_shown() -> None:
    for text in (
        'app.config_from_object("django.conf:settings", namespace="CELERY")',
        "from .celery import app as celery_app",
        "CELERY_BROKER_URL",
        "celery -A mysite worker",
        "beat --scheduler django_celery_beat.schedulers:DatabaseScheduler",
        "prepare_occurrence(self, *, start, occurrence_index, status)",
        "clone_related(cls, template, occurrences)",
        "has_bookings(self)",
        "booked_among(cls, events)",
        "include_booked",
        "occurrence.slug =",
        "setup_template=",
        "generate=False",
        "replace_template",
        "copy_template_related",
        "RecurringEventQuerySet",
        "message_dict",
    ):
        assert text in README, text


# A snippet whose first line names a file ("# settings.py", "# events/models.py") is
# pasted at the end of that file of a fresh `startproject mysite` + `startapp events`;
# one code block may hold several such files (the Celery wiring).
FILE_HEADER = re.compile(r"^# ((?:[\w]+/)?[\w]+\.py)$")
PROJECT_FILE = {"settings.py": "mysite/settings.py", "urls.py": "mysite/urls.py"}


def python_snippets() -> list[str]:
    return re.findall(r"```python\n(.*?)```", README, re.S)


def pasted_files() -> dict[str, str]:
    files: dict[str, str] = {}
    for snippet in python_snippets():
        current: str | None = None
        for line in snippet.splitlines():
            header = FILE_HEADER.match(line)
            if header:
                current = PROJECT_FILE.get(header.group(1), header.group(1))
                files.setdefault(current, "")
            if current is not None:
                files[current] += line + "\n"
    return files


def test_every_python_snippet_compiles() -> None:
    snippets = python_snippets()

    assert len(snippets) > 10
    for snippet in snippets:
        compile(snippet, "README.md", "exec")


def test_snippets_pasted_into_a_fresh_project_make_a_working_site(tmp_path: Path) -> None:
    files = pasted_files()
    assert set(files) >= {
        "mysite/settings.py",
        "mysite/urls.py",
        "events/models.py",
        "mysite/celery.py",
        "mysite/__init__.py",
    }
    env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{tmp_path}"}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    env.pop("DATABASE_URL", None)

    def run(*args: str) -> str:
        done = subprocess.run(
            [sys.executable, *args], cwd=tmp_path, env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, f"{args}\n{done.stdout}\n{done.stderr}"
        return done.stdout + done.stderr

    run("-m", "django", "startproject", "mysite", ".")
    run("manage.py", "startapp", "events")
    for name, text in files.items():
        with (tmp_path / name).open("a", encoding="utf-8") as target:
            target.write("\n" + text)

    checked = run("manage.py", "check")
    assert "revel_recurring.E" not in checked
    run("manage.py", "makemigrations", "events")
    run("manage.py", "migrate")
    # The API as mounted by the README, on a REST_FRAMEWORK that sets only authentication.
    answered = run(
        "manage.py",
        "shell",
        "-c",
        "from django.test import Client; c = Client(HTTP_HOST='localhost'); "
        "print('answers', c.get('/api/recurring/schema/').status_code, "
        "c.get('/api/recurring/docs/').status_code, "
        "c.get('/api/recurring/series/').status_code)",
    )
    assert re.findall(r"^answers .*$", answered, re.M) == ["answers 200 200 403"]


def test_every_overridable_hook_of_the_mixin_is_documented() -> None:
    from revel_recurring.mixins import RecurringEventMixin

    hooks = ("prepare_occurrence", "clone_related", "clone_related_many", "has_bookings")
    for name in (*hooks, "booked_among"):
        assert callable(getattr(RecurringEventMixin, name)), name
        assert f"`{name}(" in README, name
