#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# A traced process stops tracing from a system call that faults on one of
# its protected pages: the kernel reads "off" (a write() to the sysfs state
# file), or the module's name (delete_module(), rmmod), from that page. Stop
# waits for the evictions queued on the way back to user space; the
# stopping thread is not on its way there, so stop must not wait for it.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"

# stopper.py MODE: maps a page holding the bytes the kernel is to read,
# waits for "go", then hands the kernel the page itself (no copy in Python).
cat >stopper.py <<'PY'
import ctypes, mmap, os, sys, time
mode = sys.argv[1]
m = mmap.mmap(-1, 4096)
text = b"off\n" if mode == "sysfs" else b"vmtrace\0"
m[0:len(text)] = text
addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
with open("base.txt", "w") as f:
    f.write(f"{addr:#x}\n")
open("ready", "w").close()
while not os.path.exists("go"):
    time.sleep(0.01)
if mode == "sysfs":
    fd = os.open("/sys/kernel/vmtrace/state", os.O_WRONLY)
    n = os.write(fd, memoryview(m)[0:len(text)])
    os.close(fd)
    result = f"wrote {n}"
else:
    libc = ctypes.CDLL(None, use_errno=True)
    ok = libc.syscall(176, ctypes.c_void_p(addr), 0) == 0   # __NR_delete_module
    result = "unloaded" if ok else f"delete_module: {os.strerror(ctypes.get_errno())}"
with open("returned", "w") as f:
    f.write(result + "\n")
PY

start_stopper() {  # start_stopper MODE: sets $pid and $base
	rm -f ready go base.txt returned
	python3 stopper.py "$1" &
	pid=$!
	wait_for "the process to be ready" test -e ready
	base=$(cat base.txt)
}
# The stopper returns from the system call (a hang is reported, not waited
# for) and says what it returned.
wait_stopper() {
	wait_for "$1 to return" test -e returned
	wait "$pid" || fail "$1: the process failed"
	expect_eq "$(cat returned)" "$2" "$1"
}

# 1. write(): record-raw reads the rings, and sees tracing stopped elsewhere.
start_stopper sysfs
vmtrace record-raw -p "$pid" --protect -n 8 -o sysfs.raw 2>sysfs.summary &
rec=$!
wait_for "tracing to start" grep -qx on /sys/kernel/vmtrace/state
touch go
wait_stopper "write(\"off\")" "wrote 4"
expect_eq "$(cat /sys/kernel/vmtrace/state)" off "state"
status=0
wait "$rec" || status=$?
grep -q "tracing was stopped from elsewhere" sysfs.summary ||
	fail "record-raw (exit $status) did not see the stop: $(cat sysfs.summary)"
vmtrace dump-raw sysfs.raw >sysfs.txt
# The kernel's read of the page faulted, from kernel mode, and was logged.
python3 - "$base" <<'PY' || fail "no kernel-mode reference to the page"
import sys
base = int(sys.argv[1], 16)
for line in open("sysfs.txt"):
    w = line.split()
    if w[1] != "ref":
        continue
    f = dict(kv.split("=", 1) for kv in w[2:])
    if int(f["addr"], 16) == base and f["mode"] == "kernel" and f["access"] == "R":
        print(f"write(): the kernel's read of the protected page logged ({f['cause']})")
        sys.exit(0)
sys.exit(1)
PY

# 2. delete_module(): the module unloads while it traces the process.
echo 1024 >/sys/kernel/vmtrace/ring_records
start_stopper rmmod
echo "$pid" >/sys/kernel/vmtrace/targets
echo 1 >/sys/kernel/vmtrace/protect
echo 8 >/sys/kernel/vmtrace/enabled_pages
echo on >/sys/kernel/vmtrace/state
protected=$(cat /sys/kernel/vmtrace/protected)
[ "$protected" -gt 0 ] || fail "nothing protected"
touch go
wait_stopper "delete_module()" unloaded
[ ! -e /sys/module/vmtrace ] || fail "the module is still loaded"
expect_log "vmtrace: tracing off"
echo "delete_module(): $protected PTEs were protected; unloaded, tracing off"
echo "self-stop: ok"
