#!/usr/bin/env python3
"""Draws the console's app icons (src/icons/icon-192.png, icon-512.png): a blue square with three
bars, the same picture as src/icons/icon.svg. Run it after changing the picture; the PNGs are
committed (a phone's home screen wants PNG icons)."""
import os
import struct
import zlib

BLUE = (31, 95, 191)
WHITE = (255, 255, 255)
# the bars, in a 24-unit square: (x0, x1, y0) with y1 = 19
BARS = [(5, 8, 11), (10.5, 13.5, 6), (16, 19, 13)]


def pixel(x, y, n):
    u, v = x * 24 / n, y * 24 / n
    for x0, x1, y0 in BARS:
        if x0 <= u < x1 and y0 <= v < 19:
            return WHITE
    return BLUE


def png(n):
    rows = b"".join(b"\x00" + bytes(c for x in range(n) for c in pixel(x, y, n)) for y in range(n))

    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", n, n, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))


here = os.path.dirname(os.path.abspath(__file__))
for size in (192, 512):
    with open(os.path.join(here, "src", "icons", f"icon-{size}.png"), "wb") as f:
        f.write(png(size))
