"""A second test host: a dance studio whose lessons and users have UUID primary keys.

Where ``tests/hosts/testapp`` is the smallest host, this one is shaped like a real site:
a custom user model (UUID pk, e-mail login), schools as organisations, bookings,
and field names and status values of its own. Its suite (``tests/studio``)
runs with ``tests.settings_studio`` only.
"""
