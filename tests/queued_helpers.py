"""Admin actions handed to Celery, as the tests of every host see them.

The suites run Celery eagerly: a task sent is run at once, inside the request
that sent it. The ``broker`` fixture turns that off for one test: the tasks an
action sends stay in the in-memory broker (the settings' ``memory://``), real
messages with their JSON arguments, until the test takes them or runs them
here, one by one, as a worker would. An action sends one
``revel_recurring.fan_out_series_chunks`` message, which sends the chunks.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from celery import current_app

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
        taken: list[Sent] = []
        with self.app.connection_for_read() as connection:
            queue = connection.SimpleQueue(self.app.conf.task_default_queue)
            try:
                while True:
                    try:
                        message = queue.get(block=False)
                    except queue.Empty:
                        break
                    args, kwargs, _embed = message.decode()
                    message.ack()
                    taken.append(Sent(message.headers["task"], args, kwargs))
            finally:
                queue.close()
        return taken

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
    app = current_app._get_current_object()
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
