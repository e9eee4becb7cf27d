"""Limits shared by every place that shows values to a person."""

from __future__ import annotations

from typing import Final

#: Where actual and expected values are shown (failure listings, exports, the command line),
#: each is cut to this many characters.
MAX_METADATA_LENGTH: Final = 500
