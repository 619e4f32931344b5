"""`python -m evidence_desk` runs the command line."""

from .cli import main

main()
