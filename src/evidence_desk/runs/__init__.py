"""A run: a question taken from plan to publish, one stage at a time, as a value or a record.

A run is a `RunState` (`state.py`) that the stages advance; an executor (`loop.py`, or
`graph.py` for LangGraph) drives it in memory or writes it down after every stage, so a
killed run resumes without repeating a model call (`ledger.py`) or a web fetch
(`effects.py`). What a stage is given and gives back is in `deps.py`; the stages are
functions in `stages.py` (the archive's), `web.py` (discover and read), `selection.py`,
`retrieve.py`, `gaps.py` and `publish.py`; an explanation's in `teach.py` and `illustrate.py`;
`records.py` says how a stored run reads to a person.

May import `agents/`, `judgment`, `retrieval/`, `sources/`, `trust/` and the shared
modules (`types`, `errors`, `clock`, `enumerations`, `textutil`), and of `store/` only the
record shapes (`rows`, and the row types of `runs` and `snapshots`): the records are
reached through the `RunLog` and `EffectLog` Protocols of `logs.py`, never a store class.
Never `desk/`, `cli/` or `server/` (`tests/unit/test_layering.py`).
"""
