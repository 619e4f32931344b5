"""Hostile drafts from real archive text, family by family, against the grounding contract.

`docs/grounding.md` says what a draft must carry to be published; this package tries to
break it the way a hostile editor would (`hostile.py` and the family modules), together
with faithful drafts written the ways people write (`faithful.py`), and judges the desk's
answers (`judge.py`). `python -m bench.adversarial` runs the same drafts and prints the
figures; it imports this package by putting `tests/` on `sys.path`, the same name
(`adversarial`) pytest gives it.
"""
