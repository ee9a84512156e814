#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest side of tests/vm/host/dma-events.sh, on a VM with an NVMe disk:
# direct reads of known sizes give DMA map and unmap events for the disk's
# controller whose sizes and count match the I/O; and `vmtrace hmtt`'s DMA
# section counts the bytes the device wrote to memory as dd moved them, and
# every device's as the trace's map records add up; its row for the
# controller (requests by device and direction, HMTT's Table 4) has dd's
# reads as its requests, as dump's map records count them, each 128 KiB;
# and its untranslatable traffic is the definition's, worked over dump.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"
dev=$(basename "$(readlink -f /sys/block/nvme0n1/device/device)")
ios=16
vmtrace record -q -e dma -o d.vmt -- dd if=/dev/nvme0n1 of=/dev/null bs=128k count=$ios \
	iflag=direct status=none
vmtrace dump d.vmt | grep " dev=\"$dev\"" >d.txt || fail "no DMA events for $dev"
head -3 d.txt
# One I/O is one map call: a map_page, or a map_sg's first segment.
calls() { grep -E " op=$1_(page|sg) " d.txt | grep -c -E 'op=[a-z]*_page |seg=0/'; }
bytes() { grep -E " op=$1_(page|sg) " d.txt | sed 's/.* size=\([0-9]*\) .*/\1/' |
	awk '{ s += $1 } END { print s + 0 }'; }
expect_eq "$(calls map)" $ios "map calls for $ios reads"
expect_eq "$(bytes map)" $((ios * 131072)) "bytes mapped for $ios reads of 128 KiB"
expect_eq "$(calls unmap)" $ios "unmap calls"
expect_eq "$(bytes unmap)" $((ios * 131072)) "bytes unmapped"
grep -E ' op=map_(page|sg) ' d.txt | grep -v ' dir=from_device ' && fail "a read mapped for another direction"
grep -qE ' op=map_(page|sg) .* phys=0x0 ' d.txt && fail "a map without its physical address"
# hmtt: the device writes memory for a read (from_device); all devices' map
# records, as dump prints them, against the DMA section's totals.
vmtrace hmtt --section dma --csv d.vmt >h.csv || fail "hmtt --section dma failed"
# The first table's last row: the whole trace's (one interval, or "all").
total=$(awk -F, 'NR > 1 && $0 == "" { exit } NR > 1 { r = $4 " " $5 } END { print r }' h.csv)
want=$(vmtrace dump d.vmt | awk '/ op=map_(page|sg) / {
	size = $0; sub(/.* size=/, "", size); sub(/ .*/, "", size)
	if (/ dir=(to_device|bidirectional) /) r += size
	if (/ dir=(from_device|bidirectional) /) w += size
} END { print r + 0, w + 0 }')
expect_eq "$total" "$want" "hmtt's DMA read and write bytes against the map records"
writes=$(cut -d' ' -f2 <<<"$total")
[ "$writes" -ge $((ios * 131072)) ] || fail "hmtt: $writes bytes written by devices, dd read $((ios * 131072))"
echo "hmtt: DMA read and write bytes $total (dd: $((ios * 131072)) read from $dev)"
# By device: a request is a call (a map_page, or a map_sg's segments), the
# table's rows are 8 fields, its size distribution's (Figure 16) 7.
row=$(awk -F, -v dev="$dev" 'NF == 8 && $1 == dev && $2 == "from_device" { print $3, $4, $5 }' h.csv)
segments=$(grep -cE ' op=map_(page|sg) ' d.txt)
expect_eq "$row" "$(calls map) $segments $(bytes map)" "hmtt: $dev's requests, segments and bytes against dump"
expect_eq "$(cut -d' ' -f1,3 <<<"$row")" "$ios $((ios * 131072))" "hmtt: $dev's requests and bytes against dd's reads"
grep -qx "$dev,from_device,131072,262143,$ios,100.0000,100.0000" h.csv ||
	fail "hmtt: $dev's request sizes are not $ios of 128 KiB: $(grep "^$dev," h.csv)"
echo "hmtt by device: $dev from_device: $row (requests, segments, bytes)"
# hmtt's untranslatable traffic (Figure 17) against its definition worked
# over dump's records in time order: the frames known mapped (references,
# evictions and PAGEMAP records that name one), the map records' lines.
vmtrace hmtt --section traffic --csv d.vmt >t.csv || fail "hmtt --section traffic failed"
got=$(awk -F, '$1 == "cpu_references" || $1 == "dma_lines" { printf "%s %s %s ", $2, $3, $5 }' t.csv)
want=$(vmtrace dump --order time d.vmt | python3 -c '
import sys
page_at, held = {}, {}                  # (pid, page) -> frame; frame -> pages
def see(key, pfn):
    old = page_at.get(key, 0)
    if old == pfn:
        return
    if old:
        held[old] -= 1
    page_at[key] = pfn
    held[pfn] = held.get(pfn, 0) + 1
def unmap(key):
    old = page_at.pop(key, 0)
    if old:
        held[old] -= 1
refs = frame_refs = bad_refs = lines = bad = no_phys = 0
for line in sys.stdin:
    w = line.split()
    f = dict(kv.split("=", 1) for kv in w[2:] if "=" in kv)
    if w[1] in ("ref", "evict", "pagemap"):
        key, pfn = (f["pid"], int(f["addr"], 16) >> 12), int(f["pfn"], 16)
        if w[1] == "pagemap" and f["op"] == "unmap":
            unmap(key)
        elif pfn:
            see(key, pfn)
        if w[1] == "ref":
            refs += 1
            if pfn:
                frame_refs += 1
                bad_refs += not held.get(pfn)
    elif w[1] == "dma" and f["op"] in ("map_page", "map_sg"):
        phys, size = int(f["phys"], 16), int(f["size"])
        if not phys:
            no_phys += 1
            continue
        for a in range(phys >> 6, ((phys + size - 1) >> 6) + 1):
            lines += 1
            bad += not held.get(a >> 6)
print(frame_refs, bad_refs, refs - frame_refs, lines, bad, no_phys, end=" ")
')
expect_eq "$got" "$want" "hmtt: untranslatable references and DMA lines against dump"
echo "hmtt: untranslatable (count, untranslatable, left out): CPU references and DMA lines $got"
echo "dma: $ios reads of 128 KiB on $dev: $ios map and unmap calls, $((ios * 128)) KiB each way"
