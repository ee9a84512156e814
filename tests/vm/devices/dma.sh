#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest side of tests/vm/host/dma-events.sh, on a VM with an NVMe disk:
# direct reads of known sizes give DMA map and unmap events for the disk's
# controller whose sizes and count match the I/O.
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
echo "dma: $ios reads of 128 KiB on $dev: $ios map and unmap calls, $((ios * 128)) KiB each way"
