"""``python -m gradeframe.cli``: the command line."""

from gradeframe.cli import main

raise SystemExit(main())
