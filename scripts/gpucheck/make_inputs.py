#!/usr/bin/env python3
"""Make the small synthetic input files that gpucheck/run.sh feeds to three
HeCBench programs whose real inputs are not in shared/suites/hecbench:

  ced-cuda:      input/peppa/0.txt   one 130x130 grey frame (text: rows, cols, pixels)
  sad-cuda:      coins.bmp (70x50), coin.bmp (8x8, cut from coins.bmp at x=20,y=10)
  minibude-cuda: deck/{ligand,protein,forcefield,poses}.in, deck/ref_energies.out

Deterministic (fixed seed). Run from anywhere: python3 make_inputs.py
scripts/gpucheck/prepare runs this in its DEST folder, so run.sh does not need Python.
"""
import math
import os
import random
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
HB = os.path.join(HERE, "hecbench")
rng = random.Random(12345)


def ced():
    d = os.path.join(HB, "ced-cuda", "input", "peppa")
    os.makedirs(d, exist_ok=True)
    rows = cols = 130
    lines = [str(rows), str(cols)]
    for r in range(rows):
        row = []
        for c in range(cols):
            # smooth blobs plus noise, so the edge detector has edges to find
            v = 128 + 90 * math.sin(r / 9.0) * math.cos(c / 13.0) + rng.randint(-20, 20)
            row.append(str(max(0, min(255, int(v)))))
        lines.append(" ".join(row))
    with open(os.path.join(d, "0.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")


def write_bmp(path, w, h, pix):
    """pix[y][x] = (r, g, b), y = 0 is the top row; 24-bit bottom-up BMP."""
    pad = (4 - (3 * w) % 4) % 4
    size_image = (3 * w + pad) * h
    fh = struct.pack("<2sIHHI", b"BM", 14 + 40 + size_image, 0, 0, 14 + 40)
    ih = struct.pack("<IiiHHIIiiII", 40, w, h, 1, 24, 0, size_image, 0, 0, 0, 0)
    with open(path, "wb") as f:
        f.write(fh)
        f.write(ih)
        for y in range(h - 1, -1, -1):
            for x in range(w):
                r, g, b = pix[y][x]
                f.write(bytes((b, g, r)))
            f.write(b"\0" * pad)


def sad():
    d = os.path.join(HB, "sad-cuda")
    W, H = 70, 50          # (50-8+1)*(70-8+1) = 2709 SAD entries, not a multiple of 256
    img = [[(rng.randint(0, 255), rng.randint(0, 255), rng.randint(0, 255)) for _ in range(W)]
           for _ in range(H)]
    write_bmp(os.path.join(d, "coins.bmp"), W, H, img)
    tx, ty, tw, th = 20, 10, 8, 8
    tmpl = [row[tx:tx + tw] for row in img[ty:ty + th]]
    write_bmp(os.path.join(d, "coin.bmp"), tw, th, tmpl)


def minibude(nposes=1024, natlig=26, natpro=64, ntypes=34):
    d = os.path.join(HB, "minibude-cuda", "deck")
    os.makedirs(d, exist_ok=True)
    # struct Atom { float x, y, z; int32_t type; } (packed, 16 bytes)
    with open(os.path.join(d, "ligand.in"), "wb") as f:
        for _ in range(natlig):
            f.write(struct.pack("<fffi", *(rng.uniform(-2, 2) for _ in range(3)), rng.randrange(ntypes)))
    with open(os.path.join(d, "protein.in"), "wb") as f:
        for _ in range(natpro):
            f.write(struct.pack("<fffi", *(rng.uniform(-10, 10) for _ in range(3)), rng.randrange(ntypes)))
    # struct FFParams { int32_t hbtype; float radius, hphb, elsc; } (packed, 16 bytes)
    with open(os.path.join(d, "forcefield.in"), "wb") as f:
        for _ in range(ntypes):
            f.write(struct.pack("<ifff", rng.choice((0, 69, 70)), rng.uniform(1, 2),
                                rng.uniform(-1, 1), rng.uniform(-1, 1)))
    # poses: 6 arrays of nposes floats (3 angles, 3 translations), array after array
    with open(os.path.join(d, "poses.in"), "wb") as f:
        for k in range(6):
            for _ in range(nposes):
                v = rng.uniform(0, 2 * math.pi) if k < 3 else rng.uniform(-5, 5)
                f.write(struct.pack("<f", v))
    # No true reference energies exist for this deck; main() only needs nposes
    # lines to read (it then prints a meaningless "Largest difference").
    with open(os.path.join(d, "ref_energies.out"), "w") as f:
        f.write("0.00\n" * nposes)


if __name__ == "__main__":
    ced()
    sad()
    minibude()
    print("inputs written under", HB)
