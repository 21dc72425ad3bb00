"""The view for people (``stylesheet = true``): ``sitemap.xsl`` beside the index, named by it.

The index and every sitemap start with ``<?xml-stylesheet type="text/xsl"
href="sitemap.xsl"?>``, a relative href: the stylesheet is always on the same
origin as the files that name it, as browsers demand. A browser that opens one
shows a table (the index: each sitemap and its lastmod; a sitemap: each URL,
its lastmod, its hreflang alternates and its images); crawlers ignore the
processing instruction. The page is plain HTML with a little inline CSS: no
script, nothing fetched from anywhere else.

The file is ours only when it proves it: its second line carries the digest of
the bytes after it, so a ``sitemap.xsl`` someone wrote or edited (the digest
no longer matches) is never replaced: the build refuses, naming it, before it
writes anything. It is written under a temporary name the journal knows,
fsynced and renamed into place before the index that names it.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

from sitemapgen._types import Notice, Warn
from sitemapgen.entry import XML_DECL
from sitemapgen.errors import SitemapgenError
from sitemapgen.protocol import SITEMAP_NS, XHTML_NS
from sitemapgen.util.faults import Faults
from sitemapgen.util.safeio import read_regular, replace_durably

STYLESHEET_NAME = "sitemap.xsl"
#: What follows the XML declaration of the index and of each sitemap when the stylesheet is on.
STYLESHEET_PI = f'<?xml-stylesheet type="text/xsl" href="{STYLESHEET_NAME}"?>\n'.encode()


def styled(opening: bytes) -> bytes:
    """A file's `opening` (its XML declaration and root element) naming the stylesheet."""
    return XML_DECL + STYLESHEET_PI + opening[len(XML_DECL) :]


def opening_for(opening: bytes, sheet: bool | None) -> bytes:
    """A file's `opening`, naming the stylesheet unless it is off (`sheet` None)."""
    return opening if sheet is None else styled(opening)


IMAGE_NS = "http://www.google.com/schemas/sitemap-image/1.1"
_LIMIT = 1 << 20  # far above the one we write

_CSS = (
    "body{font:16px/1.5 system-ui,sans-serif;margin:2rem auto;max-width:80rem;padding:0 1rem;color:#1a1a1a;"
    "background:#fff}h1{font-size:1.5rem}table{border-collapse:collapse;width:100%}caption{text-align:left;"
    "padding:.5rem 0;color:#444}th,td{border-bottom:1px solid #ccc;padding:.4rem .6rem;text-align:left;"
    "vertical-align:top}th{background:#eef1f5}tbody tr:nth-child(even){background:#f7f8fa}td{overflow-wrap:anywhere}"
    "ul{margin:0;padding-left:1.2rem}a{color:#0645ad}a:focus{outline:2px solid #0645ad}"
)

_BODY = f"""\
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform"
 xmlns:sm="{SITEMAP_NS}" xmlns:xhtml="{XHTML_NS}"
 xmlns:image="{IMAGE_NS}" exclude-result-prefixes="sm xhtml image">
<xsl:output method="html" encoding="UTF-8" indent="yes" doctype-system="about:legacy-compat"/>

<xsl:template match="/">
<html lang="en">
<head>
<meta charset="utf-8"/>
<meta name="viewport" content="width=device-width, initial-scale=1"/>
<title><xsl:choose><xsl:when test="sm:sitemapindex">Sitemap index</xsl:when><xsl:otherwise>Sitemap\
</xsl:otherwise></xsl:choose></title>
<style>{_CSS}</style>
</head>
<body>
<main>
<xsl:apply-templates select="sm:sitemapindex|sm:urlset"/>
</main>
</body>
</html>
</xsl:template>

<xsl:template match="sm:sitemapindex">
<h1>Sitemap index</h1>
<p>This index lists <xsl:value-of select="count(sm:sitemap)"/><xsl:text> </xsl:text>\
<xsl:choose><xsl:when test="count(sm:sitemap) = 1">sitemap</xsl:when><xsl:otherwise>sitemaps</xsl:otherwise>\
</xsl:choose> of this site, for search engines.</p>
<table>
<caption>Sitemaps and when each last changed</caption>
<thead><tr><th scope="col">Sitemap</th><th scope="col">Last modified</th></tr></thead>
<tbody>
<xsl:for-each select="sm:sitemap">
<tr><td><a href="{{sm:loc}}"><xsl:value-of select="sm:loc"/></a></td>\
<td><xsl:value-of select="sm:lastmod"/></td></tr>
</xsl:for-each>
</tbody>
</table>
</xsl:template>

<xsl:template match="sm:urlset">
<h1>Sitemap</h1>
<p>This sitemap lists <xsl:value-of select="count(sm:url)"/><xsl:text> </xsl:text>\
<xsl:choose><xsl:when test="count(sm:url) = 1">page</xsl:when><xsl:otherwise>pages</xsl:otherwise></xsl:choose> \
of this site, for search engines. <a href="sitemap.xml">All sitemaps</a></p>
<table>
<caption>Pages, when each last changed, and their other languages and images</caption>
<thead><tr><th scope="col">URL</th><th scope="col">Last modified</th>
<xsl:if test="sm:url/sm:changefreq"><th scope="col">Change frequency</th></xsl:if>
<xsl:if test="sm:url/sm:priority"><th scope="col">Priority</th></xsl:if>
<xsl:if test="sm:url/xhtml:link"><th scope="col">Languages</th></xsl:if>
<xsl:if test="sm:url/image:image"><th scope="col">Images</th></xsl:if>
</tr></thead>
<tbody>
<xsl:variable name="changefreq" select="boolean(sm:url/sm:changefreq)"/>
<xsl:variable name="priority" select="boolean(sm:url/sm:priority)"/>
<xsl:variable name="links" select="boolean(sm:url/xhtml:link)"/>
<xsl:variable name="images" select="boolean(sm:url/image:image)"/>
<xsl:for-each select="sm:url">
<tr><td><a href="{{sm:loc}}"><xsl:value-of select="sm:loc"/></a></td>\
<td><xsl:value-of select="sm:lastmod"/></td>
<xsl:if test="$changefreq"><td><xsl:value-of select="sm:changefreq"/></td></xsl:if>
<xsl:if test="$priority"><td><xsl:value-of select="sm:priority"/></td></xsl:if>
<xsl:if test="$links"><td><xsl:if test="xhtml:link"><ul><xsl:for-each select="xhtml:link">
<li><xsl:value-of select="@hreflang"/>: <a href="{{@href}}" hreflang="{{@hreflang}}">\
<xsl:value-of select="@href"/></a></li></xsl:for-each></ul></xsl:if></td></xsl:if>
<xsl:if test="$images"><td><xsl:if test="image:image"><ul><xsl:for-each select="image:image">
<li><a href="{{image:loc}}"><xsl:value-of select="image:loc"/></a></li></xsl:for-each></ul></xsl:if></td></xsl:if>
</tr>
</xsl:for-each>
</tbody>
</table>
</xsl:template>
</xsl:stylesheet>
"""


_MARK = (
    f"<!-- {STYLESHEET_NAME}: written by sitemapgen (stylesheet = true), which replaces it while it is"
    " as written; edited, it is left alone. blake2b-160 of what follows: "
).encode()
_MARK_END = b" -->\n"
_DIGEST_LENGTH = 40


def _digest(body: bytes) -> bytes:
    return hashlib.blake2b(body, digest_size=20).hexdigest().encode("ascii")


_BODY_BYTES = _BODY.encode("utf-8")
#: The stylesheet, byte for byte as a build writes it.
STYLESHEET = XML_DECL + _MARK + _digest(_BODY_BYTES) + _MARK_END + _BODY_BYTES


def written_by_us(data: bytes) -> bool:
    """Whether `data` is a stylesheet as some sitemapgen wrote it: its mark's digest is that of
    the bytes after the mark (this version's, or an earlier one's)."""
    head = XML_DECL + _MARK
    start = len(head) + _DIGEST_LENGTH
    if not data.startswith(head) or data[start : start + len(_MARK_END)] != _MARK_END:
        return False
    return _digest(data[start + len(_MARK_END) :]) == data[len(head) : start]


def check_stylesheet(out_dir: Path) -> bool:
    """Whether `out_dir` holds our current stylesheet already (nothing to write); an error,
    before anything is written, where a ``sitemap.xsl`` there is not ours to replace."""
    path = out_dir / STYLESHEET_NAME
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return False
    refusal = (
        f"{path}: exists and sitemapgen did not write it (or it was edited since), so stylesheet = true"
        " would replace it: move it away, or leave stylesheet off"
    )
    if not stat.S_ISREG(st.st_mode):
        raise SitemapgenError(refusal)
    try:
        data = read_regular(path, limit=_LIMIT + 1, follow_symlinks=False)
    except OSError as e:
        raise SitemapgenError(f"{path}: cannot read ({e.strerror or e}), so it is not known to be ours") from e
    if not written_by_us(data):
        raise SitemapgenError(refusal)
    return data == STYLESHEET


def publish_stylesheet(out_dir: Path, faults: Faults, temp: Path) -> Path:
    """Write our stylesheet at `temp` (a name the journal knows), make it durable and rename it
    over ``sitemap.xsl`` (checked to be ours by `check_stylesheet`)."""
    path = out_dir / STYLESHEET_NAME
    replace_durably(temp, path, (STYLESHEET,), faults.step)
    return path


def named_by(index: Path) -> bool:
    """Whether the index file at `index` names the stylesheet (read from its start)."""
    try:
        start = read_regular(index, limit=len(XML_DECL) + len(STYLESHEET_PI), follow_symlinks=False)
    except OSError:
        return False
    return start == XML_DECL + STYLESHEET_PI


def unstyle(out_dir: Path, warn: Warn) -> None:
    """The stylesheet is off, and neither the new index nor the one it replaced names it: remove
    the ``sitemap.xsl`` an earlier build wrote, if it is still as written, and say so."""
    removed = remove_stylesheet(out_dir)
    if removed is not None:
        warn(Notice(f"{removed}: removed (stylesheet is off, and no index names it any more)"))


def remove_stylesheet(out_dir: Path) -> Path | None:
    """With the stylesheet off, and no index naming it any more: remove ``sitemap.xsl`` if it is
    ours, as written (a browser that opened the index before cannot fetch it after). Its path if
    removed."""
    path = out_dir / STYLESHEET_NAME
    try:
        if not written_by_us(read_regular(path, limit=_LIMIT + 1, follow_symlinks=False)):
            return None
        path.unlink()
    except OSError:  # not there, not a regular file, gone meanwhile: nothing of ours to remove
        return None
    return path
