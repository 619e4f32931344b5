"""The agents: the planner, the answerer and the auditor, on whichever engine a setting names.

They advise; `trust/` and the gate decide. A role's model is chosen in one place
(`providers.py`), its prompt written in one (`prompts.py`), its output typed in one
(`outputs.py`); `calls.py` bounds retries and never falls back to another model. `registry.py`
builds the three roles from settings, `doctor.py` and `probe.py` say whether each is ready.

* `base.py`       the three roles as interfaces
* `offline/`      the offline engine: rules, quoting and lexical checks, no provider
* `roles.py`      one Pydantic AI agent per role, whatever model runs it
* `citations.py`  the Anthropic answerer with Citations
* `illustrator.py` a lesson's optional picture: the image call and its reviewer
* `images.py`     code's checks on a picture's bytes
* `prices.py`     the prices behind a receipt's estimated spend

May import `trust/` (the claim shapes), `types`, `settings`, `errors`, `enumerations`,
`textutil` and the embedder interface of `retrieval/`; never `runs/`, `store/`, `archive/`,
`sources/`, `desk/` or an interface (`tests/unit/test_layering.py`).
"""
