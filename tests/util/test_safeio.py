"""safeio: special files refused after open, never waited on; exclusive creation never follows."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sitemapgen.util.safeio import NotRegularFile, create_exclusive, open_regular, read_regular


def test_reads_a_regular_file(tmp_path: Path) -> None:
    (tmp_path / "a").write_bytes(b"hello")
    assert read_regular(tmp_path / "a") == b"hello"
    assert read_regular(tmp_path / "a", limit=2) == b"he"


@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_refuses_what_is_not_a_file_without_waiting(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "x"
    if kind == "fifo":
        os.mkfifo(path)  # no writer: a blocking open would wait forever
    else:
        path.mkdir()
    with pytest.raises(NotRegularFile, match="not a regular file"):
        open_regular(path)


def test_refuses_a_symlink_when_asked(tmp_path: Path) -> None:
    (tmp_path / "target").write_bytes(b"x")
    (tmp_path / "link").symlink_to(tmp_path / "target")
    assert read_regular(tmp_path / "link") == b"x"
    with pytest.raises(OSError, match="symbolic link"):  # ELOOP
        read_regular(tmp_path / "link", follow_symlinks=False)


@pytest.mark.parametrize("planted", ["file", "symlink", "dangling symlink"])
def test_creation_never_clobbers_or_follows(tmp_path: Path, planted: str) -> None:
    outside = tmp_path / "outside"
    outside.write_bytes(b"precious")
    path = tmp_path / "new"
    if planted == "file":
        path.write_bytes(b"precious")
    elif planted == "symlink":
        path.symlink_to(outside)
    else:
        path.symlink_to(tmp_path / "nowhere")
    with pytest.raises(FileExistsError):
        create_exclusive(path)
    assert outside.read_bytes() == b"precious"
    assert not (tmp_path / "nowhere").exists()


def test_creates_a_new_file(tmp_path: Path) -> None:
    fd = create_exclusive(tmp_path / "new")
    os.write(fd, b"ok")
    os.close(fd)
    assert (tmp_path / "new").read_bytes() == b"ok"
