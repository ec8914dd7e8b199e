"""A ledger of ours as Excel saves it after the umpire has worked on it in Excel.

``excel_shaped(source, target, kind)`` edits the package of ``source`` (zipfile and
careful text edits of the XML, in Excel's own spelling) into what Excel writes: shared
strings instead of inline ones, shared formulas down the columns, ``mc:Ignorable`` and
``x14ac:dyDescent`` on every sheet, a calculation chain, a workbook extension list;
and adds what an umpire adds in Excel: on the periods sheet a data bar (its rule in
the sheet, its Excel 2010+ part in the extension list, linked by id), an icon set and
a drop-down list of Excel 2010+ (x14, in the extension list); a sheet of the umpire's
own with text, a custom number format, colours, column widths, sparklines over the
periods table, a comment (its comments part and VML drawing) and a picture (a drawing
and its image). ``kept_parts`` reads what a save must keep of them, byte for byte.
"""

from __future__ import annotations

import html
import re
import struct
import zipfile
import zlib
from pathlib import Path

import openpyxl
from openpyxl.formula.translate import Translator
from openpyxl.utils import get_column_letter, range_boundaries

from battle_ledger.sheets.ledger import KINDS, Role
from battle_ledger.sheets.operations import load_operations

__all__ = ["UMPIRE_SHEET", "excel_shaped", "extension_list", "kept_parts", "sheet_part"]

load_operations()
UMPIRE_SHEET = "Umpire's notes"

_MAIN = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
_R = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_MC = "http://schemas.openxmlformats.org/markup-compatibility/2006"
_X14AC = "http://schemas.microsoft.com/office/spreadsheetml/2009/9/ac"
_X14 = "http://schemas.microsoft.com/office/spreadsheetml/2009/9/main"
_XM = "http://schemas.microsoft.com/office/excel/2006/main"
_RELS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
_DATA_BAR_ID = "{8E5A9C2D-7F41-4B3A-9C1E-2D6B5A4F3E21}"
_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\r\n'


def _png() -> bytes:
    """A 4 x 4 red image, as a picture pasted into Excel is stored (PNG)."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return (struct.pack(">I", len(body)) + kind + body
                + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))  # fmt: skip

    rows = b"".join(b"\x00" + b"\xc0\x20\x20" * 4 for _ in range(4))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))  # fmt: skip


def sheet_part(parts: dict[str, bytes], sheet: str) -> str:
    """The part of sheet ``sheet`` (through the workbook's relationships)."""
    book = parts["xl/workbook.xml"].decode()
    rels = parts["xl/_rels/workbook.xml.rels"].decode()
    name = html.escape(sheet, quote=True).replace("&#x27;", "&apos;")
    rid = re.search(rf'<sheet\b[^>]*name="{re.escape(name)}"[^>]*r:id="([^"]+)"', book)
    assert rid, sheet
    rel = re.search(rf'<Relationship\b[^>]*Id="{rid.group(1)}"[^>]*/>', rels)
    assert rel, rid.group(1)
    target = re.search(r'Target="([^"]+)"', rel.group(0))
    assert target
    return target.group(1).lstrip("/") if target.group(1).startswith("/") else (
        "xl/" + target.group(1))  # fmt: skip


def extension_list(xml: bytes) -> bytes:
    """A sheet's own ``<extLst>`` element, its last child (b"": none; a rule's extension
    list, inside ``<conditionalFormatting>``, comes before it)."""
    end = xml.rfind(b"</extLst>")
    start = xml.rfind(b"<extLst>", 0, end)
    if start < 0 or xml[end:].strip() != b"</extLst></worksheet>":
        return b""
    return xml[start : end + len(b"</extLst>")]


def kept_parts(path: Path, kind: str) -> dict[str, bytes]:
    """What a save must keep byte for byte: the umpire's sheet, its comments, VML
    drawing, drawing and picture, the styles (custom formats, colours, dxfs), and the
    periods sheet's extension list (its Excel 2010+ formats and drop-down list)."""
    with zipfile.ZipFile(path) as z:
        parts = {i.filename: z.read(i) for i in z.infolist()}
    periods = sheet_part(parts, KINDS[kind].periods.sheet)
    kept = {name: data for name, data in parts.items()
            if name.startswith(("xl/comments", "xl/drawings/vmlDrawing", "xl/media/"))
            or name in ("xl/styles.xml", "xl/drawings/drawing90.xml",
                        sheet_part(parts, UMPIRE_SHEET))}  # fmt: skip
    kept[periods + "#extLst"] = extension_list(parts[periods])
    return kept


# -- Excel's spelling of what we wrote -------------------------------------------------------


def _shared_strings(parts: dict[str, bytes]) -> list[str]:
    """Inline strings made shared strings in every sheet (Excel writes no inline ones)."""
    strings: list[str] = []
    index: dict[str, int] = {}
    inline = re.compile(
        rb'(<c r="[A-Z]+\d+"(?: s="\d+")?) t="inlineStr"><is>'
        rb'(?:<t(?: xml:space="preserve")?>([^<]*)</t>|<t\s*/>)</is></c>'
    )

    def shared(m: re.Match[bytes]) -> bytes:
        text = html.unescape((m.group(2) or b"").decode())
        if text not in index:
            index[text] = len(strings)
            strings.append(text)
        return m.group(1) + b' t="s"><v>' + str(index[text]).encode() + b"</v></c>"

    for name in [n for n in parts if n.startswith("xl/worksheets/sheet")]:
        parts[name] = inline.sub(shared, parts[name])
    return strings


_FORMULA_CELL = re.compile(rb'<c r="([A-Z]+)(\d+)"((?: s="\d+")?)><f>([^<]*)</f>')


def _shared_formulas(xml: bytes) -> tuple[bytes, list[str]]:
    """The same formula down a column written as Excel writes it: the first cell holds
    it (``t="shared" ref= si=``), the next ones refer to it. Also the formula cells, for
    the calculation chain."""
    cells = list(_FORMULA_CELL.finditer(xml))
    by_column: dict[bytes, list[re.Match[bytes]]] = {}
    for m in cells:
        by_column.setdefault(m.group(1), []).append(m)
    edits: dict[int, tuple[int, bytes]] = {}
    si = 0
    for column, found in by_column.items():
        found.sort(key=lambda m: int(m.group(2)))
        run: list[re.Match[bytes]] = []
        for m in [*found, None]:
            if m is not None and run:
                last = run[-1]
                text = "=" + html.unescape(last.group(4).decode())
                moved = Translator(text, origin=f"{column.decode()}{int(last.group(2))}")
                expected = moved.translate_formula(f"{column.decode()}{int(m.group(2))}")
                if (int(m.group(2)) == int(last.group(2)) + 1
                        and expected == "=" + html.unescape(m.group(4).decode())):  # fmt: skip
                    run.append(m)
                    continue
            if len(run) > 1:
                first, end = run[0], run[-1]
                ref = first.group(1) + first.group(2) + b":" + end.group(1) + end.group(2)
                master = (b'<c r="' + first.group(1) + first.group(2) + b'"' + first.group(3)
                          + b'><f t="shared" ref="' + ref + b'" si="' + str(si).encode()
                          + b'">' + first.group(4) + b"</f>")  # fmt: skip
                edits[first.start()] = (first.end(), master)
                for follower in run[1:]:
                    edits[follower.start()] = (
                        follower.end(),
                        b'<c r="' + follower.group(1) + follower.group(2) + b'"'
                        + follower.group(3) + b'><f t="shared" si="' + str(si).encode() + b'"/>',
                    )  # fmt: skip
                si += 1
            run = [m] if m is not None else []
    out, at = [], 0
    for start in sorted(edits):
        end, text = edits[start]
        out += [xml[at:start], text]
        at = end
    out.append(xml[at:])
    return b"".join(out), [(m.group(1) + m.group(2)).decode() for m in cells]


def _excel_sheet(xml: bytes) -> bytes:
    """A sheet's root and rows as Excel writes them (``mc:Ignorable``, ``x14ac``)."""
    xml = xml.replace(
        f'<worksheet xmlns="{_MAIN}"'.encode(),
        f'{_HEAD}<worksheet xmlns="{_MAIN}" xmlns:r="{_R}" xmlns:mc="{_MC}" '
        f'mc:Ignorable="x14ac" xmlns:x14ac="{_X14AC}"'.encode(),
        1,
    )
    return re.sub(rb"<row\b([^>]*?)(/?)>", rb'<row\1 x14ac:dyDescent="0.25"\2>', xml)


# -- what the umpire adds in Excel ----------------------------------------------------------


def _periods_formats(xml: bytes, wb: openpyxl.Workbook, kind: str) -> bytes:
    """A data bar and an icon set on the periods table's first two outcome columns and an
    Excel 2010+ drop-down list (its list on the Rules sheet) on a column with no other."""
    table = KINDS[kind].periods
    ws = next(ws for ws in wb.worksheets if table.name in ws.tables)
    ref = ws.tables[table.name].ref
    min_col, min_row, max_col, max_row = range_boundaries(ref)
    headers = [ws.cell(min_row, c).value for c in range(min_col, max_col + 1)]

    def body(header: str) -> str:
        letter = get_column_letter(min_col + headers.index(header))
        return f"{letter}{min_row + 1}:{letter}{max_row}"

    outcomes = [c.header for c in table.having(Role.OUTCOME)]
    bar, icons = body(outcomes[0]), body(outcomes[1 % len(outcomes)])
    validated = {str(r) for dv in ws.data_validations.dataValidation for r in dv.sqref.ranges}
    free = next(body(h) for h in headers if body(h) not in validated)
    rule = (
        f'<conditionalFormatting sqref="{bar}"><cfRule type="dataBar" priority="90">'
        '<dataBar><cfvo type="min"/><cfvo type="max"/><color rgb="FF638EC6"/></dataBar>'
        '<extLst><ext uri="{B025F937-C7B1-47D3-B67F-A62EFF666E3E}" '
        f'xmlns:x14="{_X14}"><x14:id>{_DATA_BAR_ID}</x14:id></ext></extLst></cfRule>'
        "</conditionalFormatting>"
    ).encode()
    extensions = (
        f'<extLst><ext uri="{{78C0D931-6437-407d-A8EE-F0AAD7539E65}}" xmlns:x14="{_X14}">'
        "<x14:conditionalFormattings>"
        f'<x14:conditionalFormatting xmlns:xm="{_XM}"><x14:cfRule type="dataBar" '
        f'id="{_DATA_BAR_ID}"><x14:dataBar minLength="0" maxLength="100" border="1" '
        'negativeBarBorderColorSameAsPositive="0"><x14:cfvo type="autoMin"/>'
        '<x14:cfvo type="autoMax"/><x14:borderColor rgb="FF638EC6"/>'
        '<x14:negativeFillColor rgb="FFFF0000"/><x14:negativeBorderColor rgb="FFFF0000"/>'
        '<x14:axisColor rgb="FF000000"/></x14:dataBar></x14:cfRule>'
        f"<xm:sqref>{bar}</xm:sqref></x14:conditionalFormatting>"
        f'<x14:conditionalFormatting xmlns:xm="{_XM}"><x14:cfRule type="iconSet" '
        'priority="91" id="{3C1B7E5A-0D2F-4E8B-A6C9-5F4D3B2A1E09}">'
        '<x14:iconSet iconSet="3Triangles"><x14:cfvo type="percent"><xm:f>0</xm:f>'
        '</x14:cfvo><x14:cfvo type="percent"><xm:f>33</xm:f></x14:cfvo>'
        '<x14:cfvo type="percent"><xm:f>67</xm:f></x14:cfvo></x14:iconSet></x14:cfRule>'
        f"<xm:sqref>{icons}</xm:sqref></x14:conditionalFormatting>"
        "</x14:conditionalFormattings></ext>"
        f'<ext uri="{{CCE6A557-97BC-4b89-ADB6-D9C93CAAB3DF}}" xmlns:x14="{_X14}">'
        f'<x14:dataValidations count="1" xmlns:xm="{_XM}"><x14:dataValidation type="list" '
        'allowBlank="1" showInputMessage="1" showErrorMessage="1"><x14:formula1>'
        "<xm:f>Rules!$A$2:$A$4</xm:f></x14:formula1>"
        f"<xm:sqref>{free}</xm:sqref></x14:dataValidation></x14:dataValidations></ext>"
        "</extLst>"
    ).encode()
    at = xml.find(b"<dataValidations")
    if at < 0:
        at = xml.find(b"<printOptions")
    xml = xml[:at] + rule + xml[at:]
    return xml.replace(b"</worksheet>", extensions + b"</worksheet>")


def _umpire_sheet(periods_sheet: str, data: str, strings: list[str], style: int) -> bytes:
    """The umpire's own sheet: notes, a figure in a custom format and colour, column
    widths, sparklines of the periods table, a comment and a picture."""

    def text(value: str) -> int:
        strings.append(value)
        return len(strings) - 1

    quoted = "'" + periods_sheet.replace("'", "''") + "'"
    return (
        f'{_HEAD}<worksheet xmlns="{_MAIN}" xmlns:r="{_R}" xmlns:mc="{_MC}" '
        f'mc:Ignorable="x14ac" xmlns:x14ac="{_X14AC}"><dimension ref="A1:C3"/>'
        '<sheetViews><sheetView workbookViewId="0"/></sheetViews>'
        '<sheetFormatPr defaultRowHeight="15" x14ac:dyDescent="0.25"/>'
        '<cols><col min="1" max="1" width="28.7109375" customWidth="1"/>'
        '<col min="2" max="2" width="14.28515625" customWidth="1"/></cols><sheetData>'
        f'<row r="1" spans="1:3" x14ac:dyDescent="0.25"><c r="A1" t="s"><v>{text("Notes")}'
        f'</v></c><c r="B1" t="s"><v>{text("Trend")}</v></c></row>'
        f'<row r="2" spans="1:3" x14ac:dyDescent="0.25"><c r="A2" t="s"><v>'
        f'{text("Ney arrives at turn 6")}</v></c><c r="B2" s="{style}"><v>12.5</v></c></row>'
        f'<row r="3" spans="1:3" x14ac:dyDescent="0.25"><c r="A3" t="s"><v>'
        f"{text('Wellington holds the ridge')}</v></c></row></sheetData>"
        '<pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" '
        'footer="0.3"/><drawing r:id="rId1"/><legacyDrawing r:id="rId2"/>'
        f'<extLst><ext uri="{{05C60535-1F16-4fd2-B633-F4F36F0B64E0}}" xmlns:x14="{_X14}">'
        f'<x14:sparklineGroups xmlns:xm="{_XM}"><x14:sparklineGroup displayEmptyCellsAs="gap" '
        'markers="1"><x14:colorSeries theme="4" tint="-0.499984740745262"/>'
        '<x14:colorNegative theme="5"/><x14:colorAxis rgb="FF000000"/>'
        '<x14:colorMarkers theme="4" tint="-0.499984740745262"/><x14:colorFirst theme="4" '
        'tint="0.39997558519241921"/><x14:colorLast theme="4" tint="0.39997558519241921"/>'
        '<x14:colorHigh theme="4"/><x14:colorLow theme="4"/><x14:sparklines><x14:sparkline>'
        f"<xm:f>{html.escape(quoted, quote=False)}!{data}</xm:f><xm:sqref>B3</xm:sqref>"
        "</x14:sparkline></x14:sparklines></x14:sparklineGroup></x14:sparklineGroups></ext>"
        "</extLst></worksheet>"
    ).encode()


_COMMENTS = (
    f'{_HEAD}<comments xmlns="{_MAIN}" xmlns:mc="{_MC}" mc:Ignorable="xr" '
    'xmlns:xr="http://schemas.microsoft.com/office/spreadsheetml/2014/revision"><authors>'
    '<author>Umpire</author></authors><commentList><comment ref="A2" authorId="0" '
    'shapeId="0" xr:uid="{5B1D3A9E-2C4F-4E6B-8A0D-7F9E1C3B5A42}"><text><r><rPr><b/>'
    '<sz val="9"/><color indexed="81"/><rFont val="Tahoma"/><family val="2"/></rPr>'
    '<t>Umpire:</t></r><r><rPr><sz val="9"/><color indexed="81"/><rFont val="Tahoma"/>'
    '<family val="2"/></rPr><t xml:space="preserve">\nthe Prussians are late.</t></r>'
    "</text></comment></commentList></comments>"
).encode()

_VML = (
    b'<xml xmlns:v="urn:schemas-microsoft-com:vml"\r\n xmlns:o="urn:schemas-microsoft-com:'
    b'office:office"\r\n xmlns:x="urn:schemas-microsoft-com:office:excel">\r\n'
    b' <o:shapelayout v:ext="edit">\r\n  <o:idmap v:ext="edit" data="1"/>\r\n'
    b' </o:shapelayout><v:shapetype id="_x0000_t202" coordsize="21600,21600" o:spt="202"\r\n'
    b'  path="m,l,21600r21600,l21600,xe">\r\n  <v:stroke joinstyle="miter"/>\r\n'
    b'  <v:path gradientshapeok="t" o:connecttype="rect"/>\r\n </v:shapetype><v:shape '
    b'id="_x0000_s1025" type="#_x0000_t202" style=\'position:absolute;\r\n'
    b"  margin-left:149.25pt;margin-top:10.5pt;width:108pt;height:59.25pt;z-index:1;\r\n"
    b'  visibility:hidden\' fillcolor="#ffffe1" o:insetmode="auto">\r\n'
    b'  <v:fill color2="#ffffe1"/>\r\n  <v:shadow on="t" color="black" obscured="t"/>\r\n'
    b"  <v:path o:connecttype=\"none\"/>\r\n  <v:textbox style='mso-direction-alt:auto'>\r\n"
    b"   <div style='text-align:left'></div>\r\n  </v:textbox>\r\n"
    b'  <x:ClientData ObjectType="Note">\r\n   <x:MoveWithCells/>\r\n   <x:SizeWithCells/>\r\n'
    b"   <x:Anchor>\r\n    1, 15, 0, 10, 3, 15, 4, 4</x:Anchor>\r\n"
    b"   <x:AutoFill>False</x:AutoFill>\r\n   <x:Row>1</x:Row>\r\n   <x:Column>0</x:Column>\r\n"
    b"  </x:ClientData>\r\n </v:shape></xml>"
)

_DRAWING = (
    f'{_HEAD}<xdr:wsDr xmlns:xdr="http://schemas.openxmlformats.org/drawingml/2006/'
    'spreadsheetDrawing" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main">'
    '<xdr:twoCellAnchor editAs="oneCell"><xdr:from><xdr:col>3</xdr:col><xdr:colOff>0'
    "</xdr:colOff><xdr:row>0</xdr:row><xdr:rowOff>0</xdr:rowOff></xdr:from><xdr:to>"
    "<xdr:col>5</xdr:col><xdr:colOff>304800</xdr:colOff><xdr:row>5</xdr:row><xdr:rowOff>"
    '0</xdr:rowOff></xdr:to><xdr:pic><xdr:nvPicPr><xdr:cNvPr id="2" name="Picture 1" '
    'descr="The field of Waterloo"><a:extLst><a:ext uri="{FF2B5EF4-FFF2-40B4-BE49-'
    'F238E27FC236}"><a16:creationId xmlns:a16="http://schemas.microsoft.com/office/drawing/'
    '2014/main" id="{0A6C1E4B-9D2F-4B7A-8E3C-1F5D7B9A2C64}"/></a:ext></a:extLst>'
    '</xdr:cNvPr><xdr:cNvPicPr><a:picLocks noChangeAspect="1"/></xdr:cNvPicPr>'
    f'</xdr:nvPicPr><xdr:blipFill><a:blip xmlns:r="{_R}" r:embed="rId1"/><a:stretch>'
    '<a:fillRect/></a:stretch></xdr:blipFill><xdr:spPr><a:xfrm><a:off x="3200400" y="0"/>'
    '<a:ext cx="1524000" cy="952500"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/>'
    "</a:prstGeom></xdr:spPr></xdr:pic><xdr:clientData/></xdr:twoCellAnchor></xdr:wsDr>"
).encode()


def _rels(*relations: tuple[str, str, str]) -> bytes:
    items = "".join(f'<Relationship Id="{i}" Type="{_RELS}/{t}" Target="{target}"/>'
                    for i, t, target in relations)  # fmt: skip
    return (f'{_HEAD}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
            f'relationships">{items}</Relationships>').encode()  # fmt: skip


def _styles(xml: bytes) -> tuple[bytes, int]:
    """Excel's styles with a custom number format, a fill colour and a cell style using
    them (its index returned), and one more dxf."""
    xml = xml.replace(
        f'<styleSheet xmlns="{_MAIN}"'.encode(),
        f'{_HEAD}<styleSheet xmlns="{_MAIN}" xmlns:mc="{_MC}" mc:Ignorable="x14ac" '
        f'xmlns:x14ac="{_X14AC}"'.encode(),
        1,
    )
    fmt = b'<numFmt numFmtId="190" formatCode="0.0&quot; DEP&quot;"/>'
    xml = re.sub(rb'<numFmts count="(\d+)">',
                 lambda m: b'<numFmts count="%d">' % (int(m.group(1)) + 1) + fmt, xml)  # fmt: skip
    fills = int(re.search(rb'<fills count="(\d+)"', xml).group(1))  # type: ignore[union-attr]
    xml = re.sub(rb'<fills count="\d+">', b'<fills count="%d">' % (fills + 1), xml).replace(
        b"</fills>",
        b'<fill><patternFill patternType="solid"><fgColor rgb="FFC6EFCE"/><bgColor '
        b'indexed="64"/></patternFill></fill></fills>',
    )
    xfs = int(re.search(rb'<cellXfs count="(\d+)"', xml).group(1))  # type: ignore[union-attr]
    xml = re.sub(rb'<cellXfs count="\d+">', b'<cellXfs count="%d">' % (xfs + 1), xml).replace(
        b"</cellXfs>",
        b'<xf numFmtId="190" fontId="0" fillId="%d" borderId="0" xfId="0" applyNumberFormat='
        b'"1" applyFill="1"/></cellXfs>' % fills,
    )
    xml = re.sub(rb'<dxfs count="(\d+)">', lambda m: b'<dxfs count="%d">' % (int(m.group(1)) + 1)
                 + b'<dxf><font><color rgb="FF9C0006"/></font><fill><patternFill><bgColor '
                 b'rgb="FFFFC7CE"/></patternFill></fill></dxf>', xml)  # fmt: skip
    return xml, xfs


def _workbook(xml: bytes, sheet_id: int) -> bytes:
    """Excel's workbook part: its namespaces, version, path, revision, calculation
    settings and extension list, and the umpire's sheet last."""
    xml = xml.replace(b"<workbook ", (
        f'{_HEAD}<workbook xmlns:mc="{_MC}" mc:Ignorable="x15 xr xr6 xr10 xr2" '
        'xmlns:x15="http://schemas.microsoft.com/office/spreadsheetml/2010/11/main" '
        'xmlns:xr="http://schemas.microsoft.com/office/spreadsheetml/2014/revision" '
        'xmlns:xr6="http://schemas.microsoft.com/office/spreadsheetml/2016/revision6" '
        'xmlns:xr10="http://schemas.microsoft.com/office/spreadsheetml/2016/revision10" '
        'xmlns:xr2="http://schemas.microsoft.com/office/spreadsheetml/2015/revision2" ').encode(),
        1)  # fmt: skip
    xml = re.sub(rb"<workbookPr\b[^>]*/>", (
        b'<fileVersion appName="xl" lastEdited="7" lowestEdited="7" rupBuild="27328"/>'
        b'<workbookPr defaultThemeVersion="202300"/><mc:AlternateContent><mc:Choice '
        b'Requires="x15"><x15ac:absPath url="C:\\Users\\umpire\\Documents\\" xmlns:x15ac='
        b'"http://schemas.microsoft.com/office/spreadsheetml/2010/11/ac"/></mc:Choice>'
        b'</mc:AlternateContent><xr:revisionPtr revIDLastSave="0" documentId="8_{6E1B2C3D-'
        b'4A5B-4C6D-8E7F-9A0B1C2D3E4F}" xr6:coauthVersionLast="47" xr6:coauthVersionMax="47" '
        b'xr10:uidLastSave="{00000000-0000-0000-0000-000000000000}"/>').replace(
            b"\\", b"\\\\"), xml, count=1)  # fmt: skip
    xml = xml.replace(b"</sheets>", (
        f'<sheet name="{UMPIRE_SHEET.replace(chr(39), "&apos;")}" sheetId="{sheet_id}" '
        'r:id="rId90"/></sheets>').encode())  # fmt: skip
    xml = re.sub(rb"<calcPr\b[^>]*/>", b'<calcPr calcId="191029"/>', xml)
    return xml.replace(b"</workbook>", (
        b'<extLst><ext uri="{140A7094-0E35-4892-8432-C4D2E57EDEB5}" xmlns:x15="http://schemas.'
        b'microsoft.com/office/spreadsheetml/2010/11/main"><x15:workbookPr '
        b'chartTrackingRefBase="1"/></ext><ext uri="{B58B0392-4F1F-4190-BB64-5DF3571DCE5F}" '
        b'xmlns:xcalcf="http://schemas.microsoft.com/office/spreadsheetml/2018/calcfeatures">'
        b'<xcalcf:calcFeatures><xcalcf:feature name="microsoft.com:RD"/><xcalcf:feature '
        b'name="microsoft.com:Single"/><xcalcf:feature name="microsoft.com:FV"/>'
        b'<xcalcf:feature name="microsoft.com:CNMTM"/></xcalcf:calcFeatures></ext></extLst>'
        b"</workbook>"))  # fmt: skip


def excel_shaped(source: Path, target: Path, kind: str) -> Path:
    """``source`` (a ledger of ``kind`` we wrote) as Excel writes it once the umpire has
    added the things ``kept_parts`` names; saved as ``target``."""
    wb = openpyxl.load_workbook(source)
    with zipfile.ZipFile(source) as z:
        infos = z.infolist()
        parts = {i.filename: z.read(i) for i in infos}
    periods_sheet = KINDS[kind].periods.sheet
    periods = sheet_part(parts, periods_sheet)
    strings = _shared_strings(parts)
    chain: list[tuple[int, str]] = []
    names = re.findall(r'<sheet\b[^>]*sheetId="(\d+)"', parts["xl/workbook.xml"].decode())
    for name in [n for n in parts if re.fullmatch(r"xl/worksheets/sheet\d+\.xml", n)]:
        xml, formulas = _shared_formulas(parts[name])
        parts[name] = _excel_sheet(xml)
        sheet_id = next(int(i) for s, i in zip(wb.sheetnames, names, strict=True)
                        if sheet_part(parts, s) == name)  # fmt: skip
        chain += [(sheet_id, ref) for ref in formulas]
    parts[periods] = _periods_formats(parts[periods], wb, kind)
    parts["xl/styles.xml"], style = _styles(parts["xl/styles.xml"])
    ws = next(ws for ws in wb.worksheets if KINDS[kind].periods.name in ws.tables)
    ref = ws.tables[KINDS[kind].periods.name].ref
    min_col, min_row, _, max_row = range_boundaries(ref)
    data = f"{get_column_letter(min_col)}{min_row + 1}:{get_column_letter(min_col)}{max_row}"
    umpire = _umpire_sheet(periods_sheet, data, strings, style)
    parts["xl/worksheets/sheet90.xml"] = umpire
    parts["xl/worksheets/_rels/sheet90.xml.rels"] = _rels(
        ("rId1", "drawing", "../drawings/drawing90.xml"),
        ("rId2", "vmlDrawing", "../drawings/vmlDrawing90.vml"),
        ("rId3", "comments", "../comments90.xml"),
    )
    parts["xl/comments90.xml"] = _COMMENTS
    parts["xl/drawings/vmlDrawing90.vml"] = _VML
    parts["xl/drawings/drawing90.xml"] = _DRAWING
    parts["xl/drawings/_rels/drawing90.xml.rels"] = _rels(("rId1", "image", "../media/image90.png"))
    parts["xl/media/image90.png"] = _png()
    space = ' xml:space="preserve"'
    items = "".join(f"<si><t{space if s != s.strip() else ''}>{html.escape(s, quote=False)}"
                    "</t></si>" for s in strings)  # fmt: skip
    parts["xl/sharedStrings.xml"] = (
        f'{_HEAD}<sst xmlns="{_MAIN}" count="{len(strings)}" uniqueCount="{len(strings)}">'
        f"{items}</sst>"
    ).encode()
    last_sheet = -1
    cells = []
    for sheet_id, cell in chain:
        cells.append(f'<c r="{cell}" i="{sheet_id}"/>' if sheet_id != last_sheet else
                     f'<c r="{cell}"/>')  # fmt: skip
        last_sheet = sheet_id
    parts["xl/calcChain.xml"] = (
        f'{_HEAD}<calcChain xmlns="{_MAIN}">{"".join(cells)}</calcChain>'.encode()
    )
    sheet_id = max(int(i) for i in names) + 1
    parts["xl/workbook.xml"] = _workbook(parts["xl/workbook.xml"], sheet_id)
    parts["xl/_rels/workbook.xml.rels"] = parts["xl/_rels/workbook.xml.rels"].replace(
        b"</Relationships>",
        (f'<Relationship Id="rId90" Type="{_RELS}/worksheet" Target="worksheets/sheet90.xml"/>'
         f'<Relationship Id="rId91" Type="{_RELS}/sharedStrings" Target="sharedStrings.xml"/>'
         f'<Relationship Id="rId92" Type="{_RELS}/calcChain" Target="calcChain.xml"/>'
         "</Relationships>").encode(),
    )  # fmt: skip
    office = "application/vnd.openxmlformats-officedocument"
    parts["[Content_Types].xml"] = parts["[Content_Types].xml"].replace(
        b"</Types>",
        (f'<Default Extension="png" ContentType="image/png"/>'
         f'<Default Extension="vml" ContentType="{office}.vmlDrawing"/>'
         f'<Override PartName="/xl/worksheets/sheet90.xml" ContentType="{office}.spreadsheetml'
         '.worksheet+xml"/>'
         f'<Override PartName="/xl/comments90.xml" ContentType="{office}.spreadsheetml.'
         'comments+xml"/>'
         f'<Override PartName="/xl/drawings/drawing90.xml" ContentType="{office}.drawing+xml"/>'
         f'<Override PartName="/xl/sharedStrings.xml" ContentType="{office}.spreadsheetml.'
         'sharedStrings+xml"/>'
         f'<Override PartName="/xl/calcChain.xml" ContentType="{office}.spreadsheetml.'
         'calcChain+xml"/></Types>').encode(),
    )  # fmt: skip
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as out:
        for name, data_ in parts.items():
            out.writestr(name, data_)
    return target
