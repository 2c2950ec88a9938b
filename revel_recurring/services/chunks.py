"""Moved to :mod:`revel_recurring.services.generation.chunks`; this path re-exports it."""

from .generation.chunks import ChunkResult, generate_series_chunk_events, logger

__all__ = ["ChunkResult", "generate_series_chunk_events", "logger"]
