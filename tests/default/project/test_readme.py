"""The README is the PyPI page; the documentation site (docs/) holds the rest.

The README keeps what a visitor needs (what it is, install, a short quickstart that
works, links); the checks that guarded the long README's sections now read the
pages those sections moved to (the quickstart, the hooks, the bookings guide).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
README = (ROOT / "README.md").read_text(encoding="utf-8")
DOCS = ROOT / "docs"
QUICKSTART = (DOCS / "quickstart.md").read_text(encoding="utf-8")
# Every Markdown page of the site except the changelog's include and the records.
PAGES = "\n".join(
    p.read_text(encoding="utf-8")
    for p in sorted(DOCS.rglob("*.md"))
    if "_build" not in p.parts and "decisions" not in p.parts
)


def test_links_work_from_pypi() -> None:
    # PyPI shows the README without the repository around it: a relative link to
    # docs/ or DEVELOPERS.md goes nowhere (docs/decisions/0009-readme-for-pypi.md).
    targets = re.findall(r"\]\(([^)]+)\)", README)
    relative = [t for t in targets if not t.startswith(("https://", "http://", "#"))]

    assert relative == []


def test_links_into_the_repository_name_files_it_has() -> None:
    blob = "https://github.com/revel-recurring/revel-recurring/blob/main/"
    targets = [t for t in re.findall(r"\]\(([^)]+)\)", README) if t.startswith(blob)]

    assert len(targets) >= 5
    assert [t for t in targets if not (ROOT / t[len(blob) :].split("#")[0]).is_file()] == []


def test_installing_into_a_site_comes_before_working_on_the_app() -> None:
    install = README.index("## Installing it in a site")
    working = README.index("## Working on revel-recurring")

    assert install < working
    assert README.index("make demo") > working
    assert README.index("make test") > working


def test_readme_links_to_the_documentation_site() -> None:
    # The settings and checks tables moved to the site's generated reference
    # (tests/default/project/test_docs.py checks it covers every setting and check id).
    for page in ("quickstart.md", "concepts/index.md", "index.md", "upgrading.md"):
        assert f"/blob/main/docs/{page})" in README, page
        assert (DOCS / page).is_file(), page
    assert "make docs" in README


def test_reference_pages_render_the_settings_and_checks_from_the_code() -> None:
    settings_page = (DOCS / "reference" / "settings.rst").read_text(encoding="utf-8")
    checks_page = (DOCS / "reference" / "checks.rst").read_text(encoding="utf-8")

    assert ".. revel-settings::" in settings_page
    assert ".. revel-checks::" in checks_page


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
        assert text in PAGES, text


# A snippet whose first line names a file ("# settings.py", "# <app>/models.py") is
# pasted at the end of that file of a fresh `startproject mysite` + `startapp events`;
# one code block may hold several such files (the Celery wiring).
FILE_HEADER = re.compile(r"^# ((?:[\w]+/)?[\w]+\.py)$")
PROJECT_FILE = {"settings.py": "mysite/settings.py", "urls.py": "mysite/urls.py"}


def python_snippets(text: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", text, re.S)


def pasted_files(text: str) -> dict[str, str]:
    files: dict[str, str] = {}
    for snippet in python_snippets(text):
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
    assert len(python_snippets(README)) == 2
    assert len(python_snippets(PAGES)) > 10
    for snippet in python_snippets(README) + python_snippets(PAGES):
        compile(snippet, "snippet", "exec")


def fresh_project(tmp_path: Path, files: dict[str, str]) -> Callable[..., str]:
    """`startproject mysite` + `startapp events` with ``files`` pasted; its runner."""
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
    return run


@pytest.mark.own_database
def test_readme_quickstart_pasted_into_a_fresh_project_makes_a_series(tmp_path: Path) -> None:
    files = pasted_files(README)
    assert set(files) == {"mysite/settings.py", "events/models.py"}
    run = fresh_project(tmp_path, files)

    checked = run("manage.py", "check")
    assert "revel_recurring.E" not in checked
    run("manage.py", "makemigrations", "events")
    run("manage.py", "migrate")
    series_snippet = next(s for s in python_snippets(README) if "create_recurring_series(" in s)
    made = run(
        "manage.py",
        "shell",
        "-c",
        series_snippet
        + "\nfrom zoneinfo import ZoneInfo"
        + "\nlocal = [e.start.astimezone(ZoneInfo('Europe/Vienna')) for e in series.occurrences()]"
        + "\nprint('made', len(local), {(d.weekday(), d.hour, d.minute) for d in local})",
    )
    # The Mondays 18:00 of the next eight weeks: eight, one fewer when today is a
    # Monday past 18:00 (never the past), one more when the window ends on one.
    count, shape = re.findall(r"^made (\d+) (.*)$", made, re.M)[0]
    assert 7 <= int(count) <= 9
    assert shape == "{(0, 18, 0)}"


@pytest.mark.own_database
def test_quickstart_snippets_pasted_into_a_fresh_project_make_a_working_site(
    tmp_path: Path,
) -> None:
    files = pasted_files(QUICKSTART)
    assert set(files) >= {
        "mysite/settings.py",
        "mysite/urls.py",
        "events/models.py",
        "mysite/celery.py",
        "mysite/__init__.py",
    }
    run = fresh_project(tmp_path, files)

    checked = run("manage.py", "check")
    assert "revel_recurring.E" not in checked
    run("manage.py", "makemigrations", "events")
    run("manage.py", "migrate")
    # The API as mounted by the quickstart, on a REST_FRAMEWORK that sets only authentication.
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


@pytest.mark.own_database
def test_spectacular_validates_the_site_schema_of_a_quickstart_project(tmp_path: Path) -> None:
    # The whole site's document, built by drf-spectacular's command from the host's
    # settings: with the quickstart's REST_FRAMEWORK (DRF's own DEFAULT_SCHEMA_CLASS)
    # the app's schema view crashed it with a TypeError.
    run = fresh_project(tmp_path, pasted_files(QUICKSTART))

    run("manage.py", "spectacular", "--validate", "--fail-on-warn", "--file", "schema.yaml")

    document = (tmp_path / "schema.yaml").read_text(encoding="utf-8")
    assert "/api/recurring/series/{id}/split/:" in document
    assert "/api/recurring/schema/:" in document
    assert "/api/recurring/docs/:" not in document  # an HTML page, in no schema


HOOKS = (DOCS / "reference" / "model-hooks.md").read_text(encoding="utf-8")


def test_every_overridable_hook_of_the_mixin_is_documented() -> None:
    from revel_recurring.mixins import RecurringEventMixin

    hooks = ("prepare_occurrence", "clone_related", "clone_related_many", "has_bookings")
    for name in (*hooks, "booked_among"):
        assert callable(getattr(RecurringEventMixin, name)), name
        assert f"`{name}(" in HOOKS, name
