"""A real SMTP server on 127.0.0.1 (aiosmtpd), for the people's messages.

:func:`mail_server` runs one in a thread of the test process for the length of a
``with`` block. It answers ``451`` (try again later) to the first ``refuse``
messages, as a greylisting or overloaded server does, and accepts the rest,
keeping each accepted message's bytes as they arrived. Django's SMTP backend, in
the test process or in a worker process, sends to its ``port``.
"""

from __future__ import annotations

import email
import email.policy
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email.message import EmailMessage
from typing import Any

from aiosmtpd.controller import Controller

#: What the server answers a refused message: a transient failure (RFC 5321 4yz).
REFUSAL = "451 4.3.0 Try again later"


@dataclass
class Received:
    """One message the server accepted: its envelope and its bytes as they arrived."""

    sender: str
    recipients: list[str]
    data: bytes

    def parsed(self) -> EmailMessage:
        """The message as a mail client reads it (the standard ``email`` package)."""
        message = email.message_from_bytes(self.data, policy=email.policy.default)
        assert isinstance(message, EmailMessage)
        return message


@dataclass
class MailServer:
    """The server's state: what it accepted, how many it refused, how many more to refuse."""

    port: int
    refuse: int = 0
    refused: int = 0
    received: list[Received] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def message_ids(self) -> list[str]:
        """The Message-ID of every accepted message, in arrival order.

        A long one arrives folded onto a line of its own; the id is what is compared.
        """
        return [str(one.parsed()["Message-ID"]).strip() for one in self.received]

    def to(self, address: str) -> list[Received]:
        """The accepted messages whose envelope names ``address``."""
        return [one for one in self.received if address in one.recipients]

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        with self.lock:
            if self.refuse > 0:
                self.refuse -= 1
                self.refused += 1
                return REFUSAL
            self.received.append(
                Received(
                    sender=envelope.mail_from,
                    recipients=list(envelope.rcpt_tos),
                    data=bytes(envelope.original_content or envelope.content),
                )
            )
        return "250 Message accepted for delivery"


def free_port() -> int:
    """A TCP port on 127.0.0.1 nobody listens on now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@contextmanager
def mail_server(*, refuse: int = 0) -> Iterator[MailServer]:
    """An SMTP server on 127.0.0.1 that refuses the first ``refuse`` messages with 451."""
    state = MailServer(port=free_port(), refuse=refuse)
    controller = Controller(state, hostname="127.0.0.1", port=state.port)
    controller.start()
    try:
        yield state
    finally:
        controller.stop()
