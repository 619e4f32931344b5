"""The reader widget (being built)."""

from fastapi import APIRouter

router = APIRouter()
