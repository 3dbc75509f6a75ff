from primetui.commands.cli import main

raise SystemExit(main())
