"""Where every box, line and label of an explanation diagram goes, decided here in code.

The teacher proposes typed relations only; the application owns the geometry, so a diagram
never depends on a layout library, a font on the machine or the order a hash table happens to
keep. This is a layered (Sugiyama-style) layout in five steps:

1. Nodes: a relation's subject and object, one node per label key (white space collapsed,
   case folded); the first spelling wins. Nodes are numbered in order of first appearance.
2. Cycles: a depth-first search from each node in that order, following relations in input
   order, reverses every edge that closes a cycle (`LayoutEdge.reversed`). A relation from a
   node to itself goes down to its label below the node and back; it is never reversed.
3. Layers: longest path from the sources; node layer L sits in rank 2L. Every relation gets a
   label item in an odd rank between its ends (the gap between two node rows), and a dummy
   item in every other rank it crosses.
4. Order: barycenter sweeps (down, then up, `LayoutOptions.sweeps` times), ties broken by
   item number (input order); the order with the fewest crossings seen is kept.
5. Coordinates: each rank is packed left to right with a gap, then every item is pulled
   towards the mean x of its neighbours by a least-squares fit that keeps order and gaps
   (pool-adjacent-violators); y comes from the ranks' heights. A line runs vertically through
   each rank it crosses, at its item's x, and slants only in the empty gaps between ranks.

Invariants: the output is a function of the input sequence alone. Everything iterated is a
list or an insertion-ordered dict, never a set; every step after measuring text computes in
integers and fractions, never floats, so no platform or Python version rounds differently.
No two boxes (nodes and labels) overlap, and no line enters a box but its own label's. An
edge's points run from its subject's boundary to its object's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import accumulate, pairwise

from .fontwidth import Box, TextBox

EMPTY_DIAGRAM = "A diagram needs at least one relation."
Point = tuple[int, int]
Band = tuple[int, int]  # a rank's top and bottom y
_Ports = dict[tuple[int, int], Point]  # (edge, 0 for its chain's start or 1 for its end)
NODE_TEXT = TextBox(font_size=14, line_height=18, max_text_width=180, padding_x=12, padding_y=8)
LABEL_TEXT = TextBox(font_size=12, line_height=15, max_text_width=140, padding_x=4, padding_y=2)


@dataclass(frozen=True)
class DiagramEdge:
    """One typed relation to draw, with where the reader opens its evidence on the page."""

    id: str  # e.g. "R1"
    subject: str
    relation: str
    object: str
    href: str  # a fragment on the same page, e.g. "#evidence-R1"
    sentence: str  # the relation as a sentence, e.g. "Roosevelt proposed a lend-lease program."


@dataclass(frozen=True)
class LayoutOptions:
    """Sizes in px, and how hard the layout works."""

    node: TextBox = NODE_TEXT
    label: TextBox = LABEL_TEXT
    item_gap: int = 24  # between two boxes in one rank; half of it next to a bare dummy
    rank_gap: int = 20  # between consecutive ranks
    margin: int = 16
    sweeps: int = 4  # crossing reduction: this many down-and-up pairs (0: input order)
    placement_passes: int = 12


@dataclass(frozen=True)
class LayoutNode:
    """A box: `x`, `y` is its top-left corner."""

    id: str  # "N1", "N2", ... in order of first appearance
    label: str  # the first spelling, white space collapsed
    lines: tuple[str, ...]
    x: int
    y: int
    width: int
    height: int
    layer: int


@dataclass(frozen=True)
class LayoutEdge:
    """A relation's line, from its subject to its object, and its label's box."""

    id: str
    source: str  # the subject's node id
    target: str  # the object's node id
    relation: str
    label_lines: tuple[str, ...]
    label_x: int  # the label box's top-left corner; the line passes through its centre
    label_y: int
    label_width: int
    label_height: int
    points: tuple[Point, ...]
    reversed: bool  # drawn against the layering to break a cycle


@dataclass(frozen=True)
class Layout:
    """The whole diagram: nodes in order of first appearance, edges in input order."""

    nodes: tuple[LayoutNode, ...]
    edges: tuple[LayoutEdge, ...]
    width: int
    height: int


def label_key(label: str) -> str:
    """Labels with equal keys are one node: white space collapsed, case folded."""
    return " ".join(label.split()).casefold()


def _check(edges: Sequence[DiagramEdge]) -> None:
    """Refuses what cannot be drawn: no relation, an empty or repeated id, a blank part."""
    if not edges:
        raise ValueError(EMPTY_DIAGRAM)
    for number, edge in enumerate(edges):
        if not edge.id or any(other.id == edge.id for other in edges[:number]):
            raise ValueError(f"Every relation needs its own id; {edge.id!r} is empty or repeated.")
        if not (edge.subject.split() and edge.relation.split() and edge.object.split()):
            raise ValueError(f"Relation {edge.id!r} needs a subject, a relation and an object.")


def _nodes(edges: Sequence[DiagramEdge]) -> tuple[list[str], list[tuple[int, int]]]:
    """Node labels in order of first appearance, and each edge as (subject, object) indices."""
    index: dict[str, int] = {}
    labels: list[str] = []
    for label in (label for edge in edges for label in (edge.subject, edge.object)):
        if label_key(label) not in index:
            index[label_key(label)] = len(labels)
            labels.append(" ".join(label.split()))
    return labels, [(index[label_key(e.subject)], index[label_key(e.object)]) for e in edges]


def _acyclic(count: int, pairs: list[tuple[int, int]]) -> tuple[list[bool], list[int]]:
    """The back edges of a DFS in input order, and the nodes in reverse finishing order.

    Turning the back edges round leaves no cycle, and reverse finishing order is then a
    topological order: tree, forward and cross edges already point to nodes that finished
    first, and a turned back edge points from an ancestor to its descendant.
    """
    out: list[list[int]] = [[] for _ in range(count)]
    for number, (source, target) in enumerate(pairs):
        if source != target:
            out[source].append(number)
    back, finished = [False] * len(pairs), list[int]()
    state = [0] * count  # 0 unseen, 1 on the DFS stack, 2 finished
    for root in (node for node in range(count) if not state[node]):
        state[root] = 1
        stack = [(root, iter(out[root]))]
        while stack:
            node, rest = stack[-1]
            followed = next(rest, None)
            if followed is None:
                state[node] = 2
                finished.append(stack.pop()[0])
                continue
            target = pairs[followed][1]
            back[followed] = state[target] == 1
            if state[target] == 0:
                state[target] = 1
                stack.append((target, iter(out[target])))
    return back, finished[::-1]


def _layers(count: int, arcs: list[tuple[int, int]], topological: list[int]) -> list[int]:
    """Longest-path layering: a node sits one below its lowest parent, a source in layer 0."""
    parents: list[list[int]] = [[] for _ in range(count)]
    for source, target in arcs:
        if source != target:
            parents[target].append(source)
    layer = [0] * count
    for node in topological:
        layer[node] = max((layer[parent] + 1 for parent in parents[node]), default=0)
    return layer


@dataclass
class _Items:
    """The working graph: nodes are items 0..n-1, then each edge's label and dummies."""

    rank: list[int]
    width: list[int]
    height: list[int]
    chains: list[list[int]] = field(default_factory=list)  # per edge, upper end to lower end
    label: list[int] = field(default_factory=list)  # per edge, its label item

    def add(self, rank: int, width: int, height: int) -> int:
        self.rank.append(rank)
        self.width.append(width)
        self.height.append(height)
        return len(self.rank) - 1

    def segments(self) -> list[tuple[int, int]]:
        """Every piece of every chain as (upper item, lower item), in edge order."""
        return [
            (a, b) if self.rank[a] < self.rank[b] else (b, a)
            for chain in self.chains
            for a, b in pairwise(chain)
        ]

    def neighbours(self) -> tuple[list[list[int]], list[list[int]]]:
        """Per item, the items a segment joins it to in the rank above, and in the rank below."""
        above: list[list[int]] = [[] for _ in self.rank]
        below: list[list[int]] = [[] for _ in self.rank]
        for upper, lower in self.segments():
            above[lower].append(upper)
            below[upper].append(lower)
        return above, below


def _items(
    boxes: list[Box], labels: list[Box], arcs: list[tuple[int, int]], layer: list[int]
) -> _Items:
    """Nodes first (rank 2 * layer), then per edge its chain of label and dummy items."""
    items = _Items([2 * one for one in layer], [box[1] for box in boxes], [box[2] for box in boxes])
    for (_, width, height), (upper, lower) in zip(labels, arcs, strict=True):
        first = items.rank[upper] + 1
        end = max(items.rank[lower], first + 1)  # a loop goes down to its label and back up
        odd = range(first, end, 2)
        label_rank = odd[(len(odd) - 1) // 2]
        chain = [upper]
        for rank in range(first, end):
            size = (width, height) if rank == label_rank else (0, 0)
            chain.append(items.add(rank, *size))
        items.chains.append([*chain, lower])
        items.label.append(chain[label_rank - first + 1])
    return items


def _crossings(order: list[list[int]], segments: list[tuple[int, int]], rank: list[int]) -> int:
    position = {item: index for row in order for index, item in enumerate(row)}
    by_rank: dict[int, list[tuple[int, int]]] = {}
    for upper, lower in segments:
        by_rank.setdefault(rank[upper], []).append((position[upper], position[lower]))
    total = 0
    for pieces in by_rank.values():
        for number, (a_up, a_down) in enumerate(pieces):
            for b_up, b_down in pieces[number + 1 :]:
                total += (a_up - b_up) * (a_down - b_down) < 0
    return total


def _mean(values: list[int], default: int) -> Fraction:
    return Fraction(sum(values), len(values)) if values else Fraction(default)


def _sweep(order: list[list[int]], neighbours: list[list[int]], ranks: range) -> None:
    """Reorders each rank in `ranks` by its items' mean neighbour position in the rank before."""
    position = {item: index for row in order for index, item in enumerate(row)}
    for rank in ranks:
        keys = {
            item: _mean([position[n] for n in neighbours[item]], index)
            for index, item in enumerate(order[rank])
        }
        order[rank].sort(key=lambda item: (keys[item], item))
        position.update({item: index for index, item in enumerate(order[rank])})


def _order(items: _Items, sweeps: int) -> list[list[int]]:
    order: list[list[int]] = [[] for _ in range(max(items.rank) + 1)]
    for item, rank in enumerate(items.rank):
        order[rank].append(item)
    segments, (above, below) = items.segments(), items.neighbours()
    best, fewest = [row[:] for row in order], _crossings(order, segments, items.rank)
    down, up = range(1, len(order)), range(len(order) - 2, -1, -1)
    for _ in range(sweeps):
        for neighbours, ranks in ((above, down), (below, up)):
            _sweep(order, neighbours, ranks)
            crossings = _crossings(order, segments, items.rank)
            if crossings < fewest:
                best, fewest = [row[:] for row in order], crossings
    return best


def _fit(desired: list[int], gaps: list[int]) -> list[int]:
    """Integers nearest `desired` in least squares with x[i + 1] - x[i] >= gaps[i].

    Pool-adjacent-violators on `desired - offsets`; block means only grow, so rounding them
    keeps every gap. Exact: sums of integers, means compared by cross-multiplying.
    """
    offsets = [0, *accumulate(gaps)]
    blocks: list[tuple[int, int]] = []  # (sum, count) of pooled targets, means increasing
    for want, offset in zip(desired, offsets, strict=True):
        blocks.append((want - offset, 1))
        while len(blocks) > 1 and blocks[-2][0] * blocks[-1][1] > blocks[-1][0] * blocks[-2][1]:
            total, count = blocks.pop()
            blocks[-1] = (blocks[-1][0] + total, blocks[-1][1] + count)
    fitted = [round(Fraction(total, count)) for total, count in blocks for _ in range(count)]
    return [value + offset for value, offset in zip(fitted, offsets, strict=True)]


def _place_x(items: _Items, order: list[list[int]], options: LayoutOptions) -> list[int]:
    """Each item's centre x, the leftmost box edge at the margin."""
    above, below = items.neighbours()
    neighbours = [a + b for a, b in zip(above, below, strict=True)]

    def gaps(row: list[int]) -> list[int]:
        widths = [items.width[item] for item in row]
        gap = options.item_gap
        return [(a + b + 1) // 2 + (gap if a and b else gap // 2) for a, b in pairwise(widths)]

    x = [0] * len(items.rank)
    for row in order:
        for item, value in zip(row, _fit([0] * len(row), gaps(row)), strict=True):
            x[item] = value
    for _ in range(options.placement_passes):
        for row in order:
            desired = [round(_mean([x[n] for n in neighbours[item]], x[item])) for item in row]
            for item, value in zip(row, _fit(desired, gaps(row)), strict=True):
                x[item] = value
    shift = options.margin - min(c - items.width[i] // 2 for i, c in enumerate(x))
    return [value + shift for value in x]


def _bands(items: _Items, order: list[list[int]], options: LayoutOptions) -> list[Band]:
    """Each rank's top and bottom y; a rank is as tall as its tallest item."""
    bands: list[Band] = []
    for row in order:
        top = bands[-1][1] + options.rank_gap if bands else options.margin
        bands.append((top, top + max((items.height[item] for item in row), default=0)))
    return bands


def _route(
    items: _Items, number: int, ports: _Ports, x: list[int], bands: list[Band]
) -> list[Point]:
    """An edge's points in layering direction: straight down through every rank it crosses.

    Inside a rank a line is vertical, at its item's x; it slants only in the gaps between
    ranks, where nothing stands, so it never crosses a box. A loop turns at its label's top.
    """
    chain = items.chains[number]
    start, end = ports[(number, 0)], ports[(number, 1)]
    loop = chain[0] == chain[-1]
    points = [start, (start[0], bands[items.rank[chain[0]]][1])]
    for item in chain[1:-1]:
        top, bottom = bands[items.rank[item]]
        points += [(x[item], top)] if loop else [(x[item], top), (x[item], bottom)]
    points += [(end[0], bands[items.rank[chain[-1]]][1 if loop else 0]), end]
    return [point for index, point in enumerate(points) if not index or point != points[index - 1]]


def _ports(items: _Items, left: list[int], top: list[int], centre_x: list[int]) -> _Ports:
    """Where chains meet their end nodes, keyed by (edge, 0 for its start or 1 for its end).

    Ends on one side of a node are spread along it in order of the x they lead to (then by
    edge and end), so lines leaving one side never cross there.
    """
    sides: dict[tuple[int, bool], list[tuple[int, int, int]]] = {}
    for number, chain in enumerate(items.chains):
        for end, node, next_item in ((0, chain[0], chain[1]), (1, chain[-1], chain[-2])):
            bottom = items.rank[next_item] > items.rank[node]
            sides.setdefault((node, bottom), []).append((centre_x[next_item], number, end))
    ports: _Ports = {}
    for (node, bottom), ends in sides.items():
        ends.sort()
        y = top[node] + items.height[node] if bottom else top[node]
        for index, (_, number, end) in enumerate(ends):
            x = left[node] + items.width[node] * (index + 1) // (len(ends) + 1)
            ports[(number, end)] = (x, y)
    return ports


def layout_diagram(edges: Sequence[DiagramEdge], options: LayoutOptions | None = None) -> Layout:
    """The diagram's geometry; raises ValueError for no relations or a malformed one."""
    _check(edges)
    o = options or LayoutOptions()
    labels, pairs = _nodes(edges)
    back, topological = _acyclic(len(labels), pairs)
    arcs = [(b, a) if flip else (a, b) for (a, b), flip in zip(pairs, back, strict=True)]
    layer = _layers(len(labels), arcs, topological)
    boxes = [o.node.box(label) for label in labels]
    label_boxes = [o.label.box(edge.relation) for edge in edges]
    items = _items(boxes, label_boxes, arcs, layer)
    order = _order(items, o.sweeps)
    centre_x, bands = _place_x(items, order, o), _bands(items, order, o)
    left = [c - items.width[i] // 2 for i, c in enumerate(centre_x)]
    top = [sum(bands[r]) // 2 - items.height[i] // 2 for i, r in enumerate(items.rank)]
    ports = _ports(items, left, top, centre_x)
    nodes = tuple(
        LayoutNode(f"N{n + 1}", labels[n], lines, left[n], top[n], width, height, layer[n])
        for n, (lines, width, height) in enumerate(boxes)
    )
    drawn = []
    for number, (edge, (subject, obj)) in enumerate(zip(edges, pairs, strict=True)):
        label, points = items.label[number], _route(items, number, ports, centre_x, bands)
        box = (left[label], top[label], items.width[label], items.height[label])
        ends, relation = (nodes[subject].id, nodes[obj].id), " ".join(edge.relation.split())
        route = tuple(points[::-1] if back[number] else points)
        drawn.append(
            LayoutEdge(edge.id, *ends, relation, label_boxes[number][0], *box, route, back[number])
        )
    right = max(x + width for x, width in zip(left, items.width, strict=True))
    return Layout(nodes, tuple(drawn), right + o.margin, bands[-1][1] + o.margin)
