"""``battle-ledger serve``: the real xlwings Server over real HTTP, as Excel's add-in uses it.

The server runs as a user starts it (``tests/served.py``: ``battle-ledger serve
--noncommercial`` on a free loopback port); every request here is what the add-in
sends: the functions' metadata, a function call, the task pane, a button with the
workbook's payload. Every button of every ledger kind is pressed over HTTP in
``tests/test_ledger_kinds.py`` (actions applied as Office.js applies them, protection
included, against the headless run).
"""

from __future__ import annotations

import html
import html.parser
import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import openpyxl
import pytest
from click.testing import CliRunner

from battle_ledger import xlfuncs
from battle_ledger.rulesets.errors import BattleLedgerError
from battle_ledger.sheets.engine.headless import HeadlessBook
from battle_ledger.sheets.engine.xlbook import LIFT_PROTECTION, RESTORE_PROTECTION
from battle_ledger.sheets.ledger import KINDS
from battle_ledger.sheets.operations import operations_for, run_on_file, run_report
from battle_ledger.xlfuncs import serve as served_module
from battle_ledger.xlfuncs._registry import function_help
from battle_ledger.xlfuncs.cli import cli
from battle_ledger.xlfuncs.macros import macro_name
from tests.dep_ledgers import make_ledger
from tests.served import Served
from tests.xlwings_json import apply_actions, book_json, run_on_server

#: Every Excel function by name (loaded here: a test run alone has loaded none).
UDFS = xlfuncs.load_udfs()


# -- the functions ------------------------------------------------------------------------


def test_the_functions_metadata_lists_every_function_with_its_argument_help(
    xlwings_server: Served,
) -> None:
    udfs = xlfuncs.load_udfs()
    answer = xlwings_server.request("/xlwings/custom-functions-meta")
    assert answer.status == 200
    listed = {f["name"]: f for f in answer.json()["functions"]}
    assert set(listed) == set(udfs)
    problems = []
    for name, fn in udfs.items():
        summary, arguments = function_help(fn)
        entry = listed[name]
        if entry["description"] != summary:
            problems.append(f"{name}: {entry['description']!r}")
        for param in entry["parameters"]:
            if param.get("description") != arguments.get(param["name"]):
                problems.append(f"{name}({param['name']}): {param.get('description')!r}")
            if not param.get("description"):
                problems.append(f"{name}({param['name']}): no help")
    assert problems == []


def _as_range(value: Any) -> Any:
    """What Excel receives for a function's answer: a scalar as a 1x1 range."""
    return value if isinstance(value, list) else [[value]]


def test_a_function_call_answers_what_the_function_answers(xlwings_server: Served) -> None:
    for name, cells in [("AOG_CASUALTY_PCT", [30, 200]), ("AOG_MARKS", [40])]:
        answer = xlwings_server.call_function(name, *cells)
        assert answer.status == 200, answer.text
        assert answer.json()["result"] == _as_range(UDFS[name](*cells))
    # A range in, a range out: a column of losses against one army's size.
    column = [[30.0], [50.0], [120.0]]
    answer = xlwings_server.call_function("AOG_CASUALTY_PCT", column, 400)
    assert answer.status == 200, answer.text
    expected = UDFS["AOG_CASUALTY_PCT"](column, 400)
    assert answer.json()["result"] == expected and len(expected) == 3


def test_a_bad_function_call_answers_400_with_our_message(xlwings_server: Served) -> None:
    with pytest.raises(BattleLedgerError) as raised:
        UDFS["ETG_CRT"]("Dragons", "Infantry", "B", "C")
    answer = xlwings_server.call_function("ETG_CRT", "Dragons", "Infantry", "B", "C")
    # xlwings Server answers our errors (XlwingsError) with 400 and the message as text.
    assert (answer.status, answer.text) == (400, str(raised.value))
    assert "Dragons" in answer.text


# -- the buttons --------------------------------------------------------------------------


@pytest.fixture
def ledger(tmp_path: Path) -> Path:
    path = make_ledger(tmp_path / "battle.xlsx", battle="Quatre Bras", date="1815-06-16")
    run_on_file(path, "record", division="5th Division", orders="Y", stands_lost="2")
    return path


def _alerts(actions: list[dict[str, Any]]) -> list[list[Any]]:
    return [a["args"] for a in actions if a["func"] == "alert"]


@pytest.mark.libreoffice
@pytest.mark.slow
def test_report_and_check_answer_in_a_message_box(xlwings_server: Served, ledger: Path) -> None:
    expected = run_report(HeadlessBook(ledger, writable=False)).summary
    report = run_on_server(xlwings_server, ledger, "report")
    assert [args[:2] for args in _alerts(report)] == [[expected, "Battle Ledger: report"]]
    check = run_on_server(xlwings_server, ledger, "check")
    assert [args[:2] for args in _alerts(check)] == [["No problems found.", "Battle Ledger: check"]]
    # Nothing else: reading the ledger writes nothing.
    assert {a["func"] for a in report + check} == {"alert"}


@pytest.mark.libreoffice
@pytest.mark.slow
def test_a_button_on_a_bad_ledger_answers_400_with_our_message(
    xlwings_server: Served, ledger: Path, tmp_path: Path
) -> None:
    wb = openpyxl.load_workbook(ledger)
    ws = next(w for w in wb.worksheets if "tbl_Turns" in w.tables)
    table = ws.tables["tbl_Turns"]
    top = openpyxl.utils.range_boundaries(table.ref)[1]
    header = [c.value for c in ws[top]]
    ws.cell(top + 1, header.index("Charges") + 1).value = "two"
    wb.save(ledger)
    headless = tmp_path / "headless.xlsx"
    shutil.copy(ledger, headless)
    with pytest.raises(BattleLedgerError) as raised:
        run_on_file(headless, "end-turn")
    answer = xlwings_server.press(ledger, "dep_end_turn")
    # The same message as the command line's, naming the workbook as Excel names it.
    expected = str(raised.value).replace(str(headless), ledger.name)
    assert (answer.status, answer.text) == (400, expected)


@pytest.mark.libreoffice
@pytest.mark.slow
def test_a_button_lifts_only_the_protection_of_the_sheets_it_writes(
    xlwings_server: Served, ledger: Path
) -> None:
    actions = run_on_server(xlwings_server, ledger, "dep_end_turn")
    first, last = actions[0], actions[-1]
    assert (first["func"], first["args"][0]) == ("runMacro", LIFT_PROTECTION)
    assert (last["func"], last["args"][0]) == ("runMacro", RESTORE_PROTECTION)
    assert first["args"][1] == last["args"][1]
    written = {openpyxl.load_workbook(ledger).sheetnames[a["sheet_position"]]
               for a in actions if a["func"] != "runMacro"}  # fmt: skip
    assert set(first["args"][1]) == written
    before = {ws.title: ws.protection.sheet for ws in openpyxl.load_workbook(ledger).worksheets}
    assert any(before[name] for name in written)  # the Turns sheet at least
    apply_actions(ledger, actions)
    after = {ws.title: ws.protection.sheet for ws in openpyxl.load_workbook(ledger).worksheets}
    assert after == before  # protected again, as they were


# -- the task pane ------------------------------------------------------------------------


class _Controls(html.parser.HTMLParser):
    """The task pane's buttons and each operation form's fields, in document order."""

    def __init__(self) -> None:
        super().__init__()
        self.buttons: list[str] = []
        self.kinds: list[str] = []
        self.fields: dict[str, list[str]] = {}
        self.things: dict[str, dict[str, str]] = {}  # kind -> its section's things attributes
        self.offered: dict[tuple[str, str], str] = {}  # (form, field) -> the list it offers
        self.lists: set[str] = set()
        self._form: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = dict(attrs)
        if "xw-click" in found:
            self.buttons.append(str(found["xw-click"]))
            assert json.loads(str(found.get("xw-args"))) == []
        if tag == "section" and "data-kind" in found:
            self.kinds.append(str(found["data-kind"]))
            self.things[self.kinds[-1]] = {k: str(v) for k, v in found.items()
                                           if k.startswith("data-things")}  # fmt: skip
        if tag == "datalist":
            self.lists.add(str(found["id"]))
        if tag == "form" and "data-operation" in found:
            self._form = str(found["data-operation"])
            self.fields[self._form] = []
        if "data-option" in found and self._form is not None:
            self.fields[self._form].append(str(found["name"]))
            if "list" in found:
                self.offered[(self._form, str(found["name"]))] = str(found["list"])

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._form = None


def test_the_task_pane_has_every_kinds_buttons_and_their_options(xlwings_server: Served) -> None:
    answer = xlwings_server.request("/taskpane")
    assert answer.status == 200
    controls = _Controls()
    controls.feed(answer.text)
    scripts = {m["function_name"] for m in
               xlwings_server.request("/xlwings/custom-scripts-meta").json()}  # fmt: skip
    assert sorted(controls.kinds) == sorted(KINDS)
    expected_buttons = {"report", "check"}
    for kind in KINDS.values():
        for op in operations_for(kind.name):
            macro = macro_name(kind.macro_prefix, op.name)
            expected_buttons.add(macro)
            # The form's fields are the button's arguments, in the macro's order; those
            # naming a thing offer the list of the kind's things.
            assert controls.fields.get(macro, []) == list(op.options), macro
            for option in op.options.values():
                offered = controls.offered.get((macro, option.name))
                expected = (
                    controls.things[kind.name]["data-things-list"]
                    if option.thing
                    else f"{macro}-{option.name}-list"
                    if option.side
                    else None
                )
                assert offered == expected, (macro, option.name)  # fmt: skip
        assert controls.things[kind.name] == {
            "data-things-table": kind.things.name,
            "data-things-column": kind.thing_key.header,
            "data-things-list": f"bl-things-{kind.name}",
        }
        assert f"bl-things-{kind.name}" in controls.lists
    assert set(controls.buttons) == expected_buttons
    assert expected_buttons <= scripts
    script = xlwings_server.request("/static/js/battle-ledger.js")
    assert script.status == 200
    for callback in (LIFT_PROTECTION, RESTORE_PROTECTION):
        assert f"async function {callback}(" in script.text


def test_the_task_pane_script_in_node(tmp_path: Path) -> None:
    """``taskpane.js``'s own logic, in Node.js with a stand-in for Office.js: the
    protection callbacks lift and restore exactly what was protected; the form's fields
    become the button's arguments; the kind is read off ``_meta``'s rows; a thing
    field's names off the things table."""
    node = shutil.which("node")
    if node is None:
        if os.environ.get("CI", "").strip().casefold() in ("1", "true", "yes"):
            pytest.fail("Node.js is not installed (CI=true: the machine has it)")
        pytest.skip("Node.js is not installed")
    folder = tmp_path / "js"
    (folder / "custom-scripts").mkdir(parents=True)
    (folder / "custom-scripts" / "index.js").write_text(
        "globalThis.callbacks = {};\n"
        "export function registerCallback(f) { globalThis.callbacks[f.name] = f; }\n"
    )
    script = served_module.taskpane_script()
    (folder / "battle-ledger.mjs").write_text(script, encoding="utf-8")
    project = served_module.write_project(tmp_path / "project")
    shutil.copy(project / "static" / "js" / "battle-ledger-guard.js", folder / "guard.js")
    (folder / "custom-scripts" / "package.json").write_text('{"type": "module"}')
    (folder / "run.mjs").write_text(
        """
import assert from "node:assert/strict";
import { formArgs, kindOf, readThings, sideWords, officeHost } from "./battle-ledger.mjs";
import vm from "node:vm";
import { readFileSync } from "node:fs";
const sheet = (isProtected) => ({
  protection: {
    protected: isProtected, options: { allowFormatColumns: true },
    load() {}, unprotect() { this.protected = false; },
    protect(options) { this.protected = true; this.options = options; },
  },
});
const sheets = { Turns: sheet(true), Log: sheet(false) };
const context = { workbook: { worksheets: { getItem: (n) => sheets[n] } }, sync: async () => {} };
const lift = globalThis.callbacks["LIFT"], restore = globalThis.callbacks["RESTORE"];
await lift(context, ["Turns", "Log"]);
assert.equal(sheets.Turns.protection.protected, false);
await restore(context, ["Turns", "Log"]);
assert.equal(sheets.Turns.protection.protected, true);
assert.deepEqual(sheets.Turns.protection.options, { allowFormatColumns: true });
assert.equal(sheets.Log.protection.protected, false);
// A button that stopped half-way: its sheet is protected again by the next button's end.
await lift(context, ["Turns"]);
await restore(context, ["Log"]);
assert.equal(sheets.Turns.protection.protected, true);
assert.deepEqual(formArgs([{ value: " 5th Division " }, { value: "" }, { value: "Y" }]),
                 ["5th Division", "", "Y"]);
assert.equal(kindOf([["kind", "dep-ledger"], ["ruleset", "etg"]]), "dep-ledger");
assert.equal(kindOf([["ruleset", "etg"]]), "");
// The names a thing field offers: read off the things table's key column.
const column = (values) => ({ isNullObject: false,
  getDataBodyRange: () => ({ values, load() { return this; } }) });
const book = (tables) => ({ sync: async () => {}, workbook: { tables: {
  getItemOrNullObject: (name) => tables[name] ? { isNullObject: false, columns: {
    getItemOrNullObject: (header) => tables[name][header] ?? { isNullObject: true } } }
    : { isNullObject: true } } } });
const divisions = { Division: column([["1st Division"], [" 2nd Division "], [""], [null],
                                      ["1ST DIVISION"], ["Guard"]]) };
assert.deepEqual(await readThings(book({ tbl_Divisions: divisions }), "tbl_Divisions",
                                  "Division"), ["1st Division", "2nd Division", "Guard"]);
assert.deepEqual(await readThings(book({}), "tbl_Divisions", "Division"), []);
assert.deepEqual(await readThings(book({ tbl_Divisions: {} }), "tbl_Divisions", "Division"), []);
// A winner: the sides the things hold, then draw (once, whatever its case).
assert.deepEqual(sideWords(["French", "Prussian"], ["draw"]), ["French", "Prussian", "draw"]);
assert.deepEqual(sideWords(["Draw", "French"], ["draw"]), ["Draw", "French"]);
// Office.onReady: a host inside Office; none outside (no host, or no answer at all).
assert.equal(await officeHost(async () => ({ host: "Excel" }), 1000), "Excel");
assert.equal(await officeHost(async () => ({ host: null }), 1000), null);
assert.equal(await officeHost(() => new Promise(() => {}), 50), null);
// The guard: in a browser tab xlwings' reload budget is spent; in Office it is left.
const guard = readFileSync("./guard.js", "utf-8");
const tab = (extra) => {
  const stored = {};
  const w = { location: { search: "", hash: "" }, chrome: {}, external: {},
              sessionStorage: { setItem: (k, v) => { stored[k] = v; } }, ...extra };
  w.parent = extra.parent ?? w;
  vm.runInNewContext(guard, { window: w });
  return [w.battleLedgerOutsideOffice === true, stored.xlwingsTaskpaneReloadCount !== undefined];
};
assert.deepEqual(tab({}), [true, true]);
assert.deepEqual(tab({ parent: {} }), [false, false]);  // framed by Excel on the web
assert.deepEqual(tab({ chrome: { webview: {} } }), [false, false]);  // WebView2 (Windows)
assert.deepEqual(tab({ webkit: { messageHandlers: {} } }), [false, false]);  // Mac
assert.deepEqual(tab({ location: { search: "?_host_Info=Excel$Win32", hash: "" } }),
                 [false, false]);
console.log("ok");
""".replace("LIFT", LIFT_PROTECTION).replace("RESTORE", RESTORE_PROTECTION),
        encoding="utf-8",
    )
    done = subprocess.run(
        [node, str(folder / "run.mjs")], capture_output=True, text=True, timeout=60, cwd=folder
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


# -- the command --------------------------------------------------------------------------


def test_serve_without_a_license_key_says_what_to_do(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("XLWINGS_LICENSE_KEY", raising=False)
    result = CliRunner().invoke(cli, ["serve"])
    assert result.exit_code == 2
    assert "XLWINGS_LICENSE_KEY" in result.output and "--noncommercial" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--write-only"], "--write-only needs --project"),
        (["--certfile", "{cert}"], "--certfile and --keyfile go together"),
    ],
)
def test_serve_refuses_options_that_do_not_go_together(
    args: list[str], message: str, tmp_path: Path
) -> None:
    cert = tmp_path / "cert.pem"
    cert.write_text("not used")
    result = CliRunner().invoke(cli, ["serve", *[a.format(cert=cert) for a in args]])
    assert result.exit_code == 2
    assert message in result.output


def test_write_only_lays_out_a_project_xlwings_server_runs(tmp_path: Path) -> None:
    project = tmp_path / "project"
    result = CliRunner().invoke(
        cli, ["serve", "--write-only", "--project", str(project), "--namespace", "LEDGER"]
    )
    assert result.exit_code == 0, result.output
    for name in ("custom_functions/__init__.py", "custom_scripts/__init__.py"):
        assert "from battle_ledger.xlfuncs import *" in (project / name).read_text()
    settings = (project / "pyproject.toml").read_text()
    assert 'functions_namespace = "LEDGER"' in settings
    assert "enable_socketio = false" in settings
    assert (project / "templates" / "taskpane.html").read_text().startswith("{% extends")


def test_the_manifest_opens_the_task_pane_and_nothing_else(xlwings_server: Served) -> None:
    import xml.etree.ElementTree as ElementTree

    answer = xlwings_server.request("/manifest")
    assert answer.status == 200
    ElementTree.fromstring(answer.body)  # still well-formed
    for gone in ("hello-ribbon", "Hello World", "MyGroup"):
        assert gone not in answer.text
    for shown in ('DisplayName DefaultValue="Battle Ledger"', 'DefaultValue="BL"',
                  'id="MyTaskpaneButton.Label" DefaultValue="Battle Ledger"',
                  "<ProviderName>Battle Ledger</ProviderName>"):  # fmt: skip
        assert shown in answer.text


def test_the_manifest_is_ours_id_and_icons(xlwings_server: Served) -> None:
    """Our own Id (not xlwings Server's sample's), and icons the server itself serves, each
    a PNG of the size the manifest names."""
    import re
    import struct
    import xml.etree.ElementTree as ElementTree

    text = xlwings_server.request("/manifest").text
    root = ElementTree.fromstring(text)
    office = "{http://schemas.microsoft.com/office/appforoffice/1.1}"
    assert root.findtext(f"{office}Id") == served_module.MANIFEST_IDS["prod"]
    icons = re.findall(r'(?:Icon(?:Url)?|Image)[^>]*DefaultValue="([^"]+\.png)"', text)
    assert icons and not [url for url in icons if "battle-ledger-" not in url]
    for url in set(icons):
        answer = xlwings_server.request(url.removeprefix(xlwings_server.url))
        assert answer.status == 200, url
        assert answer.body.startswith(b"\x89PNG\r\n\x1a\n")
        width, height = struct.unpack(">II", answer.body[16:24])
        size = int(re.findall(r"-(\d+)\.png$", url)[0])
        assert (width, height) == (size, size), url


@pytest.mark.libreoffice
def test_a_message_box_keeps_the_reports_columns(xlwings_server: Served, ledger: Path) -> None:
    """The report's fixed-width table in xlwings' message box: in a <pre>, every space
    kept (HTML would collapse them)."""
    import urllib.parse

    report = run_report(HeadlessBook(ledger, writable=False)).summary
    assert "  " in report  # the columns are padded
    query = urllib.parse.urlencode({"prompt": report, "title": "Battle Ledger: report",
                                    "buttons": "ok", "mode": "info", "callback": "x"})  # fmt: skip
    page = xlwings_server.request(f"/xlwings/alert?{query}")
    assert page.status == 200
    shown = re.search(r"<pre[^>]*>(.*?)</pre>", page.text, re.S)
    assert shown is not None and html.unescape(shown.group(1)) == report


def test_the_task_pane_offers_dates_and_sides(xlwings_server: Served) -> None:
    """A date field is a date input; a winner offers the workbook's sides (the things'
    Side column) and draw."""
    from battle_ledger.sheets.kinds.campaign import DRAW

    page = xlwings_server.request("/taskpane").text
    section = re.search(r'<section[^>]*data-kind="campaign".*?</section>', page, re.S)
    assert section is not None
    panel = section.group(0)
    assert 'data-sides-column="Side"' in panel
    date = re.search(r'<input[^>]*id="campaign_add_battle-date"[^>]*>', panel)
    assert date is not None and 'type="date"' in date.group(0)
    winner = re.search(r'<input[^>]*id="campaign_add_battle-winner"[^>]*>', panel)
    assert winner is not None and 'list="campaign_add_battle-winner-list"' in winner.group(0)
    offered = re.search(r'<datalist id="campaign_add_battle-winner-list"[^>]*>', panel)
    assert offered is not None and "data-sides" in offered.group(0)
    assert json.loads(html.unescape(re.findall(r'data-also="([^"]*)"', offered.group(0))[0])) == [
        DRAW
    ]


# -- the payloads are the real client's -----------------------------------------------------


@pytest.mark.libreoffice
def test_the_tests_payloads_carry_every_key_the_real_client_sends(ledger: Path) -> None:
    """``tests/xlwings_json.py`` against the keys xlwings Server's own JavaScript sends
    (read out of its source): a key the client adds in a new version fails here until
    the tests send it too."""
    from tests.xlwings_json import book_json, client_keys, function_call

    keys = client_keys()
    payload = book_json(ledger) | {"args": []}
    assert set(payload) == keys["payload"]
    assert set(payload["book"]) == keys["book"]
    assert payload["sheets"] and all(set(s) == keys["sheet"] for s in payload["sheets"])
    parts = {
        "table": [t for s in payload["sheets"] for t in s["tables"]],
        "name": payload["names"],
        "chart": [c for s in payload["sheets"] for c in s["charts"]],
    }
    for part, found in parts.items():
        assert found, f"the ledger has no {part} to check"
        assert all(set(item) == keys[part] for item in found), part
    assert set(function_call("ETG_CRT", "Infantry")) == keys["function_call"]


@pytest.mark.libreoffice
def test_formula_cells_carry_the_values_excel_shows(ledger: Path) -> None:
    """Excel sends what a formula cell shows, not "": in the payload every row's DEP end
    is the rules' (LibreOffice recalculates the file openpyxl wrote without values)."""
    from battle_ledger.sheets.kinds.dep_ledger import outcomes, read_ledger
    from tests.tables import table_cell
    from tests.xlwings_json import book_json

    payload = book_json(ledger)
    wb = openpyxl.load_workbook(ledger)
    expected = outcomes(read_ledger(HeadlessBook(ledger, writable=False)))
    assert expected
    for index, outcome in expected.items():
        cell = table_cell(wb, "tbl_Turns", "DEP end", int(index))
        assert str(cell.value).startswith("=")
        sheet = next(s for s in payload["sheets"] if s["name"] == cell.parent.title)
        assert sheet["values"][cell.row - 1][cell.column - 1] == outcome["DEP end"]


def _cells(path: Path) -> dict[tuple[str, str], Any]:
    wb = openpyxl.load_workbook(path)
    return {(ws.title, c.coordinate): c.value for ws in wb.worksheets
            for row in ws.iter_rows() for c in row if c.value is not None}  # fmt: skip


def _written(path: Path, actions: list[dict[str, Any]]) -> set[tuple[str, str]]:
    """The cells ``actions`` write (sheet, A1)."""
    from openpyxl.utils import get_column_letter

    sheets = openpyxl.load_workbook(path, read_only=True).sheetnames
    return {
        (sheets[a["sheet_position"]], f"{get_column_letter(a['start_column'] + 1 + j)}"
                                      f"{a['start_row'] + 1 + i}")
        for a in actions if a["func"] in ("setValues", "setFormula")
        for i in range(a["row_count"]) for j in range(a["column_count"])
    }  # fmt: skip


@pytest.mark.libreoffice
@pytest.mark.slow
def test_a_button_sends_only_its_sheets_and_answers_only_the_cells_that_change(
    xlwings_server: Served, ledger: Path, tmp_path: Path
) -> None:
    meta = {m["function_name"]: m for m in xlwings_server.request(
        "/xlwings/custom-scripts-meta").json()}  # fmt: skip
    assert meta["dep_end_turn"]["exclude"] == "DEP by turn"
    assert xlwings_server.unsent(ledger, "dep_end_turn") == ["DEP by turn"]
    headless = tmp_path / "headless.xlsx"
    shutil.copy(ledger, headless)
    run_on_file(headless, "end-turn")
    before, after = _cells(ledger), _cells(headless)
    changed = {k for k in before.keys() | after.keys() if before.get(k) != after.get(k)}
    actions = run_on_server(xlwings_server, ledger, "dep_end_turn")
    # Every cell the end of the turn changes is written, and nothing else but the blank
    # cells of a row written whole (the Log line's empty Dice).
    written = _written(ledger, actions)
    assert changed <= written
    assert {k for k in written - changed if after.get(k) is not None} == set()
    assert len(written - changed) <= 1
    # The whole workbook sent instead: the same cells written.
    everything = xlwings_server.request(
        "/xlwings/custom-scripts-call/dep_end_turn", book_json(ledger) | {"args": []}
    ).json()["actions"]
    assert _written(ledger, everything) == written
