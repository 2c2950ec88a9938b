"""The API's write actions through a real WSGI server, for every test host.

pytest-django's ``live_server`` is Django's own threaded server (wsgiref, as
``runserver``): it refuses a header value that is not a plain ``str``, where the
test client hands any object through. So each write action is sent here with a
real HTTP client (``urllib``), signed in by a session cookie, and must answer the
success status the API's OpenAPI schema documents for it.
"""

from __future__ import annotations

import datetime as dt
import json
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.test import Client
from django.utils.crypto import get_random_string

API = "/api/recurring/series/"


@dataclass(frozen=True)
class Answer:
    """What the server sent: the status, the headers and the JSON body (None if empty)."""

    status: int
    headers: dict[str, str]
    body: Any


class LiveApi:
    """A real HTTP client of the live server's API, signed in as ``user``.

    The session comes from Django's test client (``force_login``, saved in the
    database the server reads); CSRF is the double-submit Django checks for a
    session: the same secret in the cookie and in ``X-CSRFToken``.
    """

    def __init__(self, base_url: str, user: Any) -> None:
        signed_in = Client()
        signed_in.force_login(user)
        session = signed_in.cookies[settings.SESSION_COOKIE_NAME].value
        self.base_url = base_url
        self.csrf = get_random_string(32)
        self.cookie = (
            f"{settings.SESSION_COOKIE_NAME}={session}; {settings.CSRF_COOKIE_NAME}={self.csrf}"
        )

    def get(self, path: str, **headers: str) -> Answer:
        """A GET of anything (a feed), with extra request headers; the body is not parsed."""
        return self.send("GET", path, accept="*/*", headers=headers)

    def send(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        accept: str = "application/json",
        headers: dict[str, str] | None = None,
    ) -> Answer:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base_url + path, data=data, method=method)
        request.add_header("Cookie", self.cookie)
        request.add_header("X-CSRFToken", self.csrf)
        request.add_header("Accept", accept)
        for name, value in (headers or {}).items():
            request.add_header(name, value)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(request, timeout=60) as response:
                return _answer(response.status, response.headers, response.read())
        except urllib.error.HTTPError as error:
            return _answer(error.code, error.headers, error.read())


class InProcessApi:
    """The same calls through DRF's test client, in the test's own thread.

    For what only the test's thread sees, such as the Celery app ``broker_down``
    makes current; the server of :class:`LiveApi` runs in a thread of its own.
    """

    def __init__(self, user: Any) -> None:
        from rest_framework.test import APIClient

        self.client = APIClient()
        self.client.force_authenticate(user)

    def send(self, method: str, path: str, body: Any = None) -> Answer:
        response = self.client.generic(
            method,
            path,
            json.dumps(body) if body is not None else "",
            content_type="application/json",
            HTTP_ACCEPT="application/json",
        )
        return _answer(response.status_code, response.headers, response.content)


def _answer(status: int, headers: Any, raw: bytes) -> Answer:
    body = json.loads(raw) if raw and "json" in headers.get("Content-Type", "") else None
    return Answer(status, dict(headers.items()), body)


def documented_success(schema: dict[str, Any], path: str, method: str) -> int:
    """The one 2xx status ``schema`` documents for ``method`` on ``path``."""
    operation = schema["paths"][path][method.lower()]
    [status] = [int(code) for code in operation["responses"] if code.startswith("2")]
    return status


def utc(moment: dt.datetime) -> str:
    return moment.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def write_every_action(
    api: LiveApi | InProcessApi,
    series_pk: Any,
    starts: list[dt.datetime],
    *,
    create: dict[str, Any],
    template: dict[str, Any],
) -> dict[str, tuple[int, int]]:
    """Send each write action once; ``{name: (answered, documented)}`` in the order sent.

    ``series_pk`` is a weekly series with at least four upcoming dates ``starts``
    (generated, none booked); ``create`` is a valid ``POST series/`` body of the
    host and ``template`` a valid ``PATCH series/{id}/template/`` body. The split
    is last but one; the continuation it made is then deleted.
    """
    detail = f"{API}{series_pk}/"
    extra = starts[0] + dt.timedelta(days=1, hours=1)
    answered: dict[str, tuple[int, int]] = {}
    # The schema the API itself serves, read through the same server.
    schema = api.send("GET", "/api/recurring/schema/?format=json").body

    def call(name: str, method: str, action: str, body: Any = None, url: str = detail) -> Answer:
        answer = api.send(method, url + (f"{action}/" if action else ""), body)
        path = "/api/recurring/series/{id}/" + (f"{action}/" if action else "")
        if url == API:
            path = API
        answered[name] = (answer.status, documented_success(schema, path, method))
        return answer

    call("create", "POST", "", create, url=API)
    call("update", "PATCH", "", {"description": "Through a real server"})
    call("template", "PATCH", "template", template)
    call("pause", "POST", "pause")
    call("resume", "POST", "resume")
    call("generate", "POST", "generate")
    call("cancel-occurrence", "POST", "cancel-occurrence", {"occurrence": utc(starts[0])})
    call("restore-occurrence", "POST", "restore-occurrence", {"occurrence": utc(starts[0])})
    call("add-date", "POST", "add-date", {"instant": utc(extra)})
    # An extra date whose occurrence takes place is refused: it is cancelled first.
    call("cancel-extra", "POST", "cancel-occurrence", {"occurrence": utc(extra)})
    call("remove-date", "POST", "remove-date", {"instant": utc(extra)})
    call("cancel-stale", "POST", "cancel-stale", {})
    change = {"generation_window_weeks": 6}
    plan = call("recurrence-plan", "POST", "recurrence-plan", change).body
    call("recurrence-apply", "POST", "recurrence-apply", {**change, "plan_hash": plan["hash"]})
    call("split-plan", "POST", "split-plan", {"at": utc(starts[2])})
    split = call("split", "POST", "split", {"at": utc(starts[2])})
    continuation = split.body["continuation"]
    # The header the server refused before: a plain string, the continuation's URL.
    assert split.headers["Location"] == continuation["url"], split.headers
    call("delete", "DELETE", "", url=f"{API}{continuation['id']}/")
    return answered
