"""sitemapgen inside the programs that build sites: the MkDocs plugin (`mkdocs`), the Sphinx
extension (`sphinx`, named ``sitemapgen.sphinx`` in a ``conf.py``) and the Pelican plugin
(`pelican`, named ``sitemapgen.pelican`` in a ``pelicanconf.py``; what it needs no Pelican for is
`pelican_site`). Each imports its host program, so none is imported here; `options` says how a
host spells a setting."""
