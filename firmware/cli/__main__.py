"""``python -m firmware.cli``: the same as the ``crownhead`` command."""

import sys

from firmware.cli import main

sys.exit(main())
