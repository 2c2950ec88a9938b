"""What the services share: the steps of a write, never a write a caller asks for.

The verbs (``services/lifecycle.py``, ``editing.py``, ``cancellation.py``, ``plans/``,
``generation/``...) are what an adapter or a face calls: each opens the transaction,
does one whole piece of work and answers with a result. The modules here are the
steps those verbs take in common, and none of them imports a verb
(``tests/default/project/test_import_graph.py`` keeps this package on its own floor under them):

- :mod:`.locking`: the series lock first, occurrence rows after it, the retry;
- :mod:`.plumbing`: the clock, the rule read after the lock, signals after commit;
- :mod:`.exdates` and :mod:`.pending_exdates`: writing the excluded slots, and the
  slots of deleted occurrences recorded without the lock (called from a receiver,
  but only to fold them in later: the same store as :mod:`.exdates`);
- :mod:`.scheduling`: where the rolling window stands, the next due moment;
- :mod:`.extra_dates`: what an extra date may be, and a change plan's new set of
  them worked out and stored (the verbs adding and removing one stay in
  ``services/extra_dates.py``);
- :mod:`.parking`: a series the daily pass stops retrying, and unparking it;
- :mod:`.bookings`: which occurrences hold bookings, one host question per page;
- :mod:`.operation`: one operation on dates, its rows read before and after, the
  people booked on what it changed told once (the verbs that move, cancel or
  restore dates wrap their writes in it);
- :mod:`.history`: the operation's record in the series' history, opened on entry and
  completed with every row touched, and the daily pass's summary per chunk;
- :mod:`.enrolled`: the enrolled users booked on dates as they are created or restored,
  one host call per batch; :mod:`.enrolled_counts`: how many enrolled users a plan's or
  a page's dates concern, in two reads;
- :mod:`.columns`: many rows' own values in one UPDATE;
- :mod:`.row_validation`: the host's ``full_clean()`` answer for many rows in few queries,
  its unique checks for the whole set in :mod:`.unique_checks`.

A module belongs here when it is a step several verbs take and no caller wants
it on its own. ``templates.py`` stays among the verbs (``replace_template`` is one
a host calls; its builders come with it), and so does ``drift.py``
(``cancel_stale_occurrences`` is called by the API, the admin and the bulk actions).
``services/locking.py`` and ``services/exdates.py`` keep their old import paths
as re-exports, being public.
"""
