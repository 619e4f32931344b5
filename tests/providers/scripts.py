"""Scripted models for the provider tests: replies built from what each request contains.

A scripted model reads the request the way a provider's model would (the user message, the
offered output tool) and answers in the role that tool belongs to. `Model` answers
faithfully: it plans the question as asked, quotes the first sentence of the first source
verbatim, and audits each claim as supported by the first passage of its first cited
source. Tests derive misbehaving models from it by replacing one role's reply.

An Anthropic answerer that cites (its request holds `search_result` blocks and no tool)
gets the same claims as cited text blocks (`cited_reply`): each claim's text, citing for
each source it names the sentences of that source's results that hold its `rests_on` or
quotes (else the first sentence of its first result); a source no result belongs to is
written into the text as a marker, as a model may write one.

A lesson's picture (`agents/illustrator.py`) adds two roles: `image`, an Images API request
(a prompt, no messages), answered faithfully with a plain PNG (`fakeimages.solid_png`); and
`review`, the image reviewer, answered faithfully with a verdict that lets the picture show.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from evidence_desk.testing.fakebodies import Cite, CitedText
from evidence_desk.testing.fakeimages import solid_png
from evidence_desk.testing.fakeproviders import Protocol, Reply
from evidence_desk.testing.fakerules import search_results

Role = str  # "plan" | "answer" | "audit" | "teach" | "image" | "review"
_TOOL_ROLE = {
    "submit_plan": "plan",
    "submit_answer": "answer",
    "submit_audit": "audit",
    "submit_lesson": "teach",
    "submit_image_review": "review",
}
_SOURCE = re.compile(r'<source id="(S\d+)"[^>]*>(.*?)</source>', re.S)
_PASSAGE = re.compile(r'<passage id="([^"]+)">\n(.*?)\n</passage>', re.S)
_CLAIM = re.compile(r'<claim number="(\d+)" cites="([^"]*)">')
_QUESTION = re.compile(r"<question>\n(.*?)\n</question>", re.S)


def tool_names(protocol: Protocol, body: dict[str, Any]) -> list[str]:
    tools = body.get("tools") or []
    if protocol == "chat":
        return [t["function"]["name"] for t in tools]
    return [t["name"] for t in tools]


def system_text(protocol: Protocol, body: dict[str, Any]) -> str:
    if protocol == "chat":
        return "\n".join(m["content"] for m in body["messages"] if m["role"] == "system")
    if protocol == "responses":
        return str(body.get("instructions", ""))
    return "\n".join(part["text"] for part in body.get("system", []))


def _text(content: str | list[dict[str, Any]]) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(str(part.get("text", "")) for part in content)


def user_text(protocol: Protocol, body: dict[str, Any]) -> str:
    """The text of the first user message (the role's prompt, with any note Pydantic AI
    put in front of it)."""
    if protocol == "chat":
        return _text(next(m["content"] for m in body["messages"] if m["role"] == "user"))
    if protocol == "responses":
        return _text(next(i for i in body["input"] if i.get("role") == "user")["content"])
    return _text(body["messages"][0]["content"])


_ROLE_LINE = re.compile(
    r"You are the (planner|answerer|auditor|teacher|image reviewer) of Evidence Desk"
)
_ROLE_OF_TITLE = {
    "planner": "plan",
    "answerer": "answer",
    "auditor": "audit",
    "teacher": "teach",
    "image reviewer": "review",
}


def is_image_request(body: dict[str, Any]) -> bool:
    """An Images API request: a prompt to draw, no conversation."""
    return "prompt" in body and "messages" not in body and "input" not in body


def role_of(protocol: Protocol, body: dict[str, Any]) -> Role:
    """The role a request is for: `image` for an Images API request; else its output
    tool's, or with no tools (a JSON-schema response format or prompted JSON) the one its
    instructions name."""
    if is_image_request(body):
        return "image"
    names = tool_names(protocol, body)
    if names:
        return _TOOL_ROLE[names[0]]
    found = _ROLE_LINE.search(system_text(protocol, body))
    assert found, "a request that names no role"
    return _ROLE_OF_TITLE[found.group(1)]


@dataclass(frozen=True)
class Result:
    """A `search_result` block of a citing request: its source id and its sentences."""

    source: str
    title: str
    texts: list[str]


@dataclass(frozen=True)
class Prompt:
    question: str
    sources: dict[str, list[tuple[str, str]]]  # S# -> [(passage id, text)]
    claims: list[tuple[int, list[str]]]  # (number, citations)
    results: list[Result] = field(default_factory=list)  # a citing request's search results

    @classmethod
    def parse(cls, text: str, results: list[Result] | None = None) -> Prompt:
        q = _QUESTION.search(text)
        sources = {sid: _PASSAGE.findall(block) for sid, block in _SOURCE.findall(text)}
        for i, r in enumerate(results or []):  # a search result stands for a passage
            sources.setdefault(r.source, []).append((f"result {i}", " ".join(r.texts)))
        claims = [
            (int(n), [c.strip() for c in cites.split(",") if c.strip()])
            for n, cites in _CLAIM.findall(text)
        ]
        return cls(q.group(1) if q else "", sources, claims, list(results or []))


def results_of(protocol: Protocol, body: dict[str, Any]) -> list[Result]:
    if protocol != "anthropic":
        return []
    return [
        Result(r["source"], r["title"], [b["text"] for b in r["content"]])
        for r in search_results(body)
    ]


def cited_reply(args: dict[str, Any], results: list[Result], like: Reply | None = None) -> Reply:
    """Claims (`AnswerOut`'s arguments) as a citing answerer's text blocks, one paragraph
    each, citing the sentences of each named source's results that hold its words; `like`:
    the `Reply.output` whose usage and reasoning the reply keeps."""
    blocks: list[CitedText | str] = []
    for claim in args.get("claims", []):
        words = [w for w in [*claim.get("rests_on", []), *claim.get("quotes", [])] if w]
        cites: list[Cite] = []
        text = claim["text"]
        for sid in claim.get("citations", []):
            held = [i for i, r in enumerate(results) if r.source == sid]
            if not held:
                text = f"{text} [{sid}]"
            found = [
                Cite(i, k, k + 1)
                for i in held
                for k, t in enumerate(results[i].texts)
                if any(w in t or t in w for w in words)
            ]
            cites += found or [Cite(i) for i in held[:1]]
        if blocks:
            blocks.append("\n\n")
        blocks.append(CitedText(text, tuple(cites)))
    cited = Reply.cited_text(*blocks)
    return cited if like is None else replace(like, kind="cited", cited=cited.cited, args=None)


def first_sentence(text: str) -> str:
    return re.split(r"(?<=[.!?])\s+", " ".join(text.split()))[0]


def faithful_plan(p: Prompt) -> dict[str, Any]:
    return {
        "kind": "factoid",
        "subquestions": [{"text": p.question}],
        "time_windows": [],
        "queries": [p.question],
    }


def faithful_answer(p: Prompt) -> dict[str, Any]:
    sid, passages = next(iter(p.sources.items()))
    sentence = first_sentence(passages[0][1]).rstrip(".")
    return {
        "claims": [
            {"text": f'The source says "{sentence}".', "citations": [sid], "quotes": [sentence]}
        ]
    }


def faithful_audit(p: Prompt) -> dict[str, Any]:
    verdicts = []
    for number, cites in p.claims:
        evidence = [p.sources[cites[0]][0][0]] if cites and cites[0] in p.sources else []
        verdicts.append(
            {"claim": number, "verdict": "supported", "evidence": evidence, "rationale": "ok"}
        )
    return {"verdicts": verdicts}


def faithful_lesson(p: Prompt) -> dict[str, Any]:
    """A lesson whose key idea quotes the first sentence of the first source, as the
    faithful answer does, and names one term no passage holds."""
    sid, passages = next(iter(p.sources.items()))
    sentence = first_sentence(passages[0][1]).rstrip(".")
    key = {"kind": "key_idea", "text": f'The source says "{sentence}" [{sid}].'}
    said = {"kind": "not_said", "text": "", "question": "", "absent": ["zeppelin"]}
    return {
        "blocks": [{"question": "", "absent": [], **key}, said],
        "relations": [],
    }


def faithful_review(p: Prompt) -> dict[str, Any]:
    """A reviewer that sees a plain picture of the lesson and nothing wrong with it."""
    return {
        "shows_text": False,
        "depicts_only_the_lesson": True,
        "misleading": False,
        "reason": "A plain diagram-like picture of the lesson's idea, without writing.",
    }


def source_id_audit(p: Prompt) -> dict[str, Any]:
    """Like `faithful_audit`, but naming the cited source ("S1") as evidence, as answers do."""
    verdicts = [
        {"claim": number, "verdict": "supported", "evidence": cites[:1], "rationale": "ok"}
        for number, cites in p.claims
    ]
    return {"verdicts": verdicts}


def both_forms_audit(p: Prompt) -> dict[str, Any]:
    """Evidence in both forms at once: the cited source's id, then its first passage's id."""
    verdicts = []
    for number, cites in p.claims:
        first = [p.sources[cites[0]][0][0]] if cites and cites[0] in p.sources else []
        verdicts.append(
            {
                "claim": number,
                "verdict": "supported",
                "evidence": cites[:1] + first,
                "rationale": "",
            }
        )
    return {"verdicts": verdicts}


def uncited_source_audit(p: Prompt) -> dict[str, Any]:
    """Hostile: "supported", naming as evidence only sources the claim does not cite."""
    verdicts = []
    for number, cites in p.claims:
        others = [sid for sid in p.sources if sid not in cites]
        verdicts.append(
            {"claim": number, "verdict": "supported", "evidence": others, "rationale": "ok"}
        )
    return {"verdicts": verdicts}


Handler = Callable[[Prompt], Reply | dict[str, Any]]


@dataclass
class Model:
    """A scripted model for one protocol. `override[role]` replaces that role's replies:
    a list is used one reply per request of that role (then the faithful reply), a callable
    is given the parsed prompt."""

    protocol: Protocol
    override: dict[Role, list[Reply] | Handler] = field(default_factory=dict)
    seen: list[tuple[Role, dict[str, Any]]] = field(default_factory=list)

    def __call__(self, body: dict[str, Any], index: int) -> Reply:
        role = role_of(self.protocol, body)
        self.seen.append((role, body))
        if role == "image":
            return self._image()
        prompt = Prompt.parse(user_text(self.protocol, body), results_of(self.protocol, body))
        custom = self.override.get(role)
        if isinstance(custom, list):
            if custom:
                return custom.pop(0)
        elif custom is not None:
            reply = custom(prompt)
            if not isinstance(reply, Reply):
                return self.structured(body, reply)
            if reply.kind == "tool" and reply.tool_name is None and prompt.results:
                return cited_reply(dict(reply.args or {}), prompt.results, like=reply)
            return reply
        faithful = {
            "plan": faithful_plan,
            "answer": faithful_answer,
            "audit": faithful_audit,
            "teach": faithful_lesson,
            "review": faithful_review,
        }
        return self.structured(body, faithful[role](prompt))

    def _image(self) -> Reply:
        """An image request's reply: the next scripted one, else a plain PNG."""
        custom = self.override.get("image")
        if isinstance(custom, list) and custom:
            return custom.pop(0)
        return Reply.image(solid_png())

    def structured(self, body: dict[str, Any], args: dict[str, Any]) -> Reply:
        """`args` the way the request asks for them: the output tool's arguments, or with
        no tools offered (a JSON-schema response format, prompted JSON) the JSON text; a
        citing answerer's request gets the claims as cited text (`cited_reply`)."""
        if tool_names(self.protocol, body):
            return Reply.output(args)
        if results := results_of(self.protocol, body):
            return cited_reply(args, results)
        return Reply.text(json.dumps(args))

    def calls(self, role: Role) -> int:
        return sum(1 for r, _ in self.seen if r == role)
