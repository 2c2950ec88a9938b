"""The OpenAPI document: valid without warnings, complete, and Swagger UI without a CDN."""

from __future__ import annotations

import re
from io import StringIO
from typing import Any

import pytest
from django.contrib.staticfiles import finders
from django.core.management import call_command
from django.test import Client

from example_project.events.models import Event

pytestmark = pytest.mark.django_db

SCHEMA = "/api/recurring/schema/?format=json"


@pytest.fixture
def schema() -> dict[str, Any]:
    response = Client().get(SCHEMA)
    assert response.status_code == 200
    return response.json()  # type: ignore[no-any-return]


def test_spectacular_validates_the_project_schema_without_warnings(tmp_path: Any) -> None:
    target = tmp_path / "schema.yaml"
    out, err = StringIO(), StringIO()
    call_command(
        "spectacular", "--validate", "--fail-on-warn", "--file", str(target), stdout=out, stderr=err
    )
    assert "/api/recurring/series/{id}/cancel-occurrence/" in target.read_text()
    assert "Warning" not in err.getvalue()


def test_the_served_schema_holds_every_operation_with_its_errors(schema: dict[str, Any]) -> None:
    assert schema["info"]["title"] == "revel-recurring API"
    operations = {
        (path, method): operation
        for path, methods in schema["paths"].items()
        for method, operation in methods.items()
    }
    prefix = "/api/recurring/series/"
    detail = prefix + "{id}/"
    webhooks = "/api/recurring/webhooks/"
    expected = {
        (prefix, "get"),
        (prefix, "post"),
        (detail, "get"),
        (detail, "patch"),
        (detail, "delete"),
        *(
            (detail + a + "/", "post")
            for a in (
                "pause",
                "resume",
                "generate",
                "cancel-stale",
                "cancel-occurrence",
                "restore-occurrence",
                "add-date",
                "remove-date",
                "materialize-date",
                "recurrence-plan",
                "recurrence-apply",
                "split-plan",
                "split",
            )
        ),
        *(
            (detail + a + "/", "get")
            for a in ("drift", "ical", "occurrences", "preview", "template")
        ),
        (detail + "template/", "patch"),
        # Enrolments: the example's events answer book_enrolled.
        (detail + "enrolments/", "get"),
        (detail + "enrolments/", "post"),
        ("/api/recurring/enrolments/", "get"),
        ("/api/recurring/enrolments/{id}/", "get"),
        ("/api/recurring/enrolments/{id}/dates/", "get"),
        *(
            ("/api/recurring/enrolments/{id}/" + a + "/", "post")
            for a in ("end", "skip", "take-back")
        ),
        # The history: operations, one operation, its rows, its revert (plan and apply).
        (detail + "operations/", "get"),
        (detail + "operations/{operation_id}/", "get"),
        (detail + "operations/{operation_id}/rows/", "get"),
        (detail + "operations/{operation_id}/revert/", "get"),
        (detail + "operations/{operation_id}/revert/", "post"),
        # Webhooks: endpoints, their log, a new secret, a resend.
        (webhooks, "get"),
        (webhooks, "post"),
        (webhooks + "{id}/", "get"),
        (webhooks + "{id}/", "put"),
        (webhooks + "{id}/", "patch"),
        (webhooks + "{id}/", "delete"),
        (webhooks + "{id}/deliveries/", "get"),
        (webhooks + "{id}/rotate-secret/", "post"),
        ("/api/recurring/webhook-deliveries/{id}/", "get"),
        ("/api/recurring/webhook-deliveries/{id}/resend/", "post"),
    }
    assert set(operations) == expected
    for (path, method), operation in operations.items():
        codes = set(operation["responses"])
        assert {"401"} <= codes, (path, method)
        if path not in (prefix, webhooks):
            assert {"404"} <= codes, (path, method)
        if method in ("post", "patch") and path != prefix + "{id}/pause/":
            assert "400" in codes or path.endswith(
                ("/pause/", "/resume/", "/rotate-secret/", "/resend/")
            ), (path, method)
        assert operation.get("summary"), (path, method)
    assert "409" in operations[(detail, "delete")]["responses"]
    assert "409" in operations[(detail + "restore-occurrence/", "post")]["responses"]
    create = operations[(prefix, "post")]["requestBody"]["content"]
    assert list(create) == ["application/json"]
    occurrence_params = {
        p["name"] for p in operations[(detail + "occurrences/", "get")]["parameters"]
    }
    assert {
        "date_from_after",
        "date_from_before",
        "status",
        "is_modified",
        "is_future",
        "modified_since",
        "beyond_window",
    } <= occurrence_params
    ical = operations[(detail + "ical/", "get")]["responses"]
    assert list(ical["200"]["content"]) == ["text/calendar"]
    assert "application/json" in ical["404"]["content"]
    recurrence = schema["components"]["schemas"]["RecurrenceCreateRequest"]
    assert "ical" in recurrence["oneOf"][1]["properties"]
    assert "required" not in recurrence
    list_params = {p["name"] for p in operations[(prefix, "get")]["parameters"]}
    assert {"is_active", "auto_publish", "search", "ordering", "page", "page_size"} <= list_params


def test_swagger_ui_is_served_from_local_static_files(schema: dict[str, Any]) -> None:
    response = Client().get("/api/recurring/docs/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "/api/recurring/schema/" in page
    assets = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert assets
    for asset in assets:
        assert not asset.startswith(("http:", "https:", "//")), asset
        assert asset.startswith("/static/drf_spectacular_sidecar/"), asset
        assert finders.find(asset.removeprefix("/static/")), asset


def test_the_schema_documents_booked_dates(schema: dict[str, Any]) -> None:
    components = schema["components"]["schemas"]
    assert components["Occurrence"]["properties"]["has_bookings"]["type"] == "boolean"
    assert "has_bookings" in components["Occurrence"]["required"]
    # COMPONENT_SPLIT_REQUEST names request bodies "<serializer>Request".
    for request in ("CancelStaleRequestRequest", "CancelOccurrenceRequestRequest"):
        flag = components[request]["properties"]["include_booked"]
        assert flag["type"] == "boolean"
        assert flag["default"] is False
    kept = components["CancelStaleResult"]["properties"]["kept_booked"]
    assert kept["items"]["$ref"] == "#/components/schemas/BookedDate"
    assert set(components["BookedDate"]["properties"]) == {"id", "start", "display"}
    operation = schema["paths"]["/api/recurring/series/{id}/cancel-occurrence/"]["post"]
    assert operation["requestBody"]["content"]["application/json"]["schema"]["$ref"] == (
        "#/components/schemas/CancelOccurrenceRequestRequest"
    )
    assert "409" in operation["responses"]


def test_the_schema_states_what_the_server_refuses(schema: dict[str, Any]) -> None:
    components = schema["components"]["schemas"]
    requests = [name for name in components if name.endswith("Request")]
    assert requests
    for name in requests:
        variants = components[name]["oneOf"] if "oneOf" in components[name] else [components[name]]
        assert all(v["additionalProperties"] is False for v in variants), name
    # A new series' rule: its fields, or ical alone.
    fields, ical = components["RecurrenceCreateRequest"]["oneOf"]
    assert {"frequency", "dtstart", "timezone"} <= set(fields["required"])
    assert "ical" not in fields["properties"]
    assert ical["required"] == ["ical"]
    assert list(ical["properties"]) == ["ical"]
    # Every input instant carries the accepted years; outputs are plain date-times.
    until = components["GenerateRequestRequest"]["properties"]["until"]
    assert re.match(until["pattern"], "1900-01-01T00:30:00+01:00")
    for text in ("1899-12-31T23:00:00Z", "3000-01-01T00:00:00Z", "2027-01-01T00:00:00"):
        assert not re.match(until["pattern"], text), text
    assert "pattern" not in components["Series"]["properties"]["last_generated_until"]
    parameters = {
        (path, parameter["name"]): parameter["schema"]
        for path, methods in schema["paths"].items()
        for operation in methods.values()
        for parameter in operation.get("parameters", [])
    }
    in_path = {
        (path, parameter["name"])
        for path, methods in schema["paths"].items()
        for operation in methods.values()
        for parameter in operation.get("parameters", [])
        if parameter["in"] == "path"
    }
    # Every optional query parameter may also be sent empty (read as not sent).
    empty = {"type": "string", "enum": [""]}
    for (path, name), value in list(parameters.items()):
        if (path, name) not in in_path:
            assert value["anyOf"][1] == empty, (path, name)
            parameters[(path, name)] = value["anyOf"][0]
    for path in ("/api/recurring/series/", "/api/recurring/series/{id}/occurrences/"):
        assert parameters[(path, "page")]["minimum"] == 1
        assert parameters[(path, "page_size")]["minimum"] == 1
    assert parameters[("/api/recurring/series/{id}/preview/", "count")]["minimum"] == 1
    since = parameters[("/api/recurring/series/{id}/occurrences/", "modified_since")]
    assert since["pattern"] == until["pattern"]
    for decimal in ("", "-", ".", "-."):
        latitude = components["EventTemplateRequest"]["properties"]["latitude"]
        assert bool(re.match(latitude["pattern"], decimal)) == (decimal == ""), decimal


def test_the_schema_documents_the_change_plan_endpoints(schema: dict[str, Any]) -> None:
    components = schema["components"]["schemas"]
    detail = "/api/recurring/series/{id}/"
    planned = schema["paths"][detail + "recurrence-plan/"]["post"]
    applied = schema["paths"][detail + "recurrence-apply/"]["post"]

    def body(operation: dict[str, Any]) -> str:
        return operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]

    def answer(operation: dict[str, Any], code: str) -> str:
        return operation["responses"][code]["content"]["application/json"]["schema"]["$ref"]

    assert body(planned) == "#/components/schemas/RecurrencePlanRequestRequest"
    assert body(applied) == "#/components/schemas/RecurrenceApplyRequestRequest"
    assert answer(planned, "200") == "#/components/schemas/RecurrencePlanAnswer"
    assert answer(applied, "200") == "#/components/schemas/RecurrenceApplyResult"
    assert answer(applied, "409") == "#/components/schemas/PlanOutdated"
    assert {"400", "403", "404", "409"} <= set(planned["responses"]) & set(applied["responses"])
    apply_body = components["RecurrenceApplyRequestRequest"]
    # The hash under the name the plan answers with, or its earlier name: one of them.
    assert "required" not in apply_body
    for name in ("hash", "plan_hash"):
        assert apply_body["properties"][name]["pattern"] == "^[0-9a-f]{80}$"
    assert apply_body["properties"]["cancel_drift"]["default"] == "none"
    assert components["CancelDriftEnum"]["enum"] == ["none", "unbooked", "all"]
    # Each value says what it does.
    assert (
        "`unbooked` - unbooked: also cancel the drifted dates without bookings"
        in (components["CancelDriftEnum"]["description"])
    )
    # The rule is partial, as a PATCH takes it.
    assert "required" not in components["RecurrenceChangeRequest"]
    plan = components["RecurrencePlan"]
    assert set(plan["required"]) == {
        "changed",
        "cursor_reset",
        "description",
        "rrule_string",
        "timezone",
        "generation_window_weeks",
        "horizon",
        "stay",
        "drift",
        "new",
        "excluded",
        "cancelled_moves",
        "people_told",
        "enrolled",
        "enrolled_new",
        "hash",
    }
    assert set(components["PlannedOccurrence"]["properties"]) == {
        "id",
        "start",
        "local",
        "display",
        "slot",
        "status",
        "is_modified",
        "bookings",
        "booked",
        "enrolled",
        "moves_to",
        "new_slot",
    }
    assert components["PlanOutdated"]["properties"]["plan"]["allOf"][0]["$ref"] == (
        "#/components/schemas/RecurrencePlan"
    )
    # The plan's answer adds the holidays of the months ahead, read-only, not hashed.
    answered = components["RecurrencePlanAnswer"]
    assert set(answered["required"]) == set(plan["required"]) | {"holidays_ahead"}
    ahead = answered["properties"]["holidays_ahead"]["items"]["$ref"]
    assert ahead == "#/components/schemas/HolidayAhead"
    assert set(components["HolidayAhead"]["required"]) == {
        "day",
        "holiday",
        "slot",
        "display",
        "outcome",
        "start",
        "start_display",
        "no_free_day",
        "cancelled",
    }
    patched = components["SeriesUpdateResult"]["properties"]
    assert patched["drift"]["items"]["$ref"] == "#/components/schemas/PlannedOccurrence"
    assert patched["created"]["items"]["$ref"] == "#/components/schemas/Occurrence"


def test_the_schema_documents_splits(schema: dict[str, Any]) -> None:
    components = schema["components"]["schemas"]
    detail = "/api/recurring/series/{id}/"
    split = schema["paths"][detail + "split/"]["post"]
    planned = schema["paths"][detail + "split-plan/"]["post"]
    assert {"201", "400", "403", "404", "409"} <= set(split["responses"])
    assert {"200", "400", "403", "404", "409"} <= set(planned["responses"])
    assert planned["responses"]["200"]["content"]["application/json"]["schema"]["$ref"] == (
        "#/components/schemas/SplitPlanAnswer"
    )
    assert "title" in components["SplitPlanAnswer"]["properties"]
    result = split["responses"]["201"]["content"]["application/json"]["schema"]["$ref"]
    assert result == "#/components/schemas/SplitResult"
    outdated = split["responses"]["409"]["content"]["application/json"]["schema"]["$ref"]
    assert components[outdated.rsplit("/", 1)[1]]["properties"]["plan"]["nullable"] is True
    body = components["SplitRequestRequest"]
    assert body["required"] == ["at"]
    assert body["additionalProperties"] is False
    assert set(body["properties"]) == {
        "at",
        "recurrence",
        "template",
        "name",
        "holidays",
        "hash",
        "plan_hash",
        "notify",
        "cancel_drift",
    }
    # The template takes the host's propagatable fields and refuses every other key.
    template = components["SplitEventTemplateRequest"]
    assert set(template["properties"]) == set(Event.PROPAGATABLE_FIELDS)
    assert template["additionalProperties"] is False
    assert "required" not in template
    for link in ("split_from", "continued_by"):
        field = components["Series"]["properties"][link]
        assert field["nullable"] is True
        assert field["allOf"] == [{"$ref": "#/components/schemas/SeriesLink"}]
    assert set(components["SeriesLink"]["properties"]) == {"id", "url"}


def test_a_bounded_decimals_pattern_accepts_what_the_server_reads(schema: dict[str, Any]) -> None:
    # Latitude -90..90 and longitude -180..180 (the model's validators), sent as strings.
    from rest_framework.exceptions import ValidationError

    from example_project.events.api import EventTemplateSerializer

    fields = EventTemplateSerializer().fields
    components = schema["components"]["schemas"]
    samples = ["", "0", "-0", "7", "007", "89.5", "90", "90.000000", "90.000001", "-90.5"]
    samples += ["179.999999", "180", "-180", "180.1", "181", "-308.0324", ".5", "-.5", "5."]
    samples += ["1000", "-", "."]
    for name in ("latitude", "longitude"):
        for component in ("EventTemplateRequest", "SplitEventTemplateRequest"):
            pattern = components[component]["properties"][name]["pattern"]
            for text in samples:
                try:
                    fields[name].run_validation(text)
                    read = True
                except ValidationError:
                    read = False
                assert bool(re.match(pattern, text)) == read, (component, name, text)


def test_the_schema_documents_extra_dates(schema: dict[str, Any]) -> None:
    components = schema["components"]["schemas"]
    shown = components["Series"]["properties"]["extra_dates"]
    assert (shown["type"], shown["items"]["type"], shown["readOnly"]) == ("array", "string", True)
    instants = components["ExtraDateRequestRequest"]
    assert instants["required"] == ["instant"]
    assert instants["properties"]["instant"]["format"] == "date-time"
    for path in ("add-date", "remove-date"):
        operation = schema["paths"][f"/api/recurring/series/{{id}}/{path}/"]["post"]
        assert operation["requestBody"]["content"]["application/json"]["schema"]["$ref"] == (
            "#/components/schemas/ExtraDateRequestRequest"
        )
        assert {"400", "403", "404", "409"} <= set(operation["responses"])
    # A new series takes them with the rule's fields; ical carries them as RDATE.
    fields, ical = components["RecurrenceCreateRequest"]["oneOf"]
    listed = fields["properties"]["extra_dates"]
    assert listed["items"]["format"] == "date-time"
    assert "extra_dates" not in fields["required"]
    assert "RDATE" in ical["properties"]["ical"]["description"]
    patched = components["RecurrenceUpdateRequest"]["properties"]["extra_dates"]
    assert patched["items"]["format"] == "date-time"
    # The change plan takes them as a PATCH does; a split (which carries them) does not.
    planned = components["RecurrencePlanRequestRequest"]["properties"]["recurrence"]
    assert planned["allOf"][0]["$ref"] == "#/components/schemas/RecurrencePlanChangeRequest"
    plan_change = components["RecurrencePlanChangeRequest"]
    assert plan_change["properties"]["extra_dates"]["items"]["format"] == "date-time"
    assert plan_change["properties"]["extra_dates"]["maxItems"] == 500
    assert "required" not in plan_change
    split = components["SplitPlanRequestRequest"]["properties"]["recurrence"]
    assert split["allOf"][0]["$ref"] == "#/components/schemas/RecurrenceChangeRequest"
    assert "extra_dates" not in components["RecurrenceChangeRequest"]["properties"]
