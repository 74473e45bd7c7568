"""On each release's replayed capture (no cluster: these views only look), a mgr that cannot run its Python
modules, as Debian's Reef build ships (PyO3 libraries refuse the mgr's subinterpreters): the Doctor names the
modules and the mgr's own reason, and the views those modules serve (crash reports, the balancer, the autoscaler)
say the cluster does not serve them instead of showing nothing.

On a release whose modules run, the same views have data (tests/ui/test_doctor.py); this one then has nothing
to look at and says so."""
from __future__ import annotations

import re
from collections.abc import Callable

import pytest

from cephtui.ui.app import CephTUI
from tests.lookapp import RELEASES
from tests.ui.helpers import SIZE, text_of, wait_for
from tests.ui.test_doctor import open_doctor


@pytest.mark.parametrize("release", RELEASES)
async def test_views_of_modules_the_mgr_cannot_run_say_so(look_app: Callable[..., CephTUI], release: str) -> None:
    from cephtui.ui.screens.balance import BalanceScreen
    from cephtui.ui.screens.crashes import CrashScreen

    app = look_app(release)
    check = app.client.mon("health", detail="detail").get("checks", {}).get("MGR_MODULE_DEPENDENCY")
    if check is None:
        pytest.skip("this release's mgr runs its Python modules")
    failed = {m.group(1): m.group(2) for d in check["detail"]
              if (m := re.match(r"^Module '([^']+)' has failed dependency: (.+)$", d["message"]))}
    assert failed, check["detail"]
    async with app.run_test(size=SIZE) as pilot:
        await open_doctor(app, pilot, "MGR_MODULE_DEPENDENCY")
        detail = text_of(app, "#doctor-detail")
        assert all(name in detail for name in failed), (sorted(failed), detail)
        assert "cannot load" in detail  # the catalog's explanation, not a bare code

        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, CrashScreen), 10, "the crash view")
        await wait_for(pilot, lambda: "crash ls:" in text_of(app, "#crash-summary"), 30, "the crash view's answer")
        assert "`crash ls`: the mgr's crash module serves it, and it is not running" in text_of(app, "#crash-summary")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, CrashScreen), 10, "the crash view closed")

        await pilot.press("b")
        await wait_for(pilot, lambda: isinstance(app.screen, BalanceScreen), 10, "the balancer view")
        await wait_for(pilot, lambda: "balancer status:" in text_of(app, "#balance-body"), 30, "its answer")
        body = text_of(app, "#balance-body")
        assert "`balancer status`: the mgr's balancer module serves it, and it is not running" in body, body
        # The autoscaler's part says so too, instead of an empty table.
        assert "`osd pool autoscale-status`: the mgr's pg_autoscaler module serves it" in body, body
