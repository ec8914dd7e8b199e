// Battle Ledger's task pane (served by battle-ledger serve).
//
// Shows the panel of the open workbook's ledger kind (its _meta sheet says which),
// and keeps each operation button's xw-args equal to its form's fields, in the
// order of the macro's arguments: xlwings' own xw-click handler reads xw-args when
// the button is pressed and sends them to the macro. A blank field is sent as ""
// (the operation's default); the macro reads text as the command line does. A file
// field (a campaign's CSV, battle ledgers) sends the content of the files chosen on
// this computer, read here ({name, base64}; a pasted CSV as {name, text}).
//
// A field that names one of the ledger's things (a division, a ship, a side) offers
// the names the workbook's things table holds, read when the panel is shown and again
// when such a field is entered (a unit added since); any text may still be typed.
//
// It also registers the two callbacks a button's actions run around its writes
// (sheets/engine/xlbook.py, LIFT_PROTECTION and RESTORE_PROTECTION): Office.js refuses
// writes into a protected sheet and has no UserInterfaceOnly, so the sheets a
// button writes are unprotected first and protected again, with the options they
// had, after its last write. A sheet that was not protected stays unprotected.

import { registerCallback } from "./custom-scripts/index.js";

const lifted = new Map();

export async function battleLedgerUnprotect(context, sheetNames) {
  const sheets = sheetNames.map((name) => {
    const sheet = context.workbook.worksheets.getItem(name);
    sheet.protection.load("protected,options");
    return [name, sheet];
  });
  await context.sync();
  for (const [name, sheet] of sheets) {
    if (sheet.protection.protected) {
      lifted.set(name, sheet.protection.options);
      sheet.protection.unprotect();
    }
  }
  await context.sync();
}

// Every sheet still lifted is protected again, not only those named: a button that
// stopped half-way (the connection lost) left its sheets unprotected, and the next
// button's last action protects them too.
export async function battleLedgerProtect(context, sheetNames) {
  for (const name of new Set([...sheetNames, ...lifted.keys()])) {
    if (lifted.has(name)) {
      context.workbook.worksheets.getItem(name).protection.protect(lifted.get(name));
      lifted.delete(name);
    }
  }
  await context.sync();
}

registerCallback(battleLedgerUnprotect);
registerCallback(battleLedgerProtect);

// A file field sends what was read of the files chosen (or the CSV pasted), never a
// path: the server opens no file a request names.
export function formArgs(fields) {
  return Array.from(fields, (field) => {
    if (field.sentFiles) return field.sentFiles;
    if (field.dataset?.file !== undefined) return ""; // no file chosen: not given
    return String(field.value ?? "").trim();
  });
}

export function toBase64(bytes) {
  let text = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(text);
}

// The files chosen, as the macro takes them: [{name, base64}], each at most maxBytes.
export async function readFiles(files, maxBytes) {
  const sent = [];
  for (const file of Array.from(files || [])) {
    if (file.size > maxBytes) {
      throw new Error(`${file.name} is too large (${file.size} bytes; at most ${maxBytes})`);
    }
    sent.push({ name: file.name, base64: toBase64(new Uint8Array(await file.arrayBuffer())) });
  }
  return sent.length ? sent : undefined;
}

function wireFiles(form) {
  const changed = () => form.dispatchEvent(new Event("input"));
  form.querySelectorAll("input[data-file]").forEach((field) => {
    const note = field.parentElement.querySelector("[data-file-note]");
    const help = note ? note.textContent : "";
    field.addEventListener("change", async () => {
      try {
        field.sentFiles = await readFiles(field.files, Number(field.dataset.maxBytes));
        if (note) note.textContent = help;
      } catch (error) {
        field.sentFiles = undefined;
        field.value = "";
        if (note) note.textContent = error.message;
      }
      changed();
    });
  });
  form.querySelectorAll("textarea[data-paste-for]").forEach((area) => {
    area.addEventListener("input", () => {
      const field = document.getElementById(area.dataset.pasteFor);
      const text = area.value.trim();
      field.sentFiles = text ? [{ name: "pasted CSV", text: area.value }] : undefined;
      changed();
    });
  });
}

export function kindOf(metaRows) {
  const row = (metaRows || []).find((r) => String(r[0]).trim() === "kind");
  return row ? String(row[1]).trim() : "";
}

// Each name once (case-blind, as the ledger finds them), blanks left out, in table order.
export function thingNames(values) {
  const seen = new Set();
  const names = [];
  for (const row of values || []) {
    const name = String(row[0] ?? "").trim();
    if (name && !seen.has(name.toLowerCase())) {
      seen.add(name.toLowerCase());
      names.push(name);
    }
  }
  return names;
}

// The names in column `column` of the workbook's table `table` ([] where it has none).
export async function readThings(context, table, column) {
  const found = context.workbook.tables.getItemOrNullObject(table);
  await context.sync();
  if (found.isNullObject) return [];
  const cells = found.columns.getItemOrNullObject(column);
  await context.sync();
  if (cells.isNullObject) return [];
  const body = cells.getDataBodyRange().load("values");
  await context.sync();
  return thingNames(body.values);
}

// The words a side field offers: the sides the things hold, then the words besides (a
// winner: draw) that are not among them.
export function sideWords(sides, also) {
  const seen = new Set(sides.map((s) => s.toLowerCase()));
  return [...sides, ...(also || []).filter((w) => !seen.has(String(w).toLowerCase()))];
}

function offer(list, names) {
  list.replaceChildren(
    ...names.map((name) => {
      const option = document.createElement("option");
      option.value = name;
      return option;
    }),
  );
}

async function fillThings(section) {
  const list = section && document.getElementById(section.getAttribute("data-things-list"));
  if (!list) return;
  try {
    const table = section.getAttribute("data-things-table");
    const column = section.getAttribute("data-things-column");
    const sidesColumn = section.getAttribute("data-sides-column");
    const sideLists = section.querySelectorAll("datalist[data-sides]");
    const [names, sides] = await Excel.run(async (context) => [
      await readThings(context, table, column),
      sidesColumn && sideLists.length ? await readThings(context, table, sidesColumn) : [],
    ]);
    offer(list, names);
    sideLists.forEach((sideList) =>
      offer(sideList, sideWords(sides, JSON.parse(sideList.getAttribute("data-also") || "[]"))),
    );
  } catch (error) {
    console.error("Battle Ledger: could not read the names of the ledger's things", error);
  }
}

function show(kind) {
  const note = document.getElementById("bl-kind-note");
  const select = document.getElementById("bl-kind");
  let found = false;
  document.querySelectorAll("section[data-kind]").forEach((section) => {
    const mine = section.getAttribute("data-kind") === kind;
    section.classList.toggle("d-none", !mine);
    if (mine) fillThings(section);
    found = found || mine;
  });
  if (select) select.value = found ? kind : "";
  if (note) {
    note.textContent = found
      ? "The buttons of this workbook's ledger:"
      : "This workbook is not a Battle Ledger ledger (no _meta sheet names its kind). " +
        "Pick a kind to see its buttons.";
  }
}

function wireForms() {
  document.querySelectorAll("form[data-operation]").forEach((form) => {
    const button = form.querySelector("[xw-click]");
    const update = () =>
      button.setAttribute("xw-args", JSON.stringify(formArgs(form.querySelectorAll("[data-option]"))));
    form.addEventListener("input", update);
    form.addEventListener("change", update);
    form.addEventListener("submit", (event) => event.preventDefault());
    wireFiles(form);
    update();
  });
  const select = document.getElementById("bl-kind");
  if (select) select.addEventListener("change", () => show(select.value));
  document.addEventListener("focusin", (event) => {
    if (event.target.matches && event.target.matches("input[list]")) {
      fillThings(event.target.closest("section[data-kind]"));
    }
  });
}

// Outside Office (the page opened in a browser) there is no workbook: say so plainly,
// instead of waiting for one (xlwings' own script would reload the page meanwhile; the
// template's first script stops that: see taskpane_html in serve.py).
export const OUTSIDE_OFFICE =
  "Battle Ledger's task pane works inside Excel: Microsoft 365 or Excel 2021 and later " +
  "(Windows, Mac) or Excel on the web, with the add-in loaded from this server's " +
  "/manifest. Opened in a browser it has no workbook to work on.";

function outsideOffice() {
  const note = document.getElementById("bl-kind-note");
  if (note) note.textContent = OUTSIDE_OFFICE;
  document.querySelectorAll("[data-in-office]").forEach((el) => el.classList.add("d-none"));
  // xlwings' "didn't load properly" prompt (its Reload button) stays where the page may
  // be in Office after all; in a browser tab it has nothing to reload for.
  const overlay = document.getElementById("xlwings-office-ready-error");
  if (overlay && globalThis.battleLedgerOutsideOffice) overlay.classList.add("d-none");
}

// Office.onReady's answer, or null when it gives none within `ms` (no Office at all).
export async function officeHost(onReady, ms) {
  const late = new Promise((resolve) => setTimeout(() => resolve(null), ms));
  const info = await Promise.race([onReady().catch(() => null), late]);
  return info && info.host ? info.host : null;
}

async function detectKind() {
  if (typeof Office === "undefined") {
    outsideOffice();
    return;
  }
  if (!(await officeHost(() => Office.onReady(), 4000))) {
    outsideOffice();
    return;
  }
  try {
    await Excel.run(async (context) => {
      const meta = context.workbook.worksheets.getItemOrNullObject("_meta");
      await context.sync();
      if (meta.isNullObject) {
        show("");
        return;
      }
      const range = meta.getUsedRange().load("values");
      await context.sync();
      show(kindOf(range.values));
    });
  } catch (error) {
    console.error("Battle Ledger: could not read the workbook's _meta sheet", error);
    show("");
  }
}

if (typeof document !== "undefined") {
  wireForms();
  detectKind();
}
