"""The mgr's image tasks as `ceph rbd task list` answered while a flatten ran (scripts/capture_images_fixture.py
--only tasks, on a real cluster)."""
from __future__ import annotations

import json
from pathlib import Path

from cephtui.ceph.images.tasks import parse_tasks

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "images" / "tasks.json"


def test_a_flatten_in_progress_is_read_with_its_image_and_fraction() -> None:
    answers = json.loads(FIXTURE.read_text())["task_list"]
    running = [(a[0], parse_tasks(a)) for a in answers if a and a[0].get("progress") is not None]
    assert running, "the capture holds the flatten in progress"
    for raw, tasks in running:
        (task,) = tasks
        assert task.action == "flatten" and task.spec == "rbd/cap-taskc" and task.in_progress
        assert task.message == raw["message"] == "Flattening image rbd/cap-taskc"
        assert 0 <= (task.progress or 0) <= 1
        assert task.describe() == f"Flattening image rbd/cap-taskc {raw['progress'] * 100:.0f}%"
    fractions = [t[0].progress for _, t in running]
    assert fractions == sorted(fractions)  # the mgr's own fraction only grows
    assert parse_tasks(answers[-1]) == ()  # done: the mgr lists it no more


def test_what_task_add_answers_is_a_queued_task() -> None:
    added = json.loads(FIXTURE.read_text())["added"]
    (task,) = parse_tasks([added])
    assert task.spec == "rbd/cap-taskc" and task.progress is None and task.describe().endswith("(queued)")
