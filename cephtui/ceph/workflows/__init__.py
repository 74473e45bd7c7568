"""Resumable, persisted workflows (OSD removal and replacement)."""
