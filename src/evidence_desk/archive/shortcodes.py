"""Template tags and attribute lists in markdown sources: removed before parsing.

Static-site archives carry template tags that the site generator replaces when it builds a
page: `{{< legacy-img src="x.jpg" alt="..." >}}`, `{{% note %}}`, `{% include x.html %}`,
`{{ .Title }}`. They are not text a reader sees, so `strip_template_tags` removes them before
the markdown is parsed, everywhere in the source (the generators expand them inside code
blocks too). Rules:

* every tag is removed; for a paired one (`{{< note >}}...{{< /note >}}`) only the two tags
  go and the text between them stays;
* a `ref` or `relref` shortcode inside a link target (`[text]({{< ref "x.md" >}})`,
  `[id]: {{< ref "x.md" >}}`, `<a href="{{< ref "x.md" >}}">`) becomes its path, so the link
  keeps `x.md` as its url; any other tag in a link target leaves an empty target (`<>`), so
  the link's text is still read as a link's text and no url is recorded;
* kramdown attribute lists (`## Heading {#toc1}`, `[text](url){.external}`, `{: .note}`)
  are removed as well: they style the page, readers never see them;
* quoted arguments (`"..."` or backticks in Hugo tags, also `'...'` in Jinja and Liquid
  tags) may hold `>` or `}`; a tag may span lines.
"""

from __future__ import annotations

import re

_HUGO_QUOTED = r'"[^"\n]*"|`[^`]*`'  # Hugo quotes arguments with " or backticks only
_QUOTED = r'"[^"\n]*"|\'[^\'\n]*\''  # Jinja and Liquid quote with either mark
_TAG = re.compile(
    r"\{\{<(?P<angle>(?:" + _HUGO_QUOTED + r"|[^\"`>]|>(?!\}\}))*)>\}\}"
    r"|\{\{%(?P<percent>(?:" + _HUGO_QUOTED + r"|[^\"`%]|%(?!\}\}))*)%\}\}"
    r"|\{%(?:" + _QUOTED + r"|[^\"'%]|%(?!\}))*%\}"
    r"|\{\{(?:" + _QUOTED + r"|[^\"'}]|\}(?!\}))*\}\}",
)
_ATTRIBUTE_LIST = re.compile(r"\{:?[ \t]*[#.][A-Za-z][^{}\n]*\}")
_REF = re.compile(r"\s*(?:ref|relref)\s+(?:\"([^\"\n]*)\"|`([^`]*)`|([^\s\"`]+))")
_MARKDOWN_TARGET = re.compile(r"(?:\]\([ \t]*|^[ ]{0,3}\[[^\]\n]+\]:[ \t]*)\Z", re.MULTILINE)
_HREF_TARGET = re.compile(r"""\bhref\s*=\s*["']?\Z""", re.IGNORECASE)
_LOOK_BEHIND = 200  # characters before a tag searched for a link-target opening


def _ref_path(tag: re.Match[str]) -> str | None:
    inner = tag.group("angle") or tag.group("percent")
    found = _REF.match(inner) if inner is not None else None
    if found is None:
        return None
    return next(group for group in found.groups() if group is not None).strip()


def _replacement(tag: re.Match[str]) -> str:
    before = tag.string[max(0, tag.start() - _LOOK_BEHIND) : tag.start()]
    in_markdown = _MARKDOWN_TARGET.search(before) is not None
    in_href = not in_markdown and _HREF_TARGET.search(before) is not None
    if not (in_markdown or in_href):
        return ""
    path = _ref_path(tag) or ""
    if in_href:
        return path.replace('"', "%22").replace("'", "%27")
    if path and not re.search(r"[\s()<>]", path):
        return path
    return f"<{path}>" if not re.search(r"[<>\n]", path) else "<>"


def strip_template_tags(source: str) -> str:
    """`source` without template tags (see the module docstring)."""
    if "{" not in source:
        return source
    return _ATTRIBUTE_LIST.sub("", _TAG.sub(_replacement, source))
