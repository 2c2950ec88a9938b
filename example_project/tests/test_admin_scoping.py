"""The series admin of the example site honours ExampleAdapter's organisation scopes."""

from __future__ import annotations

import datetime as dt
import re
from io import StringIO
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.management import call_command
from django.test import Client

from example_project.events.models import Event, Membership, Organization
from example_project.tests.conftest import MakeTemplate
from revel_recurring.admin.selection import editable_selection
from revel_recurring.models import EventSeries

pytestmark = pytest.mark.django_db

CHANGELIST = "/admin/revel_recurring/eventseries/"


def staff_login(client: Client, user: Any, *codenames: str) -> None:
    user.is_staff = True
    user.save(update_fields=["is_staff"])
    user.user_permissions.add(*Permission.objects.filter(codename__in=codenames))
    client.force_login(user)


def test_staff_of_one_organisation_see_and_run_only_its_series(
    client: Client,
    django_user_model: Any,
    organization: Organization,
    make_template: MakeTemplate,
) -> None:
    runners = make_template(name="Evening Run").series
    other = Organization.objects.create(
        name="Swimmers", slug="swimmers", owner=django_user_model.objects.create_user("o2")
    )
    swim = make_template(organization=other, name="Swim", slug="swim").series
    staff = django_user_model.objects.create_user("staff")
    organization.staff.add(staff)
    staff_login(client, staff, "view_eventseries", "change_eventseries")

    listed = client.get(CHANGELIST)
    foreign = client.get(f"{CHANGELIST}{swim.pk}/change/")
    generate = client.post(f"{CHANGELIST}{swim.pk}/generate/")
    action = client.post(
        CHANGELIST, {"action": "pause_action", "_selected_action": [runners.pk, swim.pk]}
    )

    assert [s.name for s in listed.context["cl"].result_list] == ["Evening Run"]
    assert foreign.status_code == 302  # the admin's "does not exist" redirect
    assert generate.status_code == 404
    assert action.status_code == 302
    runners.refresh_from_db()
    swim.refresh_from_db()
    assert (runners.is_active, swim.is_active) == (False, True)
    assert client.get(f"{CHANGELIST}{runners.pk}/change/").status_code == 200


def test_members_see_their_series_without_buttons(
    client: Client,
    django_user_model: Any,
    organization: Organization,
    make_template: MakeTemplate,
) -> None:
    series = make_template().series
    member = django_user_model.objects.create_user("member")
    Membership.objects.create(organization=organization, user=member)
    # The model permission alone is not enough: ExampleAdapter makes members viewers.
    staff_login(client, member, "view_eventseries", "change_eventseries")

    page = client.get(f"{CHANGELIST}{series.pk}/change/")
    generate = client.post(f"{CHANGELIST}{series.pk}/generate/")

    assert page.status_code == 200
    assert page.context["can_operate"] is False
    assert generate.status_code == 403
    assert not Event.objects.filter(series=series, is_template=False).exists()


def test_demo_prints_a_working_admin_login() -> None:
    out = StringIO()
    call_command("events_demo", now="2027-02-01T09:00:00+01:00", admin=True, stdout=out)
    again = StringIO()
    call_command("events_demo", now="2027-02-01T09:00:00+01:00", admin=True, stdout=again)
    quiet = StringIO()
    call_command("events_demo", now="2027-02-01T09:00:00+01:00", stdout=quiet)

    first = re.search(r"log in as 'admin' with password '([^']+)'", out.getvalue())
    second = re.search(r"log in as 'admin' with password '([^']+)'", again.getvalue())
    assert first
    assert second
    assert first.group(1) != second.group(1)
    url = re.search(r"Admin: http://127\.0\.0\.1:8000(/admin/\S+)", again.getvalue())
    assert url
    client = Client()
    assert not client.login(username="admin", password=first.group(1))
    assert client.login(username="admin", password=second.group(1))
    page = client.get(url.group(1))
    assert page.status_code == 200
    assert "Tuesday Evening Run" in page.content.decode()
    # The demo's story people (the owner too) sign in to the site, never to the admin.
    assert not get_user_model().objects.filter(username="demo", is_staff=True).exists()
    # Without --admin the command leaves the superuser and its password alone.
    assert "password" not in quiet.getvalue()
    assert Client().login(username="admin", password=second.group(1))


def test_add_page_offers_only_events_of_the_organisations_the_user_runs(
    client: Client,
    django_user_model: Any,
    organization: Organization,
) -> None:
    other = Organization.objects.create(
        name="Swimmers", slug="swimmers", owner=django_user_model.objects.create_user("o2")
    )
    start = dt.datetime(2027, 3, 2, 18, 30, tzinfo=dt.UTC)
    ours = Event.objects.create(
        organization=organization,
        name="Run",
        slug="run",
        start=start,
        end=start + dt.timedelta(hours=1),
    )
    theirs = Event.objects.create(
        organization=other, name="Swim", slug="swim", start=start, end=start + dt.timedelta(hours=1)
    )
    staff = django_user_model.objects.create_user("staff")
    organization.staff.add(staff)
    staff_login(client, staff, "add_eventseries", "view_eventseries", "change_eventseries")

    page = client.get(f"{CHANGELIST}add/")
    forged = client.post(
        f"{CHANGELIST}add/",
        {
            "name": "Stolen",
            "is_active": "on",
            "generation_window_weeks": 4,
            "template_source": theirs.pk,
            "frequency": "WEEKLY",
            "interval": 1,
            "weekdays": ["1"],
            "dtstart_0": "2027-03-02",
            "dtstart_1": "18:30",
            "timezone": "Europe/Vienna",
        },
    )

    choices = list(page.context["adminform"].form.fields["template_source"].queryset)
    assert choices == [ours]
    assert forged.status_code == 200  # the form again, with the error on the field
    assert "template_source" in forged.context["adminform"].form.errors
    assert not EventSeries.objects.filter(name="Stolen").exists()


def test_an_action_checks_the_scope_of_a_selection_in_one_query(
    rf: Any,
    django_user_model: Any,
    organization: Organization,
    make_template: MakeTemplate,
) -> None:
    from django.contrib.messages.storage.fallback import FallbackStorage
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    ours = [make_template(name=f"Run {n}", slug=f"run-{n}", tiers=0).series for n in range(4)]
    other = Organization.objects.create(
        name="Swimmers", slug="swimmers", owner=django_user_model.objects.create_user("o2")
    )
    theirs = make_template(organization=other, name="Swim", slug="swim", tiers=0).series
    staff = django_user_model.objects.create_user("staff", is_staff=True)
    organization.staff.add(staff)

    def select(pks: list[int]) -> tuple[list[str], int]:
        request = rf.post(CHANGELIST)
        request.user = staff
        request.session = {}
        request._messages = FallbackStorage(request)
        with CaptureQueriesContext(connection) as queries:
            allowed = editable_selection(
                request, EventSeries.objects.filter(pk__in=pks).order_by("pk")
            )
        return [s.name for s in allowed], len(queries)

    one = select([ours[0].pk, theirs.pk])
    many = select([s.pk for s in ours] + [theirs.pk])

    assert one[0] == ["Run 0"]
    assert many[0] == ["Run 0", "Run 1", "Run 2", "Run 3"]
    assert one[1] == many[1]


def test_staff_of_one_organisation_and_member_of_another_delete_only_their_own(
    client: Client,
    django_user_model: Any,
    organization: Organization,
    make_template: MakeTemplate,
) -> None:
    runners = make_template(name="Evening Run", tiers=0).series
    other = Organization.objects.create(
        name="Swimmers", slug="swimmers", owner=django_user_model.objects.create_user("o2")
    )
    swim = make_template(organization=other, name="Swim", slug="swim", tiers=0).series
    staff = django_user_model.objects.create_user("staff")
    organization.staff.add(staff)
    Membership.objects.create(organization=other, user=staff)
    staff_login(
        client,
        staff,
        "view_eventseries",
        "change_eventseries",
        "delete_eventseries",
        "delete_event",
    )
    selection = {"action": "delete_selected", "_selected_action": [runners.pk, swim.pk]}
    skipped = "Skipped Swim: you may view but not change them; nothing done to them."

    listed = client.get(CHANGELIST)
    own_page = client.get(f"{CHANGELIST}{swim.pk}/delete/")
    confirm = client.post(CHANGELIST, selection)
    done = client.post(CHANGELIST, {**selection, "post": "yes"}, follow=True)

    # Visible (a member sees it) but not deletable, from its own page or the list.
    assert {s.name for s in listed.context["cl"].result_list} == {"Evening Run", "Swim"}
    assert own_page.status_code == 403
    assert [s.pk for s in confirm.context["queryset"]] == [runners.pk]
    assert f'name="_selected_action" value="{swim.pk}"' not in confirm.content.decode()
    assert skipped in [str(m) for m in confirm.context["messages"]]
    assert skipped in [str(m) for m in done.context["messages"]]
    assert "Successfully deleted 1 event series." in [str(m) for m in done.context["messages"]]
    assert list(EventSeries.objects.values_list("name", flat=True)) == ["Swim"]
    assert Event.objects.filter(series=swim, is_template=True).exists()


@pytest.mark.parametrize("action", ["generate_now_action", "pause_action"])
def test_actions_of_staff_who_are_members_elsewhere_skip_and_name_the_other_series(
    client: Client,
    django_user_model: Any,
    organization: Organization,
    make_template: MakeTemplate,
    action: str,
) -> None:
    runners = make_template(name="Evening Run").series
    other = Organization.objects.create(
        name="Swimmers", slug="swimmers", owner=django_user_model.objects.create_user("o2")
    )
    swim = make_template(organization=other, name="Swim", slug="swim").series
    staff = django_user_model.objects.create_user("staff")
    organization.staff.add(staff)
    Membership.objects.create(organization=other, user=staff)
    staff_login(client, staff, "view_eventseries", "change_eventseries")
    before = (swim.is_active, swim.last_generated_until, Event.objects.filter(series=swim).count())

    response = client.post(
        CHANGELIST,
        {"action": action, "_selected_action": [runners.pk, swim.pk], "confirm": "yes"},
        follow=True,
    )

    swim.refresh_from_db()
    assert (
        swim.is_active,
        swim.last_generated_until,
        Event.objects.filter(series=swim).count(),
    ) == before
    assert "Skipped Swim: you may view but not change them; nothing done to them." in [
        str(m) for m in response.context["messages"]
    ]


EVENTS = "/admin/events/event/"


def two_organisations(
    django_user_model: Any, organization: Organization, make_template: MakeTemplate
) -> tuple[Event, Event, Any]:
    """A's template, B's private template, and a user who runs A and is a member of B."""
    ours = make_template(name="Evening Run")
    other = Organization.objects.create(
        name="Swimmers", slug="swimmers", owner=django_user_model.objects.create_user("o2")
    )
    theirs = make_template(
        organization=other,
        name="Secret Swim",
        slug="secret-swim",
        description="Door code 4711.",
        visibility=Event.Visibility.PRIVATE,
    )
    staff = django_user_model.objects.create_user("staff")
    organization.staff.add(staff)
    Membership.objects.create(organization=other, user=staff)
    return ours, theirs, staff


def test_event_admin_lists_and_opens_only_the_events_of_organisations_the_user_runs(
    client: Client,
    django_user_model: Any,
    organization: Organization,
    make_template: MakeTemplate,
) -> None:
    ours, theirs, staff = two_organisations(django_user_model, organization, make_template)
    staff_login(client, staff, "view_event", "change_event", "view_tickettier", "view_organization")

    listed = client.get(EVENTS)
    foreign = client.get(f"{EVENTS}{theirs.pk}/change/")
    foreign_history = client.get(f"{EVENTS}{theirs.pk}/history/")
    own = client.get(f"{EVENTS}{ours.pk}/change/")
    tiers = client.get("/admin/events/tickettier/")
    foreign_tier = client.get(f"/admin/events/tickettier/{theirs.ticket_tiers.get().pk}/change/")
    organisations = client.get("/admin/events/organization/")

    assert [e.pk for e in listed.context["cl"].result_list] == [ours.pk]
    assert foreign.status_code == 302  # the admin's "does not exist" redirect
    assert foreign_history.status_code == 302
    assert "Door code" not in client.get(foreign["Location"], follow=True).content.decode()
    assert own.status_code == 200
    # The inline shows the event's own tiers; the form offers only the user's rows.
    (inline,) = own.context["inline_admin_formsets"]
    assert [form.instance.pk for form in inline.formset.forms] == [ours.ticket_tiers.get().pk]
    form = own.context["adminform"].form
    assert list(form.fields["organization"].queryset) == [organization]
    assert theirs.series_id not in {s.pk for s in form.fields["series"].queryset}
    assert [t.event_id for t in tiers.context["cl"].result_list] == [ours.pk]
    assert foreign_tier.status_code == 302
    assert [o.pk for o in organisations.context["cl"].result_list] == [organization.pk]


def test_event_admin_refuses_moving_an_event_to_another_organisation(
    client: Client,
    django_user_model: Any,
    organization: Organization,
    make_template: MakeTemplate,
) -> None:
    ours, theirs, staff = two_organisations(django_user_model, organization, make_template)
    staff_login(client, staff, "view_event", "change_event", "change_tickettier")
    page = client.get(f"{EVENTS}{ours.pk}/change/")
    form = page.context["adminform"].form
    data = {
        name: value
        for name, value in {**form.initial, "organization": theirs.organization_id}.items()
        if value is not None
    }
    data.update(
        {
            "start_0": "2027-02-02",
            "start_1": "17:30:00",
            "end_0": "2027-02-02",
            "end_1": "19:00:00",
            "rsvp_before_0": "",
            "rsvp_before_1": "",
            "check_in_starts_at_0": "",
            "check_in_starts_at_1": "",
            "ticket_tiers-TOTAL_FORMS": "0",
            "ticket_tiers-INITIAL_FORMS": "0",
        }
    )

    moved = client.post(f"{EVENTS}{ours.pk}/change/", data)

    assert moved.status_code == 200
    assert "organization" in moved.context["adminform"].form.errors
    ours.refresh_from_db()
    assert ours.organization_id == organization.pk


def test_superusers_see_every_organisations_events(
    admin_client: Client,
    django_user_model: Any,
    organization: Organization,
    make_template: MakeTemplate,
) -> None:
    ours, theirs, _staff = two_organisations(django_user_model, organization, make_template)

    listed = admin_client.get(EVENTS)

    assert {e.pk for e in listed.context["cl"].result_list} == {ours.pk, theirs.pk}
    assert admin_client.get(f"{EVENTS}{theirs.pk}/change/").status_code == 200


def test_event_admin_bulk_delete_reaches_only_the_users_organisations(
    client: Client,
    django_user_model: Any,
    organization: Organization,
    make_template: MakeTemplate,
) -> None:
    _ours, theirs, staff = two_organisations(django_user_model, organization, make_template)
    start = dt.datetime(2027, 3, 2, 18, 30, tzinfo=dt.UTC)
    one_off = Event.objects.create(
        organization=theirs.organization,
        name="Gala",
        slug="gala",
        start=start,
        end=start + dt.timedelta(hours=2),
    )
    staff_login(client, staff, "view_event", "delete_event", "delete_tickettier")

    client.post(
        EVENTS, {"action": "delete_selected", "_selected_action": [one_off.pk], "post": "yes"}
    )

    assert Event.objects.filter(pk=one_off.pk).exists()
