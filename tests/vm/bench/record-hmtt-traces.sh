#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# record-hmtt-traces.sh: the guest side of scripts/hmtt-paper, on a VM with
# an NVMe disk. Records into /mnt/share:
# - hmtt-mixed.vmt: two programs at once, vmt-loops' triad (three arrays
#   walked in order) and chase (a random walk), and dd reading and writing
#   the NVMe disk with direct I/O, with --protect -n 0 (every page touched
#   is logged, its frame too) and -e dma,pagemap,task: HMTT's DMA, v2p,
#   interleaving and stream results of section 6 and appendix A;
# - hmtt-exact.vmt: triad and a program of two marked phases under exact
#   mode (every load and store to its data), for the bus view
#   (cachesim --emit) and the analyses by phase.
set -euo pipefail
. /opt/vmtrace/tests/vm/lib.sh
insmod "$VMT_LIB/vmtrace.ko"
echo never >/sys/kernel/mm/transparent_hugepage/enabled
cd /tmp
loops=/opt/vmtrace/bin/vmt-loops
vmtrace record -q -o /mnt/share/hmtt-mixed.vmt --follow --protect -n 0 -e dma,pagemap,task -- \
	sh -c "$loops triad 300000 >/dev/null & $loops chase 65536 2 >/dev/null &
	dd if=/dev/nvme0n1 of=/dev/null bs=128k count=64 iflag=direct status=none
	dd if=/dev/zero of=/dev/nvme0n1 bs=64k count=64 oflag=direct status=none
	dd if=/dev/nvme0n1 of=/dev/null bs=4k count=256 status=none
	wait"
echo "hmtt-mixed: $(vmtrace stats /mnt/share/hmtt-mixed.vmt | awk '$1 == "records:" { print $2 }') records"
vmtrace record -q -o /mnt/share/hmtt-exact.vmt -e vma,marker --exact 0x10000000000-0x10004000000 -- \
	$loops triad 16384 >/dev/null
echo "hmtt-exact: $(vmtrace stats /mnt/share/hmtt-exact.vmt | awk '$1 == "records:" { print $2 }') records"
rmmod vmtrace
