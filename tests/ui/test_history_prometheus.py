"""The cluster's own Prometheus as the history: cephtui started with no local history and `--prometheus URL`
draws the Health tab's write sparkline in the same shape as the server's own query API answers.

A real Prometheus (Debian's package) scrapes the sandbox's mgr prometheus module (tests/cluster/promlab.py).
"""
from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cephtui.ui.widgets.spark import spark_line
from tests.cluster import promlab
from tests.conftest import Sandbox
from tests.ui.helpers import SIZE, app_factory, text_of, wait_for


@pytest.fixture
def empty_data_dir(tmp_path: Path) -> Iterator[Path]:
    """A data directory with no history in it: all the app can show is what Prometheus has."""
    before = os.environ["CEPHTUI_DATA_DIR"]
    os.environ["CEPHTUI_DATA_DIR"] = str(tmp_path)
    try:
        yield tmp_path
    finally:
        os.environ["CEPHTUI_DATA_DIR"] = before


async def test_the_sparkline_has_the_shape_the_server_answers(sandbox: Sandbox, empty_data_dir: Path) -> None:
    with promlab.running_lab(sandbox) as lab:
        writer = promlab.Writer(sandbox.conf, "rbd")
        try:  # a burst the server has seen: its rate rises from 0 and falls back
            promlab.wait_for(lambda: sum(v > 0 for _, v in lab.source.cluster_series(
                "write_bps", time.time() - 60, time.time())) >= 5, 90, "5 non-zero points of write_bps")
        finally:
            writer.stop()
        with app_factory(sandbox.conf) as make:
            app = make(prometheus=lab.server.url)
            async with app.run_test(size=SIZE) as pilot:
                await wait_for(pilot, lambda: app.history.view is not None and app.history.view.points > 0, 30,
                               "the history read from Prometheus")
                view = app.history.view
                assert view is not None and view.label == f"Prometheus {lab.server.url}"
                assert "Prometheus" in str(app.query_one("#health-history").border_subtitle)
                drawn = re.search(r"wr\s{3}(.+?) max ", text_of(app, "#health-history"))
                assert drawn is not None, text_of(app, "#health-history")
                source = app.history.prometheus
                assert source is not None

        # The server's own answer for the same PromQL over the same window, drawn at the same width.
        start, end, step = source.plan(view.since, view.until)
        answer = lab.server.get("/api/v1/query_range", query=source.cluster_promql("write_bps", step),
                                start=start, end=end, step=step)["data"]["result"]
        theirs = [(float(t), float(v)) for t, v in answer[0]["values"]]
        ours = view.series["write_bps"]
        assert [t for t, _ in ours] == [t for t, _ in theirs]
        assert [v for _, v in ours] == pytest.approx([v for _, v in theirs], rel=1e-9)
        assert max(v for _, v in theirs) > 0
        width = len(drawn.group(1))
        assert drawn.group(1) == spark_line(theirs, view.since, view.until, width).plain
        assert set(drawn.group(1)) - {" ", "▁"}, "the burst stands out in the line"
