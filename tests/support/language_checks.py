"""Checks of the language a page or an answer is in, shared by the hosts' tests.

``read`` splits a page into the lines a person reads (and the options of each
select, the column headers, the filter titles); ``english_in`` compares a German
rendering with the English one. Nothing here imports a host's models, so every
host's tests use it.
"""

# French writes the typographic apostrophe, U+2019 ("d’événements").
# ruff: noqa: RUF001, RUF003

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from html.parser import HTMLParser
from typing import Any

LOCALE_MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]


class PageText(HTMLParser):
    """The text a person reads on a page, each element's text on its own line; selects apart."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []
        self.options: dict[str, list[str]] = {}
        self.headers: list[str] = []
        self.filters: list[str] = []
        self._select: str | None = None
        self._skip = 0
        self._in: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self._skip += 1
        if tag == "select":
            self._select = dict(attrs).get("name") or ""
            self.options[self._select] = []
        if tag in ("thead", "summary"):
            self._in.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self._skip -= 1
        if tag == "select":
            self._select = None
        if tag in ("thead", "summary") and self._in:
            self._in.pop()

    def handle_data(self, data: str) -> None:
        text = " ".join(data.split())
        if not text or self._skip:
            return
        if self._select is not None:
            self.options[self._select].append(text)
        if "thead" in self._in:
            self.headers.append(text)
        if "summary" in self._in:
            self.filters.append(text)
        self.lines.append(text)


def read(page: bytes) -> PageText:
    parser = PageText()
    parser.feed(page.decode())
    return parser


# The series list in each language, as Django's changelist words it around the app's labels.
COLUMNS = {
    "de": ["Name", "Regel", "Nächster Termin", "Nächste Termine kommen hinzu am", "Anstehend",
           "Abweichend", "Zustand"],
    "fr": ["Nom", "Règle", "Prochaine occurrence", "Prochaines dates ajoutées le", "À venir",
           "Hors règle", "État"],
    "nl": ["Naam", "Regel", "Volgende datum", "Volgende datums erbij op", "Komend",
           "Buiten de regel", "Toestand"],
}  # fmt: skip

FILTERS = {
    "de": ["Nach aktiv", "Nach automatisch veröffentlichen", "Nach geparkt", "Nach Häufigkeit"],
    "fr": ["Par active", "Par publier automatiquement", "Par suspendue", "Par fréquence"],
    "nl": ["Op actief", "Op automatisch publiceren", "Op stilgezet", "Op frequentie"],
}

SERIES_COUNT = {"de": "5 Veranstaltungsserien", "fr": "5 séries d’événements",
                "nl": "5 evenementenreeksen"}  # fmt: skip

# Words a German sentence never holds and most English ones do ("was" is German too).
ENGLISH_WORDS = re.compile(
    r"\b(the|is|are|has|have|not|and|of|this|cannot|give|got|were|no longer|series|date|dates)\b"
)


def is_sentence(text: str) -> bool:
    return len([word for word in text.split() if re.fullmatch(r"[^\W\d_]{2,}[,.;:]?", word)]) >= 3


def leaves(value: Any, path: str = "") -> Iterator[tuple[str, str]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from leaves(item, f"{path}/{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from leaves(item, f"{path}/{index}")
    elif isinstance(value, str):
        yield path, value


def english_in(german: list[str], english: list[str]) -> list[str]:
    """The sentences of ``german`` that read as in ``english`` or hold English words.

    Fails when ``english`` holds no sentence: a comparison of nothing proves nothing.
    """
    assert any(is_sentence(text) for text in english), english
    same = set(english)
    return [
        text
        for text in german
        if is_sentence(text) and (text in same or ENGLISH_WORDS.search(text))
    ]


def assert_no_english_in_german_answers(asks: Iterable[tuple[str, Callable[[str], Any]]]) -> None:
    """Ask each ``(what, ask)`` in English and in German: the same refusal (a 400 or a 409),
    and no English sentence left in the German one."""
    leftovers = {}
    for what, ask in asks:
        english, german = ask("en"), ask("de")
        assert english.status_code in (400, 409), (what, english.status_code, english.json())
        assert german.status_code == english.status_code, what
        found = english_in(
            [text for _, text in leaves(german.json())],
            [text for _, text in leaves(english.json())],
        )
        if found:
            leftovers[what] = found
    assert not leftovers, "\n".join(f"{what}: {found}" for what, found in leftovers.items())
