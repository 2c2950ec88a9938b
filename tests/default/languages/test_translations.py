"""The shipped languages: the rule sentence, an API error, the digest and the admin.

Every expected text here is written out by hand, as a reader of the language
writes it; none is produced by the code under test.
"""

# French and Italian write the typographic apostrophe, U+2019 ("jusqu’au").
# ruff: noqa: RUF001, RUF003

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.test import override_settings
from django.utils import translation

from revel_recurring.admin.holidays import describe_holidays
from revel_recurring.describe import describe_spec
from revel_recurring.rules import Frequency, MonthlyType, RuleSpec
from tests.support.admin import change_url, generated_series
from tests.support.api import client, user_with
from tests.support.factories import UTC, VIENNA, yoga_digests

# French puts a no-break space into "18 h 30" and before ";" and ":".
NB = "\u00a0"

# Monday 4 January 2027, 18:30 in Vienna.
MONDAY_EVENING = dt.datetime(2027, 1, 4, 18, 30, tzinfo=VIENNA)
MARCH_8_MORNING = dt.datetime(2027, 3, 8, 9, 0, tzinfo=VIENNA)

RULES: dict[str, dict[str, Any]] = {
    "weekly on three days": {"frequency": Frequency.WEEKLY, "weekdays": (0, 2, 4)},
    "every other week, Tuesday and Sunday": {
        "frequency": Frequency.WEEKLY,
        "interval": 2,
        "weekdays": (6, 1),
    },
    "every third day": {"frequency": Frequency.DAILY, "interval": 3},
    "monthly on the first": {
        "frequency": Frequency.MONTHLY,
        "monthly_type": MonthlyType.DAY_OF_MONTH,
        "day_of_month": 1,
    },
    "every other month on the 15th": {
        "frequency": Frequency.MONTHLY,
        "interval": 2,
        "monthly_type": MonthlyType.DAY_OF_MONTH,
        "day_of_month": 15,
    },
    "monthly on the last day": {
        "frequency": Frequency.MONTHLY,
        "monthly_type": MonthlyType.DAY_OF_MONTH,
        "day_of_month": -1,
    },
    "monthly on the second Tuesday": {
        "frequency": Frequency.MONTHLY,
        "monthly_type": MonthlyType.NTH_WEEKDAY,
        "nth_weekday": 2,
        "weekday": 1,
    },
    "monthly on the last Sunday": {
        "frequency": Frequency.MONTHLY,
        "monthly_type": MonthlyType.NTH_WEEKDAY,
        "nth_weekday": -1,
        "weekday": 6,
    },
    "quarterly on the third-to-last Thursday": {
        "frequency": Frequency.MONTHLY,
        "interval": 3,
        "monthly_type": MonthlyType.NTH_WEEKDAY,
        "nth_weekday": -3,
        "weekday": 3,
    },
    "yearly on 8 March": {"frequency": Frequency.YEARLY, "dtstart": MARCH_8_MORNING},
    "every four years on 1 March": {
        "frequency": Frequency.YEARLY,
        "interval": 4,
        "dtstart": MARCH_8_MORNING.replace(day=1),
    },
    "once": {"frequency": Frequency.DAILY, "count": 1},
    "ten times": {"frequency": Frequency.DAILY, "count": 10},
    "until 1 June": {
        "frequency": Frequency.WEEKLY,
        "until": dt.datetime(2027, 6, 1, 23, 59, tzinfo=VIENNA),
    },
    # Before that day's 18:30, so the sentence names the time as well.
    "until the morning of 11 June": {
        "frequency": Frequency.WEEKLY,
        "until": dt.datetime(2027, 6, 11, 7, 0, tzinfo=VIENNA),
    },
    # 15:30 UTC on Sunday is 00:30 on Monday in Tokyo; the until, 15:00 UTC on
    # 31 March, is midnight of 1 April there, before that day's 00:30.
    "in Tokyo, until 1 April": {
        "frequency": Frequency.WEEKLY,
        "dtstart": dt.datetime(2027, 1, 3, 15, 30, tzinfo=UTC),
        "timezone": "Asia/Tokyo",
        "until": dt.datetime(2027, 3, 31, 15, 0, tzinfo=UTC),
    },
    # 06:15 UTC is 01:15 in New York: the one hour read in the singular.
    "in New York at a quarter past one": {
        "frequency": Frequency.DAILY,
        "dtstart": dt.datetime(2027, 1, 4, 6, 15, tzinfo=UTC),
        "timezone": "America/New_York",
    },
    "with two extra dates": {
        "frequency": Frequency.WEEKLY,
        "extra_dates": frozenset(
            {
                dt.datetime(2027, 1, 9, 17, 30, tzinfo=UTC),
                dt.datetime(2027, 1, 16, 17, 30, tzinfo=UTC),
            }
        ),
    },
}

EXPECTED: dict[str, dict[str, str]] = {
    "weekly on three days": {
        "de": "Jede Woche am Montag, Mittwoch und Freitag um 18:30 Uhr (Europe/Vienna)",
        "fr": (
            "Toutes les semaines le lundi, le mercredi et le vendredi "
            f"à 18{NB}h{NB}30 (Europe/Vienna)"
        ),
        "es": "Todas las semanas el lunes, el miércoles y el viernes a las 18:30 (Europe/Vienna)",
        "it": "Ogni settimana il lunedì, il mercoledì e il venerdì alle 18:30 (Europe/Vienna)",
        "nl": "Elke week op maandag, woensdag en vrijdag om 18:30 (Europe/Vienna)",
    },
    "every other week, Tuesday and Sunday": {
        "de": "Alle 2 Wochen am Dienstag und Sonntag um 18:30 Uhr (Europe/Vienna)",
        "fr": f"Toutes les 2 semaines le mardi et le dimanche à 18{NB}h{NB}30 (Europe/Vienna)",
        "es": "Cada 2 semanas el martes y el domingo a las 18:30 (Europe/Vienna)",
        "it": "Ogni 2 settimane il martedì e la domenica alle 18:30 (Europe/Vienna)",
        "nl": "Om de 2 weken op dinsdag en zondag om 18:30 (Europe/Vienna)",
    },
    "every third day": {
        "de": "Alle 3 Tage um 18:30 Uhr (Europe/Vienna)",
        "fr": f"Tous les 3 jours à 18{NB}h{NB}30 (Europe/Vienna)",
        "es": "Cada 3 días a las 18:30 (Europe/Vienna)",
        "it": "Ogni 3 giorni alle 18:30 (Europe/Vienna)",
        "nl": "Om de 3 dagen om 18:30 (Europe/Vienna)",
    },
    "monthly on the first": {
        "de": "Jeden Monat am 1. um 18:30 Uhr (Europe/Vienna)",
        "fr": f"Tous les mois le 1er à 18{NB}h{NB}30 (Europe/Vienna)",
        "es": "Todos los meses el día 1 a las 18:30 (Europe/Vienna)",
        "it": "Ogni mese il giorno 1 alle 18:30 (Europe/Vienna)",
        "nl": "Elke maand op de 1e om 18:30 (Europe/Vienna)",
    },
    "every other month on the 15th": {
        "de": "Alle 2 Monate am 15. um 18:30 Uhr (Europe/Vienna)",
        "fr": f"Tous les 2 mois le 15 à 18{NB}h{NB}30 (Europe/Vienna)",
        "es": "Cada 2 meses el día 15 a las 18:30 (Europe/Vienna)",
        "it": "Ogni 2 mesi il giorno 15 alle 18:30 (Europe/Vienna)",
        "nl": "Om de 2 maanden op de 15e om 18:30 (Europe/Vienna)",
    },
    "monthly on the last day": {
        "de": "Jeden Monat am letzten Tag um 18:30 Uhr (Europe/Vienna)",
        "fr": f"Tous les mois le dernier jour à 18{NB}h{NB}30 (Europe/Vienna)",
        "es": "Todos los meses el último día a las 18:30 (Europe/Vienna)",
        "it": "Ogni mese l’ultimo giorno alle 18:30 (Europe/Vienna)",
        "nl": "Elke maand op de laatste dag om 18:30 (Europe/Vienna)",
    },
    "monthly on the second Tuesday": {
        "de": "Jeden Monat am zweiten Dienstag um 18:30 Uhr (Europe/Vienna)",
        "fr": f"Tous les mois le deuxième mardi à 18{NB}h{NB}30 (Europe/Vienna)",
        "es": "Todos los meses el segundo martes a las 18:30 (Europe/Vienna)",
        "it": "Ogni mese il secondo martedì alle 18:30 (Europe/Vienna)",
        "nl": "Elke maand op de tweede dinsdag om 18:30 (Europe/Vienna)",
    },
    "monthly on the last Sunday": {
        "de": "Jeden Monat am letzten Sonntag um 18:30 Uhr (Europe/Vienna)",
        "fr": f"Tous les mois le dernier dimanche à 18{NB}h{NB}30 (Europe/Vienna)",
        "es": "Todos los meses el último domingo a las 18:30 (Europe/Vienna)",
        "it": "Ogni mese l’ultima domenica alle 18:30 (Europe/Vienna)",
        "nl": "Elke maand op de laatste zondag om 18:30 (Europe/Vienna)",
    },
    "quarterly on the third-to-last Thursday": {
        "de": "Alle 3 Monate am drittletzten Donnerstag um 18:30 Uhr (Europe/Vienna)",
        "fr": (
            "Tous les 3 mois le troisième jeudi en partant de la fin du mois "
            f"à 18{NB}h{NB}30 (Europe/Vienna)"
        ),
        "es": "Cada 3 meses el antepenúltimo jueves a las 18:30 (Europe/Vienna)",
        "it": "Ogni 3 mesi il terzultimo giovedì alle 18:30 (Europe/Vienna)",
        "nl": "Om de 3 maanden op de op twee na laatste donderdag om 18:30 (Europe/Vienna)",
    },
    "yearly on 8 March": {
        "de": "Jedes Jahr am 8. März um 09:00 Uhr (Europe/Vienna)",
        "fr": f"Tous les ans le 8 mars à 9{NB}h{NB}00 (Europe/Vienna)",
        "es": "Todos los años el 8 de marzo a las 9:00 (Europe/Vienna)",
        "it": "Ogni anno l’8 marzo alle 9:00 (Europe/Vienna)",
        "nl": "Elk jaar op 8 maart om 09:00 (Europe/Vienna)",
    },
    "every four years on 1 March": {
        "de": "Alle 4 Jahre am 1. März um 09:00 Uhr (Europe/Vienna)",
        "fr": f"Tous les 4 ans le 1er mars à 9{NB}h{NB}00 (Europe/Vienna)",
        "es": "Cada 4 años el 1 de marzo a las 9:00 (Europe/Vienna)",
        "it": "Ogni 4 anni il 1° marzo alle 9:00 (Europe/Vienna)",
        "nl": "Om de 4 jaar op 1 maart om 09:00 (Europe/Vienna)",
    },
    "once": {
        "de": "Jeden Tag um 18:30 Uhr (Europe/Vienna), einmal",
        "fr": f"Tous les jours à 18{NB}h{NB}30 (Europe/Vienna), une fois",
        "es": "Todos los días a las 18:30 (Europe/Vienna), una vez",
        "it": "Ogni giorno alle 18:30 (Europe/Vienna), una volta",
        "nl": "Elke dag om 18:30 (Europe/Vienna), één keer",
    },
    "ten times": {
        "de": "Jeden Tag um 18:30 Uhr (Europe/Vienna), 10-mal",
        "fr": f"Tous les jours à 18{NB}h{NB}30 (Europe/Vienna), 10 fois",
        "es": "Todos los días a las 18:30 (Europe/Vienna), 10 veces",
        "it": "Ogni giorno alle 18:30 (Europe/Vienna), 10 volte",
        "nl": "Elke dag om 18:30 (Europe/Vienna), 10 keer",
    },
    "until 1 June": {
        "de": "Jede Woche am Montag um 18:30 Uhr (Europe/Vienna), bis zum 1. Juni 2027",
        "fr": (
            f"Toutes les semaines le lundi à 18{NB}h{NB}30 (Europe/Vienna), jusqu’au 1er juin 2027"
        ),
        "es": "Todas las semanas el lunes a las 18:30 (Europe/Vienna), hasta el 1 de junio de 2027",
        "it": "Ogni settimana il lunedì alle 18:30 (Europe/Vienna), fino al 1° giugno 2027",
        "nl": "Elke week op maandag om 18:30 (Europe/Vienna), tot en met 1 juni 2027",
    },
    "until the morning of 11 June": {
        "de": "Jede Woche am Montag um 18:30 Uhr (Europe/Vienna), bis zum 11. Juni 2027, 07:00 Uhr",
        "fr": (
            f"Toutes les semaines le lundi à 18{NB}h{NB}30 (Europe/Vienna), "
            f"jusqu’au 11 juin 2027 à 7{NB}h{NB}00"
        ),
        "es": (
            "Todas las semanas el lunes a las 18:30 (Europe/Vienna), "
            "hasta el 11 de junio de 2027, 7:00"
        ),
        "it": (
            "Ogni settimana il lunedì alle 18:30 (Europe/Vienna), fino all’11 giugno 2027, ore 7:00"
        ),
        "nl": "Elke week op maandag om 18:30 (Europe/Vienna), tot en met 11 juni 2027 om 07:00",
    },
    "in Tokyo, until 1 April": {
        "de": "Jede Woche am Montag um 00:30 Uhr (Asia/Tokyo), bis zum 1. April 2027, 00:00 Uhr",
        "fr": (
            f"Toutes les semaines le lundi à 0{NB}h{NB}30 (Asia/Tokyo), "
            f"jusqu’au 1er avril 2027 à 0{NB}h{NB}00"
        ),
        "es": (
            "Todas las semanas el lunes a las 0:30 (Asia/Tokyo), hasta el 1 de abril de 2027, 0:00"
        ),
        "it": "Ogni settimana il lunedì alle 0:30 (Asia/Tokyo), fino al 1° aprile 2027, ore 0:00",
        "nl": "Elke week op maandag om 00:30 (Asia/Tokyo), tot en met 1 april 2027 om 00:00",
    },
    "in New York at a quarter past one": {
        "de": "Jeden Tag um 01:15 Uhr (America/New_York)",
        "fr": f"Tous les jours à 1{NB}h{NB}15 (America/New_York)",
        "es": "Todos los días a la 1:15 (America/New_York)",
        "it": "Ogni giorno all’1:15 (America/New_York)",
        "nl": "Elke dag om 01:15 (America/New_York)",
    },
    "with two extra dates": {
        "de": "Jede Woche am Montag um 18:30 Uhr (Europe/Vienna) und an 2 weiteren Terminen",
        "fr": (
            f"Toutes les semaines le lundi à 18{NB}h{NB}30 (Europe/Vienna), "
            "ainsi qu’à 2 dates supplémentaires"
        ),
        "es": "Todas las semanas el lunes a las 18:30 (Europe/Vienna), además de otras 2 fechas",
        "it": "Ogni settimana il lunedì alle 18:30 (Europe/Vienna), più altre 2 date",
        "nl": "Elke week op maandag om 18:30 (Europe/Vienna) en op nog 2 datums",
    },
}

LANGUAGES = ("de", "fr", "es", "it", "nl")


def spec(rule: dict[str, Any]) -> RuleSpec:
    values: dict[str, Any] = {"dtstart": MONDAY_EVENING, "timezone": "Europe/Vienna", **rule}
    return RuleSpec(**values)


def test_every_rule_has_a_sentence_in_every_shipped_language() -> None:
    assert EXPECTED.keys() == RULES.keys()
    assert all(set(sentences) == set(LANGUAGES) for sentences in EXPECTED.values())


@pytest.mark.parametrize("language", LANGUAGES)
@pytest.mark.parametrize("name", RULES)
def test_the_rule_reads_as_a_sentence_of_the_language(name: str, language: str) -> None:
    with translation.override(language):
        assert describe_spec(spec(RULES[name])) == EXPECTED[name][language]


def test_a_language_without_a_catalogue_reads_english() -> None:
    # Swedish ships with Django, not with the app: the sentence stays whole and English
    # rather than mixing in Django's weekday names.
    with translation.override("sv"):
        sentence = describe_spec(spec(RULES["weekly on three days"]))
    assert sentence == "Every week on Monday, Wednesday and Friday at 18:30 (Europe/Vienna)"


LOCALE_MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]


@pytest.mark.django_db
@pytest.mark.urls("tests.api_urls")
@override_settings(MIDDLEWARE=LOCALE_MIDDLEWARE)
def test_an_api_400_speaks_the_language_the_client_accepts(django_user_model: Any) -> None:
    editor = client(user_with(django_user_model, "editor", "add_eventseries"))
    start = dt.datetime(2027, 1, 4, 18, 30, tzinfo=VIENNA)
    body = {
        "name": "Yoga",
        "recurrence": {
            "frequency": "WEEKLY",
            "dtstart": start.isoformat(),
            "timezone": "Mars/Olympus",
            "day_of_month": 4,
        },
        "template": {"title": "Yoga"},
    }

    response = editor.post("/api/recurring/series/", body, format="json", HTTP_ACCEPT_LANGUAGE="de")

    assert response.status_code == 400
    assert response["Content-Language"] == "de"
    assert response.json()["recurrence"] == {
        "timezone": [
            "Unbekannte Zeitzone 'Mars/Olympus'; verwenden Sie einen Namen wie 'Europe/Vienna'."
        ],
        "day_of_month": [
            "Eine wöchentliche Regel verwendet das Feld „Tag des Monats“ nicht; lassen Sie es leer."
        ],
    }


@pytest.mark.django_db
def test_the_digest_speaks_the_language_it_is_read_in() -> None:
    digest, one = yoga_digests()

    with translation.override("de"):
        assert digest.subject == "2 neue Termine für Yoga geplant"
        assert one.subject == "1 neuer Termin für Yoga geplant"
        assert digest.body == (
            "Yoga hat 2 neue Termine:\n"
            "- Mo, 2. Mär 2026, 10:00 (Europe/Vienna)\n"
            "- Mo, 9. Mär 2026, 10:00 (Europe/Vienna)\n"
            "\n"
            "Alle Termine: https://site.example/s/yoga/"
        )
    with translation.override("fr"):
        assert digest.subject == "2 nouvelles dates programmées pour Yoga"
        assert (
            one.body
            == f"Yoga a 1 nouvelle date{NB}:\n- lun 2 mar 2026, 10{NB}h{NB}00 (Europe/Vienna)"
        )


@pytest.mark.django_db
@override_settings(MIDDLEWARE=LOCALE_MIDDLEWARE)
def test_the_admin_change_page_speaks_the_language_of_the_browser(admin_client: Any) -> None:
    series = generated_series(
        name="Yoga",
        dtstart=dt.datetime(2030, 1, 7, 18, 30, tzinfo=VIENNA),
        frequency="WEEKLY",
        weekdays=[0, 3],
    )

    page = admin_client.get(change_url(series), HTTP_ACCEPT_LANGUAGE="de").content.decode()

    assert "Jede Woche am Montag und Donnerstag um 18:30 Uhr (Europe/Vienna)" in page
    assert "Anstehende Termine" in page
    assert "Wiederholungsregel" in page
    assert "Upcoming occurrences" not in page


@pytest.mark.parametrize(
    ("language", "expected"),
    [("en", "None"), ("de", "Keine"), ("fr", "Aucun"), ("es", "Ninguno"), ("it", "Nessuno")],
)
def test_a_series_without_a_holiday_calendar_says_so_in_our_words(
    language: str, expected: str
) -> None:
    # django.contrib.admin translates a bare "None" as "-" in German; ours has a context.
    with translation.override(language):
        assert describe_holidays({}) == expected
