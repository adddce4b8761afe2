"""``python -m crownhead.firmware.cli``: the same as ``python -m crownhead`` and the ``crownhead`` command."""

import sys

from crownhead.firmware.cli import main

sys.exit(main())
