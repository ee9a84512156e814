#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# DMA events on a VM with an NVMe disk (the dma:* trace events on 6.12,
# kprobes on 6.1): see tests/vm/devices/dma.sh.
set -uo pipefail
k=$1
exec "$(dirname "$0")/../../../scripts/vm-run" --kernel "$k" --device nvme -- \
	/opt/vmtrace/tests/vm/devices/dma.sh
