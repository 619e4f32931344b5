"""Retrieval: which stored passages answer a question, ranked, in the question's time windows.

* `index.py`      the hybrid index (BM25 in `lexical.py`, exact dense search in `vectors.py`,
                  dates in `days.py`), built and swapped as one unit; `fusion.py` fuses ranks
* `embedder.py`   the embedding interface and the local model; `onnxembed.py` and
                  `onnxbuild.py` the ONNX path, `parallel.py` bulk embedding for ingest,
                  `embedders.py` which embedder an archive uses
* `subject.py`    the distinctive terms a question's evidence must hold
* `coverage.py`   the coverage stage: does the archive hold what the question asks about?

May import `store/` (it reads the passages it indexes), `trust/`, `settings`, `errors`,
`textutil` and `types`; never `archive/`, `agents/`, `runs/`, `desk/` or an interface
(`tests/unit/test_layering.py`).
"""
