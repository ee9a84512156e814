#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# babeltrace2 merges vmtrace's trace of a run with LTTng's trace of the same
# run, and the two line up: vmt-malloc-phases mallocs 4 MiB (glibc maps it),
# writes its pages 500 ms later and frees it (glibc unmaps it) 500 ms after
# that, under LTTng's libc wrapper (lttng_ust_libc:malloc and free, an LTTng
# userspace session: Debian's lttng-modules 2.13.9 does not build for
# 6.1.0-56, so there is no LTTng kernel trace to take) and under vmtrace
# record -e vma. Plain babeltrace2 with both traces' folders: the events come
# in time order; LTTng's malloc is next to vmtrace's mmap of the block and its
# free next to the munmap (each within 50 ms: the phases are 500 ms apart),
# and the first reference to the block falls between the malloc and the free.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"

lttng-sessiond --daemonize --no-kernel >sessiond.log 2>&1 || { cat sessiond.log; fail "lttng-sessiond"; }
lttng create merge --output=/tmp/lttng >lttng.log
lttng enable-event --userspace 'lttng_ust_libc:malloc,lttng_ust_libc:free' >>lttng.log
lttng add-context --userspace --type=vpid >>lttng.log
lttng start >>lttng.log || { cat lttng.log; fail "lttng start"; }
vmtrace record -q -o run.vmt -e vma -- \
	env LD_PRELOAD=liblttng-ust-libc-wrapper.so.1 /opt/vmtrace/bin/vmt-malloc-phases >prog.out ||
	fail "vmtrace record"
lttng stop >>lttng.log
lttng destroy >>lttng.log
cat prog.out
vmtrace info run.vmt | grep '^session'

babeltrace2 --plugin-path "$VMT_LIB/babeltrace2" --clock-seconds run.vmt /tmp/lttng >merged.txt 2>bt.err ||
	{ head -20 bt.err; fail "babeltrace2 run.vmt /tmp/lttng"; }
python3 - "$(sed -n 's/^block \(0x[0-9a-f]*\),.*/\1/p' prog.out)" <<'PY' || fail "the merged traces"
import re, sys
block, size = int(sys.argv[1], 16), 4 << 20
line_re = re.compile(r'^\[(\d+)\.(\d{9})\] \([^)]*\) (?:\S+ )?(\w+:\w+): (.*)$')
def field(text, name):
    m = re.search(r'\b%s = (?:\( "(\w+)"|(0x[0-9A-Fa-f]+|\d+))' % name, text)
    return None if not m else m.group(1) or int(m.group(2), 0)
last, events, ok = 0, 0, True
t_malloc = t_free = t_map = t_unmap = t_ref = None
for line in open("merged.txt"):
    m = line_re.match(line)
    if not m:
        sys.exit("not an event line: " + line)
    t, name, rest = int(m.group(1)) * 10**9 + int(m.group(2)), m.group(3), m.group(4)
    if t < last:
        sys.exit("out of time order: " + line)
    last, events = t, events + 1
    if name == "lttng_ust_libc:malloc" and field(rest, "size") == size and field(rest, "ptr") == block:
        t_malloc = t
    elif name == "lttng_ust_libc:free" and field(rest, "ptr") == block:
        t_free = t
    elif name == "vmtrace:vma" and field(rest, "start") == block - 16:
        # glibc's mapping of the block: its chunk header, then the block
        if field(rest, "op") == "map":
            t_map = t
        else:
            t_unmap = t
    elif name == "vmtrace:ref" and t_ref is None and block <= field(rest, "addr") < block + size:
        t_ref = t
got = dict(malloc=t_malloc, free=t_free, mmap=t_map, munmap=t_unmap, first_ref=t_ref)
missing = [k for k, v in got.items() if v is None]
if missing:
    sys.exit("not in the merged events: %s" % ", ".join(missing))
print("merged: %d events in time order" % events)
print("malloc - mmap: %+.3f ms; free - munmap: %+.3f ms; first reference - malloc: %+.1f ms; free - first reference: %+.1f ms"
      % ((t_malloc - t_map) / 1e6, (t_free - t_unmap) / 1e6, (t_ref - t_malloc) / 1e6, (t_free - t_ref) / 1e6))
if abs(t_malloc - t_map) > 50e6 or abs(t_free - t_unmap) > 50e6:
    sys.exit("LTTng's malloc and free are not within 50 ms of vmtrace's mmap and munmap")
if not t_malloc < t_ref < t_free:
    sys.exit("the first reference to the block is not between its malloc and its free")
PY
