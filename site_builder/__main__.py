"""``python -m site_builder``."""

import sys

from .cli import main

sys.exit(main())
