"""A real HTTP receiver for webhook tests, and the host-neutral scenario of one operation.

:func:`receiver` serves on 127.0.0.1 in a thread (a worker in another process
reaches it too), keeps every request it got (headers and the raw body) and
answers each with the next status of ``answers`` (then 200). ``verify`` checks
a request's signature with the ``standardwebhooks`` library, as a receiving
site would.

:func:`check_delivered_once` is what every test host proves: a cancel-stale of
several rows, with a person booked on one of them, is delivered once to a
site-wide endpoint, signed, naming exactly the rows it changed.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from standardwebhooks import Webhook

from revel_recurring.models import WebhookDelivery, WebhookEndpoint
from revel_recurring.services.drift import cancel_stale_occurrences
from tests.support.drift import drift_without_partners
from tests.support.moves import rows_of


@dataclass
class Received:
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


@dataclass
class Receiver:
    port: int
    answers: list[int] = field(default_factory=list)
    received: list[Received] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/hook"

    def next_answer(self) -> int:
        with self.lock:
            return self.answers.pop(0) if self.answers else 200

    def verify(self, request: Received, secret: str) -> Any:
        """The payload, once ``standardwebhooks`` accepted the request's signature."""
        return Webhook(secret).verify(request.body, request.headers)


@contextmanager
def receiver(answers: Sequence[int] = ()) -> Iterator[Receiver]:
    """A webhook receiver on a free local port, answering ``answers`` in turn, then 200."""
    state = Receiver(port=0, answers=list(answers))

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", "0"))
            body = self.rfile.read(length)
            status = state.next_answer()
            with state.lock:
                state.received.append(
                    Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                )
            self.send_response(status)
            self.send_header("content-length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.port = server.server_address[1]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def check_delivered_once(make_series: Any, book_person: Any, on_commit: Any) -> None:
    """A cancel-stale of several rows reaches a site-wide endpoint once, with those rows."""
    series = make_series(name="Evening class")
    rows = rows_of(series)
    drift_without_partners(series, keep=2)
    book_person(rows[3], "anna@people.example", name="Anna")
    with receiver() as server:
        endpoint = WebhookEndpoint.objects.create(url=server.url, kinds=["cancel_stale"])
        WebhookEndpoint.objects.create(url=server.url + "/other", kinds=["plan"])
        with on_commit(execute=True):
            cancel_stale_occurrences(series, include_booked=True, notify="all")
        assert len(server.received) == 1, server.received
        request = server.received[0]
        payload = server.verify(request, endpoint.secret)
    delivery = WebhookDelivery.objects.get()
    assert delivery.endpoint == endpoint
    assert delivery.status == WebhookDelivery.Status.DELIVERED
    assert delivery.attempts == 1
    assert delivery.last_status_code == 200
    assert request.headers["webhook-id"] == str(delivery.operation_ref)
    data = payload["data"]
    assert data["kind"] == "cancel_stale"
    assert data["operation_id"] == str(delivery.operation_ref)
    assert data["series"] == {"id": series.pk, "name": series.name}
    stale = {str(row.pk) for row in rows[2:]}
    assert {row["pk"] for row in data["rows"]} == stale
    assert {row["change"] for row in data["rows"]} == {"cancelled"}
    assert {row["status_after"] for row in data["rows"]} == {"cancelled"}
    assert data["row_count"] == len(stale)
    assert data["rows_truncated"] is False
    assert payload == delivery.payload
