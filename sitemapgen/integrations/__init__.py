"""sitemapgen inside the programs that build sites: the MkDocs plugin (`mkdocs`) and the Sphinx
extension (`sphinx`, named ``sitemapgen.sphinx`` in a ``conf.py``). Each imports its host
program, so neither is imported here."""
