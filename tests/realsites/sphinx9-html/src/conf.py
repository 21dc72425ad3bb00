import os
import sys

sys.path.insert(0, os.path.abspath("."))

project = "frobnicate"
author = "The Frobnicate Authors"
copyright = "2024, The Frobnicate Authors"
release = "0.3.1"

extensions = ["sphinx.ext.autodoc", "sphinx.ext.viewcode"]

html_baseurl = "https://example.org/"
html_theme = "alabaster"
exclude_patterns = ["_build"]
