"""Every domain error the services raise has its HTTP answer (never a 500)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, OperationalError
from rest_framework import exceptions

import revel_recurring.api.actions
import revel_recurring.api.viewsets
from revel_recurring.api.bodies import ACTION_BODIES
from revel_recurring.api.errors import Conflict, TryAgain, translate
from revel_recurring.api.viewsets import SeriesViewSet
from revel_recurring.exceptions import (
    DuplicateUniqueValueError,
    GenerationWindowError,
    InvalidArgumentError,
    InvalidPropagationError,
    NotAnOccurrenceError,
    NotCancelledError,
    PlanOutdatedError,
    RecurrenceError,
    SeriesBusyError,
    SeriesHasBookingsError,
    SeriesNotFoundError,
    SeriesNotReadyError,
    TemplateProtectedError,
)


@pytest.mark.parametrize(
    ("error", "status", "detail"),
    [
        (ValidationError({"interval": ["bad"]}), 400, {"interval": ["bad"]}),
        (ValidationError({"__all__": ["both"]}), 400, {"non_field_errors": ["both"]}),
        (ValidationError("plain"), 400, ["plain"]),
        (GenerationWindowError("too far"), 400, {"until": ["too far"]}),
        (NotAnOccurrenceError("no slot"), 400, {"occurrence": ["no slot"]}),
        (InvalidPropagationError("nope", field="propagate"), 400, {"propagate": ["nope"]}),
        (
            InvalidPropagationError("bad", errors={"venue": ["unknown"], "slug": ["local"]}),
            400,
            {"venue": ["unknown"], "slug": ["local"]},
        ),
        (InvalidArgumentError("naive now"), 400, {"non_field_errors": ["naive now"]}),
        (RecurrenceError("other"), 400, {"non_field_errors": ["other"]}),
        (SeriesHasBookingsError("booked"), 409, "booked"),
        (NotCancelledError("live"), 409, "live"),
        # The one 409 of a late plan: `plan` null when the change no longer applies.
        (PlanOutdatedError("stale"), 409, {"detail": "stale", "plan": None}),
        (SeriesNotReadyError("no rule"), 409, "no rule"),
        (TemplateProtectedError("template"), 409, "template"),
        (DuplicateUniqueValueError("slug", field="slug"), 409, "slug"),
        (SeriesNotFoundError("gone"), 404, "gone"),
        (SeriesBusyError("busy"), 503, "busy"),
        (IntegrityError("dup"), 409, None),
        (OperationalError("database is locked"), 503, None),
    ],
)
def test_domain_and_database_errors_map_to_4xx_or_503(
    error: Exception, status: int, detail: object
) -> None:
    translated = translate(error)
    assert isinstance(translated, exceptions.APIException)
    assert translated.status_code == status
    if detail is not None:
        assert translated.detail == detail
    if status == 409:
        assert isinstance(translated, Conflict)
    if status == 503:
        assert isinstance(translated, TryAgain)


def test_other_errors_pass_through_untouched() -> None:
    error = OperationalError("no such table: events_event")
    assert translate(error) is error
    bug = KeyError("x")
    assert translate(bug) is bug


def test_rule_errors_carry_the_rule_code_and_model_errors_keep_theirs() -> None:
    from revel_recurring.api.serializers import RULE_ERROR_CODE
    from revel_recurring.exceptions import NotAnOccurrenceError

    domain = translate(NotAnOccurrenceError("2027-01-01T00:00:00Z is not an occurrence."))
    assert isinstance(domain, exceptions.ValidationError)
    assert domain.get_codes() == {"occurrence": [RULE_ERROR_CODE]}
    mixed = translate(
        ValidationError(
            {"title": [ValidationError("Too long.", code="max_length")], "venue": ["Closed."]}
        )
    )
    assert isinstance(mixed, exceptions.ValidationError)
    assert mixed.get_codes() == {"title": ["max_length"], "venue": [RULE_ERROR_CODE]}
    assert mixed.detail == {"title": ["Too long."], "venue": ["Closed."]}


# One error path: the views catch no service error; handle_exception answers them all.

VIEWS = [
    Path(revel_recurring.api.viewsets.__file__),
    *sorted(Path(revel_recurring.api.actions.__file__).parent.glob("*.py")),
]


def _caught(path: Path) -> list[str]:
    """What the ``except`` clauses of a module name, as written."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        f"{path.name}:{node.lineno}: {ast.unparse(node.type)}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ExceptHandler) and node.type is not None
    ]


def test_no_view_catches_a_service_error() -> None:
    caught = [line for path in VIEWS for line in _caught(path)]
    # The feed of a deleted series answers from its tombstone: a read, no service error.
    assert caught == [line for line in caught if line.endswith(": Http404")]
    assert len(caught) == 1


def test_every_action_that_writes_declares_its_body_and_error_keys() -> None:
    writing = {
        action.__name__
        for action in SeriesViewSet.get_extra_actions()
        if {"post", "patch"} & set(getattr(action, "mapping", {}))
    }
    # pause/ and resume/ read no body.
    assert writing - {"pause", "resume"} <= set(ACTION_BODIES)
    assert {"create", "partial_update"} <= set(ACTION_BODIES)
