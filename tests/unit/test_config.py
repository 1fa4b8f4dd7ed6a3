"""Configuration files: discovery, validation with useful errors, and merging with the CLI."""
from __future__ import annotations

import os

import pytest

from linter.settings.config import ConfigError, find_config, load_config
from linter.core.model import Severity
from linter.settings.resolve import CliOverrides, resolve_settings
from linter.settings.installed import parse_target, resolve


def write(path, text):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_found_by_walking_up_pyproject_without_table_is_skipped(tmp_path) -> None:
    write(tmp_path / "pyproject.toml", "[tool.trainlint]\nselect = ['API1']\n")
    write(tmp_path / "pkg" / "pyproject.toml", "[project]\nname = 'x'\n")   # no [tool.trainlint]
    write(tmp_path / "pkg" / "src" / "train.py", "")
    found = find_config(["src/train.py"], str(tmp_path / "pkg"))
    assert found == (str(tmp_path / "pyproject.toml"), "pyproject.toml")


def test_trainlint_toml_wins_in_the_same_directory(tmp_path) -> None:
    write(tmp_path / "pyproject.toml", "[tool.trainlint]\nselect = ['API1']\n")
    write(tmp_path / "trainlint.toml", "select = ['DP']\n")
    path, kind = find_config(["."], str(tmp_path))
    assert kind == "trainlint.toml" and load_config(path).select == ["DP"]


def test_values_and_relative_paths(tmp_path) -> None:
    cfg = load_config(write(tmp_path / "trainlint.toml", """
select = ["api.01"]
ignore = ["API205"]
per-file-ignores = {"tests/**" = ["WI3"]}
severity = {API111 = "info"}
rules = ["lint_rules"]
target-version = {mindspore = "2.3"}
exclude = ["third_party/"]
format = "concise"
lang = "zh"
baseline = "bl.json"
""").__str__())
    assert cfg.select == ["api.01"] and cfg.ignore == ["API205"]
    assert cfg.per_file_ignores == [("tests/**", ["WI3"])]
    assert cfg.rules == [str(tmp_path / "lint_rules")] and cfg.baseline == str(tmp_path / "bl.json")
    assert cfg.target_version == {"mindspore": "2.3"} and cfg.format == "concise" and cfg.lang == "zh"


@pytest.mark.parametrize("text,message,line", [
    ("[tool.trainlint]\nselect = ['A']\nper_file_ignores = {}\n", "unknown key 'per_file_ignores' (did you mean 'per-file-ignores'?)", 3),
    ("[tool.trainlint]\nfoo = 1\n", "unknown key 'foo'; known keys: select", 2),
    ("[tool.trainlint]\nselect = 'API101'\n", "select: expected array, got str 'API101'", 2),
    ("[tool.trainlint]\nformat = 'xml'\n", "format: 'xml' is not one of rich, concise, json, sarif, github, junit", 2),
    ("[tool.trainlint]\ntarget-version = {mindspore = 'latest'}\n", "target-version.mindspore: 'latest' is not a version", 2),
    ("[tool.trainlint]\ntarget-version = {jax = '0.4'}\n", "target-version", 2),
    ("[tool.trainlint]\nseverity = {API101 = 'fatal'}\n", "severity.API101: 'fatal' is not one of error, warning, info", 2),
    ("[tool.trainlint]\nselect = [\n", "invalid TOML", None),
])
def test_errors_name_file_line_and_key(tmp_path, text, message, line) -> None:
    path = write(tmp_path / "pyproject.toml", text)
    with pytest.raises(ConfigError) as exc:
        load_config(str(path))
    assert message in exc.value.message
    assert exc.value.path == str(path)
    if line is not None:
        assert exc.value.line == line
    assert str(exc.value).startswith(str(path))


def test_not_utf8_is_an_error(tmp_path) -> None:
    path = tmp_path / "trainlint.toml"
    path.write_bytes("select = ['é']\n".encode("latin-1"))
    with pytest.raises(ConfigError, match="not UTF-8"):
        load_config(str(path))


def settings(tmp_path, cfg_text, **cli):
    write(tmp_path / "trainlint.toml", cfg_text)
    return resolve_settings(["."], str(tmp_path), CliOverrides(**cli))


def test_cli_select_replaces_config_select_and_ignore_layers(tmp_path) -> None:
    st = settings(tmp_path, "select = ['API1']\nignore = ['API111']\n")
    assert "API101" in st.ran and "API111" not in st.ran and "DP301" not in st.ran
    st = settings(tmp_path, "select = ['API1']\nignore = ['API111']\n", select=["API111"])
    assert st.ran == {"API111"}          # a later select replaces the earlier layers (Ruff)
    st = settings(tmp_path, "select = ['API1']\n", extend_select=["DP301"], ignore=["API101"])
    assert "DP301" in st.ran and "API101" not in st.ran and "API102" in st.ran


def test_unknown_selectors_in_config_and_cli_are_errors(tmp_path) -> None:
    with pytest.raises(ConfigError, match="unknown rule selector 'APX1'") as exc:
        settings(tmp_path, "ignore = ['APX1']\n")
    assert exc.value.path.endswith("trainlint.toml")
    with pytest.raises(ConfigError, match="command line"):
        settings(tmp_path, "", select=["nonsense"])


def test_severity_overrides_and_per_file_ignores(tmp_path) -> None:
    st = settings(tmp_path, "severity = {'api.01' = 'info'}\nper-file-ignores = {'tests' = ['API101'], 'legacy_*.py' = ['dp.03']}\n")
    assert st.options.severity["API101"] is Severity.INFO and st.options.severity["API121"] is Severity.INFO
    ignored = st.options.per_file_ignores
    assert "API101" in ignored(str(tmp_path / "tests" / "unit" / "t.py"))
    assert ignored(str(tmp_path / "src" / "t.py")) == frozenset()
    assert {"DP301", "DP302", "DP303"} <= ignored(str(tmp_path / "src" / "legacy_train.py"))
    assert ignored(os.path.join(os.path.dirname(str(tmp_path)), "elsewhere.py")) == frozenset()


def test_cli_wins_over_config(tmp_path) -> None:
    st = settings(tmp_path, "format = 'json'\nlang = 'zh'\n", format="concise")
    assert st.format == "concise" and st.lang == "zh"


def test_isolated_and_explicit_config(tmp_path) -> None:
    write(tmp_path / "other.toml", "select = ['MP3']\n")
    st = settings(tmp_path, "select = ['API1']\n", isolated=True)
    assert "DP301" in st.ran
    st = settings(tmp_path, "select = ['API1']\n", config="other.toml")
    assert st.ran == {"MP301", "MP302", "MP303"}
    with pytest.raises(ConfigError, match="does not exist"):
        settings(tmp_path, "", config="missing.toml")


def test_version_resolution_order() -> None:
    versions, sources = resolve({"mindspore": "2.3"}, {"mindspore": "1.8", "pytorch": "2.1"}, detect=False)
    assert versions == {"mindspore": "2.3", "pytorch": "2.1"}
    assert sources == {"mindspore": "--target-version", "pytorch": "config"}
    assert parse_target("torch=2.1") == ("pytorch", "2.1")
    assert parse_target("mindspore=") is None and parse_target("jax=1") is None and parse_target("ms=two") is None


def test_installed_version_is_read_from_metadata(tmp_path) -> None:
    site = tmp_path / "site-packages"
    (site / "mindspore_gpu-2.2.14.dist-info").mkdir(parents=True)
    (site / "torchvision-0.20.0.dist-info").mkdir()            # not torch
    (site / "tensorflow_cpu-2.15.0.post1.dist-info").mkdir()
    versions, sources = resolve({}, {}, paths=[str(tmp_path / "missing"), str(site)])
    assert versions == {"mindspore": "2.2.14", "tensorflow": "2.15.0"}
    assert sources == {"mindspore": "installed", "tensorflow": "installed"}
    versions, _ = resolve({"mindspore": "2.3"}, {}, paths=[str(site)])
    assert versions["mindspore"] == "2.3"


def test_installed_version_agrees_with_importlib_metadata() -> None:
    from importlib import metadata

    from linter.settings.installed import installed_version

    for dist in ("libcst", "PyYAML", "jsonschema"):
        expected = metadata.version(dist)
        import linter.settings.installed as V

        V.DISTRIBUTIONS["_probe"] = (dist,)
        try:
            assert installed_version("_probe") == V._VERSION.match(expected).group(0), dist
        finally:
            del V.DISTRIBUTIONS["_probe"]
