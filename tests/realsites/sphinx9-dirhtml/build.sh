#!/bin/sh
# Rebuild /tmp/realsites/sphinx9-dirhtml/site from src/ with Sphinx 9.0.4, builder 'dirhtml'.
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
VENV=/tmp/gen-venvs/sphinx9
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/pip" install -q -r "$HERE/requirements.txt"   # pins sphinx==9.0.4 and its deps
rm -rf "$HERE/site" /tmp/gen-venvs/doctrees-sphinx9-dirhtml
PYTHONDONTWRITEBYTECODE=1 "$VENV/bin/sphinx-build" -b dirhtml -d /tmp/gen-venvs/doctrees-sphinx9-dirhtml "$HERE/src" "$HERE/site"
SITE="$HERE/site"
# Trim: keep every .html file; keep .xml/.txt/.gz (sitemaps, robots.txt, feeds, _sources) up to 40 KB;
# delete everything else (css/js/fonts/images/search indexes/objects.inv/.buildinfo ...), then empty dirs.
find "$SITE" -type f ! -name '*.html' \( -size +40k -o ! \( -name '*.xml' -o -name '*.txt' -o -name '*.gz' \) \) -delete
find "$SITE" -depth -type d -empty -delete
