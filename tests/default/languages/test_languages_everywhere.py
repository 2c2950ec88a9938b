"""Every sentence the app produces follows the active language, on a site like a DRF site.

DRF sites list ``django_filters`` (and ``rest_framework``, ``django_celery_beat``)
before the app in ``INSTALLED_APPS``, as ``tests/settings.py`` does, and Django
lets the catalogue of an app listed earlier win for a message both translate: a
bare "second" then reads "Sekunde" (the unit of time) in a German select of
ordinals. Ambiguous short messages carry a context (``pgettext``), and the tests
here hold every message of the app to its own catalogue under these settings.
"""

# French writes the typographic apostrophe, U+2019 ("d’événements").
# ruff: noqa: RUF001, RUF003

from __future__ import annotations

import gettext
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.conf import settings
from django.test import override_settings
from django.utils import translation

import revel_recurring
from tests.support.admin import CHANGELIST, change_url, mixed_series
from tests.support.language_checks import COLUMNS, FILTERS, LOCALE_MIDDLEWARE, SERIES_COUNT, read

LOCALE = Path(revel_recurring.__file__).resolve().parent / "locale"
LANGUAGES = sorted(path.name for path in LOCALE.iterdir() if path.is_dir())


# The API's own "required" reads as DRF's reads for every other field: same meaning.
SAME_MEANING = {"This field is required."}


def _shipped(language: str) -> dict[Any, str]:
    with (LOCALE / language / "LC_MESSAGES" / "django.mo").open("rb") as handle:
        catalogue: dict[Any, str] = gettext.GNUTranslations(handle)._catalog  # type: ignore[attr-defined]
    return {key: value for key, value in catalogue.items() if key != "" and value}


def _third_party_keys(language: str) -> set[Any]:
    """The messages the catalogues of non-Django apps listed before this one translate.

    Django's own catalogues are left out: the app's admin templates reuse Django's
    messages on purpose, in the meaning Django gives them.
    """
    keys: set[Any] = set()
    for config in apps.get_app_configs():
        if config.name == "revel_recurring":
            break
        if config.name.startswith("django."):
            continue
        mo_file = Path(config.path) / "locale" / language / "LC_MESSAGES" / "django.mo"
        if mo_file.exists():
            with mo_file.open("rb") as handle:
                keys |= set(gettext.GNUTranslations(handle)._catalog)  # type: ignore[attr-defined]
    return keys


def test_the_settings_list_django_filters_before_the_app() -> None:
    installed = list(settings.INSTALLED_APPS)
    assert installed.index("django_filters") < installed.index("revel_recurring")
    assert installed.index("rest_framework") < installed.index("revel_recurring")


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_message_of_the_app_reads_as_an_earlier_app_translates_it(language: str) -> None:
    shadowed = []
    others = _third_party_keys(language)
    with translation.override(language):
        for key, expected in _shipped(language).items():
            if isinstance(key, tuple):
                msgid, index = key
                context, _, text = msgid.rpartition("\x04")
                # Each plural form is reached through a count that selects it.
                count = 1 if index == 0 else 5
                if language == "fr" and index == 0:
                    count = 1
                if context:
                    got = translation.npgettext(context, text, text, count)
                else:
                    got = translation.ngettext(text, text, count)
            else:
                context, _, text = key.rpartition("\x04")
                got = translation.pgettext(context, text) if context else translation.gettext(text)
            if got != expected and key in others and key not in SAME_MEANING:
                shadowed.append(f"{key!r}: {got!r} instead of {expected!r}")
    assert not shadowed, (
        f"{len(shadowed)} messages of the app read as another app translates them in "
        f"{language}; give them a context (pgettext): " + "; ".join(shadowed[:30])
    )


ORDINALS = {
    "de": ["erster", "zweiter", "dritter", "vierter", "fünfter", "letzter", "vorletzter",
           "drittletzter", "viertletzter", "fünftletzter"],
    "fr": ["premier", "deuxième", "troisième", "quatrième", "cinquième", "dernier",
           "avant-dernier", "troisième en partant de la fin", "quatrième en partant de la fin",
           "cinquième en partant de la fin"],
    "nl": ["eerste", "tweede", "derde", "vierde", "vijfde", "laatste", "voorlaatste",
           "op twee na laatste", "op drie na laatste", "op vier na laatste"],
}  # fmt: skip

# The read-only state of a series, as the change page labels it.
STATE_LABELS = {
    "de": ["Regel:", "Termine angelegt bis:", "Nächste Termine kommen hinzu am:",
           "Abgesagte Termine:", "Geparkt am:", "Grund für das Parken:",
           "Regel als iCalendar-Text (RRULE):",
           "Bisher nummerierte Termine (eine Nummer wird nie wiederverwendet):"],
    "fr": ["Règle :", "Dates créées jusqu’au :", "Prochaines dates ajoutées le :",
           "Dates annulées :", "Suspendue le :", "Motif de la suspension :",
           "Règle en texte iCalendar (RRULE) :",
           "Dates numérotées jusqu’ici (un numéro n’est jamais réutilisé) :"],
    "nl": ["Regel:", "Datums aangemaakt tot:", "Volgende datums erbij op:",
           "Geannuleerde datums:", "Stilgezet op:", "Reden van stilzetten:",
           "Regel als iCalendar-tekst (RRULE):",
           "Tot nu toe genummerde data (een nummer wordt nooit hergebruikt):"],
}  # fmt: skip

# What the admin showed before these had labels of their own, in any language.
# ("Description" is French too.)
ENGLISH_LEFTOVERS = ("Is active", "Auto publish", "Next due at", "Last occurrence", "Parked at",
                     "Parked reason", "is active", "Sekunde", "seconde")  # fmt: skip


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["de", "fr", "nl"])
@override_settings(MIDDLEWARE=LOCALE_MIDDLEWARE)
def test_the_which_one_select_offers_ordinals_not_units_of_time(
    admin_client: Any, language: str
) -> None:
    series = mixed_series(name="Yoga")

    page = read(admin_client.get(change_url(series), HTTP_ACCEPT_LANGUAGE=language).content)

    assert page.options["nth_weekday"] == ["---------", *ORDINALS[language]]


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["de", "fr", "nl"])
@override_settings(MIDDLEWARE=LOCALE_MIDDLEWARE)
def test_the_series_list_names_its_columns_filters_and_count_in_the_language(
    admin_client: Any, language: str
) -> None:
    for number in range(5):
        mixed_series(name=f"Yoga {number}")

    page = read(admin_client.get(CHANGELIST, HTTP_ACCEPT_LANGUAGE=language).content)

    assert page.headers[-len(COLUMNS[language]) :] == COLUMNS[language]
    assert page.filters == FILTERS[language]
    assert SERIES_COUNT[language] in page.lines
    assert not [line for line in page.lines if line.startswith(ENGLISH_LEFTOVERS)]


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["de", "fr", "nl"])
@override_settings(MIDDLEWARE=LOCALE_MIDDLEWARE)
def test_the_change_page_labels_the_series_state_in_the_language(
    admin_client: Any, language: str
) -> None:
    series = mixed_series(name="Yoga")

    page = read(admin_client.get(change_url(series), HTTP_ACCEPT_LANGUAGE=language).content)

    labels = [line for line in page.lines if line.endswith(":")]
    start = labels.index(STATE_LABELS[language][0])
    assert labels[start : start + len(STATE_LABELS[language])] == STATE_LABELS[language]
    assert not [line for line in page.lines if line.startswith(ENGLISH_LEFTOVERS)]
