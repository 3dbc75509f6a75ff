"""primetui.config.switch: the account choice written back as `prime switch` writes it."""

from __future__ import annotations

import json

import pytest

from primetui.config.settings import SettingsError, load_settings
from primetui.config.switch import switch_team


def _home(tmp_path, **config):
    (tmp_path / ".prime" / "environments").mkdir(parents=True)
    (tmp_path / ".prime" / "config.json").write_text(json.dumps({"api_key": "k", **config}))
    return tmp_path


def test_switch_writes_the_three_team_fields_and_the_saved_environment(tmp_path):
    home = _home(tmp_path, current_environment="staging", base_url="http://127.0.0.1:9")
    (home / ".prime" / "environments" / "staging.json").write_text(
        json.dumps({"base_url": "http://127.0.0.1:9", "team_id": None})
    )
    env = {}
    settings = load_settings(env, home)
    done = switch_team(settings, "t1", "Team One", "ADMIN", env=env, home=home)
    cfg = json.loads((home / ".prime" / "config.json").read_text())
    saved = json.loads((home / ".prime" / "environments" / "staging.json").read_text())
    assert (cfg["team_id"], cfg["team_name"], cfg["team_role"], cfg["api_key"]) == ("t1", "Team One", "ADMIN", "k")
    assert (saved["team_id"], saved["team_name"], saved["team_role"]) == ("t1", "Team One", "ADMIN")
    assert len(done.written) == 2 and done.label == "Team One"
    switch_team(settings, None, env=env, home=home)
    cfg = json.loads((home / ".prime" / "config.json").read_text())
    assert (cfg["team_id"], cfg["team_name"], cfg["team_role"]) == (None, None, None)


def test_a_platform_prime_does_not_point_at_switches_for_the_session_only(tmp_path):
    home = _home(tmp_path)  # ~/.prime points at the hosted default
    import dataclasses

    settings = dataclasses.replace(load_settings({}, home), base_url="http://127.0.0.1:5555")  # primetui --local
    done = switch_team(settings, "t1", "Team One", env={}, home=home)
    assert done.written == () and json.loads((home / ".prime" / "config.json").read_text()).get("team_id") is None


def test_refusals_are_one_sentence(tmp_path):
    home = _home(tmp_path)
    with pytest.raises(SettingsError, match="PRIME_TEAM_ID is set"):
        switch_team(load_settings({}, home), None, env={"PRIME_TEAM_ID": "x"}, home=home)
    (home / ".prime" / "config.json").write_text("{broken")
    with pytest.raises(SettingsError, match="could not be read"):
        switch_team(load_settings({}, home), "t1", env={}, home=home)
