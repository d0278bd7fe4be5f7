from memdesk.app.cli import main

raise SystemExit(main())
