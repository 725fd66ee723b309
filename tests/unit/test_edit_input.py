"""Hosts' edit inputs read into the core's edit shape (old/new text per replacement)."""

from __future__ import annotations

import pytest

from reflection_core.session.edit_input import patch_edits, patch_files, renamed
from reflection_core.session.opencode_messages import CORE_KEYS

# A Codex apply_patch (the format OpenCode's apply_patch takes too): two hunks in one
# file, the first without an `@@` header, one with a locator, an empty context line.
TWO_HUNKS = """*** Begin Patch
*** Update File: shop/cart.py
 def total(items):
-    return sum(i.price for i in items)
+    return sum(i.price * i.qty for i in items)
@@ def discount(total, code):
     if code == "TEN":

-        return total * 0.9
+        return round(total * 0.9, 2)
*** End of File
*** End Patch
"""


def test_each_hunk_of_an_update_gives_its_old_and_new_text() -> None:
    assert patch_edits(TWO_HUNKS) == [
        {
            "file_path": "shop/cart.py",
            "old_string": "def total(items):\n    return sum(i.price for i in items)",
            "new_string": "def total(items):\n    return sum(i.price * i.qty for i in items)",
        },
        {
            "file_path": "shop/cart.py",
            "old_string": '    if code == "TEN":\n\n        return total * 0.9',
            "new_string": '    if code == "TEN":\n\n        return round(total * 0.9, 2)',
        },
    ]


def test_hunks_of_two_files_name_their_own_file() -> None:
    patch = (
        "*** Begin Patch\n*** Update File: a.py\n@@\n-x = 1\n+x = 2\n"
        "*** Update File: web/b.ts\n@@\n-let y = 1;\n+let y = 2; // two\n*** End Patch\n"
    )
    assert [(e["file_path"], e["new_string"]) for e in patch_edits(patch) or []] == [
        ("a.py", "x = 2"),
        ("web/b.ts", "let y = 2; // two"),
    ]


@pytest.mark.parametrize(
    "patch",
    [
        # a new file: no old text to compare, and an empty file can itself be a change
        "*** Begin Patch\n*** Add File: pkg/__init__.py\n+# package\n*** End Patch\n",
        "*** Begin Patch\n*** Delete File: old.py\n*** End Patch\n",
        "*** Begin Patch\n*** Update File: a.py\n*** Move to: b.py\n@@\n-x = 1\n+x = 1  # b\n"
        "*** End Patch\n",
        # an update alongside an added file
        "*** Begin Patch\n*** Update File: a.py\n@@\n-x = 1\n+x = 1  # b\n"
        "*** Add File: c.py\n+y = 2\n*** End Patch\n",
        # an update with no line taken out or put in
        "*** Begin Patch\n*** Update File: a.py\n@@\n x = 1\n*** End Patch\n",
        # a line the format does not have, text before any file, not a patch at all
        "*** Begin Patch\n*** Update File: a.py\n@@\n-x = 1\n?x = 2\n*** End Patch\n",
        "diff --git a/a.py b/a.py\n*** Update File: a.py\n@@\n-x = 1\n+x = 2\n",
        "",
    ],
)
def test_a_patch_with_any_part_it_cannot_compare_gives_no_edits(patch: str) -> None:
    assert patch_edits(patch) is None


def test_patch_files_names_every_file_including_a_move_target() -> None:
    patch = (
        "*** Begin Patch\n*** Update File: a.py\n*** Move to: b.py\n@@\n-x\n+y\n"
        "*** Add File: c.py\n+z\n*** Delete File: d.py\n*** End Patch\n"
    )
    assert patch_files(patch) == ("a.py", "b.py", "c.py", "d.py")


def test_opencode_edit_keys_are_added_under_the_core_names() -> None:
    args = {
        "filePath": "/repo/calc.py",
        "edits": [{"filePath": "/repo/calc.py", "oldString": "a", "newString": "b"}, "junk"],
    }
    out = renamed(args, CORE_KEYS)
    assert out["file_path"] == "/repo/calc.py" and out["filePath"] == "/repo/calc.py"
    assert out["edits"][0]["old_string"] == "a" and out["edits"][0]["new_string"] == "b"
    assert out["edits"][1] == "junk"
    # the host's own value is never overwritten by a rename
    assert renamed({"oldString": "a", "old_string": "z"}, CORE_KEYS)["old_string"] == "z"
