"""The inspect page end to end in headless Chromium, as an operator uses it.

Debian's `chromium` driven through Debian's `chromedriver` by Selenium (.ci/run
installs both; the paths are given, so Selenium downloads nothing). The real
proxy with the real engine over skills/ and `api_keys` set runs in front of the
fake upstream; two chat requests go through it; then the page: it asks for the
key (and says so when a wrong one is entered), lists the skills, finds one by
search, routes a typed prompt, and shows a request's detail with the injected text. Screenshots are saved under
tests/artifacts/ (git-ignored: inspect.png, inspect-detail.png, inspect-skills.png) and
their paths printed.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support import expected_conditions as visible
from selenium.webdriver.support.ui import WebDriverWait

from tests.conftest import REPO

from .conftest import TEST_API_KEY, chat_body
from .engines import real_engine

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
ARTIFACTS = REPO / "tests" / "artifacts"
SQL = "my postgres query is slow and EXPLAIN shows a seq scan, which index should I add?"
TRIED = "our REST API returns 500 with an HTML page on bad input; what should the error response look like?"


@pytest.fixture
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebDriver]:
    missing = [path for path in (CHROMIUM, CHROMEDRIVER) if not shutil.which(path)]
    assert not missing, f"{missing} not installed: run `apt-get install chromium chromium-driver` (see .ci/run)"
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--window-size=1400,2200", "--lang=en-US"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # Chromium's profile and its singleton-socket folder go under pytest's temporary folder, not /tmp
    # (a short path: a Unix socket's path has a length limit).
    scratch = tmp_path_factory.mktemp("chromium")
    options.add_argument(f"--user-data-dir={scratch / 'profile'}")
    service = Service(CHROMEDRIVER, env={**os.environ, "TMPDIR": str(scratch)})
    driver = webdriver.Chrome(service=service, options=options)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def guarded(start_proxy, tmp_path):
    """skills/ and a second root holding a copy of one of its skills (shadowed) and a skill with lint warnings."""
    extra = tmp_path / "team-skills"
    (extra / "sql-query-tuning").mkdir(parents=True)
    (extra / "sql-query-tuning" / "SKILL.md").write_text("---\nname: sql-query-tuning\ndescription: Old copy.\n---\n")
    (extra / "Incident_Notes").mkdir()
    (extra / "Incident_Notes" / "SKILL.md").write_text(
        "---\nname: Incident_Notes\ndescription: Writes incident notes after an outage.\nversion: 3\n---\n# Notes\n")
    engine = real_engine(roots=(str(REPO / "skills"), str(extra)))
    yield start_proxy(engine=engine, api_keys=(TEST_API_KEY,))
    engine.close()


def screenshot(driver: WebDriver, name: str, capsys: pytest.CaptureFixture[str]) -> Path:
    """Saves a PNG under tests/artifacts/ and prints its path past pytest's capture, so CI's log shows it."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    assert driver.save_screenshot(str(path)), f"could not save {path}"
    with capsys.disabled():
        print(f"\ninspect page screenshot: {path}")
    return path


def test_operator_finds_a_skill_routes_a_prompt_and_reads_a_request(guarded, browser, capsys):
    key = {"Authorization": f"Bearer {TEST_API_KEY}"}
    routed = httpx.post(guarded.base_url + "/chat/completions", json=chat_body(text=SQL), headers=key)
    explicit = httpx.post(guarded.base_url + "/chat/completions",
                          json=chat_body(text="$log-triage what happened at 02:00?"), headers=key)
    assert routed.status_code == explicit.status_code == 200
    page = Page(browser)
    browser.get(guarded.url + "/_skillproxy/")

    page.enter_key("not-the-key")
    refused = page.wait.until(visible.visibility_of_element_located((By.ID, "auth-error")))
    assert "refused (401)" in refused.text and skill_rows(browser) == [] and page.stored_key() is None
    page.enter_key(TEST_API_KEY)
    page.wait.until(visible.invisibility_of_element_located((By.ID, "auth")))
    page.wait.until(lambda d: len(skill_rows(d)) == 8)
    assert page.stored_key() == TEST_API_KEY
    shadowed = browser.find_element(By.ID, "shadowed-rows").text
    assert "sql-query-tuning" in shadowed and "team-skills" in shadowed
    noted = browser.find_element(By.CSS_SELECTOR, '#skill-rows tr[data-skill="Incident_Notes"]').text
    assert "unknown-key" in noted and "name-format" in noted

    assert "skills" in page.search_skills("postgres", ["sql-query-tuning"])[0].text  # its root

    summary, routed_to = page.route(TRIED)
    decision = httpx.post(guarded.base_url + "/skills/route", headers=key,
                          json={"messages": [{"role": "user", "content": TRIED}]}).json()
    assert decision["selected"] and routed_to == decision["selected"][0]
    assert f"routed to {', '.join(decision['selected'])}" in summary

    request_id = routed.headers["x-request-id"]
    row = page.request_row(request_id)
    assert "routed" in row.text and "sql-query-tuning" in row.text
    screenshot(browser, "inspect.png", capsys)
    row.click()
    injected = page.wait.until(visible.visibility_of_element_located((By.ID, "detail-injected")))
    page.wait.until(lambda d: "<routed_skills>" in injected.text)
    assert injected.text.startswith("<skills_runtime_context>")
    assert "sql-query-tuning" in browser.find_element(By.ID, "detail-selected").text
    assert browser.find_element(By.ID, "detail-sent").text == SQL
    page.show("detail")
    screenshot(browser, "inspect-detail.png", capsys)

    page.search_skills("incident outage", ["Incident_Notes"])
    page.show("skills")
    screenshot(browser, "inspect-skills.png", capsys)
    assert page_errors(browser) == []
    kept = httpx.get(guarded.url + "/_skillproxy/api/requests", headers=key).json()["data"]
    assert [r["path"] for r in kept] == ["/v1/skills/route"] * 2 + ["/v1/chat/completions"] * 2, \
        "the page's own calls and files are not kept (the route dry runs are API requests like any other)"
    assert [r["request_id"] for r in kept[2:]] == [explicit.headers["x-request-id"], request_id]


class Page:
    """The inspect page's controls, as a person uses them."""

    def __init__(self, driver: WebDriver) -> None:
        self.driver = driver
        self.wait = WebDriverWait(driver, 15)

    def enter_key(self, key: str) -> None:
        auth = self.wait.until(visible.visibility_of_element_located((By.ID, "auth")))
        assert "needs an API key" in auth.text
        self.driver.find_element(By.ID, "auth-key").send_keys(key)
        self.driver.find_element(By.CSS_SELECTOR, "#auth-form button").click()

    def stored_key(self) -> str | None:
        return self.driver.execute_script("return sessionStorage.getItem('skillproxy.apiKey')")

    def search_skills(self, text: str, expected: list[str]) -> list:
        box = self.driver.find_element(By.ID, "skill-search")
        box.send_keys(Keys.CONTROL, "a")
        box.send_keys(text)
        self.wait.until(lambda d: [r.get_attribute("data-skill") for r in skill_rows(d)] == expected)
        return skill_rows(self.driver)

    def route(self, prompt: str) -> tuple[str, str]:
        """The try box's summary line and the highlighted (first selected) skill."""
        self.driver.find_element(By.ID, "try-text").send_keys(prompt)
        self.driver.find_element(By.ID, "try-button").click()
        summary = self.wait.until(visible.visibility_of_element_located((By.ID, "try-summary")))
        self.wait.until(lambda d: summary.text.startswith("mode:"))
        chosen = self.driver.find_element(By.CSS_SELECTOR, "#try-rows tr.active").get_attribute("data-skill")
        return summary.text, chosen

    def request_row(self, request_id: str):
        return self.wait.until(visible.element_to_be_clickable(
            (By.CSS_SELECTOR, f'#request-rows tr[data-request-id="{request_id}"]')))

    def show(self, element_id: str) -> None:
        self.driver.execute_script("document.getElementById(arguments[0]).scrollIntoView()", element_id)


def skill_rows(driver: WebDriver) -> list:
    return driver.find_elements(By.CSS_SELECTOR, "#skill-rows tr[data-skill]")


def page_errors(driver: WebDriver) -> list[str]:
    """Console errors, less the one 401 the page is meant to get before the key is entered."""
    entries = driver.get_log("browser")
    return [e["message"] for e in entries if e["level"] == "SEVERE" and "401" not in e["message"]]


def test_markup_in_a_prompt_is_shown_as_text_and_never_runs(start_proxy, browser):
    engine = real_engine()
    proxy = start_proxy(engine=engine)
    hostile = '<img src=x onerror="window.pwned=1"><script>window.pwned=2</script> my postgres query is slow'
    request_id = httpx.post(proxy.base_url + "/chat/completions", json=chat_body(text=hostile)).headers["x-request-id"]
    wait = WebDriverWait(browser, 15)
    browser.get(proxy.url + "/_skillproxy/")
    wait.until(visible.element_to_be_clickable((By.CSS_SELECTOR, f'#request-rows tr[data-request-id="{request_id}"]'))
               ).click()
    sent = wait.until(visible.visibility_of_element_located((By.ID, "detail-sent")))
    assert sent.text == hostile
    assert browser.execute_script("return window.pwned === undefined")
    assert browser.find_elements(By.CSS_SELECTOR, "#detail img, #detail script") == []
    engine.close()
