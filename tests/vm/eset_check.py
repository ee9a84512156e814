#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""
eset_check.py DUMP BASE NPAGES SEQUENCE N POLICY

Checks a trace of tests/vm/progs/touch-pages.c (the text of `vmtrace
dump-raw`) against a model of the enabled set written from its specification
(include/uapi/linux/vmtrace.h, kernel/protect/enabled_set.c's comment), independently of the
kernel's code:

- every fault of the process is replayed through the model, in time order;
  the pages the model evicts must be exactly the EVICT records, in order,
  and each EVICT's dirty flag must say whether the page was written while
  enabled;
- the program's own accesses to its buffer are replayed between those
  faults: an access to a page outside the model's set must be the next
  buffer reference (same byte address and access type), and an access to a
  page inside it must not appear at all.

Under CLOCK the model cannot know every Accessed bit: the references to
code, stack and libc pages are unknown, and a fault on one of those may come
before or after the buffer accesses around it. So it takes the kernel's word
on them (a page counts as accessed unless it is the kernel's next eviction)
and checks the rest: victims are taken in hand order, never from the current
run, and the pages passed over go round again in order. The test compares
the policies' effect on a hot page separately.
"""
import sys

PAGE = 4096
PIN_MAX = 6
BATCH_MAX = 16


class EnabledSet:
    def __init__(self, capacity, clock):
        self.capacity, self.clock = capacity, clock
        # A set over N pages evicts down to N + 1 - batch (N/32, 1 to 16).
        self.batch = min(BATCH_MAX, max(1, capacity // 32))
        self.queue = []  # entries, oldest first: [page, tid, ip, run, pos]
        self.run = 0
        self.run_len = 0
        self.run_key = None

    def pages(self):
        return {e[0] for e in self.queue}

    def admit(self, page, tid, ip, kernel):
        self.queue = [e for e in self.queue if e[0] != page]
        if self.run_len and self.run_key[0] == tid and (kernel or self.run_key[1] == ip):
            self.run_len += 1
        else:
            self.run += 1
            self.run_len = 1
            self.run_key = (tid, ip)
        self.queue.append([page, tid, ip, self.run, self.run_len - 1])

    def pinned(self, e):
        return e[3] == self.run and e[4] + PIN_MAX >= self.run_len

    def is_young(self, page, buffer_pages, next_kernel_victim):
        return page != next_kernel_victim()

    def evict(self, buffer_pages, next_kernel_victim):
        """Oldest first, pinned ones stay put, CLOCK's accessed ones go last."""
        if len(self.queue) <= self.capacity:
            return
        goal = self.capacity + 1 - self.batch
        for _ in range(2):
            for e in list(self.queue):
                if len(self.queue) <= goal:
                    return
                if self.pinned(e):
                    continue
                self.queue.remove(e)
                if self.clock and self.is_young(e[0], buffer_pages, next_kernel_victim):
                    self.queue.append(e)
                    continue
                yield e[0]


def parse_dump(path, pid):
    refs, evicts = [], []
    for line in open(path):
        w = line.split()
        if w[1] not in ("ref", "evict"):
            continue
        f = dict(kv.split("=", 1) for kv in w[2:])
        if int(f["pid"]) != pid:
            continue
        rec = dict(time=int(w[0]), addr=int(f["addr"], 16), tid=int(f["tid"]))
        if w[1] == "ref":
            rec.update(ip=int(f["ip"], 16), access=f["access"], kernel=f["mode"] == "kernel")
            refs.append(rec)
        else:
            rec.update(dirty=f["dirty"] == "1")
            evicts.append(rec)
    refs.sort(key=lambda r: r["time"])
    evicts.sort(key=lambda r: r["time"])
    return refs, evicts


def main():
    path, base, npages, sequence, capacity, policy = sys.argv[1:7]
    base, npages, capacity = int(base, 16), int(npages), int(capacity)
    pid = int(sys.argv[7])
    accesses = [(int(a[:-1]), a[-1] == "w") for a in sequence.split(",")]
    refs, evicts = parse_dump(path, pid)
    buffer_pages = {base + i * PAGE for i in range(npages)}
    in_buffer = lambda addr: base <= addr < base + npages * PAGE

    model = EnabledSet(capacity, policy == "clock")
    matched = 0  # kernel evictions the model made too, in order
    buffer_evicts = dirty_evicts = 0
    written = set()  # enabled buffer pages written since admission
    pending = False  # kernel-mode faults wait for the return to user space

    def next_kernel_victim():
        return evicts[matched]["addr"] if matched < len(evicts) else None

    def evict():
        nonlocal matched, buffer_evicts, dirty_evicts
        for page in model.evict(buffer_pages, next_kernel_victim):
            if matched == len(evicts):
                # The process may exit before a last eviction runs.
                return
            e = evicts[matched]
            if e["addr"] != page:
                sys.exit(f"eviction {matched}: kernel {e['addr']:#x}, model {page:#x}")
            if in_buffer(page):
                if e["dirty"] != (page in written):
                    sys.exit(f"eviction {matched} of buffer page {(page - base) // PAGE}: "
                             f"dirty={e['dirty']}, model {page in written}")
                buffer_evicts += 1
                dirty_evicts += e["dirty"]
            written.discard(page)
            matched += 1

    def replay(ref):
        nonlocal pending
        if pending and not ref["kernel"]:
            evict()
        page = ref["addr"] & ~(PAGE - 1)
        model.admit(page, ref["tid"], ref["ip"], ref["kernel"])
        if ref["access"] == "W" and in_buffer(page):
            written.add(page)
        if ref["kernel"]:
            pending = True
        else:
            pending = False
            evict()

    i = 0
    logged = 0
    for k, (p, write) in enumerate(accesses):
        while i < len(refs) and not in_buffer(refs[i]["addr"]):
            replay(refs[i])
            i += 1
        # The access is user code: kernel-mode faults before it were evicted for.
        if pending:
            evict()
            pending = False
        page = base + p * PAGE
        addr = page + 8 * (k % 512)
        if page in model.pages():
            if write:
                written.add(page)
            continue
        if i == len(refs):
            sys.exit(f"access {k} ({p}{'w' if write else 'r'}) to a protected page was not logged")
        ref = refs[i]
        want = "W" if write else "R"
        if ref["addr"] != addr or ref["access"] != want:
            sys.exit(f"access {k}: expected {want} at {addr:#x}, "
                     f"logged {ref['access']} at {ref['addr']:#x}")
        replay(ref)
        i += 1
        logged += 1
    for ref in refs[i:]:
        if in_buffer(ref["addr"]):
            sys.exit(f"unexpected buffer reference {ref['access']} at {ref['addr']:#x}")
        replay(ref)
    if pending:
        evict()

    if matched != len(evicts):
        sys.exit(f"the kernel evicted {len(evicts)} pages, the model {matched}; "
                 f"first extra: {evicts[matched]['addr']:#x}")
    print(f"{policy} N={capacity}: {len(accesses)} accesses, {logged} logged as the model "
          f"predicts; {matched} evictions ({buffer_evicts} of buffer pages, "
          f"{dirty_evicts} dirty) as the model predicts")
    # Printed for the test to compare policies.
    print("logged-pages " + " ".join(str((r["addr"] - base) // PAGE)
                                     for r in refs if in_buffer(r["addr"])))


main()
