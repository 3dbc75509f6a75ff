"""The front-ends: the command line and each command (headless views, chart, compare, diagnose, wait, dispatch, sweep,
serve, validate, lsp, the dashboard's start)."""
