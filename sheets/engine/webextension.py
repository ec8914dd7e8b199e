"""The xlwings Lite parts of a workbook package: the code a ledger carries.

xlwings Lite (the Office add-in ``wa200008175``) keeps a workbook's Python in the
properties of the workbook's web extension, as Excel saves any add-in's settings:

- ``xl/webextensions/webextension1.xml``: the add-in's store reference and its
  properties (``main.py``, ``requirements.txt``, ``pyodideVersion``), each value a
  JSON string with ``/`` written ``\\/``, as Office writes them;
- ``xl/webextensions/taskpanes.xml`` (and its ``_rels``): the task pane that opens
  the add-in, related from the package's own ``_rels/.rels``;
- their two ``[Content_Types].xml`` overrides.

``with_lite_parts`` adds these parts to a package's bytes, or refreshes the code
of a package that has them (the web extension's id and any other property kept),
and lifts the sheets' protection: Office.js refuses a write into a protected sheet,
and xlwings Lite cannot run the task-pane callbacks that lift it around a button's
writes on xlwings Server (``sheets.engine.xlbook``); the cells keep their locked flags. Every
other part is copied byte for byte. ``lite_properties`` reads them back.
The shapes are those of real workbooks saved by xlwings Lite
(``tests/fixtures/lite/``).
"""

from __future__ import annotations

import html
import io
import json
import re
import uuid
import zipfile
from collections.abc import Mapping
from pathlib import Path

from battle_ledger.sheets.engine.workbook_file import open_package
from battle_ledger.sheets.errors import DamagedWorkbookError

__all__ = [
    "LITE_ADDIN_ID",
    "TASKPANES_PART",
    "TASKPANES_RELATIONSHIP",
    "WEBEXTENSION_PART",
    "WEBEXTENSION_RELATIONSHIP",
    "decode_property",
    "encode_property",
    "has_lite_parts",
    "lite_properties",
    "with_lite_parts",
    "write_lite_parts",
]

#: xlwings Lite's id in Microsoft's add-in store (AppSource).
LITE_ADDIN_ID = "wa200008175"
TASKPANES_PART = "xl/webextensions/taskpanes.xml"
WEBEXTENSION_PART = "xl/webextensions/webextension1.xml"
TASKPANES_RELATIONSHIP = (
    "http://schemas.microsoft.com/office/2011/relationships/webextensiontaskpanes"
)
WEBEXTENSION_RELATIONSHIP = "http://schemas.microsoft.com/office/2011/relationships/webextension"
_TASKPANES_TYPE = "application/vnd.ms-office.webextensiontaskpanes+xml"
_WEBEXTENSION_TYPE = "application/vnd.ms-office.webextension+xml"
_WE_NS = "http://schemas.microsoft.com/office/webextensions/webextension/2010/11"
_WETP_NS = "http://schemas.microsoft.com/office/webextensions/taskpanes/2010/11"
_R_NS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_PKG_REL_NS = "http://schemas.openxmlformats.org/package/2006/relationships"
_DECLARATION = b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n'
_TYPES = "[Content_Types].xml"
_PACKAGE_RELS = "_rels/.rels"
_TASKPANES_RELS = "xl/webextensions/_rels/taskpanes.xml.rels"
# The two extensions Office writes into every add-in's part (custom functions: none
# registered through Office's own list; xlwings Lite registers its own at load).
_EXTENSIONS = (
    '<we:extLst><a:ext xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
    'uri="{D87F86FE-615C-45B5-9D79-34F1136793EB}"><we:containsCustomFunctions/></a:ext>'
    '<a:ext xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" '
    'uri="{7C84B067-C214-45C3-A712-C9D94CD141B2}"><we:customFunctionIdList/></a:ext>'
    "</we:extLst>"
)
_SHEET_PROTECTION = re.compile(rb"<(?:\w+:)?sheetProtection\b[^>]*/>")
_WORKSHEET_TYPE = b"spreadsheetml.worksheet+xml"
_PROPERTY = re.compile(r'<we:property name="([^"]*)" value="([^"]*)"\s*/>')
_ID = re.compile(r'<we:webextension\b[^>]*\sid="(\{[0-9A-Fa-f-]+\})"')


def encode_property(value: str) -> str:
    """A property's value as Office stores it: a JSON string, ``/`` escaped, other
    characters as they are (``"a/b"`` -> ``"a\\/b"``, quotes included)."""
    return json.dumps(value, ensure_ascii=False).replace("/", "\\/")


def decode_property(stored: str) -> str:
    value = json.loads(stored)
    if not isinstance(value, str):
        raise ValueError(f"not a JSON string: {stored[:40]!r}")
    return value


def _webextension_xml(guid: str, properties: Mapping[str, str]) -> bytes:
    props = "".join(
        f'<we:property name="{html.escape(name)}" value="{html.escape(encode_property(v))}"/>'
        for name, v in properties.items()
    )
    return (
        _DECLARATION
        + (
            f'<we:webextension xmlns:we="{_WE_NS}" id="{guid}">'
            f'<we:reference id="{LITE_ADDIN_ID}" version="1.0.0.0" store="en-US" storeType="OMEX"/>'
            f'<we:alternateReferences><we:reference id="{LITE_ADDIN_ID}" version="1.0.0.0" '
            f'store="{LITE_ADDIN_ID.upper()}" storeType="OMEX"/></we:alternateReferences>'
            f"<we:properties>{props}</we:properties><we:bindings/>"
            f'<we:snapshot xmlns:r="{_R_NS}"/>{_EXTENSIONS}</we:webextension>'
        ).encode()
    )


# The pane is shown on open (visibility 1; the real files keep the user's last choice):
# opening the add-in is what installs the requirements and registers the functions.
_TASKPANES_XML = (
    _DECLARATION
    + (
        f'<wetp:taskpanes xmlns:wetp="{_WETP_NS}"><wetp:taskpane dockstate="right" '
        f'visibility="1" width="438" row="3"><wetp:webextensionref xmlns:r="{_R_NS}" '
        'r:id="rId1"/></wetp:taskpane></wetp:taskpanes>'
    ).encode()
)
_TASKPANES_RELS_XML = (
    _DECLARATION
    + (
        f'<Relationships xmlns="{_PKG_REL_NS}"><Relationship Id="rId1" '
        f'Type="{WEBEXTENSION_RELATIONSHIP}" Target="webextension1.xml"/></Relationships>'
    ).encode()
)


def _with_override(types: bytes, part: str, content_type: str) -> bytes:
    if f'PartName="/{part}"'.encode() in types:
        return types
    override = f'<Override PartName="/{part}" ContentType="{content_type}"/>'.encode()
    return types.replace(b"</Types>", override + b"</Types>", 1)


def _with_package_relationship(rels: bytes) -> bytes:
    if TASKPANES_RELATIONSHIP.encode() in rels:
        return rels
    taken = {int(n) for n in re.findall(rb'Id="rId(\d+)"', rels)}
    free = next(n for n in range(1, len(taken) + 2) if n not in taken)
    rel = (f'<Relationship Id="rId{free}" Type="{TASKPANES_RELATIONSHIP}" '
           f'Target="{TASKPANES_PART}"/>').encode()  # fmt: skip
    return rels.replace(b"</Relationships>", rel + b"</Relationships>", 1)


def _worksheets(types: bytes) -> list[str]:
    """The worksheet parts the content types name."""
    found = re.findall(rb'<Override\b[^>]*PartName="/([^"]+)"[^>]*ContentType="[^"]*'
                       + re.escape(_WORKSHEET_TYPE), types)  # fmt: skip
    return [f.decode() for f in found]


def has_lite_parts(data: bytes) -> bool:
    """Whether the package ``data`` carries an xlwings Lite web extension."""
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            return WEBEXTENSION_PART in archive.namelist()
    except zipfile.BadZipFile:
        return False


def lite_properties(data: bytes, label: str = "") -> dict[str, str] | None:
    """The properties of the package's xlwings Lite web extension (``main.py``,
    ``requirements.txt``, ...), decoded; None where it has none."""
    with open_package(data, label) as archive:  # read with the hard cap on unpacking
        if WEBEXTENSION_PART not in archive.namelist():
            return None
        text = archive.read(WEBEXTENSION_PART).decode("utf-8")
    if LITE_ADDIN_ID not in text.lower():
        return None
    try:
        return {html.unescape(n): decode_property(html.unescape(v))
                for n, v in _PROPERTY.findall(text)}  # fmt: skip
    except ValueError as exc:
        raise DamagedWorkbookError(
            f"the xlwings Lite code cannot be read ({exc})", file=label, value=WEBEXTENSION_PART
        ) from None


def with_lite_parts(data: bytes, properties: Mapping[str, str], label: str = "") -> bytes:
    """The package ``data`` carrying ``properties`` (``main.py``, ``requirements.txt``,
    ...) in its xlwings Lite web extension: added where it has none; where it has one,
    those properties replaced and the others (and the extension's id) kept. Every
    other part is copied as it was."""
    old = lite_properties(data, label) if has_lite_parts(data) else None
    kept: dict[str, str] = {}
    guid = "{" + str(uuid.uuid4()).upper() + "}"
    with open_package(data, label) as archive:
        names = archive.namelist()
        if old is not None:
            kept = {k: v for k, v in old.items() if k not in properties}
            found = _ID.search(archive.read(WEBEXTENSION_PART).decode("utf-8"))
            guid = found.group(1) if found else guid
        elif WEBEXTENSION_PART in names or TASKPANES_PART in names:
            raise DamagedWorkbookError(
                "the workbook carries another add-in's web extension; nothing was written",
                file=label,
                value=WEBEXTENSION_PART,
                expected="a workbook without one, or with xlwings Lite's",
            )
        fresh = {
            WEBEXTENSION_PART: _webextension_xml(guid, {**kept, **properties}),
            TASKPANES_PART: archive.read(TASKPANES_PART) if old else _TASKPANES_XML,
            _TASKPANES_RELS: (archive.read(_TASKPANES_RELS)
                              if old and _TASKPANES_RELS in names else _TASKPANES_RELS_XML),
            _TYPES: _with_override(
                _with_override(archive.read(_TYPES), TASKPANES_PART, _TASKPANES_TYPE),
                WEBEXTENSION_PART,
                _WEBEXTENSION_TYPE,
            ),
            _PACKAGE_RELS: _with_package_relationship(archive.read(_PACKAGE_RELS)),
        }  # fmt: skip
        for sheet in _worksheets(fresh[_TYPES]):
            xml = archive.read(sheet)
            if _SHEET_PROTECTION.search(xml):
                fresh[sheet] = _SHEET_PROTECTION.sub(b"", xml, count=1)
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
            for info in archive.infolist():
                if info.filename in fresh:
                    target.writestr(info, fresh.pop(info.filename), zipfile.ZIP_DEFLATED)
                else:
                    target.writestr(info, archive.read(info), info.compress_type)
            for name, body in fresh.items():  # the new parts, after the old ones
                target.writestr(zipfile.ZipInfo(name, (1980, 1, 1, 0, 0, 0)), body,
                                zipfile.ZIP_DEFLATED)  # fmt: skip
    return out.getvalue()


def write_lite_parts(path: Path, properties: Mapping[str, str], *, wait: float) -> None:
    """Give the workbook file ``path`` xlwings Lite's parts (or write them again), under
    the writer's lock, in one atomic save that keeps the version it replaces; refused
    if the file changed since it was read."""
    import hashlib

    from battle_ledger.sheets.engine.workbook_file import read_workbook, save_workbook

    data, lock = read_workbook(path, wait=wait)
    try:
        fresh = with_lite_parts(data, properties, str(path))
        save_workbook(lambda: fresh, path, expect_digest=hashlib.sha256(data).hexdigest(),
                      lock=lock, before="lite")  # fmt: skip
    finally:
        if lock is not None:
            lock.release()
