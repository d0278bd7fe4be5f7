"""``python -m memdesk.app.cli``: the ``memdesk`` command."""

from . import main

raise SystemExit(main())
