"""The options page as a user meets it, in real Chromium with the real worker and host: one
Chat sites table (each site once, Copilot with both its host names), settings saved as they
change (no Save button but the model's), bad values refused under their field with nothing
saved, the popup and the options page in step, a model drop-down that is never blank."""

from e2e import harness
from e2e.harness import EXTENSION_ID, open_chat, open_popup, service_worker, tab_id
from support.waiting import wait_for
from whiteboard.llm.presets import PRESETS

OPTIONS = f"chrome-extension://{EXTENSION_ID}/options/options.html"


def settings(browser) -> dict:
    return service_worker(browser.context).evaluate("() => chrome.storage.local.get('settings')").get("settings") or {}


def open_options(browser):
    options = browser.context.new_page()
    options.goto(OPTIONS)
    wait_for(lambda: options.locator("#memory-site-chatgpt").is_enabled(), what="the sites table")
    return options


def test_each_site_is_one_row_with_its_host_names_and_nothing_needs_a_save_button(browser):
    options = open_options(browser)
    rows = options.locator("#sites-table tbody tr")
    assert rows.count() == len(harness.SITES)
    for site in harness.SITES.values():
        row = options.locator(f"#site-row-{site.id}")
        assert row.locator("th").inner_text().split("\n") == [site.label, *site.hosts]
        assert row.locator("input[type=checkbox]").count() == 2  # Whiteboard on, long-term memory
    assert options.locator("#sites-table").inner_text().count("Copilot") == 1
    headings = options.locator("#sites-table thead th").all_inner_texts()
    assert headings == ["Site", "Whiteboard on", "Long-term memory", "Paused", "Custom selectors"]
    # Only what needs confirming waits for a button: the model's key and test, a test of the
    # user's selectors on a tab, a pasted JSON of them (and copying it).
    buttons = options.locator("button:visible").evaluate_all("bs => bs.map((b) => b.id || b.textContent)")
    assert sorted(buttons) == ["fix-apply", "fix-copy", "fix-test", "model-save", "model-test"]
    assert options.locator("button[type=submit], input[type=submit]").count() == 0
    options.close()


def test_a_bad_budget_is_refused_under_its_field_and_nothing_is_saved(browser):
    options = open_options(browser)
    budget = options.locator("#budget")
    before = settings(browser).get("budget", 2000)
    for bad in ("99", "20001", "12.5", ""):
        budget.fill(bad)
        budget.press("Tab")
        wait_for(lambda: options.locator("#budget-error").is_visible(), what=f"the error for {bad!r}")
        assert "from 100 to 20000" in options.locator("#budget-error").inner_text()
        assert budget.get_attribute("aria-invalid") == "true"
        assert settings(browser).get("budget", 2000) == before
    budget.fill("1500")
    budget.press("Tab")
    wait_for(lambda: settings(browser).get("budget") == 1500, what="the budget saved")
    assert options.locator("#budget-error").is_hidden() and budget.get_attribute("aria-invalid") is None
    assert "at most 1500 tokens" in options.locator("#sends-status").inner_text()
    budget.fill(str(before))
    budget.press("Tab")
    wait_for(lambda: settings(browser).get("budget") == before, what="the budget restored")

    # The host's memory settings alike: refused under the field, the host's value kept.
    pinned = options.locator("#pinned-tokens")
    wait_for(lambda: pinned.is_enabled(), what="the memory settings")
    kept = browser.request({"type": "memory.settings"})["pinned_tokens"]
    pinned.fill("5000")
    pinned.press("Tab")
    wait_for(lambda: options.locator("#pinned-tokens-error").is_visible(), what="the pinned tokens error")
    assert "from 0 to 2000" in options.locator("#pinned-tokens-error").inner_text()
    assert browser.request({"type": "memory.settings"})["pinned_tokens"] == kept
    options.close()


def test_pause_from_the_popup_shows_in_options_and_resume_there_reaches_the_popup(browser, page):
    open_chat(page, "copilot", harness.SITES["copilot"].page, reply="none")
    host = harness.site_hostname("copilot")
    options = open_options(browser)
    paused_cell = options.locator("#site-row-copilot .col-paused")
    assert paused_cell.inner_text() == "No"
    popup = open_popup(browser.context, tab_id(browser.context, page))
    popup.locator("#pause").click()
    wait_for(lambda: settings(browser).get("paused") == {host: True}, what="paused from the popup")
    # The options page follows chrome.storage: no reload.
    wait_for(lambda: paused_cell.locator("button").count() == 1, what="Resume shown in options")
    assert f"{host} paused" in paused_cell.inner_text()  # Copilot has two host names: say which
    assert paused_cell.locator("button").get_attribute("aria-label") == f"Resume on {host}"
    paused_cell.locator("button").click()
    wait_for(lambda: settings(browser).get("paused") == {}, what="resumed from options")
    wait_for(lambda: popup.locator("#pause").inner_text() == "Pause on this site", what="the popup in step")
    assert paused_cell.inner_text() == "No" and f"resumed on {host}" in options.locator("#sites-status").inner_text()

    # Long-term memory turned on in the popup for this host name shows in the table at once:
    # half-set, since Copilot's other host name is still off.
    popup.wait_for_selector("#memory-opt-in:not([disabled])")
    popup.locator("#memory-opt-in").check()
    memory = options.locator("#memory-site-copilot")
    try:
        wait_for(lambda: memory.evaluate("b => b.indeterminate"), what="the memory switch in step")
    finally:
        assert browser.request({"type": "site.settings", "site": host, "long_term": False})["ok"]

    # And a site switched off in options is what the popup says at once.
    options.locator("#site-on-copilot").uncheck()
    wait_for(lambda: "turned off in Options" in popup.locator("#page-text").inner_text(), what="the popup in step")
    options.locator("#site-on-copilot").check()
    wait_for(lambda: settings(browser)["sites"]["copilot"] is True, what="Copilot back on")
    popup.close()
    options.close()


def test_one_memory_switch_sets_every_host_name_of_a_site(browser):
    options = open_options(browser)
    box = options.locator("#memory-site-copilot")
    hosts = harness.SITES["copilot"].hosts
    try:
        box.check()
        wait_for(lambda: "memory is on for Copilot" in options.locator("#sites-status").inner_text(), what="saved")
        assert all(browser.request({"type": "site.settings", "site": h})["long_term"] for h in hosts)
        # One host name turned off elsewhere (the popup on that site): the switch shows half-set.
        assert browser.request({"type": "site.settings", "site": hosts[1], "long_term": False})["ok"]
        options.reload()
        wait_for(lambda: box.is_enabled(), what="the table again")
        assert box.evaluate("b => b.indeterminate") is True
    finally:
        for h in hosts:
            browser.request({"type": "site.settings", "site": h, "long_term": False})
    options.close()


def test_the_model_drop_down_lists_every_preset_with_its_note_and_contacts_nothing(browser):
    options = open_options(browser)
    options.wait_for_selector("#model-form")
    preset = options.locator("#model-preset")
    labels = preset.locator("option").all_inner_texts()
    assert labels[0] == "Choose an endpoint…" and labels[1:] == [p.label for p in PRESETS.values()]
    assert preset.evaluate("s => s.options[s.selectedIndex].textContent") == "Choose an endpoint…"
    requests: list[str] = []
    browser.context.on("request", lambda r: requests.append(r.url))
    for name in ("ollama", "openrouter"):
        preset.select_option(name)
        assert options.locator("#model-preset-note").inner_text() == PRESETS[name].note
        assert options.input_value("#model-base-url") == PRESETS[name].base_url
    assert not [u for u in requests if u.startswith(("http:", "https:"))]  # nothing until Test
    options.close()


def test_the_sites_table_works_from_the_keyboard_with_a_visible_focus(browser):
    options = open_options(browser)
    focused = lambda: options.evaluate("() => document.activeElement.id")  # noqa: E731
    options.keyboard.press("Tab")  # the table is the page's first control
    assert focused() == "site-on-chatgpt"
    ring = options.evaluate("() => { const s = getComputedStyle(document.activeElement);"
                            " return [s.outlineStyle, parseFloat(s.outlineWidth)]; }")
    assert ring[0] != "none" and ring[1] >= 2, ring
    options.keyboard.press("Space")
    wait_for(lambda: settings(browser).get("sites", {}).get("chatgpt") is False, what="ChatGPT off by keyboard")
    options.keyboard.press("Tab")
    assert focused() == "memory-site-chatgpt"
    options.keyboard.press("Shift+Tab")
    options.keyboard.press("Space")
    wait_for(lambda: settings(browser)["sites"]["chatgpt"] is True, what="ChatGPT back on")
    options.close()


def test_the_switch_that_sends_drafts_to_the_model_is_off_until_ticked_and_says_what_leaves(browser):
    """rewrite_drafts (memory.settings): its own opt-in, apart from configuring a model, off by
    default; its wording names what leaves the computer and where it goes."""
    assert browser.request({"type": "memory.settings"})["rewrite_drafts"] is False
    options = open_options(browser)
    switch = options.locator("#rewrite-drafts")
    wait_for(lambda: switch.is_enabled(), what="the memory settings")
    assert not switch.is_checked()
    hint = options.locator("#rewrite-drafts-hint").inner_text()
    assert "your draft is sent to your model endpoint" in hint and "Secrets and <private> text are removed" in hint
    try:
        switch.check()
        wait_for(lambda: browser.request({"type": "memory.settings"})["rewrite_drafts"] is True, what="switched on")
        assert "go to your model endpoint" in options.locator("#memory-options-status").inner_text()
        switch.uncheck()
        wait_for(lambda: browser.request({"type": "memory.settings"})["rewrite_drafts"] is False, what="switched off")
        assert "no longer go" in options.locator("#memory-options-status").inner_text()
    finally:
        browser.request({"type": "memory.settings", "rewrite_drafts": False})
        options.close()
