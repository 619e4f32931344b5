"""The explanation diagram as SVG: the one place its untrusted text becomes markup.

Labels, titles and sentences come from documents and from a teacher, so every one of them is
escaped here (`&`, `<`, `>`, both quotes; characters XML cannot carry become U+FFFD) and
nothing else writes markup for a diagram. A relation links only to a fragment on the same
page (`#evidence-R1`, checked against `FRAGMENT`); anything else is refused, never rewritten.
The SVG loads nothing: no font, no stylesheet, no image, no script; its colours are set on its
elements and meet WCAG AA (text at least 4.5:1, lines and box borders at least 3:1).

Invariants: the output is a function of the arguments alone. Every number written is an
integer from the layout (`layout.py`), elements come in the layout's order, and the ids of
the title, description and arrowhead carry a short SHA-256 of the arguments (`diagram_id`):
one diagram always gets the same ids, and two different diagrams on one page do not clash.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence

from .fontwidth import CAP_HEIGHT, TextBox
from .layout import EMPTY_DIAGRAM, DiagramEdge, Layout, LayoutOptions, layout_diagram

FRAGMENT = re.compile(r"#[A-Za-z0-9_-]+")
OPTIONS = LayoutOptions()

_FONT = "Helvetica, Arial, sans-serif"
_TEXT = "#111827"  # on the node fill 16.2:1
_NODE_FILL = "#f1f5f9"
_NODE_STROKE = "#334155"  # on white 10.4:1
_LINE = "#4b5563"  # on white 7.6:1
_LINK = "#1d4ed8"  # a relation's label: on white 6.7:1, underlined
_LABEL_FILL = "#ffffff"

# Characters XML 1.0 cannot carry, even escaped.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")
# `&` first, so no entity written here is escaped again.
_ENTITIES = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;"), ("'", "&#39;"))


def escape(text: str) -> str:
    """`text` safe as XML character data and as a double- or single-quoted attribute value."""
    text = _NOT_XML.sub("\ufffd", text)
    for raw, entity in _ENTITIES:
        text = text.replace(raw, entity)
    return text


def diagram_id(edges: Sequence[DiagramEdge], *, title: str, description: str) -> str:
    """A short id for this diagram, the same for the same arguments: `diagram-` + 12 hex."""
    fields = [[e.id, e.subject, e.relation, e.object, e.href, e.sentence] for e in edges]
    canonical = json.dumps([title, description, fields], ensure_ascii=True, separators=(",", ":"))
    return "diagram-" + hashlib.sha256(canonical.encode("ascii")).hexdigest()[:12]


def _check_links(edges: Sequence[DiagramEdge]) -> None:
    for edge in edges:
        if not FRAGMENT.fullmatch(edge.href):
            raise ValueError(
                f"Relation {edge.id!r} must link to a fragment on this page, like "
                f"'#evidence-R1', not {edge.href!r}."
            )


def _text(lines: tuple[str, ...], centre_x: int, box_top: int, setting: TextBox, extra: str) -> str:
    """Centred lines in a box whose top is `box_top`; each line's capitals sit mid-line."""
    size, line_height = setting.font_size, setting.line_height
    first = box_top + setting.padding_y + (line_height * 1000 + CAP_HEIGHT * size) // 2000
    spans = "".join(
        f'<tspan x="{centre_x}" y="{first + index * line_height}">{escape(line)}</tspan>'
        for index, line in enumerate(lines)
    )
    return f'<text text-anchor="middle" font-size="{size}"{extra}>{spans}</text>'


def _nodes(layout: Layout) -> list[str]:
    out = ['<g class="nodes">']
    for node in layout.nodes:
        centre = node.x + node.width // 2
        text = _text(node.lines, centre, node.y, OPTIONS.node, f' fill="{_TEXT}"')
        out.append(
            f'<g class="node" data-node="{node.id}">'
            f'<rect x="{node.x}" y="{node.y}" width="{node.width}" height="{node.height}" '
            f'rx="6" fill="{_NODE_FILL}" stroke="{_NODE_STROKE}" stroke-width="1"/>{text}</g>'
        )
    out.append("</g>")
    return out


def _edges(layout: Layout, edges: Sequence[DiagramEdge], arrow: str) -> list[str]:
    out = ['<g class="relations">']
    for edge, drawn in zip(edges, layout.edges, strict=True):
        path = " ".join(
            f"{'M' if index == 0 else 'L'}{x},{y}" for index, (x, y) in enumerate(drawn.points)
        )
        centre = drawn.label_x + drawn.label_width // 2
        link = f' fill="{_LINK}" text-decoration="underline"'
        text = _text(drawn.label_lines, centre, drawn.label_y, OPTIONS.label, link)
        out.append(
            f'<a href="{escape(edge.href)}" class="relation" data-relation="{escape(edge.id)}">'
            f"<title>{escape(edge.sentence)}</title>"
            f'<path d="{path}" fill="none" stroke="{_LINE}" stroke-width="1.5" '
            f'marker-end="url(#{arrow})"/>'
            f'<rect x="{drawn.label_x}" y="{drawn.label_y}" width="{drawn.label_width}" '
            f'height="{drawn.label_height}" rx="3" fill="{_LABEL_FILL}"/>{text}</a>'
        )
    out.append("</g>")
    return out


def render_svg(edges: Sequence[DiagramEdge], *, title: str, description: str) -> str:
    """The diagram of `edges` as a standalone SVG document (a string ending in a newline).

    Raises ValueError when there is no relation, when a relation is malformed (`layout.py`)
    or when a relation links anywhere but to a fragment on this page.
    """
    if not edges:
        raise ValueError(EMPTY_DIAGRAM)
    _check_links(edges)
    layout = layout_diagram(edges, OPTIONS)
    prefix = diagram_id(edges, title=title, description=description)
    width, height = layout.width, layout.height
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" role="group" '
        f'aria-labelledby="{prefix}-title {prefix}-desc" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" font-family="{_FONT}" class="teaching-diagram">',
        f'<title id="{prefix}-title">{escape(title)}</title>',
        f'<desc id="{prefix}-desc">{escape(description)}</desc>',
        f'<defs><marker id="{prefix}-arrow" viewBox="0 0 10 10" refX="10" refY="5" '
        f'markerWidth="7" markerHeight="7" orient="auto">'
        f'<path d="M0,0 L10,5 L0,10 z" fill="{_LINE}"/></marker></defs>',
        *_edges(layout, edges, f"{prefix}-arrow"),
        *_nodes(layout),
        "</svg>",
    ]
    return "\n".join(parts) + "\n"
