"""The explanation diagram: its layout's promises and its SVG's safety, judged from outside.

Geometry is checked by independent oracles written here (rectangle overlap, segment
intersection, points on a box's boundary, hand-computed widths from the AFM table), never by
re-running the layout's own steps. Determinism is checked across calls and across processes
started with different PYTHONHASHSEED values.
"""

from __future__ import annotations

import json
import os
import random
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from dataclasses import asdict
from fractions import Fraction
from itertools import combinations, pairwise
from pathlib import Path

import pytest

import evidence_desk
from evidence_desk.teaching.fontwidth import text_width, wrap
from evidence_desk.teaching.layout import (
    DiagramEdge,
    Layout,
    LayoutNode,
    LayoutOptions,
    layout_diagram,
)
from evidence_desk.teaching.svg import render_svg

SVG = "{http://www.w3.org/2000/svg}"
Rect = tuple[int, int, int, int]  # x, y, width, height
Point = tuple[int, int]


def relations(*triples: tuple[str, str, str]) -> list[DiagramEdge]:
    return [
        DiagramEdge(f"R{n}", s, r, o, f"#evidence-R{n}", f"{s} {r} {o}.")
        for n, (s, r, o) in enumerate(triples, 1)
    ]


LONG = (
    "the Lend-Lease Act of 1941, which let the United States lend or lease war supplies "
    "to any nation whose defence the President deemed vital to the defence of the country"
)
# Many labels (so any set or hash order would show), a cycle, a loop, a long label, an edge
# spanning layers, a relation repeated between the same nodes, a label spelled three ways.
LEND_LEASE = relations(
    ("Roosevelt", "proposed", "a lend-lease program"),
    ("a lend-lease program", "helped", "Britain"),
    ("Roosevelt", "supported", "Britain"),
    ("Britain", "thanked", "Roosevelt"),
    ("Britain", "praised", "Britain"),
    ("Congress", "passed", LONG),
    ("A LEND-LEASE   program", "became", LONG),
    ("Churchill", "asked", "Roosevelt"),
    ("Churchill", "asked", "Roosevelt"),
    ("Britain", "received", "war supplies"),
    ("Congress", "debated", "war supplies"),
    ("Isolationists", "opposed", "a lend-lease program"),
    ("the Soviet Union", "received", "war supplies"),
)


def svg_of(edges: list[DiagramEdge]) -> str:
    return render_svg(edges, title="How lend-lease came about", description="Who did what.")


def nodes_by_id(layout: Layout) -> dict[str, LayoutNode]:
    return {node.id: node for node in layout.nodes}


def node_named(layout: Layout, label: str) -> LayoutNode:
    return next(node for node in layout.nodes if node.label == label)


def on_boundary(point: Point, node: LayoutNode) -> bool:
    x, y = point
    on_x = node.x <= x <= node.x + node.width
    on_y = node.y <= y <= node.y + node.height
    return (on_x and y in (node.y, node.y + node.height)) or (
        on_y and x in (node.x, node.x + node.width)
    )


def overlap(a: Rect, b: Rect) -> bool:
    return a[0] < b[0] + b[2] and b[0] < a[0] + a[2] and a[1] < b[1] + b[3] and b[1] < a[1] + a[3]


def cuts(start: Point, end: Point, box: Rect) -> bool:
    """Whether the segment enters the open interior of the box (Liang-Barsky, exact)."""
    low, high = Fraction(0), Fraction(1)
    (x0, y0), (dx, dy) = start, (end[0] - start[0], end[1] - start[1])
    for delta, origin, near, far in (
        (dx, x0, box[0], box[0] + box[2]),
        (dy, y0, box[1], box[1] + box[3]),
    ):
        if delta == 0:
            if not near < origin < far:
                return False
            continue
        t1, t2 = Fraction(near - origin, delta), Fraction(far - origin, delta)
        low, high = max(low, min(t1, t2)), min(high, max(t1, t2))
    return low < high


def crossings(layout: Layout) -> int:
    """Pairs of segments of different edges that cross properly (orientation test)."""

    def side(a: Point, b: Point, c: Point) -> int:
        value = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
        return (value > 0) - (value < 0)

    segments = [(edge.id, s) for edge in layout.edges for s in pairwise(edge.points)]
    total = 0
    for (first, (a, b)), (second, (c, d)) in combinations(segments, 2):
        if first != second and side(a, b, c) * side(a, b, d) < 0:
            total += side(c, d, a) * side(c, d, b) < 0
    return total


# Determinism


def test_the_same_relations_give_the_same_bytes_on_every_call() -> None:
    outputs = {svg_of(LEND_LEASE) for _ in range(3)}
    assert len(outputs) == 1
    assert layout_diagram(LEND_LEASE) == layout_diagram(list(LEND_LEASE))


def test_the_same_relations_give_the_same_bytes_in_processes_with_other_hash_seeds() -> None:
    script = (
        "import json, sys\n"
        "from evidence_desk.teaching.layout import DiagramEdge\n"
        "from evidence_desk.teaching.svg import render_svg\n"
        "edges = [DiagramEdge(**one) for one in json.load(sys.stdin)]\n"
        "svg = render_svg(edges, title='How lend-lease came about', description='Who did what.')\n"
        "sys.stdout.buffer.write(svg.encode('utf-8'))\n"
    )
    src = str(Path(evidence_desk.__file__).resolve().parents[1])
    payload = json.dumps([asdict(edge) for edge in LEND_LEASE])
    outputs = []
    for seed in ("1", "2718281"):
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": src}
        done = subprocess.run(
            [sys.executable, "-c", script],
            input=payload.encode(),
            env=env,
            capture_output=True,
            check=True,
            timeout=120,
        )
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1] == svg_of(LEND_LEASE).encode("utf-8")


def test_every_number_written_is_an_integer() -> None:
    root = ET.fromstring(svg_of(LEND_LEASE))
    for element in root.iter():
        for name in ("x", "y", "width", "height", "rx"):
            if name in element.attrib:
                int(element.attrib[name])
        if element.tag == f"{SVG}path":
            assert re.fullmatch(r"M-?\d+,-?\d+( [ML]-?\d+,-?\d+)*( z)?", element.attrib["d"])
    assert re.fullmatch(r"0 0 \d+ \d+", root.attrib["viewBox"])


# The SVG document


def test_the_svg_parses_with_its_title_and_description_first() -> None:
    svg = svg_of(LEND_LEASE)
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    assert root.attrib["role"] == "group"  # its arrows stay links (role="img" hides them)
    first, second = list(root)[:2]
    assert (first.tag, first.text) == (f"{SVG}title", "How lend-lease came about")
    assert (second.tag, second.text) == (f"{SVG}desc", "Who did what.")
    assert root.attrib["aria-labelledby"] == f"{first.attrib['id']} {second.attrib['id']}"
    _, _, width, height = root.attrib["viewBox"].split()
    assert (root.attrib["width"], root.attrib["height"]) == (width, height)


def test_every_relation_is_a_link_to_its_evidence_with_its_sentence() -> None:
    root = ET.fromstring(svg_of(LEND_LEASE))
    links = list(root.iter(f"{SVG}a"))
    assert [a.attrib["data-relation"] for a in links] == [edge.id for edge in LEND_LEASE]
    markers = {m.attrib["id"] for m in root.iter(f"{SVG}marker")}
    for link, edge in zip(links, LEND_LEASE, strict=True):
        assert link.attrib["href"] == edge.href
        assert link.attrib["class"] == "relation"
        assert link.findtext(f"{SVG}title") == edge.sentence
        path = link.find(f"{SVG}path")
        assert path is not None
        assert path.attrib["marker-end"][len("url(#") : -1] in markers
        label = link.find(f"{SVG}text")
        assert label is not None
        assert " ".join("".join(label.itertext()).split()) != ""
        background = link.find(f"{SVG}rect")
        assert background is not None and background.attrib["fill"] == "#ffffff"


def test_two_diagrams_get_different_ids_and_one_diagram_always_the_same() -> None:
    def ids(svg: str) -> set[str]:
        return {e.attrib["id"] for e in ET.fromstring(svg).iter() if "id" in e.attrib}

    first, again = ids(svg_of(LEND_LEASE)), ids(svg_of(LEND_LEASE))
    other = ids(svg_of(LEND_LEASE[:3]))
    assert first == again
    assert not first & other


def test_the_svg_loads_nothing_and_runs_nothing() -> None:
    svg = svg_of(LEND_LEASE)
    root = ET.fromstring(svg)
    names = {element.tag.removeprefix(SVG) for element in root.iter()}
    assert not names & {"script", "style", "image", "foreignObject", "use", "iframe"}
    for element in root.iter():
        for name, value in element.attrib.items():
            assert not name.startswith("on")
            assert "url(" not in value or value.startswith("url(#")
            assert "http" not in value and "data:" not in value
    assert "@import" not in svg and "@font-face" not in svg


def contrast(first: str, second: str) -> float:
    def luminance(colour: str) -> float:
        channels = [int(colour[i : i + 2], 16) / 255 for i in (1, 3, 5)]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]

    light, dark = sorted((luminance(first), luminance(second)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_colours_meet_wcag_aa() -> None:
    root = ET.fromstring(svg_of(LEND_LEASE))
    for node in root.iter(f"{SVG}g"):
        if node.get("class") != "node":
            continue
        box, text = node.find(f"{SVG}rect"), node.find(f"{SVG}text")
        assert box is not None and text is not None
        assert contrast(text.attrib["fill"], box.attrib["fill"]) >= 4.5
        assert contrast(box.attrib["stroke"], "#ffffff") >= 3
    for link in root.iter(f"{SVG}a"):
        label, background = link.find(f"{SVG}text"), link.find(f"{SVG}rect")
        path = link.find(f"{SVG}path")
        assert label is not None and background is not None and path is not None
        assert contrast(label.attrib["fill"], background.attrib["fill"]) >= 4.5
        assert contrast(path.attrib["stroke"], "#ffffff") >= 3


HOSTILE = [
    DiagramEdge(
        "R1",
        "<script>alert(1)</script>",
        "\"&'",
        "]]>",
        "#evidence-R1",
        "<script>alert(2)</script> \"&' ]]> <!-- \x00 -->",
    ),
    DiagramEdge("R2", "]]>", "<b onclick='x()'>", "&amp; done", "#evidence-R2", "&lt;"),
]


def test_hostile_labels_appear_only_escaped() -> None:
    svg = render_svg(HOSTILE, title="<script>alert(3)</script>", description="]]> & \"'")
    assert "<script" not in svg and "</script" not in svg
    assert "]]>" not in svg and "<!--" not in svg and "<b" not in svg
    assert "\"&'" not in svg and "\x00" not in svg
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in svg
    assert "&amp;amp; done" in svg
    root = ET.fromstring(svg)
    assert not [e for e in root.iter() if e.tag.removeprefix(SVG).lower() == "script"]
    assert root.findtext(f"{SVG}title") == "<script>alert(3)</script>"
    assert root.findtext(f"{SVG}desc") == "]]> & \"'"
    titles = [a.findtext(f"{SVG}title") for a in root.iter(f"{SVG}a")]
    assert titles == ["<script>alert(2)</script> \"&' ]]> <!-- \ufffd -->", "&lt;"]
    node_texts = ["".join(g.itertext()) for g in root.iter(f"{SVG}g") if g.get("class") == "node"]
    assert node_texts == ["<script>alert(1)</script>", "]]>", "&amp; done"]
    for link in root.iter(f"{SVG}a"):
        assert set(link.attrib) == {"href", "class", "data-relation"}


@pytest.mark.parametrize(
    "href",
    [
        "javascript:alert(1)",
        "https://example.org/#evidence-R1",
        "#",
        "",
        "evidence-R1",
        "#evidence R1",
        "#evidence-R1\n",
        '#x" onload="alert(1)',
        "#évidence",
    ],
)
def test_a_link_anywhere_but_to_a_fragment_on_the_page_is_refused(href: str) -> None:
    edges = [DiagramEdge("R1", "Roosevelt", "proposed", "lend-lease", href, "R proposed L.")]
    with pytest.raises(ValueError, match="fragment"):
        render_svg(edges, title="t", description="d")


def test_no_relations_is_refused() -> None:
    with pytest.raises(ValueError, match=r"^A diagram needs at least one relation\.$"):
        render_svg([], title="t", description="d")
    with pytest.raises(ValueError, match=r"^A diagram needs at least one relation\.$"):
        layout_diagram([])


def test_malformed_relations_are_refused() -> None:
    with pytest.raises(ValueError, match="subject"):
        layout_diagram(relations(("  ", "proposed", "lend-lease")))
    with pytest.raises(ValueError, match="own id"):
        layout_diagram([*relations(("A", "r", "B")), *relations(("C", "r", "D"))])


# The layout


def test_a_cycle_is_broken_by_reversing_one_edge_and_every_line_joins_its_own_nodes() -> None:
    for edges in (
        relations(("A", "leads to", "B"), ("B", "leads to", "A")),
        relations(("A", "r", "B"), ("B", "r", "C"), ("C", "r", "A")),
        LEND_LEASE,
    ):
        layout = layout_diagram(edges)
        nodes = nodes_by_id(layout)
        if len(edges) <= 3:
            assert sum(edge.reversed for edge in layout.edges) == 1
        for edge, drawn in zip(edges, layout.edges, strict=True):
            subject, obj = nodes[drawn.source], nodes[drawn.target]
            assert subject.label.casefold() == " ".join(edge.subject.split()).casefold()
            assert obj.label.casefold() == " ".join(edge.object.split()).casefold()
            assert on_boundary(drawn.points[0], subject)
            assert on_boundary(drawn.points[-1], obj)
            # A drawn edge goes down the layers, a reversed one up them.
            ys = [y for _, y in drawn.points]
            if drawn.source != drawn.target:
                assert ys == sorted(ys, reverse=drawn.reversed)


def test_a_relation_from_a_node_to_itself_is_a_loop_on_that_node() -> None:
    layout = layout_diagram(relations(("Britain", "praised", "Britain")))
    (node,), (edge,) = layout.nodes, layout.edges
    assert edge.source == edge.target == node.id and not edge.reversed
    assert on_boundary(edge.points[0], node) and on_boundary(edge.points[-1], node)
    assert edge.points[0] != edge.points[-1]
    assert edge.label_y >= node.y + node.height


def assert_clear(layout: Layout) -> None:
    """No two boxes overlap, no line enters a box but its own label, every end is on its node."""
    nodes = nodes_by_id(layout)
    boxes = [(n.x, n.y, n.width, n.height) for n in layout.nodes]
    labels = [(e.label_x, e.label_y, e.label_width, e.label_height) for e in layout.edges]
    for a, b in combinations(boxes + labels, 2):
        assert not overlap(a, b)
    for layer in {node.layer for node in layout.nodes}:
        row = sorted((n for n in layout.nodes if n.layer == layer), key=lambda n: n.x)
        for left, right in pairwise(row):
            assert left.x + left.width < right.x
    for number, edge in enumerate(layout.edges):
        assert on_boundary(edge.points[0], nodes[edge.source])
        assert on_boundary(edge.points[-1], nodes[edge.target])
        others = labels[:number] + labels[number + 1 :]
        for start, end in pairwise(edge.points):
            assert not any(cuts(start, end, box) for box in boxes + others), edge.id
    for box in boxes + labels:
        assert box[0] >= 0 and box[1] >= 0
        assert box[0] + box[2] <= layout.width and box[1] + box[3] <= layout.height


def test_boxes_never_overlap_and_no_line_crosses_a_box() -> None:
    assert_clear(layout_diagram(LEND_LEASE))


def test_boxes_never_overlap_and_no_line_crosses_a_box_in_random_diagrams() -> None:
    labels = [LONG, "Roosevelt", "Congress", "Britain", "the Soviet Union and its allies", "X"]
    verbs = ["proposed", "helped", "called for a declaration of", "r"]
    for seed in range(150):
        rng = random.Random(seed)
        triples = [
            (rng.choice(labels[: rng.randint(2, 6)]), rng.choice(verbs), rng.choice(labels))
            for _ in range(rng.randint(1, 12))
        ]
        assert_clear(layout_diagram(relations(*triples)))


def test_a_long_label_wraps_within_the_maximum_width() -> None:
    layout = layout_diagram(LEND_LEASE)
    node = node_named(layout, LONG)
    options = LayoutOptions()
    assert len(node.lines) >= 3
    assert " ".join(node.lines) == LONG
    for line in node.lines:
        assert text_width(line, options.node.font_size) <= options.node.max_text_width
    assert node.width <= options.node.max_text_width + 2 * options.node.padding_x
    assert node.height == len(node.lines) * options.node.line_height + 2 * options.node.padding_y
    root = ET.fromstring(svg_of(LEND_LEASE))
    spans = [
        [span.text for span in g.iter(f"{SVG}tspan")]
        for g in root.iter(f"{SVG}g")
        if g.get("class") == "node"
    ]
    assert list(node.lines) in spans


def test_a_chain_goes_down_one_layer_per_relation() -> None:
    layout = layout_diagram(relations(("A", "r", "B"), ("B", "r", "C"), ("C", "r", "D")))
    assert [(n.label, n.layer) for n in layout.nodes] == [("A", 0), ("B", 1), ("C", 2), ("D", 3)]
    ys = [node.y for node in layout.nodes]
    assert ys == sorted(ys) and len(set(ys)) == 4
    assert not any(edge.reversed for edge in layout.edges)


def test_an_edge_spanning_layers_routes_through_dummy_points_beside_the_middle_node() -> None:
    layout = layout_diagram(relations(("A", "r", "B"), ("B", "r", "C"), ("A", "skips to", "C")))
    b = node_named(layout, "B")
    short, _, long = layout.edges
    assert [n.layer for n in layout.nodes] == [0, 1, 2]
    assert len(long.points) > len(short.points)
    beside_b = [(x, y) for x, y in long.points if b.y <= y <= b.y + b.height]
    assert len(beside_b) >= 2
    assert all(x < b.x or x > b.x + b.width for x, _ in beside_b)
    assert long.label_y + long.label_height <= b.y or long.label_y >= b.y + b.height


def test_crossing_reduction_removes_the_crossing_of_a_hand_made_case() -> None:
    # In input order, layer 0 is A, B and layer 1 is D, C: A→C and B→D cross.
    edges = relations(("D", "r", "Z"), ("C", "r", "Z"), ("A", "r", "C"), ("B", "r", "D"))
    before = crossings(layout_diagram(edges, LayoutOptions(sweeps=0)))
    after = crossings(layout_diagram(edges))
    assert before > 0
    assert after == 0


def test_crossing_reduction_reduces_the_crossings_of_a_larger_diagram() -> None:
    before = crossings(layout_diagram(LEND_LEASE, LayoutOptions(sweeps=0)))
    after = crossings(layout_diagram(LEND_LEASE))
    assert after < before


def test_labels_spelled_with_other_case_or_spacing_are_one_node_the_first_spelling() -> None:
    layout = layout_diagram(
        relations(
            ("Lend-Lease Act", "created", "aid"),
            ("lend-lease   ACT", "helped", "Britain"),
            ("Congress", "passed", "  LEND-LEASE\tact "),
        )
    )
    assert [node.label for node in layout.nodes] == ["Lend-Lease Act", "aid", "Britain", "Congress"]
    act = layout.nodes[0].id
    assert [e.source for e in layout.edges[:2]] == [act, act]
    assert layout.edges[2].target == act


def test_a_repeated_relation_keeps_its_own_id_line_and_label() -> None:
    layout = layout_diagram(LEND_LEASE)
    asked = [edge for edge in layout.edges if edge.relation == "asked"]
    assert [edge.id for edge in asked] == ["R8", "R9"]
    assert asked[0].source == asked[1].source and asked[0].target == asked[1].target
    assert asked[0].points != asked[1].points
    first, second = ((e.label_x, e.label_y, e.label_width, e.label_height) for e in asked)
    assert not overlap(first, second)


# Font widths


def test_text_width_matches_the_afm_table_by_hand() -> None:
    assert text_width("Hello", 10) == pytest.approx((722 + 556 + 222 + 222 + 556) / 100)
    # L e n d - L e a s e: eight 556s, a hyphen (333) and an s (500).
    assert text_width("Lend-Lease", 14) == pytest.approx((8 * 556 + 333 + 500) * 14 / 1000)
    assert text_width("W@", 1000) == pytest.approx(944 + 1015)
    assert text_width(" '`", 1000) == pytest.approx(278 + 191 + 333)
    assert text_width("é", 10) == pytest.approx(5.56)  # outside the table: the default
    assert text_width("中文", 12) == pytest.approx(24.0)  # wide: a full em each
    assert text_width("", 12) == 0


def test_wrap_breaks_at_spaces_and_splits_only_a_word_too_long_for_a_line() -> None:
    assert wrap("a lend-lease program", 14, 1000) == ["a lend-lease program"]
    lines = wrap("Roosevelt proposed a lend-lease program to Congress", 14, 90)
    assert len(lines) > 1
    assert " ".join(lines) == "Roosevelt proposed a lend-lease program to Congress"
    assert all(text_width(line, 14) <= 90 for line in lines)
    word = "Antidisestablishmentarianism" * 2
    pieces = wrap(f"an {word} ok", 14, 60)
    assert pieces[0] == "an"
    assert "".join(pieces[1:]).removesuffix(" ok") == word
    assert all(text_width(line, 14) <= 60 for line in pieces)
    assert wrap("  spaced \n out\t", 14, 1000) == ["spaced out"]
    assert wrap("   ", 14, 100) == []
