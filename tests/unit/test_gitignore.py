"""gitignore(5) patterns and the directory walk that honours them."""
from __future__ import annotations

import os

import pytest

from linter.source.discover import Walk, discover, is_excluded
from linter.source.gitignore import IgnoreFile


def decide(patterns, rel, is_dir=False):
    f = IgnoreFile.from_lines("/base", patterns, "test")
    return f.decide(os.path.join("/base", rel), is_dir)


@pytest.mark.parametrize("patterns,rel,is_dir,expected", [
    (["*.log"], "a/b/x.log", False, True),            # no slash: any level
    (["*.log"], "a/b/x.py", False, None),
    (["/build"], "build", True, True),                # leading slash: anchored
    (["/build"], "src/build", True, None),
    (["doc/frotz"], "doc/frotz", True, True),         # middle slash: anchored
    (["doc/frotz"], "a/doc/frotz", True, None),
    (["logs/"], "logs", False, None),                 # trailing slash: directories only
    (["logs/"], "logs", True, True),
    (["**/foo"], "a/b/foo", False, True),
    (["**/foo"], "foo", False, True),
    (["a/**/b"], "a/x/y/b", True, True),
    (["a/**/b"], "a/b", True, True),
    (["abc/**"], "abc/x/y.py", False, True),
    (["*.py", "!keep.py"], "keep.py", False, False),  # negation, last match wins
    (["!keep.py", "*.py"], "keep.py", False, True),
    (["x?.py"], "x1.py", False, True),
    (["x?.py"], "x/.py", False, None),                # ? does not cross /
    (["[ab].py"], "b.py", False, True),
    (["[!ab].py"], "b.py", False, None),
    (["# comment", "", "  "], "comment", False, None),
    (["\\#hash.py"], "#hash.py", False, True),
    (["trailing.py   "], "trailing.py", False, True),
])
def test_patterns(patterns, rel, is_dir, expected) -> None:
    assert decide(patterns, rel, is_dir) is expected


def test_paths_outside_the_base_are_not_decided() -> None:
    assert IgnoreFile.from_lines("/base", ["*.py"], "t").decide("/elsewhere/a.py", False) is None


def write(root, rel, text="x = 1\n"):
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text)
    return p


@pytest.fixture
def tree(tmp_path):
    (tmp_path / ".git").mkdir()
    write(tmp_path, ".gitignore", "generated/\n*_pb2.py\n!keep_pb2.py\n")
    write(tmp_path, "train.py")
    write(tmp_path, "nb.ipynb", "{}")
    write(tmp_path, "notes.txt")
    write(tmp_path, "generated/model.py")
    write(tmp_path, "proto/msg_pb2.py")
    write(tmp_path, "proto/keep_pb2.py")
    write(tmp_path, "sub/.gitignore", "local.py\n")
    write(tmp_path, "sub/local.py")
    write(tmp_path, "sub/other.py")
    write(tmp_path, ".hidden/x.py")
    write(tmp_path, "build/lib/x.py")
    write(tmp_path, "venv_py/pyvenv.cfg", "home = /usr\n")
    write(tmp_path, "venv_py/lib/site.py")
    write(tmp_path, "env/cartpole.py")               # an RL environment, not a virtualenv
    write(tmp_path, "vendor/third.py")
    return tmp_path


def names(refs):
    return sorted(r.path.replace(os.sep, "/") for r in refs)


def test_walk_honours_gitignore_defaults_and_environments(tree) -> None:
    refs, errors = discover(["."], str(tree))
    assert errors == []
    assert names(refs) == ["env/cartpole.py", "nb.ipynb", "proto/keep_pb2.py", "sub/other.py", "train.py",
                           "vendor/third.py"]


def test_respect_gitignore_off_and_config_excludes(tree) -> None:
    refs, _ = discover(["."], str(tree), Walk(respect_gitignore=False, exclude=["vendor/", ".*/"]))
    got = names(refs)
    assert "generated/model.py" in got and "sub/local.py" in got and "build/lib/x.py" in got
    assert "vendor/third.py" not in got and ".hidden/x.py" not in got


def test_include_globs(tree) -> None:
    refs, _ = discover(["."], str(tree), Walk(include=["*.py"]))
    assert "nb.ipynb" not in names(refs)
    refs, _ = discover(["."], str(tree), Walk(include=["*.py", "*.ipynb", "*.txt"]))
    assert "notes.txt" in names(refs)


def test_gitignore_of_a_parent_applies_when_walking_a_subdirectory(tree) -> None:
    refs, _ = discover(["proto"], str(tree))
    assert names(refs) == ["proto/keep_pb2.py"]


def test_named_files_are_linted_unless_force_exclude(tree) -> None:
    refs, _ = discover(["generated/model.py"], str(tree))
    assert names(refs) == ["generated/model.py"]
    walk = Walk(force_exclude=True)
    refs, _ = discover(["generated/model.py", "train.py"], str(tree), walk)
    assert names(refs) == ["train.py"] and walk.excluded == ["generated/model.py"]
    assert is_excluded("generated/new_file.py", str(tree), Walk(force_exclude=True))  # need not exist
    assert not is_excluded("train.py", str(tree), Walk(force_exclude=True))


def test_missing_paths_are_errors_not_silence(tree) -> None:
    refs, errors = discover(["nope.py"], str(tree))
    assert refs == [] and [e.message for e in errors] == ["path does not exist"]


def test_default_excludes_apply_to_trees_outside_the_project(tmp_path) -> None:
    """`trainlint check /usr/lib/python3.11` from elsewhere must not walk into its
    `site-packages/`: patterns that match at any depth apply outside the config's directory
    too; anchored ones (`/top.py`, `a/b.py`) do not."""
    from linter.source.gitignore import IgnoreFile

    f = IgnoreFile.from_lines(str(tmp_path / "proj"), ["site-packages/", "/top.py", "a/b.py"], "exclude", outside=True)
    outside = tmp_path / "lib" / "python3.11"
    assert f.decide(str(outside / "site-packages"), True) is True
    assert f.decide(str(outside / "site-packages"), False) is None      # dir-only pattern
    assert f.decide(str(outside / "os.py"), False) is None
    assert f.decide(str(tmp_path / "other" / "top.py"), False) is None
    assert f.decide(str(tmp_path / "proj" / "top.py"), False) is True
    assert f.decide(str(tmp_path / "other" / "a" / "b.py"), False) is None
