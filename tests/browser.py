"""What a person sees, looked at from outside: Debian's Chromium, headless (`make browser`
installs it), and the checkers run on a page, from npm (pinned): axe-core, which runs inside the
page in Chromium, and the Nu HTML checker (`vnu.jar` of the ``vnu-jar`` package, run with java).

``python -m tests.browser install`` installs the checkers under ``.hosts/checkers`` (beside the
hosts' servers, `hostservers.PLACE`); `make slow` runs it where node and npm are. Where Chromium,
the checkers or java are missing, the tests that need them skip, saying why (`unavailable`).
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
import zlib
from pathlib import Path

from .hostservers import PLACE, npm_install

CHROMIUM = shutil.which("chromium")
JAVA = shutil.which("java")
#: The flags of a headless run that reaches nothing but the page it is given.
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
)
#: XSLT turned off, as Chrome 155 ships: the feature "XSLT" (its flag says "Toggles
#: whether or not XSLT is supported by the browser"), on in Debian's Chromium 150.
NO_XSLT = "--disable-features=XSLT"

CHECKERS = PLACE / "checkers"
AXE = "axe-core@4.14.1"
VNU = "vnu-jar@26.9.27"
AXE_SCRIPT = CHECKERS / "node_modules" / "axe-core" / "axe.min.js"
VNU_JAR = CHECKERS / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"
_STAMP = CHECKERS / ".installed"


def unavailable(*needs: str) -> str | None:
    """Why what `needs` names ("chromium", "axe", "vnu") cannot run here, or None if it can."""
    if "chromium" in needs and CHROMIUM is None:
        return "chromium is not installed (make browser installs it, as root)"
    if {"axe", "vnu"} & set(needs) and not _STAMP.exists():
        if shutil.which("node") is None or shutil.which("npm") is None:
            return f"the checkers come from npm ({AXE}, {VNU}), and node and npm are not on this machine"
        return f"the checkers are not installed: run `make slow` or `python -m tests.browser install` ({AXE}, {VNU})"
    if "vnu" in needs and JAVA is None:
        return "the Nu HTML checker (vnu.jar) needs java, which is not on this machine"
    return None


def install() -> None:
    if not _STAMP.exists():
        print(f"browser: installing the checkers: {AXE} {VNU}", flush=True)
        npm_install(CHECKERS, "sitemapgen-checkers", [AXE, VNU])
        _STAMP.touch()


def chromium(tmp_path: Path, *args: str) -> str:
    """Run Chromium with a new, empty profile and a home of its own under `tmp_path` (where a
    download goes); its stdout."""
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    profile.mkdir()
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {**os.environ, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config")}
    env["XDG_CACHE_HOME"] = str(home / ".cache")
    assert CHROMIUM is not None
    done = subprocess.run(
        [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def pixels(png: bytes) -> list[tuple[int, ...]]:
    """Every pixel of an 8-bit, non-interlaced PNG (what Chromium writes), read with zlib alone."""
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    pos, idat, header = 8, b"", b""
    while pos < len(png):
        length, kind = struct.unpack(">I4s", png[pos : pos + 8])
        data = png[pos + 8 : pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = data
        elif kind == b"IDAT":
            idat += data
    width, height, depth, color, _, _, interlace = struct.unpack(">IIBBBBB", header)
    assert (depth, interlace) == (8, 0)
    bpp = {0: 1, 2: 3, 4: 2, 6: 4}[color]
    raw, stride = zlib.decompress(idat), width * bpp
    previous = bytearray(stride)
    found: list[tuple[int, ...]] = []
    for y in range(height):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1 : start + 1 + stride])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = previous[i], previous[i - bpp] if i >= bpp else 0
            if kind == 1:
                line[i] = (line[i] + a) & 0xFF
            elif kind == 2:
                line[i] = (line[i] + b) & 0xFF
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xFF
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 0xFF
        found.extend(tuple(line[x : x + 3]) for x in range(0, stride, bpp))
        previous = line
    return found


def near(pixel: tuple[int, ...], colour: tuple[int, int, int], within: int = 40) -> bool:
    """Whether `pixel` is within `within` of `colour` on each channel (anti-aliased text is)."""
    return max(abs(x - y) for x, y in zip(pixel, colour, strict=True)) < within


if __name__ == "__main__":
    if sys.argv[1:] != ["install"]:
        sys.exit("usage: python -m tests.browser install")
    install()
