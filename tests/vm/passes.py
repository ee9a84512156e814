# SPDX-License-Identifier: GPL-2.0
"""
The references a traced program made to its buffer, in passes.

passes(DUMP, PID, BASE, NPAGES): from the text of `vmtrace dump-raw`, the
references of process PID to the NPAGES pages from BASE, in time order, as
passes over the buffer: each pass goes from the first page to the last, so a
page lower than the one before starts a new pass. Each reference is a tuple
(page, cause, access). describe() prints one line a pass, with the causes.
"""


def passes(dump, pid, base, npages):
    refs = []
    for n, line in enumerate(open(dump)):
        w = line.split()
        if w[1] != "ref":
            continue
        f = dict(kv.split("=", 1) for kv in w[2:] if "=" in kv)
        a = int(f["addr"], 16)
        if f["pid"] == pid and base <= a < base + npages * 4096:
            refs.append((int(w[0]), n, (a - base) // 4096, f["cause"], f["access"]))
    refs.sort()
    out = []
    for r in refs:
        if not out or r[2] < out[-1][-1][0]:
            out.append([])
        out[-1].append(r[2:])
    return out


def describe(prefix, name, p):
    causes = {}
    for _, cause, access in p:
        causes[f"{cause}/{access}"] = causes.get(f"{cause}/{access}", 0) + 1
    print(f"{prefix}pass {name}: {len(p)} references to {len({r[0] for r in p})} pages: "
          + ", ".join(f"{n} {k}" for k, n in sorted(causes.items())))
