"""What the XSDs find wrong with a sitemap, in its author's words rather than libxml2's.

libxml2 says ``Element '{http://www.sitemaps.org/schemas/sitemap/0.9}lastmod': This element
is not expected. Expected is ( {...}loc ).``; a sitemap's author wants ``<lastmod> out of
order: inside <url> the order is loc, lastmod, changefreq, priority, elements of other
namespaces``, or ``<url> has no <loc>``. The order and what is required are read from the
schemas themselves (`sequences`), so the words follow what the schema says. Each error
names its element by an XPath (``/*/*[3]/*[1]``), which is followed back to the element to
see its parent and siblings. What has no better words keeps libxml2's, with every
``{namespace}name`` written as the document writes it (``image:title``, or ``loc`` in the
sitemap namespace).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from importlib import resources

from lxml import etree

from sitemapgen.protocol import SITEMAP_NS

_XSD = "{http://www.w3.org/2001/XMLSchema}"
_OWN = "{" + SITEMAP_NS + "}"
_OTHERS = "elements of other namespaces"
_STEP = re.compile(r"(\*|[^/\[\]:]+:[^/\[\]]+|[^/\[\]]+)(?:\[(\d+)\])?")
_ELEMENT = re.compile(r"Element '([^']*)'(?:, attribute '([^']*)')?: ")
_QNAME = re.compile(r"(##other)?\{([^}]*)\}([\w.*-]+)")
#: What a value of each element must be, where the schema's type names say it badly.
_VALUES = {
    "priority": "a number from 0.0 to 1.0",
    "lastmod": "a date (2024-05-01) or a date and time (2024-05-01T09:30:00+00:00)",
    "loc": "a URL",
}


#: An error in words, or in words and the line that says it better than libxml2's.
Worded = str | tuple[str, int | None]


@dataclass(frozen=True, slots=True)
class Particle:
    """One place in a schema's sequence: an element of the sitemap namespace by name, or
    (name None) any element of another namespace."""

    name: str | None
    required: bool
    once: bool


@cache
def sequences() -> dict[str, tuple[Particle, ...]]:
    """The children of each element of the sitemap namespace that has some, in the order its
    schema's sequence gives them (``url``: loc, lastmod, changefreq, priority, others)."""
    found: dict[str, tuple[Particle, ...]] = {}
    for name in ("sitemap.xsd", "siteindex.xsd"):
        with resources.as_file(resources.files("sitemapgen") / "schemas" / name) as path:
            schema = etree.parse(str(path)).getroot()
        types = {t.get("name"): _sequence(t) for t in schema.iterfind(f"{_XSD}complexType")}
        for element in schema.iter(f"{_XSD}element"):
            own = element.find(f"{_XSD}complexType")
            particles = _sequence(own) if own is not None else types.get(element.get("type", "").rpartition(":")[2])
            if particles:
                found[element.get("name", "")] = particles
    return found


def _sequence(complex_type: etree._Element) -> tuple[Particle, ...]:
    sequence = complex_type.find(f"{_XSD}sequence")
    if sequence is None:
        return ()
    return tuple(
        Particle(
            child.get("name") if child.tag == f"{_XSD}element" else None,
            child.get("minOccurs", "1") != "0",
            child.get("maxOccurs", "1") == "1",
        )
        for child in sequence
        if child.tag in (f"{_XSD}element", f"{_XSD}any")
    )


class Elements:
    """The elements of one document, found by the XPath libxml2 names them with."""

    def __init__(self, root: etree._Element) -> None:
        self.root = root
        self._children: dict[tuple[etree._Element, str], list[etree._Element]] = {}

    def children(self, parent: etree._Element, name: str = "*") -> list[etree._Element]:
        """The element children of `parent` (named `name` as paths write names, or all for ``*``)."""
        known = self._children.get((parent, name))
        if known is None:  # once a parent: an urlset of 50,000 <url> is not walked once an error
            every = [child for child in parent if isinstance(child.tag, str)] if name == "*" else self.children(parent)
            known = every if name == "*" else [child for child in every if _written(child) == name]
            self._children[parent, name] = known
        return known

    def at(self, path: str | None) -> etree._Element | None:
        """The element at `path`, as libxml2's ``xmlGetNodePath`` writes it: ``*`` an element
        in the default namespace (counted among all elements), ``p:name`` or ``name`` one
        counted among its namesakes; None if the path does not lead to one."""
        steps = (path or "").split("/")[1:]
        if not steps or not _STEP.fullmatch(steps[0]):
            return None
        element = self.root
        for step in steps[1:]:
            match = _STEP.fullmatch(step)
            if match is None:
                return None
            name, number = match.group(1), int(match.group(2) or 1)
            candidates = self.children(element, name)
            if len(candidates) < number:
                return None
            element = candidates[number - 1]
        return element


def _written(element: etree._Element) -> str:
    """An element's name as libxml2's paths write it: ``prefix:name``, or ``name`` with no prefix."""
    local = etree.QName(element).localname
    return f"{element.prefix}:{local}" if element.prefix else local


def shown(tag: str, nsmap: dict[str | None, str] | None = None) -> str:
    """A ``{namespace}name`` as its author writes it: ``name`` in the sitemap namespace or
    none, ``prefix:name`` with the document's prefix for it, else ``{namespace}name``."""
    if not tag.startswith("{") or tag.startswith(_OWN):
        return tag.rpartition("}")[2]
    namespace, _, local = tag[1:].partition("}")
    prefix = next((p for p, uri in (nsmap or {}).items() if uri == namespace and p), None)
    return f"{prefix}:{local}" if prefix else tag


def _order(particles: tuple[Particle, ...]) -> str:
    return ", ".join(particle.name or _OTHERS for particle in particles)


def _place(element: etree._Element, particles: tuple[Particle, ...]) -> int | None:
    """Where `element` goes among `particles`; None if it goes nowhere."""
    tag = element.tag
    assert isinstance(tag, str)
    for index, particle in enumerate(particles):
        if particle.name is None and tag.startswith("{") and not tag.startswith(_OWN):
            return index
        if particle.name is not None and tag == _OWN + particle.name:
            return index
    return None


def _unexpected(elements: Elements, element: etree._Element, message: str) -> Worded | None:
    """An element where its parent's sequence does not want it, in words; None if there
    is no parent to speak of."""
    parent = element.getparent()
    if parent is None:
        return None
    name, within = shown(str(element.tag), element.nsmap), shown(str(parent.tag), parent.nsmap)
    particles = sequences().get(etree.QName(parent).localname) if str(parent.tag).startswith(_OWN) else None
    if not particles:  # an extension's element: its schema's own list of what may come there
        expected = message.partition("Expected is ")[2].removeprefix("one of ").strip(" ().")
        wanted = _tidied(expected, element.nsmap) if expected else "something else"
        return f"<{name}> is not expected at that place inside <{within}>: expected {wanted}"
    place = _place(element, particles)
    if place is None:
        qname = etree.QName(element)
        if qname.namespace is None and any(p.name == qname.localname for p in particles):
            return f"<{name}> is in no namespace; inside <{within}> it must be in {SITEMAP_NS}"
        return f"<{name}> does not belong inside <{within}>, where the order is {_order(particles)}"
    siblings = elements.children(parent)
    missing = _first_missing(particles[:place], siblings)
    if missing is not None:  # what is out of place is what should have come before it
        return f"<{within}> has no <{missing}>", parent.sourceline
    before = siblings[: siblings.index(element)]
    if particles[place].once and any(child.tag == element.tag for child in before):
        return f"<{name}> appears twice inside <{within}>; it may appear once"
    return f"<{name}> out of order: inside <{within}> the order is {_order(particles)}"


def _missing_child(element: etree._Element) -> str | None:
    """An element without a child its sequence requires, in words."""
    if not str(element.tag).startswith(_OWN):
        return None
    missing = _first_missing(sequences().get(etree.QName(element).localname, ()), list(element))
    return None if missing is None else f"<{shown(str(element.tag))}> has no <{missing}>"


def _first_missing(particles: tuple[Particle, ...], children: list[etree._Element]) -> str | None:
    """The first element of the sitemap namespace that `particles` require and `children` lack."""
    present = {child.tag for child in children}
    return next((p.name for p in particles if p.required and p.name and _OWN + p.name not in present), None)


def _bad_value(element: etree._Element, error: etree._LogEntry) -> str | None:
    """A value its type refuses, in words: what it is and what it must be."""
    if not str(element.tag).startswith(_OWN) or len(element):
        return None
    local = etree.QName(element).localname
    value = (element.text or "").strip()
    message = error.message
    if "[facet 'minLength']" in message or "[facet 'maxLength']" in message:
        least, most = ("at least", "minimum") if "minLength" in message else ("at most", "maximum")
        limit = re.search(rf"allowed {most} length of '(\d+)'", message)
        allowed = f"{int(limit.group(1)):,}" if limit else "the"
        return f"<{local}> {value!r} is {len(value):,} characters; the schema allows {least} {allowed}"
    if "[facet 'enumeration']" in message:
        words = re.search(r"the set \{(.*)\}\.?$", message)
        choices = words.group(1).replace("'", "") if words else "the schema's words"
        return f"<{local}> {value!r} is not one of {choices}"
    return f"<{local}> {value!r} is not {_VALUES.get(local, 'what its type allows')}"


#: libxml2's error types, by what they are about.
_CONTENT = "SCHEMAV_ELEMENT_CONTENT"
_VALUE = re.compile(
    r"SCHEMAV_CVC_(DATATYPE_VALID|MININCLUSIVE|MAXINCLUSIVE|MINEXCLUSIVE|MAXEXCLUSIVE|ENUMERATION|"
    r"MINLENGTH|MAXLENGTH|LENGTH|PATTERN|TOTALDIGITS|FRACTIONDIGITS)"
)


def _worded(elements: Elements, element: etree._Element, error: etree._LogEntry) -> Worded | None:
    """One error in the sitemap author's words; None where libxml2's, tidied, are as good."""
    kind = error.type_name
    if kind == _CONTENT and "Missing child element" in error.message:
        return _missing_child(element)
    if kind == _CONTENT:
        return _unexpected(elements, element, error.message)
    if _VALUE.match(kind):
        return _bad_value(element, error)
    name = shown(str(element.tag), element.nsmap)
    if kind == "SCHEMAV_CVC_COMPLEX_TYPE_2_3":
        return f"text directly inside <{name}>, which may hold only elements"
    attribute = _ELEMENT.match(error.message)
    if kind == "SCHEMAV_CVC_COMPLEX_TYPE_3_2_1" and attribute is not None and attribute.group(2):
        return f"<{name}> may not have the attribute {attribute.group(2)!r}"
    if kind == "SCHEMAV_CVC_TYPE_3_1_2":
        return f"<{name}> holds an element; it may hold only text"
    if kind == "SCHEMAV_CVC_ELT_1":
        return (
            f"<{name}> is an element no schema here defines (namespace {etree.QName(element).namespace});"
            " the extensions checked are Google's image, video and news, and xhtml:link"
        )
    return None


def _tidied(message: str, nsmap: dict[str | None, str]) -> str:
    """libxml2's own words, with names written as the document writes them."""
    match = _ELEMENT.match(message)
    if match is not None:
        attribute = f" (attribute {match.group(2)!r})" if match.group(2) else ""
        message = f"<{shown(match.group(1), nsmap)}>{attribute}: {message[match.end() :]}"

    def name(m: re.Match[str]) -> str:
        if m.group(1):
            return _OTHERS
        return f"<{shown('{' + m.group(2) + '}' + m.group(3), nsmap)}>"

    return _QNAME.sub(name, message)


@dataclass(frozen=True, slots=True)
class SchemaProblem:
    """One schema error: where, what, and the element it is about (None if not found)."""

    line: int | None
    message: str
    element: etree._Element | None


def schema_problems(root: etree._Element, schema: etree.XMLSchema) -> Iterator[SchemaProblem]:
    """What `schema` finds wrong with the document at `root`, one problem per error, in words."""
    if schema.validate(root):
        return
    elements = Elements(root)
    for error in schema.error_log:
        element = elements.at(error.path)
        worded = _worded(elements, element, error) if element is not None else None
        if isinstance(worded, tuple):
            yield SchemaProblem(worded[1] or error.line, worded[0], element)
        else:
            nsmap = element.nsmap if element is not None else root.nsmap
            yield SchemaProblem(error.line, worded or _tidied(error.message, nsmap), element)
