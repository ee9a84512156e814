#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# DMA events of an e1000 network card, on a VM with one (user networking,
# restricted): see tests/vm/devices/dma-e1000.sh.
set -uo pipefail
k=$1
exec "$(dirname "$0")/../../../scripts/vm-run" --kernel "$k" --device e1000 -- \
	/opt/vmtrace/tests/vm/devices/dma-e1000.sh
