"""Admin actions handed to Celery, as the tests of every host see them.

The suites run Celery eagerly: a task sent is run at once, inside the request
that sent it. The ``broker`` fixture turns that off for one test: the tasks an
action sends stay in the in-memory broker (the settings' ``memory://``), real
messages with their JSON arguments, until the test takes them or runs them
here, one by one, as a worker would. An action sends one
``revel_recurring.fan_out_series_chunks`` message, which sends the chunks.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from celery import Celery, current_app
from celery import _state as celery_state
from celery.app import default_app

from bench.broker import take_messages

CHANGELIST = "/admin/revel_recurring/eventseries/"
FAN_OUT = "revel_recurring.fan_out_series_chunks"


@dataclass(frozen=True)
class Sent:
    """One message: the task's name and its arguments, as JSON gave them back."""

    task: str
    args: list[Any]
    kwargs: dict[str, Any]


class Broker:
    """The messages the current Celery app sent to its in-memory broker."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def take(self) -> list[Sent]:
        """Every message waiting, in the order sent; they are gone afterwards."""
        return [Sent(*message) for message in take_messages(self.app)]

    def apply(self, sent: Sent) -> Any:
        """Run the task of one message here, as a worker would; its result."""
        return self.app.tasks[sent.task].apply(args=sent.args, kwargs=sent.kwargs).get()

    def run(self) -> dict[str, list[Any]]:
        """Run every waiting message, and those they send, until none is left.

        Returns each task's results by task name, in the order run.
        """
        results: dict[str, list[Any]] = {}
        while waiting := self.take():
            for sent in waiting:
                results.setdefault(sent.task, []).append(self.apply(sent))
        return results


@pytest.fixture
def broker() -> Iterator[Broker]:
    """Tasks sent during the test wait in the in-memory broker instead of running."""
    app = current_app._get_current_object()  # type: ignore[attr-defined]
    if not str(app.conf.broker_url).startswith("memory://"):
        pytest.skip("the queued-action tests need the in-memory broker (memory://)")
    found = Broker(app)
    found.take()  # nothing left over from another test
    eager = app.conf.task_always_eager
    app.conf.task_always_eager = False
    try:
        yield found
    finally:
        app.conf.task_always_eager = eager
        found.take()


@pytest.fixture
def broker_down() -> Iterator[str]:
    """For one test, Celery's broker is a Redis server that is not there.

    A port the system just handed out and took back: nothing listens on it, so
    every publish really connects, is refused, and fails after Celery's own
    retries, as it does when a site's broker is down (no mock). The tasks the
    admin sends resolve through the current app, so a fresh app with that broker
    is made current, and the default of other threads (a live server's); the
    suite's own apps come back afterwards. Yields its URL.
    """
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"redis://127.0.0.1:{port}/0"
    suite_app = current_app._get_current_object()  # type: ignore[attr-defined]
    # A live server's threads have no current app: they use the default one.
    suite_default = default_app._get_current_object()  # type: ignore[attr-defined]
    down = Celery("broker-down", broker=url, set_as_current=False)
    down.conf.task_always_eager = False
    down.set_current()
    down.set_default()
    try:
        yield url
    finally:
        suite_app.set_current()
        if suite_default is not None:
            suite_default.set_default()
        else:  # there was none: the next thread that asks makes its own again
            celery_state.set_default_app(None)
        down.close()


def select_all(action: str, shown: list[Any], **extra: Any) -> dict[str, Any]:
    """What the changelist posts after "Select all N event series" (``shown``: its page)."""
    return {
        "action": action,
        "select_across": "1",
        "index": "0",
        "_selected_action": [str(pk) for pk in shown],
        **extra,
    }


def ticked(action: str, series: list[Any], **extra: Any) -> dict[str, Any]:
    """What the changelist posts with these series ticked one by one."""
    return {"action": action, "index": "0", "_selected_action": [s.pk for s in series], **extra}


def every_request(shown: list[Any]) -> dict[str, dict[str, Any]]:
    """A "select all" post of each action and page, five of them queued over the limit."""
    return {
        "generate": select_all("generate_now_action", shown),
        "pause": select_all("pause_action", shown),
        "resume": select_all("resume_action", shown),
        "stale page": select_all("cancel_stale_action", shown),
        "stale confirmed": select_all("cancel_stale_action", shown, confirm="yes", rest="yes"),
        "delete page": select_all("delete_selected", shown),
        "delete confirmed": select_all("delete_selected", shown, post="yes"),
    }


def queries_of(client: Any, posts: dict[str, dict[str, Any]]) -> dict[str, int]:
    """The statements of the changelist and of each of ``posts`` to it, by name.

    Each must answer 200 (a page) or 302 (done or queued, back to the list).
    """
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as listed:
        assert client.get(CHANGELIST).status_code == 200
    counts = {"changelist": len(listed)}
    for name, data in posts.items():
        with CaptureQueriesContext(connection) as captured:
            response = client.post(CHANGELIST, data)
        assert response.status_code in (200, 302), name
        counts[name] = len(captured)
    return counts
