"""Limits shared by every place that shows values to a person."""

from __future__ import annotations

import sys
from typing import Final

#: Where actual and expected values are shown (failure listings, exports, the command line),
#: each is cut to this many characters.
MAX_METADATA_LENGTH: Final = 500

#: What :func:`failures` puts between acceptable answers when it shows a list of them.
REFS_SEPARATOR: Final = " | "

#: What marks a shown value that was cut to MAX_METADATA_LENGTH characters.
CUT_MARK: Final = "…"


def max_metadata_length() -> int:
    """Return :data:`gradeframe.MAX_METADATA_LENGTH` as it is now (setting it takes effect)."""
    package = sys.modules.get("gradeframe")
    length = getattr(package, "MAX_METADATA_LENGTH", None)
    if length is None:  # pragma: no cover - only while the package itself is importing
        length = MAX_METADATA_LENGTH
    if not isinstance(length, int) or isinstance(length, bool) or length < len(CUT_MARK):
        msg = f"gradeframe.MAX_METADATA_LENGTH must be a positive int, got {length!r}"
        raise ValueError(msg)
    return length
