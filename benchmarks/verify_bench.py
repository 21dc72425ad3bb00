"""How long, and in how much memory, does `sitemapgen verify --all` read a whole live site?

Generates a built site of N pages (50,000 by default) with `unique_sites.generate_unique`
(several generators' heads, every page its own title, description, canonical and og: lines,
hreflang clusters, 1% redirect stubs and 1% noindex tag pages, which `build` leaves out), pages
of 4-12 KB as bench.py's 200,000-page trees, in /dev/shm if writable, else a temp dir. Its
canonicals and hreflang links name the URL it is served at, so a healthy site verifies with no
problem. Then:

- serves it on loopback, in a process of its own (so its CPU is not the measured process's),
  with Python's own static server (`SimpleHTTPRequestHandler` in a `ThreadingHTTPServer`,
  HTTP/1.1: connections kept alive, each file sent with its Content-Length, a folder's URL
  answered with its index.html; and TCP_NODELAY, as real servers send: see `SERVE`), started
  first on a free port that the site is then generated for;
- builds its sitemaps: `sitemapgen build SITE --base-url URL --robots-txt create --quiet`;
- times `sitemapgen verify URL --all --quiet --json` as a whole process, --repeat times, each
  run forked from a small launcher so that its peak RSS is its own (see bench.py's `run`);

and prints a Markdown table of the runs (wall seconds, exit code, peak RSS, CPU seconds of
verify and of the server, what verify's JSON counts), the problems verify reported if any, and
the targets: every listed page of a 50,000-page site read with --all in under 60 s, peak RSS
under 100 MiB. The server and the tree are removed at the end (the tree kept with --keep), on
Ctrl-C too.

Run: .venv/bin/python benchmarks/verify_bench.py [-n 50000] [--repeat 3] [--keep]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from types import FrameType

import unique_sites

SERVER = "Python's http.server (SimpleHTTPRequestHandler, ThreadingHTTPServer, HTTP/1.1 keep-alive, TCP_NODELAY)"
#: The static server, given its folder: Python's own, as `python -m http.server --protocol
#: HTTP/1.1` runs it, but with TCP_NODELAY, as nginx (`tcp_nodelay on`), Caddy and Go's servers
#: send on a kept-alive connection. Without it, each answer's body (written after its headers)
#: waits for the client's delayed ACK of the headers: 40 ms an answer after a connection's first,
#: which would time the server's stall, not verify. Prints its port once it listens; logs nothing.
SERVE = """
import functools, http.server, sys
class Handler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    def log_message(self, format, *args):
        pass
handler = functools.partial(Handler, directory=sys.argv[1])
with http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) as server:
    print(server.server_address[1], flush=True)
    server.serve_forever()
"""
TARGET_PAGES = 50_000
TARGET_SECONDS = 60.0
TARGET_RSS_MIB = 100.0
#: Problems shown one by one (all are counted by kind).
SHOWN = 5

#: Runs a command (argv[3:]) with its stdout into argv[1] and its stderr into argv[2], and prints
#: its wall seconds, peak RSS (KiB), exit code and CPU seconds (user + system). Forked from this
#: small launcher, not from the bench (which has generated the tree, and is large), so that its
#: peak RSS is its own: the kernel carries the peak of the process that forks over to the child.
LAUNCH = """
import os, sys, time
start = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        for fd, path in ((1, sys.argv[1]), (2, sys.argv[2])):
            os.dup2(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644), fd)
        os.execvp(sys.argv[3], sys.argv[3:])
    except OSError as e:
        print(e, file=sys.stderr)
    os._exit(127)
_, status, usage = os.wait4(pid, 0)
print(time.perf_counter() - start, usage.ru_maxrss, os.waitstatus_to_exitcode(status), usage.ru_utime + usage.ru_stime)
"""


@dataclass
class Run:
    """One verify run: what the launcher measured, and what verify's JSON says (None where it
    printed none)."""

    seconds: float
    rss_kib: int
    code: int
    cpu: float
    server_cpu: float | None
    listed: int | None = None
    checked: int | None = None
    problems: list[dict[str, str]] = field(default_factory=list)
    notes: list[dict[str, str]] = field(default_factory=list)
    errors: str = ""


def _terminated(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)  # so that a SIGTERM cleans up as Ctrl-C does


def start_server(site: Path) -> tuple[subprocess.Popen[bytes], int]:
    """The static server over `site` on a free loopback port, in a session of its own, and its port."""
    server = subprocess.Popen([sys.executable, "-c", SERVE, str(site)], stdout=subprocess.PIPE, start_new_session=True)
    assert server.stdout is not None
    line = server.stdout.readline()  # its port, once it listens
    if not line.strip().isdigit():
        stop(server)
        raise SystemExit(f"the server did not start (exit {server.returncode}): {line!r}")
    return server, int(line)


def stop(process: subprocess.Popen[bytes]) -> None:
    """`process` and anything it started (its session's group), ended and waited for."""
    if process.poll() is None:
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        except ProcessLookupError:
            process.wait()
    for stream in (process.stdout, process.stderr):
        if stream is not None:
            stream.close()


def cpu_seconds(pid: int) -> float | None:
    """The CPU seconds (user + system, all threads) process `pid` has used, where /proc says."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = stat.rpartition(")")[2].split()  # from the state, the stat's third field, on
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def generate(site: Path, n: int, url: str, seed: int) -> None:
    """`n` pages under `site`, their canonicals and hreflang links under `url` (unique_sites
    writes them under its BASE, read as each page is written)."""
    unique_sites.BASE = url
    started = time.perf_counter()
    unique_sites.generate_unique(site, n, seed=seed, min_kb=4, max_kb=12, asset_every=1)
    print(f"generated {n:,} pages of 4-12 KB in {time.perf_counter() - started:.0f} s", file=sys.stderr)


def build(sitemapgen: str, site: Path, url: str) -> None:
    """Its sitemaps, and a robots.txt naming the index."""
    cmd = [sitemapgen, "build", str(site), "--base-url", url, "--robots-txt", "create", "--quiet"]
    started = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr}")
    print(f"built the sitemaps in {time.perf_counter() - started:.1f} s", file=sys.stderr)


def verify(cmd: list[str], work: Path, server_pid: int) -> Run:
    """One timed run of `cmd` (its output in files under `work`), with the server's CPU meanwhile."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    out, err = work / "verify.json", work / "verify.stderr"
    server_before = cpu_seconds(server_pid)
    launcher = subprocess.Popen(
        [sys.executable, "-c", LAUNCH, str(out), str(err), *cmd],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        start_new_session=True,  # Ctrl-C reaches the bench only, which ends the run's group
    )
    try:
        measured, launch_errors = launcher.communicate()
    finally:
        stop(launcher)
    server_after = cpu_seconds(server_pid)
    if launcher.returncode != 0:
        raise SystemExit(f"the launcher failed ({launcher.returncode}):\n{launch_errors.decode(errors='replace')}")
    seconds, rss_kib, code, cpu = measured.split()
    run = Run(float(seconds), int(rss_kib), int(code), float(cpu), None)
    if server_before is not None and server_after is not None:
        run.server_cpu = server_after - server_before
    run.errors = err.read_text(errors="replace")
    try:
        result = json.loads(out.read_text())
    except ValueError:
        return run  # no JSON: verify failed before it could say (its stderr says why)
    run.listed, run.checked = result["listed"], result["checked"]
    run.problems, run.notes = result["problems"], result["notes"]
    return run


def measured_version() -> str:
    """The sitemapgen that runs: this checkout's commit, and whether its package has changes not committed."""
    repo = Path(__file__).resolve().parent.parent
    git = ["git", "-C", str(repo)]
    head = subprocess.run([*git, "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False)
    if head.returncode != 0:
        return "sitemapgen (not a git checkout)"
    changed = subprocess.run(
        [*git, "status", "--porcelain", "--", "sitemapgen"], capture_output=True, text=True, check=False
    )
    return f"sitemapgen at {head.stdout.strip()}{' with uncommitted changes' if changed.stdout.strip() else ''}"


def _count(value: int | None) -> str:
    return "—" if value is None else f"{value:,}"


def print_runs(runs: list[Run]) -> None:
    print(
        "| run | wall s | exit | peak RSS | CPU s (user+sys) | server CPU s | listed | checked | problems | pages/s |"
    )
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for number, run in enumerate(runs, 1):
        server = "n/a" if run.server_cpu is None else f"{run.server_cpu:.1f}"
        rate = f"{run.checked / run.seconds:,.0f}" if run.checked else "—"
        print(
            f"| {number} | {run.seconds:.1f} | {run.code} | {run.rss_kib / 1024:.0f} MiB | {run.cpu:.1f} | {server}"
            f" | {_count(run.listed)} | {_count(run.checked)} | {len(run.problems):,} | {rate} |"
        )


def print_findings(runs: list[Run]) -> None:
    """What the runs reported: each distinct set of problems once, by kind, the first few in
    full; the notes by kind; verify's stderr where it printed no JSON."""
    reported: list[list[dict[str, str]]] = []
    for number, run in enumerate(runs, 1):
        if run.listed is None:
            print(f"\nRun {number} printed no JSON (exit {run.code}); its stderr:\n\n```\n{run.errors.strip()}\n```")
        if run.problems not in reported:
            reported.append(run.problems)
            if run.problems:
                kinds = Counter(p["kind"] for p in run.problems)
                print(f"\nRun {number}: {len(run.problems):,} problems: {_kinds(kinds)}; the first {SHOWN}:\n")
                for problem in run.problems[:SHOWN]:
                    print(f"- {problem['kind']}: {problem['url']}: {problem['message']}")
    notes = Counter(note["kind"] for note in runs[-1].notes)
    print(f"\nNotes (last run): {_kinds(notes) if notes else 'none'}")


def _kinds(counts: Counter[str]) -> str:
    return ", ".join(f"{kind} {count:,}" for kind, count in counts.most_common())


def _verdict(holds: bool) -> str:
    return "holds" if holds else "**misses**"


def print_targets(runs: list[Run], n: int) -> None:
    slowest = max(run.seconds for run in runs)
    median = statistics.median(run.seconds for run in runs)
    rss = max(run.rss_kib for run in runs) / 1024
    read_all = all(run.listed is not None and run.checked is not None and run.checked >= run.listed for run in runs)
    listed = "/".join(_count(run.listed) for run in runs)
    checked = "/".join(_count(run.checked) for run in runs)
    codes = "/".join(str(run.code) for run in runs)
    at = "" if n == TARGET_PAGES else f" (set for {TARGET_PAGES:,} pages; this run {n:,})"
    print(f"\nTargets{at}:\n")
    print("| target | measured | holds |")
    print("| --- | --- | --- |")
    measured = f"slowest {slowest:.1f} s, median {median:.1f} s; checked {checked} of {listed} listed"
    holds = _verdict(read_all and slowest < TARGET_SECONDS)
    if n != TARGET_PAGES:
        guess = slowest * TARGET_PAGES / n
        measured += f"; {guess:.0f} s at {TARGET_PAGES:,} if linear"
        holds = f"not measured ({'would hold' if read_all and guess < TARGET_SECONDS else 'would miss'} if linear)"
    print(f"| reads all {TARGET_PAGES:,} with --all in under {TARGET_SECONDS:g} s | {measured} | {holds} |")
    print(
        f"| peak RSS under {TARGET_RSS_MIB:g} MiB | {rss:.0f} MiB, the largest run | {_verdict(rss < TARGET_RSS_MIB)} |"
    )
    healthy = all(run.code == 0 and run.listed is not None and not run.problems for run in runs)
    print(f"| a healthy site: exit 0, no problem | exit {codes} | {_verdict(healthy)} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", "--pages", type=int, default=TARGET_PAGES, help="pages generated (50,000)")
    parser.add_argument("--repeat", type=int, default=3, help="timed verify runs (3)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--dir", type=Path, default=None, help="where to generate (default: /dev/shm, else a temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the generated site")
    args = parser.parse_args()
    if args.pages < 1 or args.repeat < 1:
        parser.error("-n and --repeat must be 1 or more")
    signal.signal(signal.SIGTERM, _terminated)
    shm = Path("/dev/shm")
    base = args.dir or (shm if shm.is_dir() and os.access(shm, os.W_OK) else Path(tempfile.gettempdir()))
    work = Path(tempfile.mkdtemp(prefix="sitemapgen-verify-bench-", dir=base))
    sitemapgen = shutil.which("sitemapgen", path=str(Path(sys.executable).parent)) or "sitemapgen"
    server: subprocess.Popen[bytes] | None = None
    try:
        site = work / "site"
        site.mkdir()
        server, port = start_server(site)
        url = f"http://127.0.0.1:{port}/"
        generate(site, args.pages, url, args.seed)
        build(sitemapgen, site, url)
        cmd = [sitemapgen, "verify", url, "--all", "--quiet", "--json"]
        version = measured_version()
        runs = []
        for number in range(1, args.repeat + 1):
            runs.append(verify(cmd, work, server.pid))
            print(f"verify run {number} of {args.repeat}: {runs[-1].seconds:.1f} s", file=sys.stderr)
        print(
            f"\n{args.pages:,} pages generated; {date.today()}, {platform.machine()}, {os.cpu_count()} CPUs,"
            f" Python {platform.python_version()}, load average {os.getloadavg()[1]:.1f} (the last 5 minutes),"
            f" site on {base}; served by {SERVER}, in its own process.\n"
            f"Each run: `{' '.join(cmd)}` ({version})\n"
        )
        print_runs(runs)
        print_findings(runs)
        print_targets(runs, args.pages)
    finally:
        if server is not None:
            stop(server)
        if args.keep:
            print(f"\nkept: {work}/site", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:  # cleaned up by main's finally
        sys.exit(130)
