from __future__ import annotations

import datetime as dt
import json
import os
import re
import subprocess
import sys
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import call_command
from django.test import Client

from example_project.events.models import Event, Membership, Organization
from example_project.tests.conftest import VIENNA, MakeTemplate
from revel_recurring.models import EventSeries
from revel_recurring.services.cancellation import cancel_occurrence

ROOT = str(Path(__file__).resolve().parents[2])


@pytest.mark.django_db
def test_models_match_migrations() -> None:
    call_command("makemigrations", "events", "--check", "--dry-run", verbosity=0)


@pytest.mark.django_db
def test_series_pages_list_the_materialized_dates(client: Client) -> None:
    call_command("events_demo", now="2027-02-01T09:00:00+01:00", stdout=StringIO())

    listing = client.get("/")
    page = client.get("/series/tuesday-evening-run/")

    assert listing.status_code == 200
    assert b"Tuesday Evening Run" in listing.content
    assert page.status_code == 200
    # Named as the app names every date: the wall clock, then the rule's zone.
    assert b"<td>Tue 2 Feb 2027 18:30 (Europe/Vienna)</td>" in page.content
    assert page.content.count(b" 18:30 (Europe/Vienna)</td>") == 8


@pytest.mark.django_db
def test_series_pages_show_the_rule_as_a_sentence_and_the_descriptions(client: Client) -> None:
    call_command("events_demo", now="2027-02-01T09:00:00+01:00", stdout=StringIO())

    listing = client.get("/").content.decode()
    page = client.get("/series/tuesday-evening-run/").content.decode()

    sentence = "Every week on Tuesday at 18:30 (Europe/Vienna)"
    assert f"by Vienna Runners: {sentence}</li>" in listing
    assert f'<p class="rule">{sentence}</p>' in page
    assert "RRULE" not in page
    assert "DTSTART" not in page
    # The series' own description, then what every date's template says.
    assert "<p>An easy 8 km loop along the Prater Hauptallee, every Tuesday.</p>" in page
    assert "<p>Meet at the Lusthaus. All paces welcome; headlamps after October.</p>" in page


@pytest.mark.django_db
def test_series_page_strikes_through_cancelled_dates_only(client: Client) -> None:
    call_command("events_demo", now="2027-02-01T09:00:00+01:00", stdout=StringIO())
    series = EventSeries.objects.get(slug="tuesday-evening-run")
    # 9 and 16 Feb are the demo's booked dates: the 23rd is free to cancel.
    cancel_occurrence(series, dt.datetime(2027, 2, 23, 18, 30, tzinfo=VIENNA))

    page = client.get("/series/tuesday-evening-run/").content.decode()

    assert (
        '<tr class="cancelled"><td>4</td><td><s>Tue 23 Feb 2027 18:30 (Europe/Vienna)</s></td>'
        "<td>Cancelled</td></tr>"
    ) in page
    assert page.count("<s>") == 1
    assert page.count('class="cancelled"') == 1
    assert "<tr><td>1</td><td>Tue 2 Feb 2027 18:30 (Europe/Vienna)</td><td>Open</td></tr>" in page


@pytest.mark.django_db
def test_language_switcher_offers_the_site_languages_and_remembers_the_choice(
    client: Client,
) -> None:
    call_command("events_demo", now="2027-02-01T09:00:00+01:00", stdout=StringIO())
    url = "/series/tuesday-evening-run/"

    english = client.get(url).content.decode()
    switched = client.post("/i18n/setlang/", {"language": "de", "next": url})
    german = client.get(url).content.decode()

    assert '<html lang="en">' in english
    assert '<form action="/i18n/setlang/" method="post" id="language-switcher">' in english
    assert f'<input type="hidden" name="next" value="{url}">' in english
    offered = re.findall(r'<option value="(\w+)" lang="\w+"( selected)?>([^<]+)</option>', english)
    assert offered == [
        ("en", " selected", "English"),
        ("de", "", "Deutsch"),
        ("fr", "", "français"),
        ("es", "", "español"),
        ("it", "", "italiano"),
        ("nl", "", "Nederlands"),
    ]
    assert switched.status_code == 302
    assert switched["Location"] == url
    assert '<html lang="de">' in german
    assert '<option value="de" lang="de" selected>Deutsch</option>' in german
    # The rule sentence follows the language (its weekday names at least: Django's
    # own catalogue translates them).
    assert "Dienstag" in german


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("accept", "lang", "weekday"),
    [("fr-FR,fr;q=0.9", "fr", "mardi"), ("es", "es", "martes"), ("nl", "nl", "dinsdag")],
)
def test_pages_follow_the_browsers_language(
    client: Client, accept: str, lang: str, weekday: str
) -> None:
    call_command("events_demo", now="2027-02-01T09:00:00+01:00", stdout=StringIO())

    page = client.get("/series/tuesday-evening-run/", HTTP_ACCEPT_LANGUAGE=accept)

    assert f'<html lang="{lang}">'.encode() in page.content
    assert weekday in page.content.decode()
    assert page["Content-Language"] == lang


@pytest.mark.django_db
def test_admin_pages_render(admin_client: Client) -> None:
    call_command("events_demo", now="2027-02-01T09:00:00+01:00", stdout=StringIO())

    template = Event.objects.get(is_template=True)
    urls = [
        "/admin/events/event/",
        "/admin/events/event/add/",
        f"/admin/events/event/{template.pk}/change/",
        f"/admin/events/organization/{template.organization_id}/change/",
        "/admin/events/tickettier/",
        "/admin/events/notificationpreference/add/",
        "/admin/events/digestrecord/",
    ]
    for url in urls:
        assert admin_client.get(url).status_code == 200, url


@pytest.mark.django_db
def test_admin_refuses_to_delete_a_series_template(admin_client: Client) -> None:
    call_command("events_demo", now="2027-02-01T09:00:00+01:00", stdout=StringIO())
    template = Event.objects.templates().get()
    occurrence = Event.objects.occurrences().first()
    assert occurrence is not None

    page = admin_client.post(f"/admin/events/event/{template.pk}/delete/", {"post": "yes"})
    bulk = admin_client.post(
        "/admin/events/event/",
        {"action": "delete_selected", "_selected_action": [template.pk, occurrence.pk]},
    )

    assert page.status_code == 200
    assert b"the template of series" in page.content
    assert bulk.status_code == 200
    assert b"the template of series" in bulk.content
    assert Event.objects.filter(pk__in=[template.pk, occurrence.pk]).count() == 2


def _settings_in_subprocess(**env: str) -> dict[str, object]:
    code = (
        "import json; from django.conf import settings as s; print(json.dumps({"
        "'engine': s.DATABASES['default']['ENGINE'], 'name': s.DATABASES['default']['NAME'],"
        "'eager': s.CELERY_TASK_ALWAYS_EAGER, 'broker': s.CELERY_BROKER_URL}))"
    )
    environment = {
        key: value
        for key, value in os.environ.items()
        if key not in {"DATABASE_URL", "CELERY_BROKER_URL", "EXAMPLE_DB_PATH"}
    }
    environment.update(env, DJANGO_SETTINGS_MODULE="example_project.settings", PYTHONPATH=ROOT)
    output = subprocess.run(
        [sys.executable, "-c", code], env=environment, capture_output=True, text=True, check=True
    ).stdout
    result: dict[str, object] = json.loads(output)
    return result


@pytest.mark.own_database
def test_settings_default_to_sqlite_and_eager_celery() -> None:
    values = _settings_in_subprocess()

    assert values["engine"] == "django.db.backends.sqlite3"
    assert values["name"] == str(Path(ROOT) / "example_project" / "db.sqlite3")
    assert values["eager"] is True


@pytest.mark.own_database
def test_settings_follow_database_url_and_broker_url() -> None:
    values = _settings_in_subprocess(
        DATABASE_URL="postgres://postgres@127.0.0.1:5432/example",
        CELERY_BROKER_URL="redis://127.0.0.1:6379/0",
    )

    assert values["engine"] == "django.db.backends.postgresql"
    assert values["name"] == "example"
    assert values["eager"] is False
    assert values["broker"] == "redis://127.0.0.1:6379/0"


def test_system_checks_pass() -> None:
    # revel_recurring's own checks (E001...) included: the host is wired correctly.
    call_command("check", fail_level="WARNING", stdout=StringIO())


@pytest.mark.django_db(transaction=True)
def test_migrations_apply_from_zero_and_forward() -> None:
    call_command("migrate", "events", "zero", verbosity=0)
    call_command("migrate", "revel_recurring", "zero", verbosity=0)
    call_command("migrate", verbosity=0)
    call_command("events_demo", now="2027-02-01T09:00:00+01:00", stdout=StringIO())
    assert Event.objects.filter(series__isnull=False, is_template=False).count() == 8


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("visibility", "anonymous", "stranger", "member"),
    [
        (Event.Visibility.PUBLIC, 200, 200, 200),
        (Event.Visibility.UNLISTED, 200, 200, 200),
        (Event.Visibility.MEMBERS_ONLY, 404, 404, 200),
        # Beyond the open levels the page follows ExampleAdapter.get_visible_series,
        # whose policy is the digest's: staff-only and private reach staff alone.
        (Event.Visibility.STAFF_ONLY, 404, 404, 404),
        (Event.Visibility.PRIVATE, 404, 404, 404),
    ],
)
def test_series_page_is_shown_only_to_who_may_see_the_series(
    client: Client,
    django_user_model: Any,
    organization: Organization,
    make_template: MakeTemplate,
    visibility: str,
    anonymous: int,
    stranger: int,
    member: int,
) -> None:
    template = make_template(visibility=visibility)
    url = f"/series/{template.series.slug}/"
    outsider = django_user_model.objects.create_user("stranger")
    insider = django_user_model.objects.create_user("member")
    Membership.objects.create(organization=organization, user=insider)
    staff = django_user_model.objects.create_user("staff")
    organization.staff.add(staff)

    seen = [client.get(url).status_code]
    for user in (outsider, insider, staff):
        client.force_login(user)
        seen.append(client.get(url).status_code)

    # Staff run the series (the digest links them here), whatever its visibility.
    assert seen == [anonymous, stranger, member, 200]


@pytest.mark.django_db
def test_series_page_lists_the_later_dates_beyond_the_window_capped(
    client: Client, settings: Any
) -> None:
    call_command("events_demo", now="2027-02-01T09:00:00+01:00", stdout=StringIO())
    settings.REVEL_RECURRING_BEYOND_WINDOW_DATES = 4
    series = EventSeries.objects.get(slug="tuesday-evening-run")
    cursor = series.last_generated_until
    assert cursor is not None

    page = client.get("/series/tuesday-evening-run/").content.decode()

    later = re.findall(r"<li>(Tue [^<]+)</li>", page)
    assert len(later) == 4
    # Each a Tuesday at 18:30 after the last materialized one, none of them a row.
    assert all(when.endswith(" 18:30 (Europe/Vienna)") for when in later)
    assert page.count(" 18:30 (Europe/Vienna)</td>") == 8
    assert not set(later) & set(re.findall(r"<td>(Tue [^<]+)</td>", page))

    settings.REVEL_RECURRING_BEYOND_WINDOW_DATES = 0
    assert "<li>Tue " not in client.get("/series/tuesday-evening-run/").content.decode()
