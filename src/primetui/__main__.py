from primetui.cli import main

raise SystemExit(main())
