"""``python -m site_builder``."""

import sys

from .cli import run

sys.exit(run())
