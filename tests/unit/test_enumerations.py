"""Lists a text announces and spells out: found whole, or not at all."""

from __future__ import annotations

import pytest

from evidence_desk.enumerations import enumerations, runs_on

FREEDOMS = (
    "If the Congress maintains these principles, the voters will give you their applause.\n\n"
    "In the future days, which we seek to make secure, we look forward to a world founded "
    "upon four essential human freedoms.\n\n"
    "The first is freedom of speech and expression—everywhere in the world.\n\n"
    "The second is freedom of every person to worship God in his own way—everywhere in the "
    "world.\n\n"
    "The third is freedom from want—which, translated into world terms, means economic "
    "understandings.\n\n"
    "The fourth is freedom from fear—which, translated into world terms, means a world-wide "
    "reduction of armaments.\n\n"
    "That is no vision of a distant millennium."
)


def _items(text: str) -> list[list[str]]:
    return [[text[a:b] for a, b in e.items] for e in enumerations(text)]


def test_an_announced_list_is_found_with_its_head_and_items() -> None:
    (e,) = enumerations(FREEDOMS)
    assert FREEDOMS[e.head[0] : e.head[1]] == "four essential human freedoms"
    assert _items(FREEDOMS) == [
        [
            "freedom of speech and expression",
            "freedom of every person to worship God in his own way",
            "freedom from want",
            "freedom from fear",
        ]
    ]
    assert FREEDOMS[: e.end].endswith("reduction of armaments.")


@pytest.mark.parametrize(
    ("change", "why"),
    [
        (("The fourth is", "The fifth is"), "an ordinal out of turn"),
        (("four essential", "five essential"), "more items announced than listed"),
        (("four essential", "three essential"), "fewer announced: the fourth is no item"),
        (("\n\nThe second", "\n\nIt was late. The second"), "a sentence between items"),
    ],
)
def test_a_list_read_wrong_is_no_list(change: tuple[str, str], why: str) -> None:
    text = FREEDOMS.replace(*change)
    found = _items(text)
    if change[1] == "three essential":  # three items in turn are a whole list of three
        assert found == [found[0]] and len(found[0]) == 3, why
    else:
        assert found == [], why


def test_the_last_item_may_be_named_last() -> None:
    text = "We have two great aims. The first is peace. The last is freedom."
    assert _items(text) == [["peace", "freedom"]]


def test_a_long_item_is_a_sentence_not_a_list_item() -> None:
    text = (
        "There are two reasons. The first is that every one of the words here goes on and on "
        "for far too long to be an item. The second is cost."
    )
    assert _items(text) == []


def test_a_window_cut_inside_a_list_runs_on_to_its_end() -> None:
    cut = FREEDOMS.index("The fourth") - 2
    end = runs_on(FREEDOMS, 0, cut)
    assert FREEDOMS[:end].endswith("reduction of armaments.")
    assert runs_on(FREEDOMS, 0, len(FREEDOMS)) == len(FREEDOMS)  # whole: unchanged


def test_a_window_runs_on_only_when_the_text_after_it_finishes_the_list() -> None:
    cut = FREEDOMS.index("The fourth") - 2
    broken = FREEDOMS[:cut] + "\n\nThat is no vision. The fourth is freedom from fear."
    assert runs_on(broken, 0, cut) == cut
    # A window holding the head but no item, or items ending before the window does, stays.
    head_only = FREEDOMS.index("The first") - 2
    assert runs_on(FREEDOMS, 0, head_only) == head_only
    assert runs_on(FREEDOMS + " More words.", 0, len(FREEDOMS)) == len(FREEDOMS)
