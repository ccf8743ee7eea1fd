"""``python -m grader`` is ``agstate-grade``."""

import sys

from grader.cli import main

if __name__ == "__main__":
    sys.exit(main())
