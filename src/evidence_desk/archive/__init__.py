"""Evidence Desk."""
