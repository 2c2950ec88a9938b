"""Rolling-window materialization: the one place that creates occurrences.

- :mod:`.single`: ``generate_series_events``, one series on demand;
- :mod:`.dispatch`: the daily pass's fan-out, the due series handed out in chunks;
- :mod:`.chunks`: the daily pass, one transaction for a chunk of due series;
- :mod:`.floor`: what the single path and the chunks share, from the taken slots
  to the cursors;
- :mod:`.plan`: which slots a run creates (pure), and the read-only preview;
- :mod:`.rows`: the occurrence rows: built, weighed, inserted in bulk;
- :mod:`.readiness`: whether "generate now" can run, and why not.

The names below are the package's public surface, importable from here as they
were when it was one module.
"""

from ...notifications import SeriesDigest
from ..toolbox.scheduling import GenerationWindow
from .floor import TakenSlots, apply_plan, disarm_series, read_taken_slots, write_cursors
from .plan import GenerationPlan, plan_generation, preview_series_events
from .readiness import GenerationReadiness, NotReadyReason, generation_readiness
from .rows import (
    build_occurrences,
    bulk_insert,
    check_generation_size,
    check_next_run_size,
    insert_batches,
)
from .single import generate_series_events

__all__ = [
    "GenerationPlan",
    "GenerationReadiness",
    "GenerationWindow",
    "NotReadyReason",
    "SeriesDigest",
    "TakenSlots",
    "apply_plan",
    "build_occurrences",
    "bulk_insert",
    "check_generation_size",
    "check_next_run_size",
    "disarm_series",
    "generate_series_events",
    "generation_readiness",
    "insert_batches",
    "plan_generation",
    "preview_series_events",
    "read_taken_slots",
    "write_cursors",
]
