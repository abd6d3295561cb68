"""Whether an SVG may be published: an allow-list, not a deny-list.

A published SVG is opened directly by readers (a body may link to it), where
it runs as a document of the site's origin with no CSP. So only what is known
to be inert passes: elements of the SVG namespace from ``ELEMENTS``; RDF,
Dublin Core and Creative Commons elements inside ``<metadata>``; Inkscape and
Sodipodi elements anywhere (browsers give those namespaces no behaviour);
attributes from ``ATTRIBUTES`` (plus ``aria-*``, ``xml:space``/``xml:lang``,
and any Inkscape/Sodipodi/RDF one); every ``href`` an ``#id``; no DOCTYPE,
entity or processing instruction; and in every attribute value and style sheet
no ``url()`` leaving the file, ``image-set``, ``@import`` or backslash (a CSS
escape could spell any of them). Anything else is refused, not sanitised.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as etree
import xml.parsers.expat as expat

SVG = "http://www.w3.org/2000/svg"
XLINK = "http://www.w3.org/1999/xlink"
XML = "http://www.w3.org/XML/1998/namespace"
INERT = frozenset({"http://www.inkscape.org/namespaces/inkscape",
                   "http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd"})
"""Namespaces whose elements and attributes browsers ignore, allowed anywhere."""
METADATA = frozenset({"http://www.w3.org/1999/02/22-rdf-syntax-ns#", "http://purl.org/dc/elements/1.1/",
                      "http://purl.org/dc/terms/", "http://creativecommons.org/ns#",
                      "http://web.resource.org/cc/"}) | INERT
"""Namespaces allowed inside ``<metadata>`` (what editors write there)."""

ELEMENTS = frozenset("""
svg g defs desc title metadata symbol use switch view a style
path rect circle ellipse line polyline polygon text tspan textPath
marker pattern clipPath mask linearGradient radialGradient stop filter
feBlend feColorMatrix feComponentTransfer feComposite feConvolveMatrix feDiffuseLighting
feDisplacementMap feDistantLight feDropShadow feFlood feFuncA feFuncB feFuncG feFuncR
feGaussianBlur feMerge feMergeNode feMorphology feOffset fePointLight feSpecularLighting
feSpotLight feTile feTurbulence
animate animateTransform animateMotion mpath set
""".split())
"""SVG elements that draw, group or animate; no script, foreignObject, image or feImage."""

ATTRIBUTES = frozenset("""
id class style lang tabindex role focusable href
x y x1 y1 x2 y2 cx cy r rx ry fx fy fr width height d points pathLength transform viewBox
preserveAspectRatio version baseProfile dx dy rotate textLength lengthAdjust startOffset method spacing side
fill fill-opacity fill-rule stroke stroke-width stroke-linecap stroke-linejoin stroke-miterlimit
stroke-dasharray stroke-dashoffset stroke-opacity opacity color display visibility overflow clip
clip-path clip-rule mask filter marker marker-start marker-mid marker-end
font font-family font-size font-size-adjust font-stretch font-style font-variant font-weight
text-anchor text-decoration text-rendering dominant-baseline alignment-baseline baseline-shift
letter-spacing word-spacing writing-mode direction unicode-bidi white-space
stop-color stop-opacity color-interpolation color-interpolation-filters color-rendering
shape-rendering image-rendering flood-color flood-opacity lighting-color paint-order vector-effect
mix-blend-mode isolation pointer-events transform-origin transform-box mask-type enable-background
gradientUnits gradientTransform spreadMethod offset patternUnits patternContentUnits patternTransform
markerUnits markerWidth markerHeight refX refY orient clipPathUnits maskUnits maskContentUnits
filterUnits primitiveUnits
in in2 result stdDeviation mode operator k1 k2 k3 k4 values type tableValues slope intercept
amplitude exponent scale xChannelSelector yChannelSelector baseFrequency numOctaves seed stitchTiles
radius order kernelMatrix divisor bias targetX targetY edgeMode preserveAlpha surfaceScale
diffuseConstant specularConstant specularExponent kernelUnitLength azimuth elevation z
pointsAtX pointsAtY pointsAtZ limitingConeAngle media
attributeName attributeType from to by begin dur end min max restart repeatCount repeatDur
calcMode keyTimes keySplines keyPoints additive accumulate path
requiredExtensions requiredFeatures systemLanguage
""".split())
"""SVG geometry, presentation, filter and animation attributes (no ``on*``, no ``target``)."""

_OUTSIDE_URL = re.compile(r"(?:url|src)\([\s'\"]*(?![\s'\"#])", re.I)
"""A ``url(`` (or CSS's newer ``src(``) whose target does not start with ``#``."""
_CSS_HOSTILE = re.compile(r"\\|image-set|@import", re.I)


def svg_problem(data: bytes) -> tuple[etree.Element | None, str]:
    """(the parsed root, "") of an SVG that may be published, else (None, why not)."""
    problem = _declarations(data)
    if problem:
        return None, problem
    parser = etree.XMLParser(target=etree.TreeBuilder(insert_pis=True))
    try:
        parser.feed(data)
        root = parser.close()
    except etree.ParseError as error:
        return None, f"not a well-formed SVG ({error})"
    if root.tag != f"{{{SVG}}}svg":
        return None, f"not an SVG (its root element is not <svg> in the SVG namespace {SVG})"
    return (None, problem) if (problem := _check(root, in_metadata=False)) else (root, "")


def _declarations(data: bytes) -> str:
    """Why ``data`` holds a DOCTYPE, entity or processing instruction, or "" (expat
    reads the encoding, so a UTF-16 file is checked as well as a UTF-8 one)."""
    found: list[str] = []

    def refuse(what: str):
        def handler(*_):
            found.append(what)
            raise ValueError(what)
        return handler

    parser = expat.ParserCreate()
    parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
    parser.StartDoctypeDeclHandler = refuse("SVG with a DOCTYPE or entities is refused (entities can expand or fetch)")
    parser.EntityDeclHandler = parser.StartDoctypeDeclHandler
    parser.ProcessingInstructionHandler = refuse("SVG has a processing instruction (<?...?>, e.g. xml-stylesheet): "
                                                 "refused; it can load an outside style sheet")
    try:
        parser.Parse(data, True)
    except ValueError:
        return found[0]
    except expat.ExpatError as error:
        return f"not a well-formed SVG ({error})"
    return ""


def _check(element: etree.Element, in_metadata: bool) -> str:
    """Why ``element`` or anything inside it is not on the allow-list, or ""."""
    if not isinstance(element.tag, str):
        return "SVG has a processing instruction (<?...?>): refused; it can load an outside style sheet"
    namespace, _, tag = element.tag[1:].partition("}") if element.tag.startswith("{") else ("", "", element.tag)
    if namespace == SVG:
        if tag not in ELEMENTS:
            return (f"SVG holds <{tag}>: refused (only drawing, grouping and animation elements are published; "
                    "no script, foreignObject or outside images)")
    elif not (namespace in INERT or (in_metadata and namespace in METADATA)):
        return f"SVG holds <{tag}> from namespace {namespace or '(none)'!r}: refused (only SVG elements are published)"
    for name, value in element.attrib.items():
        problem = _attribute(tag if namespace == SVG else "", name, value)
        if problem:
            return problem
    if tag == "style" and namespace == SVG:
        problem = _css("".join(element.itertext()), "style sheet")
        if problem:
            return problem
    inside = in_metadata or (namespace == SVG and tag == "metadata")
    return next((problem for child in element if (problem := _check(child, inside))), "")


def _attribute(svg_tag: str, name: str, value: str) -> str:
    """Why attribute ``name`` of an SVG element ``svg_tag`` ("" for a foreign one) is refused, or ""."""
    namespace, _, local = name[1:].partition("}") if name.startswith("{") else ("", "", name)
    if local.lower().startswith("on"):
        return f"SVG has an event handler ({local}=): refused"
    if namespace in (XLINK, "") and local == "href":
        if not value.strip().startswith("#"):
            return f"SVG refers outside itself (href={value[:60]!r}): refused; only #id links are published"
    elif namespace == XML:
        if local not in ("space", "lang"):
            return f"SVG has xml:{local}=: refused (only xml:space and xml:lang are published)"
    elif namespace == XLINK:
        if local not in ("title", "type"):
            return f"SVG has xlink:{local}=: refused"
    elif namespace:
        if namespace not in METADATA:
            return f"SVG has attribute {local!r} from namespace {namespace!r}: refused"
    elif svg_tag and local not in ATTRIBUTES and not local.startswith("aria-"):
        return f"SVG has attribute {local}= on <{svg_tag}>: refused (not a known drawing attribute)"
    if svg_tag in ("set", "animate", "animateTransform", "animateMotion") and local == "attributeName" \
            and (value.split(":")[-1] not in ATTRIBUTES or "href" in value.lower() or value == "style"):
        return f"SVG animates {value[:40]!r}: refused (only drawing attributes may be animated)"
    return _css(value, f"{local}=")


def _css(text: str, where: str) -> str:
    """Why ``text`` (an attribute value or style sheet) could fetch something, or ""."""
    if _OUTSIDE_URL.search(text):
        return f"SVG refers outside itself (url() not starting with # in {where}): refused"
    hostile = _CSS_HOSTILE.search(text)
    if hostile:
        what = "a backslash (CSS escape)" if hostile.group() == "\\" else hostile.group()
        return f"SVG has {what} in {where}: refused (it could load an outside resource)"
    return ""
