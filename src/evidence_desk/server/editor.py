"""The standards desk (being built)."""

from fastapi import APIRouter

router = APIRouter()
