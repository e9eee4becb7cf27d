"""The command line: ``gradeframe score FILE`` grades a file of answers and prints the report.

Inputs are read by extension: ``.parquet``, ``.csv``, ``.jsonl`` / ``.ndjson`` (JSON Lines, with
nested output records) and ``.json`` (an array of records, read exactly as the same records in
JSON Lines would be). ``-o OUT`` writes the graded rows, in the format its extension names. The
report (see :func:`gradeframe.report`) goes to stdout as a table; a progress bar goes to stderr
on inputs of more than one chunk of rows.

CSV cells are text: nothing is guessed, so "007", "0.10" and "42" stay as written. A ``refs``
cell that holds a JSON list (it starts with ``[``, as in ``["12400", "12,400"]``) is a list of
acceptable answers; any other cell is one. Graded rows written to CSV flatten struct columns into
``col.field`` columns (lists, and lists of structs such as ``trace``, as JSON text); reading a
CSV puts such columns back into a struct, reading the known record fields by name (``partial`` as
Boolean, ``notes`` and ``trace`` from JSON). The output columns of an earlier grading
(``correct``, ``failure_kind``, ``outcome``, with ``--prefix``) are replaced, so scoring a written
file again gives the same report.

Errors (a missing or unreadable file, a missing column, a bad cell) end with one line on stderr
naming the flag the user typed (and the row, for a bad cell) and exit status 2; no traceback.
"""

from gradeframe.cli._main import main

__all__ = ["main"]
