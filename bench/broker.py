"""The messages a Celery app left in its broker, taken without a worker.

For the in-memory broker (``memory://``) of a process that sends tasks with
eager mode off: the benchmarks and the tests take what an admin action sent
and, when they want to, run it here.
"""

from __future__ import annotations

from typing import Any


def take_messages(app: Any) -> list[tuple[str, list[Any], dict[str, Any]]]:
    """Every message waiting in ``app``'s default queue, in the order sent, acknowledged.

    Each as (task name, positional arguments, keyword arguments), as the
    worker would decode them.
    """
    taken: list[tuple[str, list[Any], dict[str, Any]]] = []
    with app.connection_for_read() as connection:
        queue = connection.SimpleQueue(app.conf.task_default_queue)
        try:
            while True:
                try:
                    message = queue.get(block=False)
                except queue.Empty:
                    break
                args, kwargs, _embed = message.decode()
                message.ack()
                taken.append((message.headers["task"], args, kwargs))
        finally:
            queue.close()
    return taken
