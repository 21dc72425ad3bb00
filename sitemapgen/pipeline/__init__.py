"""Each page's fate: the rules on paths (`pathrules`, robots.txt's Disallow in `robots`), the
decision on one page in a worker (`decide`), priority and changefreq (`rules`), hreflang
clusters (`hreflang`) and the listed form of a page a link names in another (`forms`), what is
said once for a build (`tally`), and the one producer that runs them in walk order (`flow`)."""

from sitemapgen.pipeline.decide import Decider, Outcome
from sitemapgen.pipeline.flow import Pipeline
from sitemapgen.pipeline.hreflang import Reciprocity

__all__ = ["Decider", "Outcome", "Pipeline", "Reciprocity"]
