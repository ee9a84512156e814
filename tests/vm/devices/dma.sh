#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest side of tests/vm/host/dma-events.sh, on a VM with an NVMe disk:
# direct reads of known sizes give DMA map and unmap events for the disk's
# controller whose sizes and count match the I/O; and `vmtrace hmtt`'s DMA
# section counts the bytes the device wrote to memory as dd moved them, and
# every device's as the trace's map records add up; its row for the
# controller (requests by device and direction, HMTT's Table 4) has dd's
# reads as its requests, as dump's map records count them, each 128 KiB.
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
echo "dma: $ios reads of 128 KiB on $dev: $ios map and unmap calls, $((ios * 128)) KiB each way"
