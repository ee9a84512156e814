# SPDX-License-Identifier: GPL-2.0
"""
The references a traced program made to its buffer, in passes.

refs(DUMP, PID, BASE, NPAGES): from the text of `vmtrace dump-raw`, the
references of process PID to the NPAGES pages from BASE, in time order (file
order within a CPU), as (time, page, fields).

passes(DUMP, PID, BASE, NPAGES): from the text of `vmtrace dump-raw`, the
references of process PID to the NPAGES pages from BASE, in time order, as
passes over the buffer: each pass goes from the first page to the last, so a
page lower than the one before starts a new pass. Each reference is a tuple
(page, cause, access). describe() prints one line a pass, with the causes.
"""


def refs(dump, pid, base, npages):
    """The references as (time, page, fields), fields all of the line's."""
    out = []
    for n, line in enumerate(open(dump)):
        w = line.split()
        if w[1] != "ref":
            continue
        f = dict(kv.split("=", 1) for kv in w[2:] if "=" in kv)
        a = int(f["addr"], 16)
        if f["pid"] == pid and base <= a < base + npages * 4096:
            out.append((int(w[0]), n, (a - base) // 4096, f))
    out.sort(key=lambda r: r[:2])
    return [(t, page, f) for t, _, page, f in out]


def passes(dump, pid, base, npages):
    out = []
    for _, page, f in refs(dump, pid, base, npages):
        if not out or page < out[-1][-1][0]:
            out.append([])
        out[-1].append((page, f["cause"], f["access"]))
    return out


def describe(prefix, name, p):
    causes = {}
    for _, cause, access in p:
        causes[f"{cause}/{access}"] = causes.get(f"{cause}/{access}", 0) + 1
    print(f"{prefix}pass {name}: {len(p)} references to {len({r[0] for r in p})} pages: "
          + ", ".join(f"{n} {k}" for k, n in sorted(causes.items())))
