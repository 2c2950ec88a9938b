"""Names hosts import from the generation services stay where they were.

``services.generation`` was one module and is now a package: every name it
exported, and the chunk module's, must still be importable from the same path.
"""

from __future__ import annotations

import importlib

import pytest

PUBLIC = {
    "revel_recurring.services.generation": [
        "GenerationPlan",
        "GenerationWindow",
        "SeriesDigest",
        "TakenSlots",
        "apply_plan",
        "build_occurrences",
        "bulk_insert",
        "check_generation_size",
        "check_next_run_size",
        "disarm_series",
        "generate_series_events",
        "insert_batches",
        "plan_generation",
        "preview_series_events",
        "read_taken_slots",
        "write_cursors",
    ],
    "revel_recurring.services.chunks": ["ChunkResult", "generate_series_chunk_events"],
}


@pytest.mark.parametrize(("module", "names"), PUBLIC.items(), ids=PUBLIC.keys())
def test_public_names_are_importable_from_their_old_paths(module: str, names: list[str]) -> None:
    imported = importlib.import_module(module)

    assert [name for name in names if not hasattr(imported, name)] == []
    assert set(names) <= set(imported.__all__)
