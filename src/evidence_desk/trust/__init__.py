"""The publish-safety boundary: checks, the gate and receipts. The agents advise, this decides.

Small and pure on purpose, so it can be read in one sitting and tested to the last branch.
It imports only the standard library, pydantic, `evidence_desk.types` and `cryptography`
(for Ed25519), never the agents, the store, retrieval, the server or a model library; a test
enforces this.

* `text`        verbatim matching (the white-space rule) and offsets into stored text
* `claims`      a draft split into sentences with their `[S#]` citations and quotes
* `units`       a sentence read as the words and quotes a passage must hold (the contract)
* `grounding`   one passage carries each whole sentence (docs/grounding.md)
* `characters`  invisible, direction-changing and look-alike characters
* `markup`      markup outside quotes
* `numbers`     numbers and dates read from claims and evidence, and matched
* `checks`      the deterministic checks of one claim against the run's sources
* `gate`        the pruning policy and the four decisions
* `canonical`   canonical JSON and SHA-256
* `signing`     the desk's Ed25519 key, the receipt signature and trusted public keys
* `receipts`    sealing a receipt, verifying one, checking the chain
* `consistency` re-deriving a receipt's verdicts and decision from its own content
"""
