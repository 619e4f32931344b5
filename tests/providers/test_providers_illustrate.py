"""A lesson's optional picture on the OpenAI wire: drawn through the Images API, checked by
code, reviewed by a vision model that is sent the picture itself, and shown only when every
one of them passes; never made unless asked, paid from the run's budget, never paid twice.
"""

from __future__ import annotations

import base64
import hashlib
import multiprocessing
import os
import signal
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from ledger_child import QUESTION, ingested_home, provider_desk
from pydantic_ai.models import override_allow_model_requests
from scripts import Model, Prompt

from evidence_desk.cli import main
from evidence_desk.desk import Desk
from evidence_desk.errors import DeskError
from evidence_desk.testing.fakeimages import ENDPOINT, solid_png
from evidence_desk.testing.fakeproviders import Captured, FakeProvider, Reply

IMAGE_ENGINE = "openai:gpt-image-1"
KEY_HEADER = "x-evidence-desk-call"
_CHILDREN = multiprocessing.get_context("forkserver")


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return ingested_home(tmp_path)


def _desk(home: Path, base_url: str, **more: Any) -> Desk:
    return provider_desk(home, base_url, illustrator=IMAGE_ENGINE, **more)


def _image_requests(fake: FakeProvider) -> list[Captured]:
    return [r for r in fake.requests if r.path == ENDPOINT]


def _explained(desk: Desk, **kw: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """An answer asked and explained: its receipt and its lesson's."""
    answer = desk.ask(QUESTION).receipt
    assert answer["decision"] == "AUTO_CLEARED"
    return answer, desk.explain(answer["run_id"], **kw).receipt


def _stage(lesson: dict[str, Any], name: str) -> dict[str, Any]:
    (stage,) = [s for s in lesson["teaching_stages"] if s["name"] == name]
    assert isinstance(stage, dict)
    return stage


def test_a_picture_is_drawn_reviewed_as_seen_and_shown(home: Path) -> None:
    model = Model("chat")
    with override_allow_model_requests(True), FakeProvider("chat", model, validate=True) as fake:
        desk = _desk(home, fake.base_url)
        _, lesson = _explained(desk, illustrate=True)
        assert fake.rejected == []
    assert model.calls("image") == 1 and model.calls("review") == 1
    png = solid_png()
    sha = hashlib.sha256(png).hexdigest()

    # The image request: the Images API's shape for gpt-image-1, the lesson as data.
    (drawn,) = _image_requests(fake)
    body = drawn.body
    assert body["model"] == "gpt-image-1" and body["size"] == "1024x1024" and body["n"] == 1
    assert body["output_format"] == "png" and "response_format" not in body
    assert "No text of any kind" in body["prompt"] and "<lesson>" in body["prompt"]
    assert "[S1]" not in body["prompt"]  # the kept texts, citation markers stripped
    assert drawn.headers[KEY_HEADER].startswith("illustrator-")

    # The review carries the picture itself, as a data URL beside the lesson's text.
    (review,) = [b for role, b in model.seen if role == "review"]
    (user,) = [m for m in review["messages"] if m["role"] == "user"]
    parts = {p["type"]: p for p in user["content"]}
    url = "data:image/png;base64," + base64.b64encode(png).decode()
    assert parts["image_url"]["image_url"]["url"] == url
    assert "<lesson>" in parts["text"]["text"] and sha in parts["text"]["text"]

    picture = lesson["illustration"]
    assert picture["shown"] is True and picture["reason"].startswith("Shown:")
    assert picture["image_sha256"] == sha and picture["media_type"] == "image/png"
    assert (picture["width"], picture["height"]) == (1024, 1024)
    assert picture["engine"] == IMAGE_ENGINE and picture["reviewer"] == "openai:gpt-4.1-mini"
    assert picture["review"]["shows_text"] is False
    assert (home / "illustrations" / f"{sha}.png").read_bytes() == png
    stage = _stage(lesson, "illustrate")
    assert stage["calls"] == 2 and stage["estimated_spend_usd"] >= 0.04
    assert lesson["teaching"]["decision"] == "PUBLISHED"
    assert desk.verify_receipt(lesson).ok


def _shows_text(p: Prompt) -> dict[str, Any]:
    return {
        "shows_text": True,
        "depicts_only_the_lesson": True,
        "misleading": False,
        "reason": "The picture has a caption reading 'Erie Canal 1825'.",
    }


def test_a_picture_that_fails_review_is_recorded_and_not_shown(home: Path) -> None:
    model = Model("chat", override={"review": _shows_text})
    with override_allow_model_requests(True), FakeProvider("chat", model) as fake:
        desk = _desk(home, fake.base_url)
        _, lesson = _explained(desk, illustrate=True)
    assert model.calls("image") == 1 and model.calls("review") == 1
    picture = lesson["illustration"]
    assert picture["shown"] is False
    assert "the reviewer found that it shows text" in picture["reason"]
    assert picture["image_sha256"] == hashlib.sha256(solid_png()).hexdigest()
    assert picture["review"]["shows_text"] is True
    assert not (home / "illustrations").exists()  # a picture not shown is not kept
    assert lesson["teaching"]["decision"] == "PUBLISHED"  # the lesson is not held for it
    assert desk.verify_receipt(lesson).ok


@pytest.mark.parametrize(
    ("data", "why"),
    [
        (b"<html><body>not a picture</body></html>", "not a PNG or JPEG image"),
        (solid_png()[:-12], "does not end on its IEND chunk"),
        (solid_png(8, 8), "each side must be 256 to 4096"),
        (b"", "holds no image"),
    ],
    ids=["html", "cut-short", "tiny", "empty"],
)
def test_bytes_that_are_no_picture_are_refused_before_any_review(
    home: Path, data: bytes, why: str
) -> None:
    model = Model("chat", override={"image": [Reply.image(data)]})
    with override_allow_model_requests(True), FakeProvider("chat", model) as fake:
        _, lesson = _explained(_desk(home, fake.base_url), illustrate=True)
    assert model.calls("image") == 1 and model.calls("review") == 0
    picture = lesson["illustration"]
    assert picture["shown"] is False and why in picture["reason"]
    assert picture["image_sha256"] == hashlib.sha256(data).hexdigest()
    assert picture["review"] is None and picture["media_type"] == ""
    assert not (home / "illustrations").exists()


def test_a_server_error_is_tried_again_and_a_refusal_is_not(home: Path) -> None:
    policy = "Your request was rejected as a result of our safety system."
    model = Model("chat", override={"image": [Reply.error(500), Reply.image(solid_png())]})
    with override_allow_model_requests(True), FakeProvider("chat", model) as fake:
        _, lesson = _explained(_desk(home, fake.base_url), illustrate=True)
        retried = _image_requests(fake)
    assert lesson["illustration"]["shown"] is True
    assert len(retried) == 2 and len({r.headers[KEY_HEADER] for r in retried}) == 1
    stage = _stage(lesson, "illustrate")  # two tries and the review; the picture paid once
    assert stage["calls"] == 3 and 0.04 <= stage["estimated_spend_usd"] < 0.05

    refusing = Model("chat", override={"image": [Reply.error(400, policy)]})
    with override_allow_model_requests(True), FakeProvider("chat", refusing) as fake:
        desk = _desk(home, fake.base_url)
        refused = desk.explain(desk.ask(QUESTION).receipt["run_id"], illustrate=True).receipt
    assert refusing.calls("image") == 1 and refusing.calls("review") == 0
    picture = refused["illustration"]
    assert picture["shown"] is False and picture["image_sha256"] == ""
    assert picture["reason"] == (
        f"Nothing was drawn: The illustrator failed: the provider refused the request "
        f"(HTTP 400: {policy})."
    )
    assert _stage(refused, "illustrate")["estimated_spend_usd"] < 0.04  # not billed


def test_a_picture_the_spend_cap_cannot_fit_is_never_asked_for(home: Path) -> None:
    model = Model("chat")
    with override_allow_model_requests(True), FakeProvider("chat", model) as fake:
        desk = _desk(home, fake.base_url, illustration_price_usd=2.0)  # the cap is $1.00
        _, lesson = _explained(desk, illustrate=True)
        assert _image_requests(fake) == []
    assert model.calls("image") == 0 and model.calls("review") == 0
    assert lesson["teaching"]["decision"] == "PUBLISHED"
    picture = lesson["illustration"]
    assert picture["shown"] is False and picture["image_sha256"] == ""
    assert picture["reason"].startswith("Nothing was drawn: The illustrator stopped:")
    assert "spend cap" in picture["reason"]
    stage = _stage(lesson, "illustrate")
    assert stage["calls"] == 0 and "spend cap" in stage["error"]
    assert desk.verify_receipt(lesson).ok


def test_a_saved_picture_is_returned_without_a_model_call(home: Path) -> None:
    model = Model("chat")
    with override_allow_model_requests(True), FakeProvider("chat", model) as fake:
        desk = _desk(home, fake.base_url)
        answer, lesson = _explained(desk, illustrate=True)
        sent = len(fake.requests)
        assert desk.explain(answer["run_id"], illustrate=True).receipt == lesson
        assert desk.explain(answer["run_id"]).receipt == lesson  # the newest lesson
        env = {"EVIDENCE_DESK_ILLUSTRATOR": IMAGE_ENGINE}
        args = ["--data-dir", str(home), "explain", answer["run_id"], "--illustrate"]
        shown = CliRunner().invoke(main, args, env=env)
        assert len(fake.requests) == sent  # nothing asked of any model again
    assert shown.exit_code == 0, shown.output
    assert "Picture shown" in shown.output
    sha = lesson["illustration"]["image_sha256"]
    assert str(home / "illustrations" / f"{sha}.png") in shown.output.replace("\n", "")


def _illustrate_until_recorded(home: Path, base_url: str, run_id: str, role: str) -> None:
    desk = _desk(home, base_url)

    def die(key: str) -> None:
        if key.startswith(role):
            os.kill(os.getpid(), signal.SIGKILL)

    desk.executor.on_call_recorded = die
    with override_allow_model_requests(True):
        desk.explain(run_id, illustrate=True)


@pytest.mark.slow
@pytest.mark.parametrize("role", ["illustrator", "reviewer"])
def test_a_kill_after_a_reply_was_recorded_never_pays_for_it_again(home: Path, role: str) -> None:
    model = Model("chat")
    with override_allow_model_requests(True), FakeProvider("chat", model) as fake:
        answer = _desk(home, fake.base_url).ask(QUESTION).receipt
        args = (home, fake.base_url, answer["run_id"], role)
        child = _CHILDREN.Process(target=_illustrate_until_recorded, args=args)
        child.start()
        child.join(120)
        assert child.exitcode == -signal.SIGKILL
        assert model.calls("image") == 1
        lesson = _desk(home, fake.base_url).explain(answer["run_id"], illustrate=True).receipt
        keys = Counter(r.headers[KEY_HEADER] for r in _image_requests(fake))
    assert model.calls("image") == 1 and model.calls("review") == 1
    assert set(keys.values()) == {1}
    assert lesson["illustration"]["shown"] is True
    # The resumed run was charged the picture once, from its ledger.
    assert _stage(lesson, "illustrate")["estimated_spend_usd"] >= 0.04


def test_without_the_request_no_picture_is_made(home: Path) -> None:
    model = Model("chat")
    with override_allow_model_requests(True), FakeProvider("chat", model) as fake:
        desk = _desk(home, fake.base_url)
        answer, plain = _explained(desk)
        assert _image_requests(fake) == []
        assert "illustration" not in plain
        assert "illustrate" not in [s["name"] for s in plain["teaching_stages"]]
        # Asked afterwards, a new explanation run illustrates; once made, it is kept.
        drawn = desk.explain(answer["run_id"], illustrate=True).receipt
        assert drawn["run_id"] != plain["run_id"] and drawn["illustration"]["shown"] is True
        assert desk.explain(answer["run_id"], illustrate=True).receipt == drawn
    assert model.calls("image") == 1 and model.calls("teach") == 2


def test_the_option_without_an_illustrator_fails_in_one_sentence(home: Path) -> None:
    env = {"EVIDENCE_DESK_ILLUSTRATOR": "", "OPENAI_BASE_URL": "http://127.0.0.1:9"}
    args = ["--data-dir", str(home), "explain", "run-x", "--illustrate"]
    result = CliRunner().invoke(main, args, env=env)
    assert result.exit_code == 1 and "Traceback" not in result.stderr
    assert result.stderr.count("error:") == 1
    assert "EVIDENCE_DESK_ILLUSTRATOR" in result.stderr


def test_there_is_no_offline_image_model(home: Path) -> None:
    desk = provider_desk(home, "http://127.0.0.1:9", illustrator="offline")
    with pytest.raises(DeskError, match=r"^There is no offline image model: set "):
        desk.ask(QUESTION)  # refused when the roles are made, before any request
