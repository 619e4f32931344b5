"""A Hugo shortcode read into a value: its name, its arguments and the text it encloses.

A shortcode is what a Hugo page calls to have a template write part of the page:
`{{< asset-static file="x.pdf" label="the report (PDF, 1 MB)" >}}`, or a pair that encloses
markdown, `{{< note variant="action" >}}...{{< /note >}}`. What a reader sees of it is decided
by the template (`shortcode_views.py`), from the values read here; finding the tags in a page
and pairing them is `template_tags.py`.

Arguments are read as Hugo reads them: named (`key="value"`, `key=value`) or positional
(`"value"`, `` `value` ``, `value`); `\\"` inside a double-quoted value is a quote. `get` is
Hugo's `.Get "key"`: the value, or `""` when the argument is absent or the shortcode was
called with positional arguments only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_HEAD = re.compile(r"\s*(?P<closing>/)?\s*(?P<name>\w[\w./-]*)")
_ARGUMENT = re.compile(
    r"\s*(?:(?P<key>[\w-]+)\s*=\s*)?"
    r'(?:"(?P<quoted>(?:[^"\\]|\\.)*)"|`(?P<raw>[^`]*)`|(?P<bare>[^\s"`=]+))'
)
_SELF_CLOSING = re.compile(r"\s*/\s*\Z")


@dataclass(frozen=True)
class Shortcode:
    """One shortcode call. `inner` is the raw text between the opening and the closing tag
    of a pair, None for a shortcode that stands alone."""

    name: str
    named: dict[str, str] = field(default_factory=dict)
    positional: tuple[str, ...] = ()
    inner: str | None = None

    def get(self, key: str) -> str:
        """Hugo's `.Get "key"`: `""` when absent (or when the arguments are positional)."""
        return self.named.get(key, "")

    def arg(self, index: int) -> str:
        """Hugo's `.Get index`: the positional argument, `""` when there is none."""
        return self.positional[index] if index < len(self.positional) else ""

    @property
    def has_arguments(self) -> bool:
        """Hugo's `if .Params`."""
        return bool(self.named or self.positional)


@dataclass(frozen=True)
class Tag:
    """The inside of one `{{< ... >}}` or `{{% ... %}}` tag."""

    shortcode: Shortcode
    closing: bool  # `{{< /name >}}`
    self_closing: bool  # `{{< name ... />}}`: never paired


def read_tag(inside: str) -> Tag | None:
    """The tag whose text between the delimiters is `inside`, or None when it names no
    shortcode (an empty tag, an escaped `{{</* name */>}}`, which only documents one)."""
    head = _HEAD.match(inside)
    if head is None:
        return None
    rest = inside[head.end() :]
    closer = _SELF_CLOSING.search(rest)
    if closer is not None:
        rest = rest[: closer.start()]
    named: dict[str, str] = {}
    positional: list[str] = []
    for found in _ARGUMENT.finditer(rest):
        if found["quoted"] is not None:
            value = found["quoted"].replace('\\"', '"')
        else:
            value = found["raw"] if found["raw"] is not None else found["bare"]
        if found["key"] is not None:
            named[found["key"]] = value
        else:
            positional.append(value)
    shortcode = Shortcode(head["name"], named, tuple(positional))
    return Tag(shortcode, closing=head["closing"] is not None, self_closing=closer is not None)
