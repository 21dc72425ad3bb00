"""The package's version, in a leaf of its own: the packaging metadata, the CLI's ``--version``,
the HTTP User-Agent and the Sphinx extension read it here, without importing the package face."""

__version__ = "0.1.0"
