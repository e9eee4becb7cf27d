"""The HTML page's limits: what bounds its size, in one place (under 10 MB).

Each table and listing shows at most a stated number of rows, each name at most
:data:`MAX_LABEL` characters and each listed text at most :data:`MAX_TEXT`; the page says
every cut. Whatever is left is bounded by :data:`MAX_PAGE_BYTES`: when a page would be larger,
its listings are cut further until it fits, and the page says so.
"""

from __future__ import annotations

from typing import Final

#: The most bytes (UTF-8) a page may have: the page must stay under 10 MB.
MAX_PAGE_BYTES: Final = 9_500_000

#: The most rows of a table with one row per group (the report, cost, agreement and repeated
#: samples' tables): the first groups in sorted order.
MAX_GROUPS: Final = 200

#: The most groups compared within a split (the first in sorted order): 10 make 45 pairs.
MAX_COMPARED_GROUPS: Final = 10

#: The most pairs in the comparisons table.
MAX_PAIRS: Final = 50

#: The most failure kinds with a column and a colour of their own (those with most rows).
MAX_KINDS: Final = 20

#: The most values a filter of the failure browser (kinds, groups) or a list in a note offers.
MAX_OPTIONS: Final = 500

#: The most characters of a group, item, kind or column name, a title or a grader option.
MAX_LABEL: Final = 80

#: The most characters of a listed text (an answer, acceptable answers, a detail).
MAX_TEXT: Final = 500

#: What marks a shortened name or text.
ELLIPSIS: Final = "…"


def short(text: str, length: int = MAX_LABEL) -> str:
    """Return ``text`` cut to ``length`` characters, the last one an ellipsis when cut.

    Examples
    --------
    >>> short("gpt-4o-mini", 6)
    'gpt-4…'
    >>> short("gpt", 6)
    'gpt'
    """
    return text if len(text) <= length else text[: length - 1] + ELLIPSIS
