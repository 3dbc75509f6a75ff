"""primetui's preferences file: documented, lenient on bad input, and saved without losing comments."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from primetui.config.prefs import Prefs, PrefsError, default_toml, load_prefs, prefs_path, save_prefs


def test_missing_file_means_defaults(tmp_path):
    prefs, warning = load_prefs(tmp_path / "config.toml")
    assert warning is None and prefs == Prefs()
    assert prefs.refresh.logs == 3.0 and prefs.chart_marker == "braille" and prefs.keymap == {}


def test_env_overrides_config_dir(tmp_path):
    assert prefs_path({"PRIMETUI_CONFIG_DIR": str(tmp_path)}) == tmp_path / "config.toml"
    assert prefs_path({}).name == "config.toml"


def test_full_file_is_read(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(
        'theme = "primetui-light"\nchart_marker = "ascii"\nlocal_data_dir = "~/plat"\n'
        "[refresh]\nruns_list = 10\nlogs = 0.5\n"
        '[keymap]\n"app.theme" = "ctrl+t"\n'
    )
    prefs, warning = load_prefs(path)
    assert warning is None
    assert prefs.theme == "primetui-light" and prefs.chart_marker == "ascii"
    assert prefs.local_data_dir == Path("~/plat").expanduser()
    assert prefs.refresh.runs_list == 10 and prefs.refresh.logs == 0.5 and prefs.refresh.metrics == 5.0
    assert prefs.keymap == {"app.theme": "ctrl+t"}


def test_syntax_error_gives_defaults_and_one_sentence(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('theme = "x\n')
    prefs, warning = load_prefs(path)
    assert prefs == Prefs()
    assert warning.startswith(f"{path} is not valid TOML (") and warning.endswith("meanwhile.")
    assert "line 1" in warning


def test_bad_values_fall_back_per_field(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(
        'theme = "primetui-light"\nchart_marker = "sparkles"\ncolour = "red"\n'
        '[refresh]\nlogs = 0.01\nmetrics = "often"\nrun_detail = 7\n'
        '[keymap]\n"app.quit" = 5\n"app.theme" = "t"\n'
    )
    prefs, warning = load_prefs(path)
    assert prefs.theme == "primetui-light" and prefs.chart_marker == "braille"
    assert prefs.refresh.logs == 3.0 and prefs.refresh.metrics == 5.0 and prefs.refresh.run_detail == 7
    assert prefs.keymap == {"app.theme": "t"}
    for needle in (
        "`chart_marker`",
        "Unknown setting `colour`",
        "`refresh.logs`",
        "`refresh.metrics`",
        "`keymap.app.quit`",
    ):
        assert needle in warning
    assert warning.count(".toml") == 5


def test_table_of_wrong_type(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("refresh = 5\n")
    prefs, warning = load_prefs(path)
    assert prefs.refresh == Prefs().refresh and "`refresh`" in warning


def test_not_utf8(tmp_path):
    path = tmp_path / "config.toml"
    path.write_bytes(b"theme = '\xff'\n")
    prefs, warning = load_prefs(path)
    assert prefs == Prefs() and "not UTF-8" in warning


def test_save_keeps_comments_and_round_trips(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text('# my theme\ntheme = "a"  # keep me\n\n[keymap]\n"app.quit" = "ctrl+q"\n')
    prefs, _ = load_prefs(path)
    prefs.theme = "primetui-light"
    prefs.refresh.logs = 1.5
    prefs.keymap = {"app.theme": "ctrl+t"}
    save_prefs(prefs, path)
    text = path.read_text()
    assert "# my theme" in text and "# keep me" in text
    again, warning = load_prefs(path)
    assert warning is None and again == prefs


def test_save_creates_documented_file(tmp_path):
    path = tmp_path / "sub" / "config.toml"
    save_prefs(Prefs(chart_marker="block"), path)
    text = path.read_text()
    assert "# How charts draw lines" in text
    assert load_prefs(path)[0] == Prefs(chart_marker="block")


def test_save_never_clobbers_a_broken_file(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text("theme = = 1\n")
    with pytest.raises(PrefsError, match="untouched"):
        save_prefs(Prefs(), path)
    assert path.read_text() == "theme = = 1\n"


def test_default_toml_documents_every_field_and_parses():
    text = default_toml()
    parsed = tomllib.loads(text)
    assert Prefs.model_validate({**parsed, "local_data_dir": None}) == Prefs()
    for name, info in list(Prefs.model_fields.items()) + list(type(Prefs().refresh).model_fields.items()):
        assert info.description, name
        assert info.description.splitlines()[0] in text


def test_invalid_assignment_is_refused():
    prefs = Prefs()
    with pytest.raises(ValueError):
        prefs.refresh.logs = 0
