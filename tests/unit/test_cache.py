"""The facts/result cache and parallel runs: same answers as a cold serial run, invalidated by
every input that matters, and never trusting an entry it did not write."""
from __future__ import annotations

import json
import os

import pytest

from linter import match as match_stage

from linter.facts import batch as parse
from linter.core.cache import Cache
from tests.integration.test_cli import run

BAD = "from mindspore import nn\nlayer = nn.Dropout(0.1)\n"


def write(root, rel, text):
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(text, encoding="utf-8")
    return p


def findings(*argv, cwd):
    code, out, err = run("check", "--isolated", "--format", "json", *argv, cwd=str(cwd))
    doc = json.loads(out)
    return code, [(f["path"], f["line"], f["rule"], f["message"]) for f in doc["findings"]], doc["errors"]


@pytest.fixture
def cache_dir(tmp_path):
    return str(tmp_path / "cache")


def test_cached_runs_equal_cold_runs_and_hit_the_cache(tmp_path, cache_dir) -> None:
    proj = tmp_path / "p"
    write(proj, "src/config.py", "DROPOUT = 0.2\n")
    write(proj, "train.py", "from mindspore import nn\nfrom src import config\nd = nn.Dropout(config.DROPOUT)\n")
    cold = findings("--no-cache", ".", cwd=proj)
    first = findings("--cache-dir", cache_dir, ".", cwd=proj)
    second = findings("--cache-dir", cache_dir, ".", cwd=proj)
    assert cold == first == second and cold[1]
    assert os.path.isdir(os.path.join(cache_dir, "v1", "facts")) and os.path.isdir(os.path.join(cache_dir, "v1", "results"))
    with open(os.path.join(cache_dir, ".gitignore")) as fh:
        assert "*" in fh.read()


def test_context_file_change_and_new_module_invalidate_results(tmp_path, cache_dir) -> None:
    proj = tmp_path / "p"
    write(proj, "src/config.py", "LEVEL = 0.2\n")
    write(proj, "train.py", "from mindspore import nn\nfrom src import config\nd = nn.Dropout(config.LEVEL)\n")
    assert findings("--cache-dir", cache_dir, "train.py", cwd=proj)[0] == 1
    write(proj, "src/config.py", "LEVEL = 0.9\n")            # only a context file changed
    code, found, _ = findings("--cache-dir", cache_dir, "train.py", cwd=proj)
    assert code == 0 and found == []
    # A module that did not exist (an import that resolved nowhere) appears.
    write(proj, "b.py", "from mindspore import nn\nfrom helpers import LEVEL\nd = nn.Dropout(LEVEL)\n")
    assert findings("--cache-dir", cache_dir, "b.py", cwd=proj)[0] == 0
    write(proj, "helpers.py", "LEVEL = 0.1\n")
    code, found, _ = findings("--cache-dir", cache_dir, "b.py", cwd=proj)
    assert code == 1 and found[0][2] == "API101"


def test_settings_and_rules_change_the_result_key(tmp_path, cache_dir) -> None:
    write(tmp_path, "a.py", BAD)
    en = findings("--cache-dir", cache_dir, "a.py", cwd=tmp_path)[1]
    _, out, _ = run("check", "--isolated", "--format", "json", "--lang", "zh", "--cache-dir", cache_dir, "a.py", cwd=str(tmp_path))
    zh = json.loads(out)["findings"]
    assert en[0][3] != zh[0]["message"] and "保留" in zh[0]["message"]
    assert findings("--cache-dir", cache_dir, "--ignore", "API101", "a.py", cwd=tmp_path)[:2] == (0, [])
    pack = tmp_path / "pack"
    pack.mkdir()
    import shutil

    src = os.path.join(os.path.dirname(__file__), "..", "..", "rules", "mindspore", "mindspore-dropout-keep-prob.yaml")
    text = open(src, encoding="utf-8").read().replace("id: API101", "id: USR101").replace(
        "name: mindspore-dropout-keep-prob", "name: usr-dropout")
    (pack / "usr-dropout.yaml").write_text(text, encoding="utf-8")
    del shutil
    _, found, _ = findings("--cache-dir", cache_dir, "--rules", str(pack), "a.py", cwd=tmp_path)
    assert {f[2] for f in found} == {"API101", "USR101"}


def test_entries_not_written_by_this_user_are_never_unpickled(tmp_path, cache_dir, monkeypatch) -> None:
    cache = Cache(cache_dir)
    assert cache.enabled
    cache.put("facts", "ns", "k" * 32, {"ok": 1})
    assert cache.get("facts", "ns", "k" * 32) == {"ok": 1}
    path = cache._path("facts", "ns", "k" * 32)
    # A forged entry: a pickle that would run code, with a MAC made with another key.
    import pickle

    payload = pickle.dumps(_Boom())
    with open(path, "wb") as fh:
        fh.write(b"\0" * 32 + payload)
    assert cache.get("facts", "ns", "k" * 32) is None
    with open(path, "wb") as fh:
        fh.write(b"garbage")
    assert cache.get("facts", "ns", "k" * 32) is None
    # Another user (another secret) cannot read this user's entries either.
    cache.put("facts", "ns", "k" * 32, {"ok": 2})
    other = Cache(cache_dir)
    other.secret = b"x" * 32
    assert other.get("facts", "ns", "k" * 32) is None


class _Boom:
    def __reduce__(self):
        return (os.system, ("echo pwned > /dev/null",))


def test_no_cache_writes_nothing_and_nothing_goes_into_the_project(tmp_path) -> None:
    proj = tmp_path / "p"
    write(proj, "a.py", BAD)
    before = sorted(os.listdir(proj))
    findings("a.py", cwd=proj)                          # default cache: the user cache directory
    findings("--no-cache", "a.py", cwd=proj)
    assert sorted(os.listdir(proj)) == before


def test_parallel_runs_are_identical_to_serial(tmp_path, monkeypatch) -> None:
    """Worker processes for parsing and matching (thresholds lowered so that a small project
    takes the parallel paths) give byte-identical output."""
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    projects = os.path.join(here, "projects")
    serial = run("check", "--isolated", "--no-cache", "--format", "json", "-j", "1", projects)
    monkeypatch.setattr(parse, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(match_stage, "PARALLEL_MIN_CALLS", 0)
    parallel = run("check", "--isolated", "--no-cache", "--format", "json", "-j", "2", projects)
    assert serial[0] == parallel[0] and serial[1] == parallel[1]
    assert json.loads(serial[1])["findings"]


def test_a_project_is_judged_alike_alone_and_among_copies_of_itself(tmp_path, monkeypatch) -> None:
    """A tree of many projects (course repositories, one folder per model) repeats module,
    class and config names in every folder; each project's findings must be those it has
    alone, whatever sits beside it, and the same for every job count."""
    import shutil

    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    fixtures = os.path.join(here, "projects")
    for i in range(3):
        shutil.copytree(fixtures, tmp_path / f"p{i}", ignore=shutil.ignore_patterns("__pycache__"))
    alone = run("check", "--isolated", "--no-cache", "--format", "json", "-j", "1", "p0", cwd=str(tmp_path))
    serial = run("check", "--isolated", "--no-cache", "--format", "json", "-j", "1", ".", cwd=str(tmp_path))
    monkeypatch.setattr(parse, "PARALLEL_MIN_BYTES", 0)
    monkeypatch.setattr(match_stage, "PARALLEL_MIN_CALLS", 0)
    parallel = run("check", "--isolated", "--no-cache", "--format", "json", "-j", "2", ".", cwd=str(tmp_path))
    assert serial[1] == parallel[1]

    def of(doc: str, prefix: str):
        return [(f["path"][len(prefix):], f["line"], f["rule"],
                 # module names are relative to the folder named on the command line
                 f["message"].replace(prefix, "p0/").replace(prefix[:-1] + ".", ""))
                for f in json.loads(doc)["findings"] if f["path"].startswith(prefix)]

    base = of(alone[1], "p0/")
    assert base and of(serial[1], "p0/") == base
    assert of(serial[1], "p1/") == base and of(serial[1], "p2/") == base


def test_the_work_of_a_run_grows_linearly_with_the_number_of_projects(tmp_path, monkeypatch) -> None:
    """Not timed: the number of reachability questions the rules ask (the step that grew with
    entries × calls before) doubles, not quadruples, when the projects in the tree double."""
    import shutil

    from linter.program.roles import Roles

    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    fixtures = os.path.join(here, "projects")
    asked = []
    orig = Roles.call_entries

    def counting(self, fi, cid):
        asked.append(1)
        return orig(self, fi, cid)

    monkeypatch.setattr(Roles, "call_entries", counting)
    counts = []
    for n in (2, 4):
        tree = tmp_path / f"t{n}"
        for i in range(n):
            shutil.copytree(fixtures, tree / f"p{i}", ignore=shutil.ignore_patterns("__pycache__"))
        asked.clear()
        code, out, _ = run("check", "--isolated", "--no-cache", "--format", "json", "-j", "1", str(tree))
        assert json.loads(out)["findings"]
        counts.append(len(asked))
    assert counts[0] > 0 and counts[1] <= 2.2 * counts[0], counts


def test_code_digests_cover_the_code_they_stand_for(monkeypatch) -> None:
    """The run key covers every module of the package, the facts namespace the extraction code,
    the packs digest the compiler: an engine change must never be answered from a stale cache
    (the digests once read `linter/core/` only, after the cache module moved there)."""
    from linter.core import cache as cache_mod
    from linter.engine.packs import PACKS_CODE

    seen = []
    monkeypatch.setattr(cache_mod, "stamp", lambda path: seen.append(path) or path)
    root = os.path.dirname(os.path.dirname(cache_mod.__file__))
    cache_mod.code_digest(".")
    rel = {os.path.relpath(p, root).replace(os.sep, "/") for p in seen}
    assert {"program/training.py", "match/predicates.py", "facts/extract.py", "cli.py"} <= rel
    seen.clear()
    cache_mod.code_digest(*cache_mod.FACTS_CODE)
    rel = {os.path.relpath(p, root).replace(os.sep, "/") for p in seen}
    assert {"facts/extract.py", "source/notebooks.py", "source/decode.py"} <= rel
    seen.clear()
    cache_mod.code_digest(*PACKS_CODE)
    rel = {os.path.relpath(p, root).replace(os.sep, "/") for p in seen}
    assert {"compiler/build.py", "index/apis.py"} <= rel
    with pytest.raises(FileNotFoundError):
        cache_mod.code_digest("no_such_module.py")
