"""Explaining a published answer: the offline teacher, the diagram's layout and its SVG.

A lesson and its diagram are proposed by a teacher (a model, or the offline engine here) and
reviewed in code before anyone reads them (`runs/teach.py`, `trust/teaching.py`). What this
package draws is geometry the application owns: the teacher supplies typed relations only,
never coordinates, SVG, Mermaid, HTML or code. The same relations give the same bytes on
every run and every machine.

May import: the standard library, the shared modules (`types`, `textutil`), and `trust/`
for the sentence a relation is judged as. Never a floor above it (`runs/`, `desk/`, the
interfaces), nor a model library.
"""
