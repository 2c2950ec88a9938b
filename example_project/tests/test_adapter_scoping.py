"""ExampleAdapter: series are scoped to the organisation of their template."""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser

from example_project.events.adapter import ExampleAdapter
from example_project.events.models import Membership, Organization
from example_project.tests.conftest import MakeTemplate
from revel_recurring.adapter import get_adapter

pytestmark = pytest.mark.django_db


def test_the_example_project_uses_its_adapter() -> None:
    assert isinstance(get_adapter(), ExampleAdapter)


def test_scoping_by_role_in_the_template_organisation(
    django_user_model: Any, organization: Organization, make_template: MakeTemplate
) -> None:
    series = make_template().series
    other_owner = django_user_model.objects.create_user(username="other-owner")
    other = Organization.objects.create(name="Swimmers", slug="swimmers", owner=other_owner)
    make_template(organization=other, name="Swim", slug="swim")

    staff = django_user_model.objects.create_user(username="staff")
    organization.staff.add(staff)
    member = django_user_model.objects.create_user(username="member")
    Membership.objects.create(organization=organization, user=member)
    paused = django_user_model.objects.create_user(username="paused")
    Membership.objects.create(
        organization=organization, user=paused, status=Membership.Status.PAUSED
    )
    stranger = django_user_model.objects.create_user(username="stranger")
    # Being staff of the other organisation as well must not duplicate rows.
    other.staff.add(staff)
    other_series = other.events.get(is_template=True).series

    adapter = ExampleAdapter()
    for user in (organization.owner, staff):
        assert set(adapter.get_visible_series(user)) >= {series}
        assert series in adapter.get_editable_series(user)
    assert list(adapter.get_visible_series(organization.owner)) == [series]
    assert sorted(s.pk for s in adapter.get_visible_series(staff)) == sorted(
        [series.pk, other_series.pk]
    )
    # The template is members-only: active and paused members read it (the digest
    # tells both), neither edits it.
    for reader in (member, paused):
        assert list(adapter.get_visible_series(reader)) == [series]
        assert list(adapter.get_editable_series(reader)) == []
    for nobody in (stranger, AnonymousUser()):
        assert list(adapter.get_visible_series(nobody)) == []
        assert list(adapter.get_editable_series(nobody)) == []
