#!/bin/sh
# Rebuild /tmp/realsites/mkdocs-material/site from src/ with MkDocs 1.6.1 + mkdocs-material 9.8.1.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
VENV=/tmp/gen-venvs/mkdocs
[ -x "$VENV/bin/mkdocs" ] || python3 -m venv "$VENV"
"$VENV/bin/pip" install -q -r "$HERE/requirements.txt"   # pins mkdocs==1.6.1 mkdocs-material==9.8.1 and deps
rm -rf "$HERE/site"
cd "$HERE/src" && "$VENV/bin/mkdocs" build --site-dir "$HERE/site"
SITE="$HERE/site"
# Trim: keep every .html file; keep .xml/.txt/.gz (sitemaps, robots.txt, feeds, _sources) up to 40 KB;
# delete everything else (css/js/fonts/images/search indexes/objects.inv/.buildinfo ...), then empty dirs.
find "$SITE" -type f ! -name '*.html' \( -size +40k -o ! \( -name '*.xml' -o -name '*.txt' -o -name '*.gz' \) \) -delete
find "$SITE" -depth -type d -empty -delete
