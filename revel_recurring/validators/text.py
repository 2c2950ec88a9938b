"""Names and titles are one line of text; no text holds a NUL character."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Mapping
from typing import Any

from django.core.exceptions import ValidationError
from django.core.validators import RegexValidator
from django.utils.translation import gettext as _

#: Characters a name may not hold beyond the C0 and C1 controls (Unicode "Cc"):
#: the line and paragraph separators, which calendar apps and e-mail subjects break
#: lines at too.
_LINE_BREAKING = frozenset({"\u2028", "\u2029"})


def control_character_in(value: str) -> str | None:
    """The first control character (line feed, tab, NUL, DEL, ...) in ``value``, or None."""
    for char in value:
        if char in _LINE_BREAKING or unicodedata.category(char) == "Cc":
            return char
    return None


def _control_character_message(char: str) -> str:
    return _(
        "Remove the control character %(character)s (a line break, tab or the like): "
        "a name is one line of text."
    ) % {"character": f"U+{ord(char):04X}"}


class SingleLineValidator(RegexValidator):
    """Refuses a name or title holding a control character: the validator of one field.

    Names and titles are one line of text: a series' name is a feed's calendar
    name and a template's title every occurrence's SUMMARY, and calendar apps,
    e-mail subjects and admin lists show them on one line. Forms and serializers
    attach :data:`validate_single_line` to such a field;
    :func:`validate_single_line_values` applies it to several fields at once,
    keyed by field. A ``RegexValidator`` so that the API schema states it as the
    field's ``pattern`` (drf-spectacular reads it; ``+``, not ``*``: a blank value
    is the schema's other branch); the message names the character.
    """

    def __init__(self) -> None:
        super().__init__(regex=r"\A[^\x00-\x1f\x7f-\x9f\u2028\u2029]+\Z", code="control_character")

    def __call__(self, value: Any) -> None:
        if isinstance(value, str):
            char = control_character_in(value)
            if char is not None:
                raise ValidationError(_control_character_message(char), code=self.code)


#: The one instance forms, serializers and the services use.
validate_single_line = SingleLineValidator()


def validate_single_line_values(values: Mapping[str, Any], names: Iterable[str]) -> None:
    """:func:`validate_single_line` on each of ``names`` in ``values``, keyed by field.

    The services call it with the names and titles of what they write (the series'
    name and slug, the host's single-line text fields: ``host_model.single_line_fields``).
    """
    errors: dict[str, list[str]] = {}
    for name in names:
        value = values.get(name)
        char = control_character_in(value) if isinstance(value, str) else None
        if char is not None:
            errors[name] = [_control_character_message(char)]
    if errors:
        raise ValidationError(errors)


def validate_no_nul_characters(values: Mapping[str, Any]) -> None:
    """Refuse text containing NUL characters, keyed by field (PostgreSQL cannot store them)."""
    errors = {
        name: [_("Remove the NUL character (\\x00) from this text.")]
        for name, value in values.items()
        if isinstance(value, str) and "\x00" in value
    }
    if errors:
        raise ValidationError(errors)
