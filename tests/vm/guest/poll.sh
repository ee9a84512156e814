#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# poll() on /dev/vmtrace: readable exactly when some ring holds a quarter of
# its records (read from the mapped control pages), a poll() already asleep
# is woken when a ring gets there (irq_work from the fault path) and when
# tracing stops (EPOLLHUP, EPOLLIN while records are left).
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"
cat >pages.py <<'PY'
import mmap, os, sys, time
m = mmap.mmap(-1, 4096 * 4096)
done = 0
open("pages.ready", "w").close()
for phase, n in ((1, 16), (2, 2048)):
    while not os.path.exists(f"go{phase}"):
        time.sleep(0.01)
    for i in range(done, done + n):
        m[i * 4096] = 1
    done += n
    open(f"done{phase}", "w").close()
time.sleep(3600)
PY
python3 pages.py &
target=$!
wait_for "the target" test -e pages.ready
echo 1024 >/sys/kernel/vmtrace/ring_records
echo "$target" >/sys/kernel/vmtrace/targets
echo commit >/sys/kernel/vmtrace/state
python3 - "$target" <<'PY'
import mmap, os, select, struct, threading, time
target = int(os.sys.argv[1])
fd = os.open("/dev/vmtrace", os.O_RDWR)
GEOMETRY = (2 << 30) | (56 << 16) | (0xB7 << 8) | 5
import fcntl
nr, records, off, _, stride = struct.unpack("<IIIIQ", fcntl.ioctl(fd, GEOMETRY, bytes(56))[:24])
metas = [mmap.mmap(fd, 4096, offset=c * stride) for c in range(nr)]
watermark = records // 4
def unread():
    return [struct.unpack_from("<QQ", m, 32)[0] - struct.unpack_from("<QQ", m, 32)[1] for m in metas]
def readable(timeout_ms):
    p = select.poll()
    p.register(fd, select.POLLIN)
    ev = p.poll(timeout_ms)
    return ev[0][1] if ev else 0
def wait_file(name):
    while not os.path.exists(name):
        time.sleep(0.01)

with open("/sys/kernel/vmtrace/state", "w") as f:
    f.write("on")
open("go1", "w").close()
wait_file("done1")
u = unread()
assert max(u) < watermark, f"phase 1 already filled a ring to {max(u)} of {records}"
assert readable(0) == 0, f"readable with {u} unread, watermark {watermark}"
print(f"phase 1: {sum(u)} records unread, below the watermark ({watermark}): not readable")

# A poll() asleep before the faults must be woken by them.
got = []
t = threading.Thread(target=lambda: got.append(readable(120000)))
t.start()
time.sleep(0.5)
open("go2", "w").close()
t.join()
u = unread()
assert got[0] & select.POLLIN, f"the sleeping poll() returned {got[0]:#x} with {u} unread"
assert max(u) >= watermark, u
print(f"phase 2: woken with {max(u)} records unread in one ring: readable")

# Consume everything once the target is done: not readable any more.
wait_file("done2")
for m in metas:
    head = struct.unpack_from("<Q", m, 32)[0]
    struct.pack_into("<Q", m, 40, head)
assert readable(0) == 0, f"readable after consuming all: {unread()}"

# Stop wakes a sleeper with EPOLLHUP.
got = []
t = threading.Thread(target=lambda: got.append(readable(120000)))
t.start()
time.sleep(0.5)
with open("/sys/kernel/vmtrace/state", "w") as f:
    f.write("off")
t.join()
assert got[0] & select.POLLHUP, f"after stop poll() returned {got[0]:#x}"
print(f"stop: poll() woken with {got[0]:#x} (EPOLLHUP)")
for m in metas:
    m.close()
PY
kill "$target"
rmmod vmtrace
echo "poll: ok"
