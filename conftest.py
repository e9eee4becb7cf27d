"""Collection for the whole project (tests/ and the doctests of src/).

``gradeframe.inspect`` needs inspect_ai at import (its scorers are registered by inspect_ai's own
decorators). inspect_ai is not in the ``test`` extra (``.ci/run`` installs it after the README's
test command), so where it is missing the module is left out of the doctest collection; its
tests skip in ``tests/test_inspect.py``.
"""

import importlib.util

collect_ignore = []
if importlib.util.find_spec("inspect_ai") is None:
    collect_ignore.append("src/gradeframe/inspect.py")

# The scripts that regenerate fixtures import the evaluation tools (each in its own virtualenv).
collect_ignore_glob = ["tests/fixtures/*"]
