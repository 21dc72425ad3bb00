#!/bin/sh
# Rebuild /tmp/realsites/jekyll-seo/site from src/ with Debian 12's Jekyll and plugins:
#   jekyll 4.3.1+dfsg-3+deb12u1, ruby-jekyll-seo-tag 2.8.0-1, ruby-jekyll-feed 0.17.0-1,
#   ruby-jekyll-redirect-from 0.16.0-2, ruby-jekyll-sitemap 1.4.0-2
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
command -v jekyll >/dev/null || { apt-get update; DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
  jekyll=4.3.1+dfsg-3+deb12u1 ruby-jekyll-seo-tag=2.8.0-1 ruby-jekyll-feed=0.17.0-1 \
  ruby-jekyll-redirect-from=0.16.0-2 ruby-jekyll-sitemap=1.4.0-2; }
rm -rf "$HERE/site"
JEKYLL_ENV=production jekyll build --disable-disk-cache --source "$HERE/src" --destination "$HERE/site"
SITE="$HERE/site"
# Trim: keep every .html file; keep .xml/.txt/.gz (sitemaps, robots.txt, feeds, _sources) up to 40 KB;
# delete everything else (css/js/fonts/images/search indexes/objects.inv/.buildinfo ...), then empty dirs.
find "$SITE" -type f ! -name '*.html' \( -size +40k -o ! \( -name '*.xml' -o -name '*.txt' -o -name '*.gz' \) \) -delete
find "$SITE" -depth -type d -empty -delete
