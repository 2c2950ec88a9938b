"""The browsable API's POST forms, read and posted as a person in a browser would.

Each action's page (GET with ``Accept: text/html``) holds DRF's raw-data form, a
``<textarea name="_content">`` prefilled by the app (``revel_recurring/api/prefill.py``).
:func:`post_as_prefilled` posts that text unchanged; :func:`check_prefilled_answer`
holds the answer to what the issue asks: a 2xx, or a 400 whose every key is a field
the person must fill in ("This field is required."), never a "may not be null".
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

#: Every POST-only action of a series, by its path.
POST_ACTIONS = (
    "recurrence-plan",
    "recurrence-apply",
    "split-plan",
    "split",
    "add-date",
    "remove-date",
    "generate",
    "cancel-stale",
    "cancel-occurrence",
    "restore-occurrence",
    "pause",
    "resume",
)

#: The actions whose form can name no date for the person (which one is theirs to
#: choose): posted as prefilled they answer a 400 naming the field to fill in.
CHOOSE_A_DATE = {
    "remove-date": "instant",
    "cancel-occurrence": "occurrence",
    "restore-occurrence": "occurrence",
}

_FORM = re.compile(r'<textarea[^>]*name="_content"[^>]*>(.*?)</textarea>', re.S)


def prefilled(client: Any, path: str) -> str:
    """The text of the POST form on the browsable page of ``path``."""
    page = client.get(path, HTTP_ACCEPT="text/html")
    assert page.status_code == 200, (path, page.status_code)
    found = _FORM.search(page.content.decode())
    assert found is not None, f"{path}: no POST form"
    return html.unescape(found.group(1)).strip()


def post_as_prefilled(client: Any, path: str) -> tuple[dict[str, Any], Any]:
    """The form's body as prefilled, and the answer to posting it unchanged (JSON)."""
    text = prefilled(client, path)
    body = json.loads(text)
    answer = client.post(
        path, text, content_type="application/json", HTTP_ACCEPT="application/json"
    )
    return body, answer


def check_prefilled_answer(action: str, body: dict[str, Any], answer: Any) -> None:
    """A 2xx, or for an action that must be told its date a 400 naming that field only."""
    content = answer.content.decode()
    assert "may not be null" not in content, (action, body, content)
    if action in CHOOSE_A_DATE:
        # The one field the person fills in, named (in the request's language).
        assert answer.status_code == 400, (action, body, content)
        assert list(answer.json()) == [CHOOSE_A_DATE[action]], content
        assert CHOOSE_A_DATE[action] not in body, body
        return
    assert 200 <= answer.status_code < 300, (action, body, answer.status_code, content)


def check_create_form(client: Any, list_url: str) -> None:
    """The series list's POST form (a new series) posted as prefilled: a 400 naming only
    what the person fills in (the name, the template fields the host requires)."""
    body, answer = post_as_prefilled(client, list_url)
    content = answer.content.decode()
    assert "may not be null" not in content, content
    assert answer.status_code == 400, content
    assert set(answer.json()) <= {"name", "template"}, content
    assert "name" in answer.json(), content
    assert body["recurrence"]["frequency"] == "WEEKLY"


def flipped(text: str, at: int) -> str:
    """``text`` with one hex digit at ``at`` changed: a mistyped hash."""
    return text[:at] + ("1" if text[at] != "1" else "2") + text[at + 1 :]


def check_hash_names_its_request(
    api: Any, series_url: str, change: dict[str, Any], other: dict[str, Any]
) -> None:
    """Over the API at ``series_url`` (ending in ``/``): an apply takes the plan's hash
    under the name the plan answers with (``hash``); a hash that is not this request's
    (another change's, mistyped, or not a hash) is a 400 on its field and writes nothing;
    ``hash`` and ``plan_hash`` differing is a 400 naming ``plan_hash``; a series changed
    since is the 409 with the fresh plan, whose hash then applies."""

    def post(action: str, body: dict[str, Any]) -> Any:
        return api.post(f"{series_url}{action}/", body, format="json")

    before = api.get(series_url).json()
    seen = post("recurrence-plan", change).json()
    theirs = post("recurrence-plan", other).json()
    assert len(seen["hash"]) == 80
    assert seen["hash"] != theirs["hash"]
    wrong = {
        "hash": [
            {"hash": theirs["hash"]},  # the hash of another change
            {"hash": flipped(seen["hash"], 5)},  # mistyped in the plan's part
            {"hash": flipped(seen["hash"], 70)},  # mistyped in the request's check
            {"hash": seen["hash"][:64]},  # not the shape of the API's hash
        ],
        "plan_hash": [
            {"hash": seen["hash"], "plan_hash": theirs["hash"]},  # two names, two values
            {"plan_hash": theirs["hash"]},  # the earlier name: the same check
        ],
    }
    for field, bodies in wrong.items():
        for given in bodies:
            refused = post("recurrence-apply", {**change, **given})
            assert refused.status_code == 400, (given, refused.content)
            assert list(refused.json()) == [field], refused.content
    # Nothing was written.
    assert api.get(series_url).json()["recurrence"] == before["recurrence"]

    # A series changed since the plan: the 409 with the fresh plan, which applies.
    window = before["generation_window_weeks"] % 10 + 1
    assert (
        api.patch(series_url, {"generation_window_weeks": window}, format="json").status_code == 200
    )
    late = post("recurrence-apply", {**change, "hash": seen["hash"]})
    assert late.status_code == 409, late.content
    fresh = late.json()["plan"]
    assert fresh["hash"] != seen["hash"]
    applied = post("recurrence-apply", {**change, "hash": fresh["hash"]})
    assert applied.status_code == 200, applied.content
    after = api.get(series_url).json()["recurrence"]
    assert {key: after[key] for key in change["recurrence"]} == change["recurrence"]
