#!/usr/bin/env bash
# Mutation testing of one security or data-integrity module, outside CI (docs/testing.md, "Mutation testing").
#
#   bash scripts/mutation.sh <module>      # module: neutraliser | atomic | boundary | confinement | wall | scope | rules | rules-rl
#
# It copies the work tree (tracked and new files, as they are now) to $MUTATION_DIR/<module>
# (default /tmp/primetui-mutation), adds a [tool.mutmut] table to the copy's pyproject.toml naming
# the one source file to mutate and the unit tests that cover it, and runs mutmut 3 there, niced,
# with one child. mutmut runs in the project's own environment (`uv run --with`), so pytest and the
# package are the locked ones and neither pyproject.toml nor uv.lock of the repository changes.
# The summary and the surviving mutants are printed at the end; `mutmut show <name>` in that
# folder prints a mutant's diff.
set -euo pipefail

MUTMUT="mutmut==3.8.1"
module="${1:?usage: scripts/mutation.sh neutraliser|atomic|boundary|confinement|wall|scope|rules|rules-rl}"

case "$module" in
neutraliser)
    source_file=src/primetui/monitor_core/escapes.py
    tests=(tests/unit/test_untrusted_text.py tests/unit/test_monitor_core.py)
    ;;
atomic)
    source_file=src/primetui/config/fileio.py
    tests=(tests/unit/test_fileio.py)
    ;;
boundary)
    source_file=src/primetui/api/boundary.py
    tests=(tests/unit/test_boundary_rules.py tests/unit/test_run_progress_incremental.py)
    ;;
confinement)
    source_file=src/primetui/local/paths.py
    tests=(tests/unit/test_volume_paths.py tests/local/test_path_property.py)
    ;;
wall)
    source_file=src/primetui/local/wall.py
    tests=(tests/unit/test_wall_rules.py)
    ;;
scope)
    source_file=src/primetui/local/scope.py
    tests=(tests/unit/test_scope_rules.py)
    ;;
rules-rl)
    source_file=src/primetui/sft/rules_rl.py
    tests=(tests/unit/test_rl_config.py tests/unit/test_config_kind.py tests/unit/test_rl_rules.py)
    ;;
rules)
    source_file=src/primetui/sft/rules_primerl.py
    tests=(tests/unit/test_sft_rules.py tests/unit/test_sft_corners.py tests/unit/test_sft_one_cause.py tests/unit/test_sft_precision.py)
    ;;
*)
    echo "unknown module: $module" >&2
    exit 2
    ;;
esac

root="$(git rev-parse --show-toplevel)"
work="${MUTATION_DIR:-/tmp/primetui-mutation}/$module"
rm -rf "$work"
mkdir -p "$work"
(cd "$root" && git ls-files -z --cached --others --exclude-standard | tar --null -T - -c) | tar -x -C "$work"

selection=$(printf '"%s", ' "${tests[@]}")
cat >>"$work/pyproject.toml" <<EOF

[tool.mutmut]
source_paths = ["src"]
only_mutate = ["$source_file"]
pytest_add_cli_args = ["-n", "0", "-p", "no:cacheprovider", "-q", "-x"]
pytest_add_cli_args_test_selection = [${selection%, }]
EOF

cd "$work"
export UV_PROJECT_ENVIRONMENT="$work/.venv"
nice -n 15 uv sync --frozen --quiet
nice -n 15 uv run --frozen --with "$MUTMUT" mutmut run --max-children 1 || true
nice -n 15 uv run --frozen --with "$MUTMUT" mutmut results --all true 2>/dev/null \
    || nice -n 15 uv run --frozen --with "$MUTMUT" mutmut results
