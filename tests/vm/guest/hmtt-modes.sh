#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmtrace hmtt's kernel/user split on a recorded trace where the kernel
# makes the data: a program writes N fresh pages of a buffer itself, then
# read()s /dev/zero into M more, whose pages the kernel's copy faults in
# (kernel mode). The buffer's references are N user-mode writes and M
# kernel-mode ones (dump); the traffic section's references, reads and
# writes of each mode are dump's counts over the whole trace, so at least N
# and M.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"
n=48 m=80
cat >modes.py <<'PY'
import ctypes, mmap, sys
n, m = int(sys.argv[1]), int(sys.argv[2])
buf = mmap.mmap(-1, (n + m) * 4096, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
base = ctypes.addressof(ctypes.c_char.from_buffer(buf))
with open(sys.argv[3], "w") as f:
    f.write(f"{base:#x}\n")
for i in range(n):
    buf[i * 4096] = 1                   # the program's own writes: user mode
with open("/dev/zero", "rb", buffering=0) as z:
    view = memoryview(buf)[n * 4096:]
    assert z.readinto(view) == m * 4096  # read()'s copy: kernel mode
    view.release()
PY
vmtrace record -q -o modes.vmt -- python3 modes.py $n $m base.txt
vmtrace dump modes.vmt >modes.txt
# The buffer's pages: the mode and access of each reference, by page.
python3 - "$(cat base.txt)" $n $m <<'PY'
import sys
base, n, m = int(sys.argv[1], 16), int(sys.argv[2]), int(sys.argv[3])
seen = {}
for line in open("modes.txt"):
    w = line.split()
    if len(w) < 2 or w[1] != "ref":
        continue
    f = dict(kv.split("=", 1) for kv in w[2:] if "=" in kv)
    page = (int(f["addr"], 16) - base) // 4096
    if 0 <= page < n + m:
        seen.setdefault(page, []).append((f["mode"], f["access"]))
user = [p for p in range(n) if seen.get(p) == [("user", "W")]]
kernel = [p for p in range(n, n + m) if seen.get(p) == [("kernel", "W")]]
assert len(user) == n, f"{len(user)} of the first {n} pages written once in user mode: {seen}"
assert len(kernel) == m, f"{len(kernel)} of the last {m} pages written once in kernel mode: {seen}"
print(f"the buffer: {n} pages written by the program, {m} by read() in kernel mode")
PY
vmtrace hmtt --section traffic --csv modes.vmt >h.csv || fail "hmtt --section traffic failed"
# references, reads, writes of each mode: a write has W in its access (RW
# is both), anything else is a read.
got=$(awk -F, '$1 == "user" || $1 == "kernel" { print $1, $2, $4, $5 }' h.csv)
want=$(awk '$2 == "ref" {
	mode = $0; sub(/.* mode=/, "", mode); sub(/ .*/, "", mode)
	access = $0; sub(/.* access=/, "", access); sub(/ .*/, "", access)
	refs[mode]++
	if (access ~ /W/) writes[mode]++
	if (access != "W") reads[mode]++
} END {
	printf "user %d %d %d\nkernel %d %d %d\n", refs["user"], reads["user"], writes["user"],
		refs["kernel"], reads["kernel"], writes["kernel"]
}' modes.txt)
expect_eq "$got" "$want" "hmtt: references, reads and writes by mode against dump"
read -r _ user _ <<<"$(sed -n 1p <<<"$got")"
read -r _ kernel _ <<<"$(sed -n 2p <<<"$got")"
[ "$user" -ge $n ] || fail "hmtt: $user user-mode references, the program wrote $n pages"
[ "$kernel" -ge $m ] || fail "hmtt: $kernel kernel-mode references, read() filled $m pages"
echo "hmtt: user, kernel mode (references, reads, writes): $(paste -sd';' <<<"$got")"
