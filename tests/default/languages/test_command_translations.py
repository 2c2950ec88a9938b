"""The management commands speak the language of the settings.

Django runs a command with ``settings.LANGUAGE_CODE`` active: since Django 2.1
(ticket #17379) ``BaseCommand.execute`` no longer deactivates translations, and
nothing activates another language in a command's process, so ``gettext`` falls
back to ``LANGUAGE_CODE``. ``override_settings`` resets that fallback, which is
how a site whose ``LANGUAGE_CODE`` is ``"de"`` runs them. Every expected line
here is written out by hand, as a reader of the language writes it.
"""

# French writes the typographic apostrophe, U+2019 ("jusqu’au").
# ruff: noqa: RUF001, RUF003

from __future__ import annotations

from io import StringIO

import pytest
from django.core.management import CommandError, call_command, load_command_class
from django.test import override_settings
from django_celery_beat.models import PeriodicTask

from revel_recurring.beat import PERIODIC_TASK_NAME
from revel_recurring.holiday_rules import data_version
from tests.default.holidays.test_holidays_command import day_of, display, section
from tests.default.holidays.test_holidays_command import run as holidays_run
from tests.default.plans.test_plan_command import book, run, tue_thu_class
from tests.hosts.testapp.models import Seat
from tests.support.factories import holiday_class, make_series, occurrences
from tests.support.holidays import OLD_RELEASE, TEST_DAY, generated_with, newer_holiday_data

pytestmark = pytest.mark.django_db

NB = "\u00a0"


@override_settings(LANGUAGE_CODE="de")
def test_generate_reports_in_german() -> None:
    make_series(name="Yoga"), make_series(name="Pilates")
    out = StringIO()

    call_command("revel_recurring_generate", stdout=out)

    assert out.getvalue().splitlines() == [
        "[1/2] Yoga: 8 angelegt (insgesamt 8)",
        "[2/2] Pilates: 8 angelegt (insgesamt 16)",
        "Verarbeitete Serien: 2, übersprungen (ohne Vorlage): 0, fehlgeschlagen: 0. "
        "Angelegte Termine: 16.",
    ]


@override_settings(LANGUAGE_CODE="de")
def test_generate_refuses_unknown_ids_in_german() -> None:
    with pytest.raises(CommandError) as one:
        call_command("revel_recurring_generate", "--series", "424242", stdout=StringIO())
    with pytest.raises(CommandError) as two:
        call_command("revel_recurring_generate", "--series", "424242", "7", stdout=StringIO())

    assert str(one.value) == "Keine aktive Serie mit Regel hat die ID 424242"
    assert str(two.value) == "Keine aktive Serie mit Regel hat die IDs 7, 424242"


@override_settings(LANGUAGE_CODE="de")
def test_beat_reports_in_german() -> None:
    PeriodicTask.objects.filter(name=PERIODIC_TASK_NAME).delete()  # migrate created it
    first, second, third = StringIO(), StringIO(), StringIO()

    call_command("revel_recurring_beat", stdout=first)
    call_command("revel_recurring_beat", stdout=second)
    call_command("revel_recurring_beat", "--reset", stdout=third)

    assert first.getvalue() == (
        "Periodische Aufgabe „revel_recurring: generate all series“ angelegt.\n"
    )
    assert second.getvalue() == (
        "Periodische Aufgabe „revel_recurring: generate all series“ ist bereits vorhanden "
        "und bleibt unverändert.\n"
    )
    assert third.getvalue() == (
        "Periodische Aufgabe „revel_recurring: generate all series“ auf die Standardwerte "
        "zurückgesetzt.\n"
    )


@override_settings(LANGUAGE_CODE="de")
def test_plan_shows_its_plan_in_german() -> None:
    series = tue_thu_class()
    thursdays = [row for row in occurrences(series) if row.starts_at.weekday() == 3]
    book(thursdays[0], 1)
    book(thursdays[1], 3)

    text = run(str(series.pk), "--set", "weekdays=1")

    lines = text.splitlines()
    assert lines[0] == f"Plan für Evening class (Serie {series.pk})"
    assert lines[1] == "  Regel: Jede Woche am Dienstag um 18:30 Uhr (Europe/Vienna)"
    assert lines[2] == "  Änderungen: weekdays"
    assert lines[3] == (
        "  Erzeugungscursor: wird zurückgesetzt; das Fenster wird nach der neuen Regel neu erzeugt"
    )
    assert lines[4].startswith("  Fenster: 4 Wochen, bis ")
    assert "Abweichend (passen nicht mehr zur Regel): 4" in lines
    assert "  Termin" in text
    assert "Buchungen  geändert  ID" in text
    assert "1 Buchung " in text
    assert "3 Buchungen " in text
    assert "mit --cancel-drift abgesagt" in text
    assert lines[-1] == (
        "  Abweichende Termine ohne Buchungen, die ein neues Datum haben, werden dorthin "
        "verschoben. Mit --cancel-drift unbooked die 2 abweichenden Termine ohne Buchungen "
        "absagen, die keines haben, oder --cancel-drift all. Ohne --cancel-drift all "
        "bleiben 2 gebuchte Termine, wo sie sind."
    )


@override_settings(LANGUAGE_CODE="fr")
@pytest.mark.parametrize(
    ("weeks", "window"),
    [("1", f"  Fenêtre{NB}: 1 semaine, jusqu’au "), ("3", f"  Fenêtre{NB}: 3 semaines, jusqu’au ")],
)
def test_plan_counts_weeks_in_french(weeks: str, window: str) -> None:
    series = tue_thu_class()

    lines = run(str(series.pk), "--set", f"generation_window_weeks={weeks}").splitlines()

    assert lines[0] == f"Plan pour Evening class (série {series.pk})"
    assert lines[1] == (
        f"  Règle{NB}: Toutes les semaines le mardi et le jeudi à 18{NB}h{NB}30 (Europe/Vienna)"
    )
    assert next(line for line in lines if line.startswith("  Fenêtre")).startswith(window)


@override_settings(LANGUAGE_CODE="fr")
def test_a_plan_command_mistake_is_explained_in_french() -> None:
    with pytest.raises(CommandError) as raised:
        run("1", "--set", "interval=two")

    assert str(raised.value) == f"--set interval{NB}: 'two' n’est pas un nombre entier."


def test_english_stays_the_default() -> None:
    make_series(name="Yoga")
    out = StringIO()

    call_command("revel_recurring_generate", "--dry-run", stdout=out)

    assert out.getvalue().splitlines()[-1] == (
        "Series processed: 1, skipped (no template): 0, failed: 0. "
        "Occurrences that would be created: 8."
    )


@override_settings(LANGUAGE_CODE="de")
def test_holidays_lists_the_changed_dates_in_german() -> None:
    series = holiday_class()
    rows = occurrences(series)
    Seat.objects.create(event=rows[2], label="Row 1", quantity=10, booked=1)
    generated_with(series)

    with newer_holiday_data([day_of(rows[1]), day_of(rows[2])]):
        text = holidays_run()

    assert text.startswith(
        f"1 Serie wurde mit einer anderen Version von holidays erzeugt als der installierten "
        f"{data_version()}; die Termine von 1 ändern sich."
    )
    assert f"Monday yoga (Serie {series.pk}): erzeugt mit holidays {OLD_RELEASE}" in text
    assert section(
        text, "Abweichend (ein Feiertag lässt sie jetzt ausfallen oder verschiebt sie)"
    ) == [
        ["Termin", "Feiertag", "Buchungen", "beim Anwenden"],
        [display(rows[1]), TEST_DAY, "-", "abgesagt"],
        [display(rows[2]), TEST_DAY, "1 Buchung", "bleibt (gebucht)"],
    ]
    assert "Neu (beim Anwenden angelegt): 0" in text
    assert "Genau diesen Plan anwenden mit:" in text


@override_settings(LANGUAGE_CODE="de")
@pytest.mark.parametrize(
    ("command", "description", "option"),
    [
        (
            "revel_recurring_generate",
            "Legt fällige Termine jetzt an, synchron (ohne Celery).",
            "Zeigt, was angelegt würde; schreibt nichts.",
        ),
        (
            "revel_recurring_plan",
            "Zeigt, was eine Änderung der Regel, des Fensters oder der zusätzlichen Termine",
            "ID oder Slug der Serie.",
        ),
        (
            "revel_recurring_beat",
            "Legt die django-celery-beat-Aufgabe für die tägliche Erzeugung an, wenn sie fehlt.",
            "Stellt den Zeitplan aus REVEL_RECURRING_BEAT_CRONTAB wieder her",
        ),
        (
            "revel_recurring_holidays",
            "Listet die Serien, die mit einer anderen Version des Pakets holidays erzeugt",
            "Wendet den Plan jeder Serie an (gebuchte Termine bleiben und werden genannt).",
        ),
    ],
)
def test_help_is_in_german(command: str, description: str, option: str) -> None:
    parser = load_command_class("revel_recurring", command).create_parser("manage.py", command)

    # argparse wraps lines at the terminal's width: compare the words.
    text = " ".join(parser.format_help().split())

    assert description in text
    assert option in text
