"""``python -m desk.core.semantic.builder LIBRARY``: the detached builder of the sentence encoder's
vectors (background.py starts it; build.main does the work).

Its priority is lowered here, before numpy is imported: Linux keeps a niceness per thread, and
the BLAS threads numpy starts at import would otherwise run at the caller's priority.
"""

from __future__ import annotations

import sys

from desk.core.semantic.background import lower_priority

if __name__ == "__main__":
    lower_priority()
    from desk.core.semantic.build import main

    sys.exit(main(sys.argv[1:]))
