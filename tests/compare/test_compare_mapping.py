"""The mapping tables of `compare` (rules/mappings/): schema-valid, consistent with the API
signature tables and with the verified defaults, and rejected clearly when broken."""
from __future__ import annotations

import os
import shutil

import pytest

from linter.compare.mapping import MappingError, load_tables, mappings_dir
from linter.engine.packs import load_packs

KNOWLEDGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs", "framework-facts.yaml")


@pytest.fixture(scope="module")
def tables():
    return load_tables()


@pytest.fixture(scope="module")
def apis():
    return load_packs().apis


def _signature(tables, apis, qual):
    if qual in tables.signatures:
        return tables.signatures[qual]
    api = apis.get(qual)
    return api.signature(None) if api is not None else None


def test_every_api_has_a_signature(tables, apis) -> None:
    missing = [q for q in tables.by_api if _signature(tables, apis, q) is None]
    assert missing == []


def test_every_source_parameter_exists(tables, apis) -> None:
    """A typo in a table (`has_bais`) would silently turn a setting into 'not expressible'."""
    problems = []
    for qual, entries in tables.by_api.items():
        sig = _signature(tables, apis, qual)
        names = {p.name for p in sig}
        if any(p.kind == "varkw" for p in sig) and len(names) <= 2:
            continue   # `*args, **kwargs` base classes: checked on the subclass at run time
        for e in entries:
            sources = [e.spec[k] for k in ("factor_from", "when") if k in e.spec]
            for spec in (e.spec.get("map") or {}).values():
                if isinstance(spec, str):
                    sources.append(spec)
                elif "from" in spec:
                    sources += spec["from"] if isinstance(spec["from"], list) else [spec["from"]]
            problems += [f"{e.section}.{e.kind} {qual}: {s}" for s in sources if s not in names]
    assert problems == []


def test_mappings_are_not_loaded_as_rules() -> None:
    packs = load_packs()
    assert not packs.errors
    assert not [r.path for r in packs.rules if os.sep + "mappings" + os.sep in r.path]


def test_defaults_used_by_compare_agree_with_the_verified_knowledge(tables, apis) -> None:
    """Every verified default (docs/framework-facts.yaml) of an API that compare reads must be the
    default compare fills in."""
    import yaml

    from linter.index.apis import NO_DEFAULT

    with open(KNOWLEDGE, encoding="utf-8") as fh:
        entries = yaml.safe_load(fh)["entries"]
    checked, wrong = 0, []
    for entry in entries:
        for fw in entry["frameworks"].values():
            qual = apis.canonical(fw["api"].replace("tf.", "tensorflow.", 1) if fw["api"].startswith("tf.") else fw["api"])
            if qual not in tables.by_api or fw.get("check", "signature") != "signature":
                continue
            sig = {p.name: p.default for p in _signature(tables, apis, qual)}
            pairs = dict(fw.get("also") or {})
            if "param" in fw:
                pairs[fw["param"]] = fw["default"]
            for name, default in pairs.items():
                if name not in sig:
                    continue
                have = sig[name]
                if isinstance(default, list):
                    default = tuple(default)
                if default == "<required>":
                    ok = have is NO_DEFAULT
                else:
                    ok = have == default or str(have) == str(default)
                checked += 1
                if not ok:
                    wrong.append(f"{qual}.{name}: compare uses {have!r}, verified {default!r}")
    assert wrong == []
    assert checked > 40


def _broken_copy(tmp_path, old: str, new: str, name: str = "compare.yaml") -> str:
    d = tmp_path / "mappings"
    shutil.copytree(mappings_dir(), d)
    path = d / name
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return str(d)


def test_an_unknown_transform_is_rejected_with_file_line_and_path(tmp_path) -> None:
    d = _broken_copy(tmp_path, "transform: one_minus}", "transform: one_minus_typo}")
    with pytest.raises(MappingError) as exc:
        load_tables(d)
    msg = str(exc.value)
    assert os.path.join(d, "compare.yaml") + ":" in msg
    assert "one_minus_typo" in msg and "(at /layers/BatchNorm/apis/" in msg


def test_a_kind_without_apis_is_rejected(tmp_path) -> None:
    d = _broken_copy(tmp_path, "  Dropout2d:\n    params: [drop_probability]\n", "  Dropout2d:\n    parms: [drop_probability]\n")
    with pytest.raises(MappingError, match=r"compare.yaml:\d+: invalid mapping table: .*(at /layers/Dropout2d)"):
        load_tables(d)


def test_a_message_without_chinese_is_rejected(tmp_path) -> None:
    d = _broken_copy(tmp_path, "  mismatch: {en: mismatch, zh: 不一致}\n", "  mismatch: {en: mismatch}\n",
                     name="compare.messages.yaml")
    with pytest.raises(MappingError, match=r"compare.messages.yaml:\d+: .*'zh' is a required property .*verdicts/mismatch"):
        load_tables(d)


def test_invalid_yaml_is_reported(tmp_path) -> None:
    d = _broken_copy(tmp_path, "version: 1\n", "version: [1\n")
    with pytest.raises(MappingError, match="compare.yaml"):
        load_tables(d)
