"""safeio: special files refused after open, never waited on; exclusive creation never follows."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sitemapgen.util.safeio import NotRegularFile, create_exclusive, open_regular, open_regular_below, read_regular


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
    with pytest.raises(NotRegularFile, match="not a regular file") as refused:
        open_regular(path)
    assert refused.value.kind == {"fifo": "a FIFO", "directory": "a directory"}[kind]


def test_refuses_a_symlink_when_asked(tmp_path: Path) -> None:
    (tmp_path / "target").write_bytes(b"x")
    (tmp_path / "link").symlink_to(tmp_path / "target")
    assert read_regular(tmp_path / "link") == b"x"
    with pytest.raises(OSError, match="symbolic link"):  # ELOOP
        read_regular(tmp_path / "link", follow_symlinks=False)


def test_opens_below_a_directory_following_no_link_under_it(tmp_path: Path) -> None:
    (tmp_path / "top" / "sub").mkdir(parents=True)
    (tmp_path / "top" / "sub" / "a").write_bytes(b"below")
    (tmp_path / "top" / "link").symlink_to(tmp_path / "top" / "sub")
    (tmp_path / "top" / "sub" / "b").symlink_to(tmp_path / "top" / "sub" / "a")
    (tmp_path / "via").symlink_to(tmp_path / "top")
    fd, status = open_regular_below(tmp_path / "via", ["sub", "a"])  # the directory itself is followed
    with open(fd, "rb") as f:
        assert (f.read(), status.st_size) == (b"below", 5)
    for parts in (["link", "a"], ["sub", "b"]):  # a link is never followed below the directory
        with pytest.raises(OSError, match="Not a directory|symbolic link"):  # ENOTDIR (Linux: O_PATH) or ELOOP
            open_regular_below(tmp_path / "top", parts)
    with pytest.raises(NotRegularFile):
        open_regular_below(tmp_path / "top", ["sub"])


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
