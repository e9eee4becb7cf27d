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

#: The most failure kinds with a column and a colour of their own (those with most rows), and
#: the most options of the grader the summary lists.
MAX_KINDS: Final = 10

#: The most names a note lists ("the others: a, b, c and 12 more").
MAX_NAMED: Final = 8

#: The most values a filter of the failure browser (kinds, groups) or a list in a note offers.
MAX_OPTIONS: Final = 500

#: The most characters of a group, item, kind or column name, or a grader option.
MAX_LABEL: Final = 80

#: The most characters of the page's title and of the input's name.
MAX_TITLE: Final = 160

#: The most characters of a listed text (an answer, acceptable answers, a detail).
MAX_TEXT: Final = 500

#: What marks a shortened name or text.
ELLIPSIS: Final = "…"


def short(text: str, length: int = MAX_LABEL) -> str:
    """Return a name cut to ``length`` characters: its start, an ellipsis, and its end.

    The end stays because names often differ only there (``.../model-7b`` and ``.../model-70b``).

    Examples
    --------
    >>> short("an-organisation/a-model-of-many-names-v2", 20)
    'an-organisat…ames-v2'
    >>> short("gpt", 6)
    'gpt'
    """
    if len(text) <= length:
        return text
    head = (length - 1) * 2 // 3
    return text[:head] + ELLIPSIS + text[len(text) - (length - 1 - head) :]
