#!/usr/bin/env bash
# Rebuild site/ from src/ with Zensical 0.0.73 (newest zensical that installs from
# PyPI here: 0.0.74 .. 0.1.2 depend on zensical-ui==0.0.41/0.0.42, which has no
# downloadable files on PyPI from this machine).
# Layout: one Zensical project per language (src/en, src/de, src/fr), each with
# [[project.extra.alternate]] listing the three language roots; en deployed at /,
# de at /de/, fr at /fr/ (site_url https://example.org/, .../de/, .../fr/).
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
VENV="${VENV:-/tmp/gen-venvs/zensical}"
if [ ! -x "$VENV/bin/zensical" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q 'zensical==0.0.73'
fi
"$VENV/bin/zensical" --version
OUT="$HERE/site"
rm -rf "$OUT"
for lang in en de fr; do
  ( cd "$HERE/src/$lang" && rm -rf site .cache && "$VENV/bin/zensical" build --clean )
done
mkdir -p "$OUT"
cp -a "$HERE/src/en/site/." "$OUT/"
cp -a "$HERE/src/de/site" "$OUT/de"
cp -a "$HERE/src/fr/site" "$OUT/fr"
for lang in en de fr; do rm -rf "$HERE/src/$lang/site" "$HERE/src/$lang/.cache"; done
# Trim: keep every .html byte-for-byte plus sitemap.xml / sitemap.xml.gz / robots.txt;
# drop theme assets (css/js/fonts/images) and search indexes; drop any other file > 40 KB.
find "$OUT" -type d -name assets -prune -exec rm -rf {} +
find "$OUT" -type f \( -name 'search.json' -o -name 'search_index.json' \) -delete
find "$OUT" -type f ! -name '*.html' ! -name 'sitemap.xml' ! -name 'sitemap.xml.gz' \
     ! -name robots.txt -size +40k -delete
find "$OUT" -type d -empty -delete
du -sh "$OUT"
find "$OUT" -type f | sort
