from __future__ import annotations

import sys

from reflection_core.entry import main

sys.exit(main())
