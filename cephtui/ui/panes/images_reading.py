"""Reading images' details for the Images tab, off the UI thread: the rows on screen first (newest want first,
eight at a time, one reader), the used size of images without fast-diff scanned one at a time (as `rbd du`
does: every object asked), and every row's details when a sort needs them (four at a time). Each answer goes
back to the pane on the UI thread through `deliver`."""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Optional

from textual.widget import Widget

from cephtui.ceph.images import reader
from cephtui.ceph.images.model import ImageInfo, ImageRef
from cephtui.ceph.images.place_listing import read_one

# An image, its details or None, and why not (Optional: an alias is evaluated at run time, on 3.9 too).
Got = tuple[ImageRef, Optional[ImageInfo], str]
HOSTS_EVERY = 60.0  # seconds between two readings of which host an address is


class DetailsReader:
    def __init__(self, pane: Widget, client: Callable[[], Any], deliver: Callable[[list[Got]], None]) -> None:
        self._pane = pane
        self._client = client
        self._deliver = deliver
        self._wanted: list[ImageRef] = []  # details to read next (the rows on screen), newest want first
        self._lock = threading.Lock()
        self.asked: set[ImageRef] = set()  # queued or being read (UI thread only)
        self._reading = False  # a reader thread is working through _wanted (under _lock)
        self.scanning: list[ImageRef] = []  # images without fast-diff whose used size is still to be scanned
        self._filling = False  # reading every row's details for a sort
        self._host_lookup: tuple[float, Callable[[str], str] | None] = (0.0, None)

    def want(self, refs: list[ImageRef]) -> None:
        """Read these (the rows on screen) before anything wanted earlier; a row asked for is not asked again
        until it is answered."""
        with self._lock:
            self.asked.update(refs)
            self._wanted = refs + [r for r in self._wanted if r not in refs]
            start, self._reading = not self._reading, True
        if start:
            self._pane.run_worker(self._read_wanted, thread=True, group="images-details", exit_on_error=False)

    def answered(self, got: list[Got]) -> None:
        """On the UI thread, as the pane takes `got`: those are no longer asked; a used size to scan is queued."""
        for ref, info, _ in got:
            self.asked.discard(ref)
            if info is not None and info.used is None and ref not in self.scanning:
                self.scanning.append(ref)
        if self.scanning:
            self._pane.run_worker(self._scan_used, thread=True, group="images-scan", exclusive=True,
                                  exit_on_error=False)

    def fill(self, refs: list[ImageRef]) -> None:
        """Sorting by a detail column: read these rows' details, four at a time."""
        if not self._filling:
            self._filling = True
            self._pane.run_worker(lambda: self._fill(refs), thread=True, group="images-fill", exit_on_error=False)

    def hosts(self, client: Any) -> Callable[[str], str]:
        """Which host an address is (OSD and mon addresses), asked of the cluster at most once a minute."""
        at, lookup = self._host_lookup
        if lookup is None or time.monotonic() - at > HOSTS_EVERY:
            lookup = reader.host_names(client)
            self._host_lookup = (time.monotonic(), lookup)
        return lookup

    def _send(self, got: list[Got]) -> None:
        self._pane.app.call_from_thread(self._deliver, got)

    def _read_wanted(self) -> None:
        client = self._client()
        hosts = self.hosts(client)
        while True:
            with self._lock:
                if not self._wanted:
                    self._reading = False
                    return
                batch, self._wanted = self._wanted[:8], self._wanted[8:]
            self._send([read_one(client, ref, hosts) for ref in batch])

    def _scan_used(self) -> None:
        client = self._client()
        hosts = self.hosts(client)
        while self.scanning:
            ref = self.scanning.pop(0)
            self._send([read_one(client, ref, hosts, du="scan")])

    def _fill(self, refs: list[ImageRef]) -> None:
        client = self._client()
        hosts = self.hosts(client)
        try:
            with ThreadPoolExecutor(4) as pool:
                batch: list[Got] = []
                for got in pool.map(lambda r: read_one(client, r, hosts), refs):
                    batch.append(got)
                    if len(batch) >= 200:
                        self._send(batch)
                        batch = []
                if batch:
                    self._send(batch)
        finally:
            self._filling = False
