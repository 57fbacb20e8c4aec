"""Parse human durations ("1h30m") into seconds."""
from .parse import parse_duration, format_duration

__all__ = ["parse_duration", "format_duration"]
