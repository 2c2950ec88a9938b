"""Typed access to the flat ``REVEL_RECURRING_*`` settings.

Properties read ``django.conf.settings`` on every access (no cache), so
``override_settings`` and pytest-django's ``settings`` fixture take effect at once.
Numbers and flags are returned as given, never coerced: ``int(8.7)`` or
``bool("no")`` would hide a mistake that check E009 reports instead.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

_PREFIX = "REVEL_RECURRING_"


class RecurringSettings:
    """The app's settings; read them through the module's ``recurring_settings``."""

    def _get(self, name: str, default: Any) -> Any:
        return getattr(settings, _PREFIX + name, default)

    @property
    def EVENT_MODEL(self) -> str | None:
        """The host Event model, as "app_label.ModelName"; it must use RecurringEventMixin.

        Required (checks E001, E002, E003, E004).
        """
        value = self._get("EVENT_MODEL", None)
        return str(value) if value else None

    @property
    def ADAPTER(self) -> str:
        """Dotted path of the adapter class (host policy hooks).

        Your site's policy: who runs, belongs to and follows a series, their
        notification preferences, the public series URL (check E005).
        """
        return str(self._get("ADAPTER", "revel_recurring.adapter.DefaultRecurringAdapter"))

    @property
    def NOTIFIER(self) -> str | None:
        """Dotted path of a callable receiving each digest after commit; None sends nothing.

        Called once per generated batch (check E005).
        """
        value = self._get("NOTIFIER", None)
        return str(value) if value else None

    @property
    def DEFAULT_WINDOW_WEEKS(self) -> int:
        """Generation window for new series, in weeks (1..52).

        Each series stores its own ``generation_window_weeks`` (checks E006, E009).
        """
        value: int = self._get("DEFAULT_WINDOW_WEEKS", 8)
        return value

    @property
    def MAX_WINDOW_WEEKS(self) -> int:
        """How far ahead of now an explicit ``until`` may reach, in weeks.

        A whole number, not below the default window (checks E007, E009).
        """
        value: int = self._get("MAX_WINDOW_WEEKS", 52)
        return value

    @property
    def REGISTER_BEAT_TASKS(self) -> bool:
        """Create the django-celery-beat rows after ``migrate`` when they are missing.

        Existing rows are never changed. ``False`` when generation runs from cron
        without django-celery-beat (checks E009, E014).
        """
        value: bool = self._get("REGISTER_BEAT_TASKS", True)
        return value

    @property
    def BEAT_CRONTAB(self) -> str:
        """Five-field crontab (UTC) for the daily generation task.

        Used when its row is created (check E008).
        """
        return str(self._get("BEAT_CRONTAB", "0 4 * * *"))

    @property
    def DISPATCH_CHUNK_SIZE(self) -> int:
        """Series ids read per chunk by the beat dispatcher.

        It streams them, never loading series objects. A whole number, at least 1
        (check E009).
        """
        value: int = self._get("DISPATCH_CHUNK_SIZE", 500)
        return value

    @property
    def GENERATION_CHUNK_SIZE(self) -> int:
        """Due series per ``generate_series_chunk`` task; 1 sends one ``generate_series`` each.

        A chunk is generated in one transaction. A whole number, 1 to 1000 (check E009).
        """
        value: int = self._get("GENERATION_CHUNK_SIZE", 50)
        return value

    @property
    def ADMIN_INLINE_LIMIT(self) -> int:
        """Most series an admin action works through within its request (default 200).

        A larger selection is handed to Celery in chunks of ``GENERATION_CHUNK_SIZE``
        series and the request answers at once, naming how many series were queued;
        0 queues every action.
        """
        value: int = self._get("ADMIN_INLINE_LIMIT", 200)
        return value

    @property
    def INSERT_BATCH_BYTES(self) -> int:
        """Estimated bytes of occurrence rows per INSERT statement (default 16 MiB).

        Generation cuts its bulk inserts by this budget as well as by the number
        of parameters, so a large template text never makes one huge statement.
        The estimate adds up each row's text and binary values (UTF-8 bytes). A
        whole number, 1 or more (check E009).
        """
        value: int = self._get("INSERT_BATCH_BYTES", 16 * 1024 * 1024)
        return value

    @property
    def MAX_GENERATION_BYTES(self) -> int:
        """Estimated bytes one generation run may write for one series (default 256 MiB).

        Above it the run is refused (``GenerationTooLargeError``, a 400 naming the
        template field): the API answers it, the daily pass parks the series. A
        whole number, 1 or more (check E009).
        """
        value: int = self._get("MAX_GENERATION_BYTES", 256 * 1024 * 1024)
        return value

    @property
    def BEYOND_WINDOW_DATES(self) -> int:
        """How many dates beyond the window an occurrences list may show (default 52).

        The rule's dates after the generation cursor that have no row yet, listed
        as not materialized (no id) by ``occurrences/?beyond_window=true`` and the
        example project's public page, so a person can see and book a date months
        ahead (``materialize_date``). 0 lists none. A whole number, 0 or more
        (check E009).
        """
        value: int = self._get("BEYOND_WINDOW_DATES", 52)
        return value

    @property
    def FEED_PAST_DAYS(self) -> int:
        """Days of the past a calendar feed shows (default 90).

        Occurrences that started earlier are not read nor exported: a feed's cost
        does not grow with a series' history. Calendar apps keep what they showed.
        A whole number, 0 or more (check E009).
        """
        value: int = self._get("FEED_PAST_DAYS", 90)
        return value

    @property
    def FEED_CACHE(self) -> str | None:
        """Alias of the Django cache that keeps built feed bodies by ETag (default: none).

        A feed's ETag names its body exactly, so a body built once is served to every
        client that asks for the same revision without building it again. Use a
        cache your processes share (Redis, Memcached); bodies are kept for a day, and
        one of 10,000 series is about 6 MB (check E015).
        """
        value: str | None = self._get("FEED_CACHE", None)
        return value

    @property
    def DELETED_FEED_DAYS(self) -> int:
        """Days the feed of a deleted series answers an empty calendar (default 90).

        Calendar apps drop a subscription's events only when the feed says so; after
        these days the feed answers 410 Gone. A whole number, 0 or more (check E009).
        """
        value: int = self._get("DELETED_FEED_DAYS", 90)
        return value

    @property
    def QUEUED_ACTION_DAYS(self) -> int:
        """Days the series list remembers a queued admin action (default 30).

        An admin action over more series than ``ADMIN_INLINE_LIMIT`` is queued; the
        series list shows how it went (done, failed and why, when it finished) and
        the admin keeps its record (*Bulk actions*) for these days after it was
        queued. The daily pass, and each newly queued action, remove older records.
        A whole number, 1 or more (check E009).
        """
        value: int = self._get("QUEUED_ACTION_DAYS", 30)
        return value

    @property
    def TASK_MAX_RETRIES(self) -> int:
        """Retries of ``generate_series`` after a transient database error.

        A whole number, 0 or more (check E009).
        """
        value: int = self._get("TASK_MAX_RETRIES", 5)
        return value

    @property
    def TASK_RETRY_BACKOFF(self) -> int:
        """Base of the exponential retry backoff, in seconds.

        A whole number, 0 or more (check E009).
        """
        value: int = self._get("TASK_RETRY_BACKOFF", 5)
        return value

    @property
    def TASK_RETRY_BACKOFF_MAX(self) -> int:
        """Upper bound of a single retry delay, in seconds.

        A whole number, 0 or more (check E009).
        """
        value: int = self._get("TASK_RETRY_BACKOFF_MAX", 300)
        return value

    @property
    def NOTIFY_PEOPLE(self) -> str:
        """Who is told when an operation moves, cancels or restores booked dates.

        ``"all"`` (every person booked on a changed date gets one message, and
        booked dates move like free ones when the host answers
        ``people_booked_among``) or ``"none"`` (nobody is told; booked dates move
        only when ticked). The default of every service's ``notify`` argument, and
        of the callers that pass one on without asking. Check E009.
        """
        return str(self._get("NOTIFY_PEOPLE", "all"))

    @property
    def ZONE_DATA_AUTO_APPLY(self) -> str:
        """What the daily pass does with series whose zone has new time-zone data.

        When the tz database loaded (system files or the ``tzdata`` package) gives a
        series' zone other UTC offsets than its generated dates were placed with,
        the series is held (no generation) until its dates move to their rule's
        wall-clock times. ``"none"`` (the default): the daily pass leaves that to
        ``manage.py revel_recurring_data --apply``, which check W003 names.
        ``"unbooked"``: the daily pass applies it to each series none of whose
        moving dates is booked. ``"all"``: to every series, the people booked on
        moved dates told as ``REVEL_RECURRING_NOTIFY_PEOPLE`` says. Check E009.
        """
        return str(self._get("ZONE_DATA_AUTO_APPLY", "none"))

    @property
    def HISTORY(self) -> bool:
        """Keep a series' history: one record per operation with every row it touched.

        ``True`` (default): every change to a series' dates made by a person or a
        command leaves one record (who, through what, the rule and settings before
        and after, each row), and the daily pass one summary per chunk
        (docs/howto/history.md). ``False``: an operation is recorded only when it
        tells people booked on its dates (their messages hang from it), without
        its rows; the daily pass writes none. Check E009.
        """
        value: bool = self._get("HISTORY", True)
        return value

    @property
    def HISTORY_DAYS(self) -> int:
        """Days a series' history keeps an operation record (default 400).

        A little over a year, so "what happened to this class last season" can
        still be answered, while a busy site's records stay bounded. The daily
        pass deletes older records in pages, except those whose messages to
        booked people are not sent yet. A whole number, 1 or more (check E009).
        """
        value: int = self._get("HISTORY_DAYS", 400)
        return value

    @property
    def SITE_URL(self) -> str:
        """The site's absolute base (``https://example.org``) for links in messages.

        Empty: the current ``Site`` of ``django.contrib.sites`` over https, when it
        is installed; else links stay as the adapter gives them.
        """
        return str(self._get("SITE_URL", "") or "")

    @property
    def ORGANIZER(self) -> str:
        """The organizer of messages' calendar entries, ``"Name <address>"`` or an address.

        Also the messages' sender. Empty: ``DEFAULT_FROM_EMAIL``. The adapter's
        ``get_organizer`` may answer per series.
        """
        return str(self._get("ORGANIZER", "") or "")

    @property
    def PEOPLE_DELIVERY(self) -> str | None:
        """Dotted path of a callable that delivers people's messages instead of e-mail.

        Called as ``deliver(message)`` with one
        :class:`~revel_recurring.notices.compose.PersonMessage` per person (subject,
        text, calendar files, ``message_id``, ``key``); it raises to have the message
        retried. None: Django's mail (``EMAIL_BACKEND``). Check E005.
        """
        value = self._get("PEOPLE_DELIVERY", None)
        return str(value) if value else None

    @property
    def PEOPLE_MAX_RETRIES(self) -> int:
        """Retries of a message the mail server (or the host's delivery) refused.

        After them the message stays unsent, and the daily pass sends it again.
        A whole number, 0 or more (check E009).
        """
        value: int = self._get("PEOPLE_MAX_RETRIES", 8)
        return value

    @property
    def WEBHOOK_TIMEOUT(self) -> int:
        """Seconds a webhook endpoint has to connect and answer before the attempt fails.

        A failed attempt is retried (``REVEL_RECURRING_WEBHOOK_MAX_ATTEMPTS``).
        A whole number, 1 or more (check E009).
        """
        value: int = self._get("WEBHOOK_TIMEOUT", 10)
        return value

    @property
    def WEBHOOK_MAX_ATTEMPTS(self) -> int:
        """Attempts at one webhook delivery before it is marked failed (with its last error).

        A resend (API or admin) starts a fresh series of attempts. A whole number,
        1 or more (check E009).
        """
        value: int = self._get("WEBHOOK_MAX_ATTEMPTS", 8)
        return value

    @property
    def WEBHOOK_RETRY_BACKOFF(self) -> int:
        """Seconds before a webhook's first retry; each next one waits twice as long.

        Capped at ``REVEL_RECURRING_WEBHOOK_RETRY_BACKOFF_MAX``. A whole number, 0
        or more (check E009).
        """
        value: int = self._get("WEBHOOK_RETRY_BACKOFF", 30)
        return value

    @property
    def WEBHOOK_RETRY_BACKOFF_MAX(self) -> int:
        """The longest wait between two attempts at a webhook delivery, in seconds.

        A whole number, 0 or more (check E009).
        """
        value: int = self._get("WEBHOOK_RETRY_BACKOFF_MAX", 3600)
        return value

    @property
    def WEBHOOK_MAX_ROWS(self) -> int:
        """Rows of an operation a webhook payload carries at most.

        Past them the payload says ``rows_truncated`` and ``row_count``; the
        operation's record holds every row. A whole number, 0 or more (check E009).
        """
        value: int = self._get("WEBHOOK_MAX_ROWS", 500)
        return value


recurring_settings = RecurringSettings()
