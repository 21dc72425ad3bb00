"""Reading the live site as a search engine's crawler does, for `verify`: its robots.txt
(`robots`), its sitemaps, fetched and copied for `validate` (`sitemaps`), each listed page judged
by `build`'s own head reader (`pages`), the deployed files against the build's (`against`), and
what was found (`report`). HTTP is `util.fetch`'s client. Nothing is imported here: the
modules load with the command that uses them."""
