"""Telling the people booked on changed dates: what changed, who, and their calendars.

One operation (:mod:`revel_recurring.services.toolbox.operation`) reads the rows
of its series before and after (:mod:`.rows`), finds the dates that moved, were
cancelled or restored or changed identity (:mod:`.changes`), asks the host once
who is booked on them, and writes one :class:`~revel_recurring.models.PersonNotice`
per person with their calendar entries (:mod:`.records`). After commit the notices
are sent (:mod:`.delivery`): one message per person, in their language and zone
(:mod:`.compose`), with RFC 5546 attachments (:mod:`.itip`).
"""
