"""Property-based fuzzing of every operation against the served OpenAPI document.

schemathesis (4.x) loads the schema from the WSGI app in-process and sends
generated requests, valid and invalid, as staff of organisation A (token auth).
Path ids are steered onto A's series, B's series (404) or the generated value,
so the deep code paths run too. No answer may be a 5xx, every answer must be
one the schema documents, in the documented shape, and the schema and the
server must agree on what input is valid:

- invalid input (schemathesis' negative cases) is refused (``negative_data_rejection``);
- valid input is accepted (``positive_data_acceptance``), with one allowance: a
  400 whose every message comes from a rule the schema cannot state (a date
  that is not a slot of the rule, an unknown time zone, an id that does not
  exist, a NUL character). The server marks those by their error code
  (``RULE_ERROR_CODE`` for the series' own rules, DRF's ``does_not_exist``,
  ``unique`` and ``null_characters_not_allowed``), read here
  through DRF's exception handler setting. Any other code on valid input (a
  type, a length, a range, an unknown key) is a disagreement and fails.

Nothing here names a field or an operation, so fields added later are held to
the same agreement.
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, Phase
from hypothesis import settings as hypothesis_settings
from rest_framework.authtoken.models import Token
from rest_framework.exceptions import ValidationError
from rest_framework.response import Response
from rest_framework.views import exception_handler
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    positive_data_acceptance,
    response_schema_conformance,
    status_code_conformance,
)

from example_project.tests.api.conftest import World
from example_project.wsgi import application
from revel_recurring.api.serializers import RULE_ERROR_CODE

# Examples per operation: 16 operations take about half a minute on a busy
# two-core machine. Derandomized, so every run sends the same requests; set
# REVEL_FUZZ_EXAMPLES (and REVEL_FUZZ_RANDOM=1) for a longer, different hunt.
EXAMPLES = int(os.environ.get("REVEL_FUZZ_EXAMPLES", "15"))
RANDOM = os.environ.get("REVEL_FUZZ_RANDOM") == "1"

#: Error codes of refusals that depend on the data or on a rule no schema states. A NUL
#: character in a text is one: the app refuses it in its own fields with the rule code,
#: DRF in the host template's text fields with its own.
# "blank": a text of whitespace only (a vertical tab) is trimmed to "" by DRF, which
# the schema's minLength cannot see.
NOT_IN_SCHEMA = frozenset(
    {RULE_ERROR_CODE, "does_not_exist", "unique", "null_characters_not_allowed", "blank"}
)


# Loaded at collection: generating the document reads no database.
schema = schemathesis.openapi.from_wsgi("/api/recurring/schema/?format=json", application)


pytestmark = pytest.mark.django_db

#: The error codes of the last 400 the API raised (see recording_exception_handler).
raised_codes: list[str] = []


def _leaves(codes: Any) -> Iterator[str]:
    if isinstance(codes, dict):
        for value in codes.values():
            yield from _leaves(value)
    elif isinstance(codes, list):
        for value in codes:
            yield from _leaves(value)
    else:
        yield str(codes)


def recording_exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    """DRF's own handler, after noting the codes of a validation error."""
    if isinstance(exc, ValidationError):
        raised_codes[:] = list(_leaves(exc.get_codes()))
    return exception_handler(exc, context)


@pytest.fixture(autouse=True)
def keep_the_test_connection() -> Iterator[None]:
    """Django's WSGI handler closes the connection after each request; the test
    client stops that (the test's transaction lives on it), and so must we."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture(autouse=True)
def record_error_codes(settings: Any) -> None:
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "EXCEPTION_HANDLER": f"{__name__}.recording_exception_handler",
    }


@pytest.fixture
def staff_token(world: World) -> str:
    return Token.objects.create(user=world.a.staff).key


def steer(case: Any, world: World) -> None:
    original = case.path_parameters.get("id") if case.path_parameters else None
    if original is None:
        return
    choice = zlib.crc32(repr(original).encode()) % 4
    if choice < 2:
        case.path_parameters["id"] = world.a.series.pk
    elif choice == 2:
        case.path_parameters["id"] = world.b.series.pk


def valid_input_is_accepted_unless_a_rule_refuses_it(
    ctx: Any, response: Any, case: Any
) -> bool | None:
    """positive_data_acceptance, allowing a 400 that only rules beyond the schema gave."""
    meta = case.meta
    if (
        response.status_code == 400
        and meta is not None
        and meta.generation.mode.is_positive
        and raised_codes
        and set(raised_codes) <= NOT_IN_SCHEMA
    ):
        return None
    return positive_data_acceptance(ctx, response, case)


@schema.parametrize()
@hypothesis_settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=not RANDOM,
    database=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)
def test_every_operation_answers_as_documented_and_never_5xx(
    case: Any, world: World, staff_token: str
) -> None:
    steer(case, world)
    raised_codes.clear()
    case.call_and_validate(
        headers={"Authorization": f"Token {staff_token}"},
        checks=[
            not_a_server_error,
            status_code_conformance,
            content_type_conformance,
            response_schema_conformance,
            negative_data_rejection,
            valid_input_is_accepted_unless_a_rule_refuses_it,
        ],
    )
