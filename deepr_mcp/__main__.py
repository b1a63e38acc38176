"""``python -m deepr_mcp`` is the same as the ``deepr-mcp`` command."""

import sys

from deepr_mcp.cli import main

sys.exit(main())
