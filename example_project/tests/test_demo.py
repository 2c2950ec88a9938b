"""`events_demo` and the `make demo NOSERVE=1` flow."""

from __future__ import annotations

import datetime as dt
import os
import re
import runpy
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from io import StringIO
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core import mail
from django.core.management import call_command

from example_project.events.management.commands.events_demo import ADMIN_USERNAME, DEMO_PEOPLE
from example_project.events.models import Event, Notification, Organization, TicketTier
from revel_recurring.models import Enrolment, EventSeries
from revel_recurring.people import BookedPerson

from .conftest import VIENNA

REPO_ROOT = Path(__file__).resolve().parents[2]


def run_demo_command(now: str) -> str:
    out = StringIO()
    call_command("events_demo", now=now, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_events_demo_reuses_what_it_created() -> None:
    first = run_demo_command("2027-02-01T09:00:00+01:00")
    occurrences = Event.objects.filter(series__isnull=False, is_template=False).count()
    second = run_demo_command("2027-02-01T09:00:00+01:00")

    assert "Created series" in first
    assert "Reusing series" in second
    assert EventSeries.objects.count() == 1
    assert Organization.objects.count() == 1
    assert Event.objects.filter(is_template=True).count() == 1
    assert TicketTier.objects.filter(event__is_template=True).count() == 1
    assert occurrences == 8
    assert Event.objects.filter(series__isnull=False, is_template=False).count() == occurrences
    assert "Generated 0 new occurrence(s); 8 materialized in total" in second
    assert "No new dates, so no digest was sent." in second


@pytest.mark.django_db(transaction=True)
def test_events_demo_summary_names_who_was_told_and_who_not() -> None:
    # transaction=True: generation commits and the digest goes out before the
    # command prints its summary, as in `make demo`.
    output = run_demo_command("2027-02-01T09:00:00+01:00")

    told = re.findall(r"^  told      (\w+)", output, flags=re.MULTILINE)
    not_told = re.findall(r"^  not told  (\w+)", output, flags=re.MULTILINE)
    assert told == ["demo", "stefan", "maria", "paul", "fiona", "sam"]
    assert sorted(not_told) == ["clara", "felix", "nora"]
    assert "Digest (public audience): 8 new date(s) told to 6 people" in output
    assert sorted(n.recipient.username for n in Notification.objects.all()) == sorted(told)
    # Each told once, and sam once more: the message of the enrolment the demo seeds.
    enrolled = [m for m in mail.outbox if m.to == ["Sam <sam@example.com>"]]
    assert [m.subject for m in enrolled] == ["Tuesday Evening Run: 2 new dates booked for you"]
    digests = [m.to[0] for m in mail.outbox if m not in enrolled]
    assert sorted(digests) == sorted(f"{u}@example.com" for u in told)


@pytest.mark.django_db
def test_events_demo_seeds_two_booked_dates_and_a_one_off_event_once() -> None:
    first = run_demo_command("2027-02-01T09:00:00+01:00")
    series = EventSeries.objects.get()
    dates = list(series.occurrences().order_by("start"))
    # A week later the window reaches a new Tuesday; nothing more is sold or created.
    second = run_demo_command("2027-02-08T09:00:00+01:00")

    counts = Event.count_bookings_among(list(series.occurrences()))
    # The places sold plus sam's, enrolled on the two booked dates only.
    assert counts == {dates[1].pk: 4, dates[2].pk: 2}
    assert Event.booked_among(dates) == {dates[1].pk, dates[2].pk}
    assert (
        "Booked dates (tickets sold): Tue 9 Feb 2027 18:30 (Europe/Vienna): 4 sold; "
        "Tue 16 Feb 2027 18:30 (Europe/Vienna): 2 sold"
    ) in first
    assert "Booked dates (tickets sold): Tue 9 Feb 2027 18:30 (Europe/Vienna): 4 sold" in second
    # Among the places sold, named holders in two languages and three zones; the rest
    # were sold at the door and name nobody.
    assert Event.people_booked_among(dates) == {
        dates[1].pk: [
            BookedPerson("maria@example.com", "Maria", "de", "Europe/Vienna"),
            BookedPerson("fiona@example.com", "Fiona", "en", "Europe/London"),
            BookedPerson("sam@example.com", "Sam"),
        ],
        dates[2].pk: [
            BookedPerson("jonas@example.org", "Jonas", "de", "America/New_York"),
            BookedPerson("sam@example.com", "Sam"),
        ],
    }
    (enrolment,) = Enrolment.objects.all()
    assert (enrolment.user_pk, enrolment.ends_on) == (
        str(get_user_model().objects.get(username="sam").pk),
        dt.date(2027, 2, 16),
    )
    assert (
        "  ticket of maria@example.com (de, Europe/Vienna): Tue 9 Feb 2027 18:30 (Europe/Vienna)"
        in first
    )
    one_off = Event.objects.get(series__isnull=True)
    assert (one_off.name, one_off.is_template, one_off.status) == (
        "Saturday Long Run",
        False,
        Event.Status.OPEN,
    )
    assert one_off.start.astimezone(VIENNA) == dt.datetime(2027, 2, 6, 9, 0, tzinfo=VIENNA)
    assert TicketTier.objects.filter(event=one_off).count() == 1
    assert "One-off event (no series): Saturday Long Run, Sat 6 Feb 2027 09:00" in first
    assert "/admin/revel_recurring/eventseries/add/" in first


@pytest.mark.django_db
def test_the_demos_one_off_event_starts_a_series_on_the_admins_add_page(
    admin_client: Any,
) -> None:
    run_demo_command("2027-02-01T09:00:00+01:00")
    one_off = Event.objects.get(series__isnull=True)

    page = admin_client.get("/admin/revel_recurring/eventseries/add/")

    choices = page.context["adminform"].form.fields["template_source"].queryset
    assert one_off in choices


@pytest.mark.django_db
def test_events_demo_occurrences_are_tuesdays_1830_vienna_across_dst() -> None:
    # Eight weeks from 2027-02-20 reach past the switch to summer time on 2027-03-28.
    run_demo_command("2027-02-20T09:00:00+01:00")

    starts = list(
        Event.objects.filter(series__isnull=False, is_template=False).values_list(
            "start", flat=True
        )
    )
    assert len(starts) == 8
    for start in starts:
        local = start.astimezone(VIENNA)
        assert (local.weekday(), local.hour, local.minute) == (1, 18, 30)
    assert {start.astimezone(dt.UTC).hour for start in starts} == {17, 16}


@pytest.mark.own_database
def test_demo_script_without_serving(tmp_path: Path) -> None:
    env = dict(os.environ, NOSERVE="1", PORT="8001", EXAMPLE_DB_PATH=str(tmp_path / "demo.sqlite3"))

    result = subprocess.run(
        [sys.executable, str(REPO_ROOT / "scripts" / "demo.py")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )

    assert result.returncode == 0, result.stderr
    dates = re.findall(
        r"Tue \d{1,2} \w{3} \d{4} 18:30 \(Europe/Vienna\) *= \d{4}-\d{2}-\d{2}T1[67]:30:00Z",
        result.stdout,
    )
    assert len(dates) == 8, result.stdout
    assert "NOSERVE set" in result.stdout
    assert re.search(r"log in as 'admin' with password '[^']{12,}'", result.stdout), result.stdout
    assert "  told      maria    active member who also follows the organisation" in result.stdout
    assert "Subject: 8 new events scheduled for Tuesday Evening Run" in result.stdout
    assert (tmp_path / "demo.sqlite3").exists()
    # The seeded bookings and one-off event are in the demo's database.
    with sqlite3.connect(tmp_path / "demo.sqlite3") as db:
        sold = db.execute(
            "SELECT e.start, t.quantity_sold FROM events_tickettier t "
            "JOIN events_event e ON e.id = t.event_id "
            "WHERE t.quantity_sold > 0 AND e.series_id IS NOT NULL ORDER BY e.start"
        ).fetchall()
        one_off = db.execute(
            "SELECT name FROM events_event WHERE series_id IS NULL AND is_template = 0"
        ).fetchall()
    assert [count for _, count in sold] == [4, 2]
    assert one_off == [("Saturday Long Run",)]
    assert "Booked dates (tickets sold): Tue " in result.stdout
    assert "One-off event (no series): Saturday Long Run, Sat " in result.stdout
    # Every URL it prints (and the e-mails' links) names the port it would serve.
    assert "Series page: http://127.0.0.1:8001/series/tuesday-evening-run/" in result.stdout
    assert re.search(r"Admin: http://127\.0\.0\.1:8001/admin/\S+/change/", result.stdout)
    assert "http://127.0.0.1:8001/notifications/" in result.stdout
    assert "http://127.0.0.1:8001/series/tuesday-evening-run/" in _digest_mails(result.stdout)
    assert ":8000" not in result.stdout


def _digest_mails(output: str) -> str:
    return output[output.index("Subject: 8 new events") :]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@pytest.mark.own_database
def test_demo_serves_on_the_port_it_is_given(tmp_path: Path) -> None:
    port = _free_port()
    env = dict(
        os.environ,
        PORT=str(port),
        EXAMPLE_DB_PATH=str(tmp_path / "demo.sqlite3"),
        # runserver's lines arrive as it prints them, not when a pipe buffer fills.
        PYTHONUNBUFFERED="1",
    )
    env.pop("NOSERVE", None)
    # Its own session: runserver's autoreloader starts a child, and both must stop.
    demo = subprocess.Popen(
        [sys.executable, str(REPO_ROOT / "scripts" / "demo.py")],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        assert demo.stdout is not None
        lines = []
        for line in demo.stdout:
            lines.append(line)
            if line.startswith("Quit the server with"):
                break
        printed = "".join(lines)
        assert f"Serving on http://127.0.0.1:{port}/ (Ctrl-C stops it)" in printed, printed
        assert f"Starting development server at http://127.0.0.1:{port}/" in printed
        assert f"Series page: http://127.0.0.1:{port}/series/tuesday-evening-run/" in printed
        page = _get_when_up(f"http://127.0.0.1:{port}/series/tuesday-evening-run/")
        assert "Every week on Tuesday at 18:30 (Europe/Vienna)" in page
    finally:
        os.killpg(demo.pid, signal.SIGTERM)
        demo.wait(timeout=30)


def _get_when_up(url: str, *, attempts: int = 120) -> str:
    # runserver binds its socket just after its banner: poll briefly, no fixed sleep.
    for _ in range(attempts):
        try:
            with urllib.request.urlopen(url, timeout=5) as response:
                body: str = response.read().decode()
                return body
        except OSError:
            time.sleep(0.25)
    raise AssertionError(f"nothing answered on {url}")


@pytest.mark.parametrize("port", ["http", "0", "70000"])
def test_demo_refuses_a_port_that_is_no_port(port: str) -> None:
    demo = runpy.run_path(str(REPO_ROOT / "scripts" / "demo.py"))

    with pytest.raises(SystemExit, match="PORT must be a port number from 1 to 65535"):
        demo["port_from"]({"PORT": port})
    assert demo["port_from"]({}) == 8000
    assert demo["port_from"]({"PORT": "8001"}) == 8001


def test_readme_commands_name_users_the_demo_creates() -> None:
    demo_users = {*DEMO_PEOPLE, ADMIN_USERNAME}
    readmes = [REPO_ROOT / "README.md", REPO_ROOT / "example_project" / "README.md"]
    text = "\n".join(readme.read_text(encoding="utf-8") for readme in readmes)

    token_users = re.findall(r"drf_create_token (\w+)", text)
    # The README's list of the people make demo creates, after "the organisation's owner".
    listed = re.search(r"organisation's owner `(\w+)` and the people[^(]*\(([^)]*)\)", text)

    assert token_users
    assert set(token_users) <= demo_users, token_users
    assert listed is not None
    assert {listed[1], *re.findall(r"`(\w+)`", listed[2])} == set(DEMO_PEOPLE)
