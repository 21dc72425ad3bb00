"""The optional compiled scanner (`_scan.c`): see `scanner.read_fast`, `lister.listing` and `head.read_head_at`."""

from collections.abc import Callable

def deciding_tags(text: str, marks: tuple[str, ...], titles: bool = False, /) -> list[str] | None: ...
def deciding_tags_utf8(data: bytes, marks: tuple[str, ...], titles: bool = False, /) -> list[str] | None: ...
def configure_heads(signal_tags: tuple[str, ...], raw_text: tuple[str, ...], text_tags: tuple[str, ...], /) -> None: ...
def read_tag(text: str, /) -> tuple[str, dict[str, str]] | None: ...
def listing(directory: bytes, /) -> list[bytes] | None: ...  # not on Windows
def walk(
    root: bytes, pending: list[bytes], prune: Callable[[str], object], stems: bytes | None, limit: int, /
) -> list[tuple[str, bool] | bytes]: ...  # not on Windows
def configure_listing(
    index_names: tuple[str, ...], page_suffixes: tuple[str, ...], kinds: tuple[int, int, int, int], /
) -> None: ...  # not on Windows
def read_head(path: bytes, max_bytes: int, /) -> tuple[bytes, int, bool] | None: ...  # not on Windows
def configure_reading(ends: tuple[str, ...], first: int, step: int, /) -> None: ...  # not on Windows
