"""Documents: files the `documents` patterns name (PDFs here), listed under their exact path,
dated like pages, left out by the exclude patterns, robots.txt and the host's rules, and the
same in `build`, `list`, `explain` and `check`."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from ..conftest import BASE, CliRunner
from ..helpers import git, head, html, make_tree, published, read_chunk, read_index

#: The mtimes of the files, by name: each lastmod says which file it came from.
DAY = 86_400
START = 1_700_000_000  # 2023-11-14T22:13:20+00:00


def pdf(text: str) -> bytes:
    """A small, valid PDF of one page that shows `text`: objects, a cross-reference table with
    the true offsets, and the trailer, as PDF 1.4 (ISO 32000-1, 7.5) lays them out."""
    stream = f"BT /F1 12 Tf 10 20 Td ({text}) Tj ET".encode("latin-1")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 50] /Contents 4 0 R"
        b" /Resources << /Font << /F1 5 0 R >> >> >>",
        b"<< /Length %d >>\nstream\n%b\nendstream" % (len(stream), stream),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%b\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def _tree(root: Path, files: dict[str, str | bytes]) -> Path:
    return make_tree(root, files)


def _lastmod(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat()


#: The site: two pages, and PDFs: listed ones (one named with a space, a non-ASCII letter and
#: an upper-case suffix), one noindexed by a _headers rule, one disallowed by robots.txt, one
#: excluded, one redirected by a _redirects rule; and an image, which no pattern names.
FILES: dict[str, str | bytes] = {
    "index.html": html("home"),
    "guide/index.html": html("guide"),
    "manual.pdf": pdf("manual"),
    "papers/paper.pdf": pdf("paper"),
    "docs/Data Sheet \u00e9.PDF": pdf("data sheet"),
    "secret.pdf": pdf("secret"),
    "blocked.pdf": pdf("blocked"),
    "drafts/draft.pdf": pdf("draft"),
    "old.pdf": pdf("old"),
    "logo.png": b"\x89PNG\r\n\x1a\n",
    "robots.txt": "User-agent: *\nDisallow: /blocked.pdf\n",
    "_headers": "/secret.pdf\n  X-Robots-Tag: noindex\n",
}
#: The redirect, as each host writes one that a file at the path does not shadow.
REDIRECTS = {"netlify": "/old.pdf /manual.pdf 301!\n", "cloudflare": "/old.pdf /manual.pdf 301\n"}
CONFIG = 'documents = ["*.pdf", "*.PDF"]\nexclude = ["drafts/*.pdf"]\n[[rules]]\npattern = "*.pdf"\npriority = 0.3\n'
#: What is listed, in walk order (a directory's files, then its subdirectories), by file.
LISTED = {
    "index.html": "",
    "manual.pdf": "manual.pdf",
    "docs/Data Sheet \u00e9.PDF": "docs/Data%20Sheet%20%C3%A9.PDF",
    "guide/index.html": "guide/",
    "papers/paper.pdf": "papers/paper.pdf",
}


def _site(tmp_path: Path, host: str) -> tuple[Path, Path]:
    """The site for `host`, every file with an mtime of its own; and its config file."""
    root = _tree(tmp_path / "public", {**FILES, "_redirects": REDIRECTS[host]})
    for i, name in enumerate(sorted(FILES)):
        os.utime(root / name, (START + i * DAY, START + i * DAY))
    config = tmp_path / "sitemapgen.toml"
    config.write_text(f'base_url = "{BASE}"\nhost = "{host}"\n{CONFIG}', encoding="utf-8")
    return root, config


def _mtime(name: str) -> str:
    return _lastmod(START + sorted(FILES).index(name) * DAY)


@pytest.mark.parametrize("host", ["netlify", "cloudflare"])
def test_documents_are_listed_under_their_exact_paths_as_the_host_serves_them(
    tmp_path: Path, cli: CliRunner, host: str
) -> None:
    root, config = _site(tmp_path, host)
    out = tmp_path / "out"
    run = cli("build", root, "--config", config, "--out", out)
    assert run.code == 0, run.err
    urls = published(out, BASE)  # each file valid against sitemap.xsd, the index against siteindex.xsd
    assert [(u.loc, u.lastmod) for u in urls] == [(BASE + url, _mtime(name)) for name, url in LISTED.items()]
    assert [u.priority for u in urls] == [None, "0.3", None, None, "0.3"]  # the rule names *.pdf, not *.PDF
    summary = run.err.splitlines()[-1]
    assert summary.startswith("sitemapgen: listed 2 pages and 3 documents in 1 sitemap; skipped "), summary
    for counted in ("1 excluded by pattern", "1 disallowed by robots.txt", "1 redirected by the host's rules"):
        assert counted in summary

    listing = cli("list", root, "--config", config)
    assert listing.code == 0, listing.err
    rows = [line.split("\t") for line in listing.out.splitlines()]
    assert [(row[0], row[1], row[4]) for row in rows] == [
        (u.loc, u.lastmod, name) for u, name in zip(urls, LISTED, strict=True)
    ]

    asked = ["manual.pdf", "secret.pdf", "blocked.pdf", "drafts/draft.pdf", "old.pdf", "logo.png"]
    explained = cli("explain", root, *asked, "--config", config)
    assert explained.code == 1
    lines = explained.out.splitlines()
    assert lines[:3] == [
        f"manual.pdf: listed as {BASE}manual.pdf",
        "  a document, by documents pattern '*.pdf': listed under its exact path, not read as HTML",
        f"  lastmod {_mtime('manual.pdf')} (from mtime)",
    ]
    rule = f"_redirects line 1: {REDIRECTS[host].strip()}"
    assert [line for line in lines if not line.startswith("  ")][1:] == [
        "secret.pdf: not listed: noindex in the host's headers"
        " (/secret.pdf answers with X-Robots-Tag: noindex; _headers line 1: /secret.pdf)",
        "blocked.pdf: not listed: disallowed by robots.txt (for Googlebot)",
        "drafts/draft.pdf: not listed: excluded by pattern 'drafts/*.pdf'",
        f"old.pdf: not listed: redirected by the host's rules (/old.pdf answers 301 to /manual.pdf; {rule})",
        "logo.png: not listed: not an HTML page, and no documents pattern names it ('*.pdf', '*.PDF')",
    ]
    by_url = cli("explain", root, f"{BASE}docs/Data%20Sheet%20%C3%A9.PDF", "--config", config)
    assert by_url.out.splitlines()[1] == f"docs/Data Sheet \u00e9.PDF: listed as {BASE}docs/Data%20Sheet%20%C3%A9.PDF"

    assert cli("check", root, "--config", config, "--out", out).code == 0
    (root / "manual.pdf").write_bytes(pdf("manual, 2nd edition"))
    os.utime(root / "manual.pdf", (START + 100 * DAY, START + 100 * DAY))
    (root / "secret.pdf").unlink()
    (root / "_headers").write_text("/papers/*\n  X-Robots-Tag: googlebot: none\n", encoding="utf-8")
    stale = cli("check", root, "--config", config, "--out", out)
    assert stale.code == 1
    assert stale.out.splitlines()[0].startswith("stale: 0 pages added, 1 removed, 1 changed"), stale.out
    assert f"  - {BASE}papers/paper.pdf (noindex in the host's headers: " in stale.out
    assert f"  ~ {BASE}manual.pdf" in stale.out.splitlines()


def test_a_document_is_never_read_as_html(tmp_path: Path, cli: CliRunner) -> None:
    """A file a pattern names is listed as it is, whatever its bytes say: a head's noindex,
    canonical, refresh or modified-time meta inside it is text, not a signal."""
    inside = head(
        '<meta name="robots" content="noindex">',
        '<link rel="canonical" href="https://other.example/">',
        '<meta property="article:modified_time" content="2001-01-01T00:00:00Z">',
    )
    root = _tree(tmp_path / "public", {"index.html": html(), "notes.txt": inside, "a.pdf": pdf(inside.strip())})
    for name in ("index.html", "notes.txt", "a.pdf"):
        os.utime(root / name, (START, START))
    config = tmp_path / "c.toml"
    config.write_text('documents = ["*.txt", "*.pdf"]\n', encoding="utf-8")
    run = cli("build", root, "--base-url", BASE, "--lastmod", "meta,mtime", "--config", config, "--json")
    assert run.code == 0, run.err
    assert json.loads(run.out)["documents"] == 2
    urls = published(root, BASE)
    assert [(u.loc, u.lastmod) for u in urls] == [(BASE + name, _lastmod(START)) for name in ("", "a.pdf", "notes.txt")]


def test_lastmod_content_hashes_a_documents_bytes_as_they_are(
    tmp_path: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    """content_ignore and content_select are for HTML: a document's every byte counts, and it
    is never parsed for a selector."""
    root = _tree(tmp_path / "public", {"index.html": html(), "a.pdf": pdf("build 1")})
    config = tmp_path / "c.toml"
    config.write_text(
        f'base_url = "{BASE}"\ndocuments = ["*.pdf"]\nlastmod = ["content"]\n'
        'content_ignore = ["build [0-9]"]\ncontent_select = ["main"]\n',
        encoding="utf-8",
    )
    lastmods = []
    for n, text in enumerate(["build 1", "build 1", "build 2"]):
        (root / "a.pdf").write_bytes(pdf(text))
        monkeypatch.setenv("SOURCE_DATE_EPOCH", str(START + n * DAY))
        run = cli("build", root, "--config", config)
        assert run.code == 0, run.err
        lastmods.append({u.loc: u.lastmod for u in published(root, BASE)}[BASE + "a.pdf"])
    assert lastmods == [_lastmod(START), _lastmod(START), _lastmod(START + 2 * DAY)]


def test_lastmod_git_dates_a_document_by_its_last_commit(
    tmp_path: Path, cli: CliRunner, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    repo = _tree(tmp_path / "repo", {"public/index.html": html(), "public/files/a.pdf": pdf("a")})
    git(repo, "init", "-q", "-b", "main")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a", date="2021-06-01T12:00:00+00:00")
    (repo / "sitemapgen.toml").write_text('documents = ["files/"]\n', encoding="utf-8")
    monkeypatch.chdir(repo)
    run = cli("build", repo / "public", "--base-url", BASE, "--lastmod", "git,mtime")
    assert run.code == 0, run.err
    assert [(u.loc, u.lastmod) for u in published(repo / "public", BASE)][1] == (
        BASE + "files/a.pdf",
        "2021-06-01T12:00:00+00:00",
    )


def test_lastmod_meta_alone_cannot_date_a_document_and_says_so(tmp_path: Path, cli: CliRunner) -> None:
    root = _tree(
        tmp_path / "public",
        {"index.html": head('<meta property="article:modified_time" content="2022-02-02">'), "a.pdf": pdf("a")},
    )
    config = tmp_path / "c.toml"
    config.write_text(f'base_url = "{BASE}"\ndocuments = ["*.pdf"]\n', encoding="utf-8")
    run = cli("build", root, "--config", config, "--lastmod", "meta")
    assert run.code == 0, run.err
    warning = (
        "warning: lastmod 'meta' reads page heads, and documents have none: documents are listed without a"
        ' lastmod; add a source after it, e.g. lastmod = ["meta", "mtime"]'
    )
    assert run.err.splitlines().count(warning) == 1
    assert [u.lastmod for u in published(root, BASE)] == ["2022-02-02T00:00:00+00:00", None]
    followed = cli("build", root, "--config", config, "--lastmod", "meta,mtime")
    assert followed.code == 0
    assert "documents have none" not in followed.err
    assert all(u.lastmod is not None for u in published(root, BASE))


def test_sitemaps_robots_txt_and_the_hosts_files_are_never_documents(tmp_path: Path, cli: CliRunner) -> None:
    """Patterns that name everything list what readers open, not what speaks to crawlers or the
    host: a second build in place lists what the first did, not the first's own sitemaps."""
    root = _tree(
        tmp_path / "public",
        {
            "index.html": html(),
            "feed.xml": "<rss/>",
            "robots.txt": "User-agent: *\nAllow: /\n",
            "_headers": "",
            "_redirects": "",
            "netlify.toml": "",
            "old/sitemap.xml": "<urlset/>",
            "k1234567.txt": "k1234567",
            "notes.txt": "notes",
        },
    )
    config = tmp_path / "c.toml"
    config.write_text(
        f'base_url = "{BASE}"\ndocuments = ["*"]\nindexnow_key = "k1234567"\nstylesheet = true\n', encoding="utf-8"
    )
    for _ in range(2):
        run = cli("build", root, "--config", config)
        assert run.code == 0, run.err
        assert [u.loc for u in published(root, BASE)] == [BASE, BASE + "feed.xml", BASE + "notes.txt"]
    explained = cli("explain", root, "robots.txt", "sitemap.xml", "sitemap.xsl", "--config", config)
    assert explained.out.splitlines() == [
        "robots.txt: not listed: not an HTML page, and never a document:"
        " a file for crawlers or the host, not for readers (documents pattern '*' names it)",
        "sitemap.xml: not listed: not an HTML page, and never a document: a sitemap file"
        " (documents pattern '*' names it)",
        "sitemap.xsl: not listed: not an HTML page, and never a document: a sitemap's stylesheet"
        " (documents pattern '*' names it)",
    ]


def test_the_files_sitemapgen_leaves_for_itself_are_never_documents(tmp_path: Path, cli: CliRunner) -> None:
    """The deploy manifest and a plugin's page sources sit beside the sitemaps: files for sitemapgen,
    not for readers, whatever the patterns name."""
    root = _tree(
        tmp_path / "public",
        {
            "index.html": html(),
            "notes.json": "{}",
            "sitemapgen-sources.json": '{"sitemapgen-sources": 1, "directory": "../docs", "pages": {}, "every": []}\n',
            "sitemapgen-manifest.json.gz": "",
        },
    )
    config = tmp_path / "c.toml"
    config.write_text(f'base_url = "{BASE}"\ndocuments = ["*.json", "*.gz"]\n', encoding="utf-8")
    run = cli("build", root, "--config", config)
    assert run.code == 0, run.err
    assert [u.loc for u in published(root, BASE)] == [BASE, BASE + "notes.json"]
    explained = cli("explain", root, "sitemapgen-sources.json", "--config", config)
    assert "never a document: a file sitemapgen keeps for itself" in explained.out


def test_documents_must_be_a_list_of_patterns(tmp_path: Path, cli: CliRunner) -> None:
    root = _tree(tmp_path / "public", {"index.html": html(), "a.pdf": pdf("a")})
    config = tmp_path / "c.toml"
    config.write_text(f'base_url = "{BASE}"\ndocuments = "*.pdf, *.docx"\n', encoding="utf-8")
    run = cli("build", root, "--config", config)
    assert run.code == 2
    assert run.err.splitlines() == [
        f"error: {config}: documents: must be a list of patterns, got '*.pdf, *.docx'"
        ' (a list is written documents = ["*.pdf", "*.docx"])'
    ]
    assert sorted(p.name for p in root.iterdir()) == ["a.pdf", "index.html"]


def test_an_included_sitemap_in_the_docroot_is_never_a_document(tmp_path: Path, cli: CliRunner) -> None:
    """A pattern that names another build's sitemap (``*.xml``, its name no sitemap-like word)
    lists it in the index as included, never in our sitemaps as a document."""
    posts = f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>{BASE}blog/a</loc></url></urlset>'
    root = _tree(tmp_path / "public", {"index.html": html(), "feed.xml": "<rss/>", "blog/posts.xml": posts})
    config = tmp_path / "c.toml"
    config.write_text(
        f'base_url = "{BASE}"\ndocuments = ["*.xml"]\n[[include]]\nurl = "{BASE}blog/posts.xml"\n'
        f'file = "{root / "blog" / "posts.xml"}"\n',
        encoding="utf-8",
    )
    run = cli("build", root, "--config", config)
    assert run.code == 0, run.err
    assert [loc for loc, _ in read_index(root / "sitemap.xml")] == [BASE + "sitemap-1.xml.gz", BASE + "blog/posts.xml"]
    assert [u.loc for u in read_chunk(root / "sitemap-1.xml.gz")] == [BASE, BASE + "feed.xml"]
    explained = cli("explain", root, "blog/posts.xml", "--config", config)
    assert explained.out.splitlines() == [
        "blog/posts.xml: not listed: not an HTML page, and never a document: a sitemap the index includes"
        " (include) (documents pattern '*.xml' names it)"
    ]
