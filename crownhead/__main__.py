"""``python -m crownhead``: the same as the ``crownhead`` command."""

import sys

from crownhead.firmware.cli import main

sys.exit(main())
