"""A head's encoding, as a browser would decide it (`sniff_encoding`), and its bytes
decoded to text (`decode_head`)."""

from __future__ import annotations

import codecs
import functools
import re

#: As the HTML spec's prescan: a charset declaration counts only in the first 1,024 bytes.
_PRESCAN = 1_024
_META_CHARSET = re.compile(rb"""<meta[^>]+?charset\s*=\s*["']?\s*([A-Za-z0-9._:-]+)""", re.IGNORECASE)
_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))
_BOM_FIRST = frozenset(bom[:1] for bom, _ in _BOMS)


def sniff_encoding(data: bytes) -> tuple[str, int]:
    """The encoding of a head and the length of its BOM, as a browser would decide.

    BOM first, then UTF-16 without a BOM (a NUL beside an ASCII '<'), then a
    ``<meta charset>`` or http-equiv content-type, then UTF-8.
    """
    if data[:1] in _BOM_FIRST:
        for bom, name in _BOMS:
            if data.startswith(bom):
                return name, len(bom)
    if len(data) >= 2 and data[0] == 0x3C and data[1] == 0:
        return "utf-16-le", 0
    if len(data) >= 2 and data[0] == 0 and data[1] == 0x3C:
        return "utf-16-be", 0
    prescan = data[:_PRESCAN]
    lowered = prescan.lower()
    found = None
    at = lowered.find(b"charset")
    while at >= 0 and found is None:
        # Only a charset inside a <meta> tag counts: try the tag that holds this word.
        start = lowered.rfind(b"<meta", 0, at)
        found = _META_CHARSET.match(prescan, start) if start >= 0 else None
        if found is not None and found.end() < at:
            found = None  # that meta tag's charset ends before this word: not the one
        at = lowered.find(b"charset", at + 7)
    return (_encoding_named(found.group(1)) if found else "utf-8"), 0


@functools.lru_cache(maxsize=64)
def _encoding_named(label: bytes) -> str:
    """The encoding a ``<meta charset>`` label names (UTF-8 for one Python does not know)."""
    try:
        name = codecs.lookup(label.decode("ascii", "replace").lower()).name
    except LookupError:
        return "utf-8"
    # A meta tag that could be read as ASCII cannot be UTF-16 (HTML spec: use UTF-8).
    return "utf-8" if name.startswith("utf-16") else name


def decode_head(data: bytes) -> str:
    """Decode head bytes; undecodable bytes become U+FFFD, never an error."""
    encoding, skip = sniff_encoding(data)
    return data[skip:].decode(encoding, "replace")
