"""Evaluation: a question set (`contracts/questions.md`) run through the desk and scored.

`questions.py` loads and validates a set, `runner.py` runs it and scores each answer
against its gold facts and expected decision, `report.py` renders the report for a person
(the JSON form is the contract). The runner is handed the desk's `ask`; it never builds one.

May import `trust/`, `types` and `errors` alone (`tests/unit/test_layering.py`).
"""
