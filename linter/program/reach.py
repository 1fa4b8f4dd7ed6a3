"""Which entry scripts run a call: the reachability answered by :class:`linter.program.roles.Roles`
(callers up to the entries, instance calls, registries, constructions), narrowed to the entries
that really run it — not under another module's ``__main__`` guard, not in a branch no path
takes."""
from __future__ import annotations

from typing import AbstractSet, FrozenSet, List

from linter.program.roles import Roles


def import_closure(roles: Roles, fi: int) -> FrozenSet[int]:
    """``fi`` and the project files it imports, transitively (memoised)."""
    return roles.import_closure(fi)


def running_entries(roles: Roles, fi: int, cid: int) -> List[int]:
    """The entry scripts that run call ``cid`` (:func:`reaches` for each that may), sorted."""
    return [e for e in sorted(roles.call_entries(fi, cid)) if reaches(roles, e, roles.import_closure(e), fi, cid)]


def reaches(roles: Roles, entry: int, closure: AbstractSet[int], fi: int, cid: int) -> bool:
    """Entry script ``entry`` runs call ``cid``: not in a branch no path takes (``if
    args.run_distribute:`` when every launcher leaves it False), not under another module's
    ``__main__`` guard."""
    scope = roles.p.files[fi].calls[cid].scope
    if scope == 0 and fi not in closure:
        return False
    return entry in roles.call_entries(fi, cid)
