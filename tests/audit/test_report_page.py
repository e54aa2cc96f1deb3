"""The audit report in a real headless browser (chromium + chromedriver) at a laptop's width: nothing
spills sideways and the facts a reader needs first are on the first screen. The screenshot is kept in
the test's tmp folder for a person to look at."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import sandboxes
from pipeline import cli
from tests.audit.fakes import FakeBackend
from tests.audit.test_audit_command import _answer
from tests.review.test_review_page import chromium_paths

WIDTH_PX, HEIGHT_PX = 1280, 800


@pytest.fixture
def report(monkeypatch: pytest.MonkeyPatch, samples: Path, tmp_path: Path) -> Path:
    """A report from a small audit: three subsets, two labels each, through the real command."""
    monkeypatch.setattr(sandboxes, "open_backend", lambda *a, **k: FakeBackend(_answer))
    monkeypatch.setattr("pipeline.audit.profiles.unavailable", lambda backend: None)
    page = tmp_path / "report.html"
    argv = ["audit", str(samples / "surge-released"), "--limit", "2", "--store", str(tmp_path / "store")]
    for subset in ("cl", "fl", "sc"):
        argv += ["--subset", subset]
    assert cli.main([*argv, "--report", str(page), "--json"]) == 0
    return page


@pytest.fixture
def browser() -> Iterator[Any]:
    browser_path, driver_path = chromium_paths()
    webdriver = pytest.importorskip("selenium.webdriver", reason="needs selenium (pip install -e '.[dev]')")
    options = webdriver.ChromeOptions()
    options.binary_location = browser_path
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(flag)
    options.add_argument(f"--window-size={WIDTH_PX},{HEIGHT_PX}")
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=driver_path))
    try:
        yield driver
    finally:
        driver.quit()


def test_report_fits_the_window_and_shows_its_facts_first(report: Path, browser: Any, tmp_path: Path) -> None:
    browser.get(report.resolve().as_uri())
    inner_width_px = browser.execute_script("return window.innerWidth")
    inner_height_px = browser.execute_script("return window.innerHeight")
    assert inner_width_px <= WIDTH_PX
    # no horizontal scrolling: the widest table, chart or diff fits the window
    assert browser.execute_script("return document.documentElement.scrollWidth") <= inner_width_px
    # the header facts and the headline table start on the first screen, whole facts block included
    facts = browser.execute_script("return document.getElementById('facts').getBoundingClientRect().toJSON()")
    headline = browser.execute_script(
        "return document.getElementById('headline').getBoundingClientRect().toJSON()"
    )
    assert facts["top"] >= 0 and facts["bottom"] <= inner_height_px and facts["right"] <= inner_width_px
    assert headline["top"] < inner_height_px
    shown = browser.execute_script("return document.getElementById('facts').innerText")
    for fact in ("Dataset", "Date", "surge-pipeline", "Profiles and toolchains", "UTC", "backend fake"):
        assert fact in shown
    screenshot = tmp_path / "audit-report.png"
    assert browser.save_screenshot(str(screenshot))
    assert screenshot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
