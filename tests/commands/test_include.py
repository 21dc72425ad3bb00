"""The commands count the included sitemaps' URLs (``include``): the changes since the previous
deploy and the drop guard, ``--changes-file``, ``check`` and ``diff``. The live site is a real
static server on loopback serving the docroot, whose own folder holds another build's sitemap."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from ..conftest import CliRunner
from ..helpers import html, make_tree, read_index, static_server

NS = "http://www.sitemaps.org/schemas/sitemap/0.9"


def urlset(*entries: tuple[str, str]) -> str:
    urls = "".join(f"<url><loc>{loc}</loc><lastmod>{lastmod}</lastmod></url>\n" for loc, lastmod in entries)
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="{NS}">\n{urls}</urlset>\n'


@pytest.fixture
def live(tmp_path: Path) -> Iterator[tuple[Path, str, list[str]]]:
    """The docroot, served: two pages of ours, and the shop's own sitemap (three URLs) below them."""
    root = make_tree(
        tmp_path / "live",
        {"index.html": html("home"), "about.html": html("about"), "sitemapgen.toml": 'exclude = ["shop/"]\n'},
    )
    with static_server(root) as url:
        shop = [url + "shop/a", url + "shop/b", url + "shop/c"]
        (root / "shop").mkdir()
        (root / "shop" / "sitemap.xml").write_text(urlset(*((loc, "2024-01-01") for loc in shop)))
        yield (
            root,
            url,
            [
                "--base-url",
                url,
                "--config",
                str(root / "sitemapgen.toml"),
                "--include",
                url + "shop/sitemap.xml",
            ],
        )


def test_the_changes_and_the_drop_guard_count_the_included_urls(
    tmp_path: Path, cli: CliRunner, live: tuple[Path, str, list[str]]
) -> None:
    root, url, _ = live
    deployed = tmp_path / "deployed"  # what the previous deploy published, served apart from the docroot
    shop = root / "shop" / "sitemap.xml"
    config = ["--base-url", url, "--config", root / "sitemapgen.toml", "--lastmod", "content"]
    flags = [*config, "--include", f"{shop}={url}shop/sitemap.xml", "--previous", url + "sitemap.xml"]
    with static_server(deployed.parent) as server:
        flags[flags.index(url + "sitemap.xml")] = server + "deployed/sitemap.xml"
        run = cli("build", root, *flags)
        assert run.code == 0, run.err
        assert "; +5 -0 ~0 (a first deploy" in run.err  # two pages and the shop's three URLs
        shutil.copytree(root, deployed)

        # The shop drops two of its three URLs and dates the third anew.
        shop.write_text(urlset((url + "shop/a", "2024-06-01")))
        run = cli("build", root, *flags, "--max-removed", "20")
        assert run.code == 1
        assert run.err.splitlines()[-1] == (
            "error: refusing to publish: 2 of the 5 URLs the previous deploy listed (40.0%) would go, more than"
            f" max_removed 20% allows: 2 no longer in its included sitemap; e.g. {url}shop/b (no longer in its"
            f" included sitemap); {url}shop/c (no longer in its included sitemap). Nothing was published"
        )
        assert read_index(root / "sitemap.xml")[1] == (url + "shop/sitemap.xml", "2024-01-01")  # as it was
        changes = tmp_path / "changes.json"
        run = cli("build", root, *flags, "--changes-file", changes)
        assert run.code == 0, run.err
    assert "; +0 -2 ~1 since the previous deploy" in run.err
    written = json.loads(changes.read_text())
    assert [(r["loc"], r["reason"]) for r in written["removed"]] == [
        (url + "shop/b", "no longer in its included sitemap"),
        (url + "shop/c", "no longer in its included sitemap"),
    ]
    assert written["changed"] == [{"loc": url + "shop/a", "previous": "2024-01-01", "lastmod": "2024-06-01"}]
    assert read_index(root / "sitemap.xml")[1] == (url + "shop/sitemap.xml", "2024-06-01")


def test_check_counts_the_included_urls_and_sees_their_entry_change(
    cli: CliRunner, live: tuple[Path, str, list[str]]
) -> None:
    root, url, flags = live
    summary = root.parent / "summary.md"
    assert cli("build", root, *flags, "--summary-md", summary).code == 0
    assert "| included sitemaps | 1 (3 URLs) |" in summary.read_text().splitlines()
    run = cli("check", root, *flags)
    assert (run.code, run.out) == (0, "current: 1 sitemap, 2 pages, and 3 URLs of 1 included sitemap\n")

    (root / "shop" / "sitemap.xml").write_text(urlset((url + "shop/a", "2025-02-03")))
    run = cli("check", root, *flags)
    assert run.code == 1
    assert run.out.splitlines() == [
        "stale: 0 pages added, 0 removed, 0 changed; 0 of 1 sitemap would be written (run sitemapgen build)",
        f"  ~ included {url}shop/sitemap.xml (lastmod 2024-01-01, now 2025-02-03)",
    ]
    run = cli("check", root, *flags[:4])  # the include dropped
    assert run.code == 1
    assert run.out.splitlines()[1:] == [f"  - included {url}shop/sitemap.xml (no longer listed)"]


def test_diff_counts_the_included_urls(tmp_path: Path, cli: CliRunner, live: tuple[Path, str, list[str]]) -> None:
    root, url, flags = live
    assert cli("build", root, *flags).code == 0
    before = shutil.copytree(root, tmp_path / "before")
    (root / "shop" / "sitemap.xml").write_text(
        urlset((url + "shop/a", "2024-01-01"), (url + "shop/b", "2024-01-01"), (url + "shop/d", "2024-03-01"))
    )
    assert cli("build", root, *flags).code == 0
    run = cli("diff", before, url + "sitemap.xml")
    assert run.code == 0, run.err
    assert run.out.splitlines() == [f"+ {url}shop/d", f"- {url}shop/c"]


def test_an_unreadable_optional_sitemap_keeps_its_urls_in_the_changes(
    tmp_path: Path, cli: CliRunner, live: tuple[Path, str, list[str]]
) -> None:
    """Its entry is kept as the last build wrote it, so its URLs are still listed: not removed."""
    root, url, _ = live
    config = root / "sitemapgen.toml"
    config.write_text(config.read_text() + f'[[include]]\nurl = "{url}shop/sitemap.xml"\noptional = true\n')
    flags = ["--base-url", url, "--config", config, "--lastmod", "content", "--max-removed", "0"]
    assert cli("build", root, *flags).code == 0
    deployed = shutil.copytree(root, tmp_path / "deployed")
    (root / "shop" / "sitemap.xml").unlink()  # the shop is down
    run = cli("build", root, *flags, "--previous", deployed)
    assert run.code == 0, run.err
    assert f"warning: {url}shop/sitemap.xml: not found (include, optional)" in run.err
    assert "; +0 -0 ~0 since the previous deploy" in run.err
    assert read_index(root / "sitemap.xml") == read_index(deployed / "sitemap.xml")
    # check builds elsewhere, keeping the published index's entries too: current, as the build left it.
    run = cli("check", root, "--base-url", url, "--config", config, "--lastmod", "content")
    assert (run.code, run.out) == (0, "current: 1 sitemap, 2 pages, and 1 included sitemap kept unread (optional)\n")


def test_an_included_sitemap_outside_the_base_urls_folder_is_read_from_the_previous_deploy(
    tmp_path: Path, cli: CliRunner
) -> None:
    """Docs built for /docs/, a blog's sitemap at /blog/: the previous deploy, a mirror of the host,
    serves the blog's old sitemap where the host does, so what the blog dropped is counted."""
    checkout = make_tree(tmp_path / "checkout", {"docs/index.html": html("docs"), "docs/start.html": html("start")})
    blog = checkout / "blog" / "sitemap.xml"
    deployed = tmp_path / "deployed"
    with static_server(tmp_path) as server:
        host = server + "deployed/"  # the mirror: the whole host, below a folder of its own
        base = "https://example.com/"
        blog.parent.mkdir()
        blog.write_text(urlset((base + "blog/1", "2024-01-01"), (base + "blog/2", "2024-01-01")))
        flags = ["--base-url", base + "docs/", "--include", f"{blog}={base}blog/sitemap.xml"]
        flags += ["--lastmod", "content", "--previous", host + "docs/sitemap.xml"]
        assert cli("build", checkout / "docs", *flags).code == 0
        shutil.copytree(checkout, deployed)
        blog.write_text(urlset((base + "blog/1", "2024-01-01")))
        run = cli("build", checkout / "docs", *flags)
        assert run.code == 0, run.err
        assert "warning" not in run.err
        assert "; +0 -1 ~0 since the previous deploy" in run.err
        shutil.copytree(checkout, tmp_path / "deployed2")
        run = cli("diff", host + "docs/sitemap.xml", server + "deployed2/docs/sitemap.xml")
    assert (run.code, run.out, run.err) == (0, f"- {base}blog/2\n", "sitemapgen: +0 -1 ~0\n")


@pytest.mark.parametrize(
    ("base", "include", "validated_at"),
    [
        pytest.param("https://example.com/", "blog/sitemap.xml", "https://example.com/", id="below"),
        pytest.param("https://example.com/", "blog/sitemap.xml", None, id="no-base-url"),
        pytest.param("https://example.com/", "blog/sitemap-1.xml.gz", None, id="named-as-a-chunk"),
        pytest.param("https://example.com/docs/", "blog/sitemap.xml", "https://example.com/docs/", id="outside"),
    ],
)
def test_validate_notes_an_included_sitemap_that_is_not_here(
    tmp_path: Path, cli: CliRunner, base: str, include: str, validated_at: str | None
) -> None:
    """validate of our index, as the README's recipes run it after build: another build's sitemap
    (served by that build, read and checked by this one) is a note, not a missing file, not a
    file of ours, and not outside the index's folder (an index lists its site's sitemaps); a chunk
    of ours that is missing is still a problem."""
    site = "https://example.com/"
    root = make_tree(tmp_path / "public", {"index.html": html("home")})
    blog = tmp_path / "blog-sitemap.xml"
    blog.write_text(urlset((site + "blog/a/", "2024-01-01")))
    assert cli("build", root, "--base-url", base, "--include", f"{blog}={site}{include}").code == 0
    flags = ["--base-url", validated_at] if validated_at else []
    run = cli("validate", root / "sitemap.xml", *flags)
    assert run.code == 0, run.out
    assert run.err.splitlines() == [
        f"note: {root}/sitemap.xml:4: lists {site}{include}, another build's sitemap (include), not here",
        "2 files, 1 URL: ok",
    ]
    (root / "sitemap-1.xml.gz").unlink()
    run = cli("validate", root / "sitemap.xml", *flags)
    assert run.code == 1
    assert run.out.splitlines() == [
        f"{root}/sitemap.xml:3: lists {base}sitemap-1.xml.gz, but {root}/sitemap-1.xml.gz does not exist"
    ]


def test_a_previous_output_directory_compares_all_but_the_other_builds_sitemaps(tmp_path: Path, cli: CliRunner) -> None:
    """--previous and diff given the earlier output's directory, which holds our files but not the
    other builds' sitemaps our index lists: those are said once and not compared (never "added",
    never a failure), and our own pages are compared as ever."""
    site = "https://example.com/"
    root = make_tree(tmp_path / "public", {"index.html": html("home"), "about.html": html("about")})
    blog = tmp_path / "blog-sitemap.xml"
    blog.write_text(urlset((site + "blog/a/", "2024-01-01"), (site + "blog/b/", "2024-01-02")))
    flags = ["--base-url", site, "--include", f"{blog}={site}blog/sitemap.xml"]
    assert cli("build", root, *flags).code == 0
    earlier = tmp_path / "earlier"
    shutil.copytree(root, earlier)
    (root / "about.html").unlink()
    changes = tmp_path / "changes.json"
    run = cli("build", root, *flags, "--previous", earlier, "--changes-file", changes)
    assert run.code == 0, run.err
    said = (
        f"warning: {earlier}/sitemap.xml: lists {site}blog/sitemap.xml, another build's sitemap (include), not in"
        " this directory: its URLs are not compared (the live site's URL, as the previous deploy, serves it)"
    )
    assert said in run.err.splitlines()
    body = json.loads(changes.read_text())
    assert (body["counts"], body["removed"]) == (
        {"added": 0, "removed": 1, "changed": 0},
        [{"loc": site + "about.html", "reason": "no longer in the docroot"}],
    )
    run = cli("diff", earlier, root)
    assert run.code == 0, run.err
    assert run.out.splitlines() == [f"- {site}about.html"]
    assert run.err.splitlines()[-1] == "sitemapgen: +0 -1 ~0"


def test_the_urls_of_an_include_dropped_are_said_so_not_gone_from_the_docroot(tmp_path: Path, cli: CliRunner) -> None:
    """An include taken out of the config: its URLs, which the previous deploy listed, go because
    no included sitemap lists them now, not because the docroot lost them (it never had them)."""
    site = "https://example.com/"
    root = make_tree(tmp_path / "public", {"index.html": html("home"), "sitemapgen.toml": 'exclude = ["shop/"]\n'})
    (root / "shop").mkdir()
    (root / "shop" / "sitemap.xml").write_text(urlset((site + "shop/a", "2024-01-01")))
    config = ["--base-url", site, "--config", root / "sitemapgen.toml"]
    assert cli("build", root, *config, "--include", f"{root / 'shop' / 'sitemap.xml'}={site}shop/sitemap.xml").code == 0
    earlier = tmp_path / "earlier"
    shutil.copytree(root, earlier)
    changes = tmp_path / "changes.json"
    run = cli("build", root, *config, "--previous", earlier, "--changes-file", changes)
    assert run.code == 0, run.err
    assert json.loads(changes.read_text())["removed"] == [
        {"loc": site + "shop/a", "reason": "in no sitemap the index includes now"}
    ]
