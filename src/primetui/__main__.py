import os

if (
    os.environ.get("PRIMETUI_SERVE_SPARE") == "1"
):  # primetui.commands.spare.MARKER: started ahead of a browser tab by `primetui serve`
    from primetui.commands.spare import hold

    hold()

from primetui.commands.cli import main  # noqa: E402

raise SystemExit(main())
