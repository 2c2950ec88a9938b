"""Webhooks on the studio (UUID keys, schools as organisations): scoped by school.

A teacher registers endpoints for their school; an endpoint receives its school's
operations (and the site-wide ones every operation), never another school's;
another school's endpoint and its deliveries are a 404.
"""

from __future__ import annotations

from typing import Any

import pytest
from rest_framework.test import APIClient

from revel_recurring.models import WebhookDelivery, WebhookEndpoint
from revel_recurring.services.cancellation import cancel_occurrence
from tests.hosts.studio.models import School, User
from tests.studio.conftest import PASSWORD, MakeSeries
from tests.support.moves import rows_of
from tests.support.people import BookPerson
from tests.support.webhooks import check_delivered_once, receiver

API = "/api/recurring/"


def test_a_cancel_stale_of_many_rows_is_one_signed_delivery_naming_them(
    make_series: MakeSeries, book_person: BookPerson, django_capture_on_commit_callbacks: Any
) -> None:
    check_delivered_once(make_series, book_person, django_capture_on_commit_callbacks)


@pytest.fixture
def other_school(db: Any) -> School:
    return School.objects.create(name="Tango School", slug="tango")


@pytest.fixture
def other_teacher(other_school: School) -> User:
    user = User.objects.create_user("tango@studio.example", PASSWORD)
    other_school.teachers.add(user)
    return user


def _client(user: User) -> APIClient:
    api = APIClient()
    api.force_authenticate(user)
    return api


def test_an_endpoint_receives_its_schools_operations_only(
    school: School,
    other_school: School,
    teacher: User,
    other_teacher: User,
    make_series: MakeSeries,
    book_person: BookPerson,
    django_capture_on_commit_callbacks: Any,
) -> None:
    series = make_series(name="Salsa")
    rows = rows_of(series)
    book_person(rows[1], "anna@people.example")
    with receiver() as server:
        mine = _client(teacher).post(
            f"{API}webhooks/", {"url": server.url + "/salsa"}, format="json"
        )
        theirs = _client(other_teacher).post(
            f"{API}webhooks/", {"url": server.url + "/tango"}, format="json"
        )
        assert mine.status_code == theirs.status_code == 201
        site_wide = WebhookEndpoint.objects.create(url=server.url + "/site")
        with django_capture_on_commit_callbacks(execute=True):
            cancel_occurrence(series, rows[1].recurrence_id, include_booked=True)
        paths = sorted(one.path for one in server.received)
    assert mine.json()["scope"] == f"school:{school.pk}"
    assert theirs.json()["scope"] == f"school:{other_school.pk}"
    assert paths == ["/hook/salsa", "/hook/site"]
    assert {d.endpoint_id for d in WebhookDelivery.objects.all()} == {
        mine.json()["id"],
        site_wide.pk,
    }


def test_another_schools_endpoint_and_deliveries_are_404(
    teacher: User, other_teacher: User
) -> None:
    theirs = (
        _client(other_teacher)
        .post(f"{API}webhooks/", {"url": "https://tango.example/hook"}, format="json")
        .json()
    )
    delivery = WebhookDelivery.objects.create(
        endpoint_id=theirs["id"],
        operation_ref="3f0c3b7e-3a59-4d0e-8f0e-6b8c1a2d4e5f",
        kind="cancel",
        payload={},
    )
    api = _client(teacher)
    assert api.get(f"{API}webhooks/").json()["results"] == []
    for method, path in [
        ("get", f"webhooks/{theirs['id']}/"),
        ("patch", f"webhooks/{theirs['id']}/"),
        ("delete", f"webhooks/{theirs['id']}/"),
        ("get", f"webhooks/{theirs['id']}/deliveries/"),
        ("post", f"webhooks/{theirs['id']}/rotate-secret/"),
        ("get", f"webhook-deliveries/{delivery.pk}/"),
        ("post", f"webhook-deliveries/{delivery.pk}/resend/"),
    ]:
        answer = getattr(api, method)(f"{API}{path}", {}, format="json")
        assert answer.status_code == 404, (method, path, answer.status_code)
    assert WebhookEndpoint.objects.filter(pk=theirs["id"]).exists()
    assert WebhookDelivery.objects.get().status == WebhookDelivery.Status.PENDING


def test_a_member_who_teaches_nowhere_may_not_manage_webhooks(school: School, pupil: User) -> None:
    school.members.add(pupil)
    assert _client(pupil).get(f"{API}webhooks/").status_code == 403


def test_the_admin_shows_a_teacher_their_schools_endpoints_and_log_only(
    school: School, other_school: School
) -> None:
    from django.contrib.auth.models import Permission
    from django.test import Client

    teacher = User.objects.create_user("salsa-admin@studio.example", PASSWORD, is_staff=True)
    school.teachers.add(teacher)
    teacher.user_permissions.add(
        *Permission.objects.filter(
            content_type__app_label="revel_recurring",
            codename__in=["view_webhookendpoint", "add_webhookendpoint", "view_webhookdelivery"],
        )
    )
    mine = WebhookEndpoint.objects.create(url="https://salsa.example/", scope=f"school:{school.pk}")
    theirs = WebhookEndpoint.objects.create(
        url="https://tango.example/", scope=f"school:{other_school.pk}"
    )
    for endpoint in (mine, theirs):
        WebhookDelivery.objects.create(
            endpoint=endpoint,
            operation_ref="3f0c3b7e-3a59-4d0e-8f0e-6b8c1a2d4e5f",
            kind="cancel",
            payload={},
        )
    client = Client()
    client.force_login(teacher)  # type: ignore[arg-type]
    listed = client.get("/admin/revel_recurring/webhookendpoint/")
    assert list(listed.context["cl"].result_list) == [mine]
    log = client.get("/admin/revel_recurring/webhookdelivery/")
    assert [one.endpoint for one in log.context["cl"].result_list] == [mine]
    other = client.get(f"/admin/revel_recurring/webhookendpoint/{theirs.pk}/change/")
    assert other.status_code in (302, 404)
    added = client.post(
        "/admin/revel_recurring/webhookendpoint/add/",
        {"url": "https://salsa.example/second", "active": "on"},
    )
    assert added.status_code == 302
    assert WebhookEndpoint.objects.get(url="https://salsa.example/second").scope == (
        f"school:{school.pk}"
    )
