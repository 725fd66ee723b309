"""The tree id a git index file already records for its whole content, read without git.

Git keeps a cache tree in the index (the `TREE` extension): for each directory, the
tree id of its entries, or -1 entries once a change invalidated it. When the root's
record is valid it is exactly what `git write-tree` would print, so the fingerprint
reads it instead of starting `git write-tree`. The extensions are found through the
"End Of Index Entry" extension (`EOIE`, written with `index.recordEndOfIndexEntries`),
which records where the entries end, so only the file's tail is read (not the 4 MB of
entries of a 50,000-file repository). An index without it, or with anything
unexpected, gives None and the caller asks git.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    import os

_HEADER = b"DIRC"
_VERSIONS = (2, 3, 4)
_HASH_LENGTHS = (20, 32)  # SHA-1, SHA-256
_EOIE = b"EOIE"
_TREE = b"TREE"
_TAIL = 8 + 4 + 2 * max(_HASH_LENGTHS)  # EOIE header, offset, its hash, the file checksum


def cached_root_tree(index: str | os.PathLike[str]) -> str | None:
    """The root tree id recorded in the index file `index` when valid, else None."""
    try:
        with open(index, "rb") as handle:
            header = handle.read(12)
            size = handle.seek(0, 2)
            handle.seek(max(0, size - _TAIL))
            found = eoie(header, handle.read(_TAIL), size)
            if found is None:
                return None
            start, end, hash_len = found
            handle.seek(start)
            return root_tree(handle.read(end - start), hash_len)
    except OSError:
        return None


def eoie(header: bytes, tail: bytes, size: int) -> tuple[int, int, int] | None:
    """(start, end, hash length) of an index file's extensions before its EOIE extension,
    from its first 12 bytes, its last bytes and its size; None without EOIE.

    At the end of the file: "EOIE", its size (4 + hash length), the offset where the
    entries end, a hash over the extension headers; then the file's checksum.
    """
    if len(header) < 12 or header[:4] != _HEADER:
        return None
    if int.from_bytes(header[4:8], "big") not in _VERSIONS:
        return None
    for hash_len in _HASH_LENGTHS:
        at = len(tail) - hash_len - 8 - 4 - hash_len  # EOIE's position within `tail`
        if at < 0 or tail[at : at + 4] != _EOIE:
            continue
        if int.from_bytes(tail[at + 4 : at + 8], "big") != 4 + hash_len:
            continue
        start = int.from_bytes(tail[at + 8 : at + 12], "big")
        end = size - len(tail) + at
        if 12 <= start <= end:
            return start, end, hash_len
    return None


def root_tree(extensions: bytes, hash_len: int) -> str | None:
    """The valid root tree id in an index's extensions (signature, size, body; ...)."""
    pos = 0
    while pos + 8 <= len(extensions):
        signature = extensions[pos : pos + 4]
        size = int.from_bytes(extensions[pos + 4 : pos + 8], "big")
        body = pos + 8
        if body + size > len(extensions):
            return None
        if signature == _TREE:
            return _root_record(extensions[body : body + size], hash_len)
        pos = body + size
    return None


def _root_record(tree_extension: bytes, hash_len: int) -> str | None:
    """The root entry of a TREE extension: empty path, NUL, "<entries> <subtrees>\\n", id.

    An invalidated root has -1 entries and no id: None (git must write the tree).
    """
    if not tree_extension.startswith(b"\0"):
        return None
    newline = tree_extension.find(b"\n", 1)
    if newline < 0:
        return None
    counts = tree_extension[1:newline].split(b" ")
    if len(counts) != 2 or not all(c.lstrip(b"-").isdigit() for c in counts):
        return None
    if int(counts[0]) < 0:
        return None
    oid = tree_extension[newline + 1 : newline + 1 + hash_len]
    return oid.hex() if len(oid) == hash_len else None
