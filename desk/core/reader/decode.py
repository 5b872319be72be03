"""Raw bytes of a list file to text: BOMs, UTF-8, UTF-16, GBK and the Western code pages."""

from __future__ import annotations

import re

from charset_normalizer import from_bytes

NOT_TEXT = "is not a text file"
UNDECIDED = "could not tell its text encoding; save it as UTF-8 and import it again"

# Checked longest first: the UTF-32 LE mark begins with the UTF-16 LE one.
_BOMS: tuple[tuple[bytes, str, str], ...] = (
    (b"\xff\xfe\x00\x00", "utf-32-le", "utf-32"),
    (b"\x00\x00\xfe\xff", "utf-32-be", "utf-32"),
    (b"\xef\xbb\xbf", "utf-8", "utf-8-sig"),
    (b"\xff\xfe", "utf-16-le", "utf-16"),
    (b"\xfe\xff", "utf-16-be", "utf-16"),
)

# Formats that can be mostly printable bytes (a zip of stored text members, an uncompressed PDF),
# which the byte statistics below would let through.
_BINARY_MAGIC: tuple[bytes, ...] = (
    b"\x89PNG\r\n\x1a\n",
    b"PK\x03\x04",
    b"PK\x05\x06",
    b"PK\x07\x08",
    b"\x7fELF",
    b"%PDF-",
    b"GIF87a",
    b"GIF89a",
    b"\xff\xd8\xff",
    b"\x1f\x8b",
    b"7z\xbc\xaf\x27\x1c",
    b"Rar!\x1a\x07",
    b"\xfd7zXZ\x00",
    b"\x28\xb5\x2f\xfd",
    b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",
    b"SQLite format 3\x00",
    b"\xcf\xfa\xed\xfe",
    b"\xce\xfa\xed\xfe",
    b"\xca\xfe\xba\xbe",
)

# C0 controls that never occur in text; tab, line ends, form feed, SUB (old DOS end-of-file) and
# ESC (terminal colours in pasted text) do, and the text cleaner removes them.
_CONTROL_BYTES = bytes(b for b in range(32) if b not in b"\t\n\v\f\r\x1a\x1b") + b"\x7f"
_MAX_CONTROL_SHARE = 0.01
_FEW_CONTROLS = 8  # tolerated in a short file whatever the share

_LEGACY_CANDIDATES = ["gbk", "cp1252", "latin_1"]
_STEPS = 5
_MAX_CHAOS = 0.1
_CHAOS_MARGIN = 0.02
_GB2312_SHARE = 0.9
_GB2312_SAMPLE = 1_000_000

_INVALID_UTF8 = re.compile("[\udc80-\udcff]")
_C1_BYTES = re.compile(b"[\x80-\x9f]")
_ASCII = re.compile("[\x00-\x7f]+")
# Controls as in _CONTROL_BYTES plus C1, lone surrogates, private use and noncharacters.
_BAD_CHARS = re.compile("[\x00-\x08\x0e-\x19\x7f-\x84\x86-\x9f\ud800-\udfff\ue000-\uf8ff\ufffe\uffff]")
# Outside Latin, Greek, Cyrillic, Hebrew, Arabic, general punctuation and symbols, CJK and kana.
_UNCOMMON_CHARS = re.compile(
    "[^\x00-\u024f\u0370-\u052f\u0590-\u06ff\u1e00-\u22ff\u3000-\u30ff\u4e00-\u9fff\uff00-\uffef]"
)


def decode_list_bytes(data: bytes) -> tuple[str, str]:
    """Decode a list file's bytes; return ``(text, encoding)``.

    Raises ``ValueError(reason)`` when the bytes are not text or their encoding cannot be told
    with confidence. A few stray NUL bytes are dropped.
    """
    if not data:
        return "", "utf-8"
    for bom, codec, label in _BOMS:
        if data.startswith(bom):
            return _decode_with_bom(data[len(bom) :], codec, label), label
    if data.startswith(_BINARY_MAGIC):
        raise ValueError(NOT_TEXT)
    sniffed = _sniff_utf16(data)
    if sniffed is not None:
        return sniffed
    controls = len(data) - len(data.translate(None, _CONTROL_BYTES))
    if _too_many(controls, len(data)):
        raise ValueError(NOT_TEXT)
    if controls:
        data = data.replace(b"\x00", b"")
    try:
        return data.decode("utf-8"), "utf-8"
    except UnicodeDecodeError:
        pass
    _refuse_damaged_utf8(data)
    return _decode_legacy(data)


def _decode_with_bom(body: bytes, codec: str, label: str) -> str:
    try:
        text = body.decode(codec)
    except UnicodeDecodeError:
        name = label.upper().removesuffix("-SIG")
        raise ValueError(
            f"could not tell its text encoding: it starts with a {name} mark but is not {name}"
        ) from None
    if _too_many(_bad_char_count(text), len(text)):
        raise ValueError(NOT_TEXT)
    return text.replace("\x00", "")


def _sniff_utf16(data: bytes) -> tuple[str, str] | None:
    """BOM-less UTF-16, recognised by NULs in the high byte of many code units (the ASCII ones)."""
    if len(data) % 2 or len(data) < 4:
        return None
    units = len(data) // 2
    even, odd = data[0::2].count(0), data[1::2].count(0)
    # The other byte is NUL too for a few CJK characters (一 is U+4E00), hence only twice as many.
    if odd >= units * 0.05 and odd > 2 * even:
        codec = "utf-16-le"
    elif even >= units * 0.05 and even > 2 * odd:
        codec = "utf-16-be"
    else:
        return None
    try:
        text = data.decode(codec)
    except UnicodeDecodeError:
        return None
    # Stricter than for a marked file: here the bytes only might be UTF-16.
    if _bad_char_count(text) > len(text) * _MAX_CONTROL_SHARE or _common_char_share(text) < 0.95:
        return None
    return text.replace("\x00", ""), codec


def _too_many(bad: int, total: int) -> bool:
    return bad > max(_FEW_CONTROLS, total * _MAX_CONTROL_SHARE)


def _bad_char_count(text: str) -> int:
    """Characters that do not occur in text: controls, surrogates, private use, noncharacters."""
    return _BAD_CHARS.subn("", text)[1]


def _common_char_share(text: str) -> float:
    """Share of characters from the scripts and symbols of ordinary text."""
    return 1 - _UNCOMMON_CHARS.subn("", text)[1] / len(text) if text else 0.0


def _refuse_damaged_utf8(data: bytes) -> None:
    """Refuse UTF-8 with a few broken bytes rather than reading it as mojibake in a legacy code page."""
    loose = data.decode("utf-8", "surrogateescape")
    invalid = len(_INVALID_UTF8.findall(loose))
    valid = len(loose) - len(loose.encode("ascii", "ignore")) - invalid
    if valid >= invalid:
        match = _INVALID_UTF8.search(loose)
        first = len(loose[: match.start()].encode("utf-8", "surrogateescape")) if match else 0
        bad = f"{invalid} bytes that are" if invalid != 1 else "1 byte that is"
        raise ValueError(
            f"could not tell its text encoding: it reads as UTF-8 except for {bad} not UTF-8 "
            f"(the first at byte {first + 1})"
        )


def _decode_legacy(data: bytes) -> tuple[str, str]:
    """GBK, Windows-1252 or Latin-1: charset-normalizer's choice, refused unless it is clear."""
    # charset-normalizer samples `steps` chunks len // steps apart, plus a 1-4 byte tail chunk when the
    # length is not a multiple of steps; a tail such as "." alone scores as pure mess. Pad it away.
    padded = data + b"\n" * (-len(data) % _STEPS)
    results = from_bytes(padded, steps=_STEPS, cp_isolation=_LEGACY_CANDIDATES, preemptive_behaviour=False)
    best = results.best()
    gbk_text = _decode_or_none(data, "gbk")
    if gbk_text is not None and _gb2312_share(gbk_text) >= _GB2312_SHARE:
        # GBK-encoded English with Chinese punctuation (“ is A1 B0) reads as "¡°" in Windows-1252,
        # which charset-normalizer scores as clean; real Chinese text is nearly all GB2312 pairs.
        best = next((match for match in results if match.encoding == "gbk"), None)
    if best is None or best.chaos > _MAX_CHAOS:
        raise ValueError(UNDECIDED)
    if best.encoding == "gbk" and gbk_text is not None:
        codec, text = "gbk", gbk_text
    elif best.encoding == "gbk":
        raise ValueError(UNDECIDED)
    elif (western := _decode_or_none(data, "cp1252")) is not None:
        # Without bytes 0x80-0x9F the two agree; name the narrower one.
        codec, text = ("cp1252" if _C1_BYTES.search(data) else "latin-1"), western
    else:
        codec, text = "latin-1", data.decode("latin-1")
    # A Korean, Japanese or Central European file can decode in a candidate code page as plausible
    # junk; refuse it when a code page outside the candidates reads it clearly better.
    rival = from_bytes(
        padded, steps=_STEPS, cp_exclusion=_LEGACY_CANDIDATES, preemptive_behaviour=False
    ).best()
    if (
        rival is not None
        and rival.chaos + _CHAOS_MARGIN < best.chaos
        and str(rival).rstrip("\n") != text.rstrip("\n")
    ):
        raise ValueError(UNDECIDED)
    return text, codec


def _decode_or_none(data: bytes, codec: str) -> str | None:
    try:
        return data.decode(codec)
    except UnicodeDecodeError:
        return None


def _gb2312_share(text: str) -> float:
    """Share of non-ASCII characters in GBK's common areas, from a sample.

    Those are GB2312 (both bytes 0xA1 or above) and the GBK punctuation rows 0xA8-0xA9 (– is A8 43);
    Latin-1 letters read as GBK pair with the ASCII letter after them and fall outside both.
    """
    wide = _ASCII.sub("", text[:_GB2312_SAMPLE])
    if not wide:
        return 0.0
    return sum(1 for ch in wide if _in_common_gbk_area(ch.encode("gbk"))) / len(wide)


def _in_common_gbk_area(pair: bytes) -> bool:
    lead, trail = pair[0], pair[1]
    return (0xA1 <= lead <= 0xF7 and trail >= 0xA1) or (0xA8 <= lead <= 0xA9 and 0x40 <= trail <= 0xA0)
