import re

UNITS = {"h": 3600, "m": 60, "s": 1}

_TOKEN = re.compile(r"(\d+)([hms])")
_FULL = re.compile(r"(?:\d+[hms])+")


def parse_duration(text: str) -> int:
    """'1h30m' -> 5400 (seconds). Raises ValueError for anything that is not a duration."""
    text = text.strip().lower()
    if not text or not _FULL.fullmatch(text):
        raise ValueError(f"not a duration: {text!r}")
    total = 0
    for number, unit in _TOKEN.findall(text):
        total = int(number) * UNITS[unit]
    return total


def format_duration(seconds: int) -> str:
    """5400 -> '1h30m'; 0 -> '0s'."""
    if seconds < 0:
        raise ValueError("negative duration")
    parts = []
    for unit, size in UNITS.items():
        count, seconds = divmod(seconds, size)
        if count:
            parts.append(f"{count}{unit}")
    return "".join(parts) or "0s"
