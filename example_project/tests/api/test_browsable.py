"""The browsable API renders every list, detail and action page for a staff user."""

from __future__ import annotations

import pytest
from django.test import Client

from example_project.tests.api.conftest import API, World, url
from tests.support.browsable import check_prefilled_answer, post_as_prefilled

pytestmark = pytest.mark.django_db

GET_PAGES = ["", "drift", "occurrences", "preview", "template"]
POST_ACTIONS = [
    "pause",
    "resume",
    "generate",
    "cancel-stale",
    "cancel-occurrence",
    "restore-occurrence",
    "add-date",
    "remove-date",
    "recurrence-plan",
    "recurrence-apply",
    "split-plan",
    # Last: it ends the series before the date its form names.
    "split",
]


@pytest.fixture
def browser(world: World) -> Client:
    client = Client()
    client.force_login(world.a.staff)
    return client


def html(response: object) -> str:
    assert response["Content-Type"].startswith("text/html")  # type: ignore[index]
    return response.content.decode()  # type: ignore[attr-defined]


def test_root_list_and_every_read_page_render(world: World, browser: Client) -> None:
    for path in ["/api/recurring/", API, *(url(world.a.series, page) for page in GET_PAGES)]:
        response = browser.get(path, HTTP_ACCEPT="text/html")
        assert response.status_code == 200, path
        assert "Django REST framework" in html(response), path
    detail = html(browser.get(url(world.a.series), HTTP_ACCEPT="text/html"))
    assert world.a.series.name in detail
    assert 'data-method="PATCH"' in detail or "PATCH" in detail


def test_every_action_page_offers_its_form_and_renders_the_result(
    world: World, browser: Client
) -> None:
    for action in POST_ACTIONS:
        path = url(world.a.series, action)
        page = browser.get(path, HTTP_ACCEPT="text/html")
        # POST-only: the page renders with its POST form; JSON clients get a 405.
        assert page.status_code == 200, action
        assert 'name="_content"' in html(page), action
        assert browser.get(path, HTTP_ACCEPT="application/json").status_code == 405, action
        # The form holds a body that works as it stands (tests/support/browsable.py).
        body, answer = post_as_prefilled(browser, path)
        check_prefilled_answer(action, body, answer)
        posted = browser.post(path, "{}", content_type="application/json", HTTP_ACCEPT="text/html")
        assert posted.status_code in (200, 201, 400), action
        assert "Django REST framework" in html(posted), action
    for action in ("pause", "resume", "generate", "cancel-stale"):
        posted = browser.post(
            url(world.a.series, action),
            "{}",
            content_type="application/json",
            HTTP_ACCEPT="text/html",
        )
        assert posted.status_code == 200, action


def test_an_action_page_outside_the_scope_is_a_404(world: World, browser: Client) -> None:
    for action in POST_ACTIONS:
        page = browser.get(url(world.b.series, action), HTTP_ACCEPT="text/html")
        assert page.status_code == 404, action


def test_options_describes_every_route(world: World, browser: Client) -> None:
    paths = [API, *(url(world.a.series, page) for page in GET_PAGES + POST_ACTIONS)]
    for path in paths:
        response = browser.options(path)
        assert response.status_code == 200, path
        assert response.json()["name"], path


def filter_inputs(page: str) -> set[str]:
    """The names of the inputs of the browsable API's Filters form, if it has one."""
    import re

    form = re.search(r'<div class="modal fade" id="filtersModal".*?</form>', page, re.S)
    return set(re.findall(r'name="([a-z_]+)"', form.group(0))) if form else set()


def test_the_filters_form_of_each_page_offers_only_its_own_filters(
    world: World, browser: Client
) -> None:
    listing = html(browser.get(API, HTTP_ACCEPT="text/html"))
    assert {"search", "ordering", "is_active", "auto_publish"} <= filter_inputs(listing)
    occurrences = html(browser.get(url(world.a.series, "occurrences"), HTTP_ACCEPT="text/html"))
    offered = filter_inputs(occurrences)
    assert {"date_from_after", "date_from_before", "status", "is_modified"} <= offered
    assert not offered & {"search", "ordering", "is_active", "auto_publish"}
    detail = html(browser.get(url(world.a.series), HTTP_ACCEPT="text/html"))
    assert filter_inputs(detail) == set()
