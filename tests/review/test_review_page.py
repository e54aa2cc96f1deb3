"""The review page in a real headless browser (chromium + chromedriver): clicks change the SQLite queue."""

from __future__ import annotations

import shutil
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.records import EnvironmentProfile
from pipeline.refactor.execute import Executor
from pipeline.review.server import make_server
from tests.refactor.fake_backend import FakePythonBackend
from tests.refactor.helpers import FAST_LIMITS
from tests.review.helpers import filled_queue

WAIT_S = 10


def chromium_paths() -> tuple[str, str]:
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not browser or not driver:
        pytest.skip("needs `chromium` and `chromedriver` (Debian: chromium chromium-driver; `make setup`)")
    return browser, driver


TOKEN = "page-token-0123456789abcdef"


@pytest.fixture
def page(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[tuple]:
    """The page in chromium; parametrized with "network", served on 0.0.0.0 and opened by the printed
    address with its token, as a reviewer on another machine would."""
    network = getattr(request, "param", None) == "network"
    browser_path, driver_path = chromium_paths()
    webdriver = pytest.importorskip("selenium.webdriver", reason="needs selenium (pip install -e '.[dev]')")
    queue, items = filled_queue(tmp_path / "review.db")
    runner = Executor(FakePythonBackend(), EnvironmentProfile(name="test"), FAST_LIMITS).run
    access = {"host": "0.0.0.0", "token": TOKEN} if network else {}
    server = make_server(queue, runner, reviewer="page-tester", **access)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    options = webdriver.ChromeOptions()
    options.binary_location = browser_path
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=driver_path))
    try:
        driver.get(f"http://127.0.0.1:{server.server_address[1]}/" + (f"?token={TOKEN}" if network else ""))
        yield driver, tmp_path / "review.db", items
    finally:
        driver.quit()
        server.shutdown()
        server.server_close()


def state_of(db: Path, entry_id: str) -> tuple:
    with sqlite3.connect(db) as connection:
        return connection.execute(
            "SELECT state, reviewer, reason, diff FROM entries WHERE entry_id = ?", (entry_id,)
        ).fetchone()


def open_entry(driver, entry_id: str) -> None:
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ready
    from selenium.webdriver.support.ui import WebDriverWait

    def click_entry(browser) -> bool:  # the list is re-rendered after every action: retry a stale element
        try:
            browser.find_element(By.ID, f"entry-{entry_id}").click()
        except StaleElementReferenceException:
            return False
        return True

    wait = WebDriverWait(driver, WAIT_S, ignored_exceptions=[StaleElementReferenceException])
    wait.until(ready.presence_of_element_located((By.ID, f"entry-{entry_id}")))
    wait.until(click_entry)
    wait.until(ready.text_to_be_present_in_element((By.ID, "state"), "pending"))


def wait_for_state(driver, state: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ready
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, WAIT_S).until(ready.text_to_be_present_in_element((By.ID, "state"), state))


def wait_for_message(driver, text: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ready
    from selenium.webdriver.support.ui import WebDriverWait

    # The page answers asynchronously (fetch): wait for the message rather than read it at once.
    WebDriverWait(driver, WAIT_S).until(ready.text_to_be_present_in_element((By.ID, "message"), text))


def test_approve_reject_and_edit_by_clicking(page: tuple) -> None:
    from selenium.webdriver.common.by import By

    driver, db, items = page
    first, second, third = (item.item_id for item in items)

    open_entry(driver, first)
    assert "5" in driver.find_element(By.ID, "output").text
    driver.find_element(By.ID, "approve").click()
    wait_for_state(driver, "approved")
    assert state_of(db, first)[:2] == ("approved", "page-tester")

    open_entry(driver, second)
    driver.find_element(By.ID, "reject").click()  # no reason: refused, still pending
    wait_for_message(driver, "needs a reason")
    assert state_of(db, second)[0] == "pending"
    driver.find_element(By.ID, "reason").send_keys("the test call is trivial")
    driver.find_element(By.ID, "reject").click()
    wait_for_state(driver, "rejected")
    assert state_of(db, second)[:3] == ("rejected", "page-tester", "the test call is trivial")

    open_entry(driver, third)
    assert "leak warning" in driver.find_element(By.ID, "main").text
    editor = driver.find_element(By.ID, "program")
    driver.execute_script(
        "arguments[0].value = arguments[0].value.replace('add3(2, 3)', 'add3(40, 2)')", editor
    )
    driver.find_element(By.ID, "edit").click()
    wait_for_state(driver, "edited")
    assert driver.find_element(By.ID, "output").text.strip() == "42"
    state, _, _, diff = state_of(db, third)
    assert state == "edited" and "+print(add3(40, 2))" in diff


@pytest.mark.parametrize("page", ["network"], indirect=True)
def test_the_printed_address_beyond_loopback_opens_a_working_page(page: tuple) -> None:
    from selenium.webdriver.common.by import By

    driver, db, items = page
    assert "token" not in driver.current_url  # the redirect took it out of the address bar
    open_entry(driver, items[0].item_id)  # the list loads: the cookie carries the token
    driver.find_element(By.ID, "approve").click()
    wait_for_state(driver, "approved")
    assert state_of(db, items[0].item_id)[:2] == ("approved", "page-tester")
