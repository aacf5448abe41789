"""The viewer in a real browser: headless Chromium (Debian's ``chromium``) driven by Playwright.

Open a record, step through it, jump, switch seats, then play a short game against a bot to its end by
clicking legal actions. Screenshots must be non-empty and change between steps; the page must log no
console errors. Skipped (with the reason) when Playwright or /usr/bin/chromium is missing; CI installs
both (``apt-get install chromium``, ``pip install 'farmgames[view-test]'``; never ``playwright install``).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from farmgames.envs import get_spec
from farmgames.training.view.records import load_records
from farmgames.training.view.server import ViewerApp
from farmgames.training.view.session import PlaySession

from .conftest import random_record, registered, running

CHROMIUM = os.environ.get("FARMGAMES_CHROMIUM", "/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

sync_api = pytest.importorskip("playwright.sync_api", reason="Playwright is not installed (pip install playwright)")
if not (Path(CHROMIUM).is_file() or shutil.which(CHROMIUM)):
    pytest.skip(f"no Chromium at {CHROMIUM} (apt-get install chromium)", allow_module_level=True)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with sync_api.sync_playwright() as p, tempfile.TemporaryDirectory() as profile:
        context = p.chromium.launch_persistent_context(
            profile,
            executable_path=CHROMIUM,
            headless=True,
            args=ARGS,
            viewport={"width": 1500, "height": 1000},
            timeout=30_000,
        )
        try:
            yield context
        finally:
            context.close()


class Page:
    """A page of the viewer that records console errors and waits for the frame it asked for."""

    def __init__(self, context: Any, url: str):
        self.page = context.new_page()
        self.page.set_default_timeout(15_000)
        self.errors: list[str] = []
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.goto(url)
        self.wait()

    def wait(self) -> None:
        """Until the frame is shown and its picture (if any) has loaded."""
        self.page.wait_for_function(
            "() => document.body.dataset.ready && (document.getElementById('picture').hidden"
            " || document.getElementById('picture').dataset.loaded === '1')"
        )

    def step(self) -> int:
        return int(self.page.evaluate("document.body.dataset.step"))

    def click(self, selector: str) -> None:
        before = self.page.evaluate("document.body.dataset.ready")
        self.page.click(selector)
        self.page.wait_for_function(f"() => document.body.dataset.ready !== '{before}'")
        self.wait()

    def shot(self, path: Path | None = None) -> str:
        """A hash of a screenshot (no focus ring or hover: the same step looks the same)."""
        self.page.evaluate("document.activeElement && document.activeElement.blur()")
        self.page.mouse.move(0, 0)
        data = self.page.screenshot(path=str(path) if path else None)
        assert len(data) > 10_000, "a screenshot of the viewer is not empty"
        return hashlib.sha256(data).hexdigest()

    def text(self, selector: str) -> str:
        return str(self.page.inner_text(selector))


def test_step_through_a_record_and_switch_seats(browser: Any, fog_record_file: Path, tmp_path: Path) -> None:
    app = ViewerApp(records=load_records(fog_record_file))
    with running(app) as server:
        page = Page(browser, server.url)
        assert page.step() == 0
        shots = [page.shot(tmp_path / "step0.png")]
        for n in (1, 2, 3):
            page.click("#next")
            assert page.step() == n
            shots.append(page.shot())
        assert len(set(shots)) == len(shots), "every step looks different"
        page.click("#prev")
        assert page.step() == 2 and page.shot() == shots[2]
        before = page.page.evaluate("document.body.dataset.ready")
        page.page.fill("#step-input", "40")
        page.page.press("#step-input", "Enter")
        page.page.wait_for_function(f"() => document.body.dataset.ready !== '{before}'")
        page.wait()
        assert page.step() == 40
        assert page.text("#next-text") and page.page.locator("#alternatives li").count() > 0
        everything = page.text("#obs-text")
        assert "=== player 0 ===" in everything and "=== player 1 ===" in everything
        for seat in ("0", "1"):
            before = page.page.evaluate("document.body.dataset.ready")
            page.page.select_option("#view-select", seat)
            page.page.wait_for_function(f"() => document.body.dataset.ready !== '{before}'")
            page.wait()
            assert page.page.evaluate("document.body.dataset.view") == seat
            page.page.click("#tab-obs")
            obs = page.text("#obs-text")
            assert f"view of player {seat}" in obs and "===" not in obs, "a seat sees its own observation only"
            assert page.page.evaluate("document.getElementById('picture').naturalWidth") > 300
            shots.append(page.shot())
        assert len(set(shots)) == len(shots)
        page.page.click("#tab-log")
        assert page.page.locator("#log li").count() == len(app.sources[0].record["actions"])
        page.click("#last")
        assert page.step() == len(app.sources[0].record["actions"])
        assert "game over" in page.text("#banner")
        assert page.errors == []


def test_play_a_game_against_a_bot_to_its_end(browser: Any, tmp_path: Path) -> None:
    spec = get_spec("fields_of_green")
    session = PlaySession(spec, 2, human=0, opponents=["random"], seed=1, variant={"farm_size": 5, "auto_single": True})
    save = tmp_path / "played.json"
    app = ViewerApp(session=session, save_path=save)
    with running(app) as server:
        page = Page(browser, server.url)
        assert "your turn" in page.text("#banner")
        assert page.page.locator("#view-select option").count() == 1, "only your own view during the game"
        first = page.shot()
        clicks = 0
        while not session.over:
            page.click("#alternatives button >> nth=0")
            clicks += 1
            if clicks == 1:
                assert page.shot() != first
            assert clicks < 400
        assert "game over" in page.text("#banner")
        assert save.is_file() and f"record saved to {save}" in page.text("#banner")
        assert page.page.locator("#view-select option").count() == 3, "every view opens once the game is over"
        assert page.errors == []


@pytest.mark.parametrize("name", registered())
def test_every_registered_game_opens(browser: Any, name: str) -> None:
    record = random_record(name, limit=30)
    app = ViewerApp(records=[("record", record)])
    with running(app) as server:
        page = Page(browser, server.url + "?view=0")
        first = page.shot()
        page.click("#next")
        assert page.step() == 1 and page.shot() != first
        assert page.text("#obs-text") or page.text("#table-text")
        assert page.errors == []
