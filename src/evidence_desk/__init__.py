"""Evidence Desk: answers a reader's question only with what its sources say, and proves it.

The floors, from the interfaces down (`docs/architecture.md`): `cli/` and `server/`
call the application layer, `desk/`; it drives `runs/`, which use `agents/` (they
advise), `judgment` and `trust/` (they decide), `retrieval/`, `archive/` and `sources/`;
everything is kept in `store/`. `tests/unit/test_layering.py` holds the imports that may
never happen.
"""
