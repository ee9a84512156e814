#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# --share DIR round-trips files both ways; --device nvme gives the guest a disk
# it can write and read back.
set -uo pipefail
k=$1
vmrun=$(dirname "$0")/../../../scripts/vm-run
fail() { echo "FAIL: $*" >&2; exit 1; }

share=$(mktemp -d)
trap 'rm -rf "$share"' EXIT
head -c 300000 /dev/urandom >"$share/from-host"
want=$(sha256sum <"$share/from-host" | cut -d' ' -f1)
"$vmrun" --kernel "$k" --share "$share" --device nvme -- sh -c '
	set -e
	sha256sum </mnt/share/from-host | cut -d" " -f1 >/mnt/share/seen-by-guest
	echo "written by $(uname -r)" >/mnt/share/from-guest
	test -b /dev/nvme0n1
	cat /sys/block/nvme0n1/size
	head -c 1048576 /dev/urandom >/tmp/data
	dd if=/tmp/data of=/dev/nvme0n1 bs=64k oflag=direct status=none
	dd if=/dev/nvme0n1 of=/tmp/back bs=64k count=16 iflag=direct status=none
	cmp /tmp/data /tmp/back
	echo nvme-ok' >"$share/nvme.out" || { cat "$share/nvme.out"; fail "the run failed"; }
cat "$share/nvme.out"
[ "$(cat "$share/seen-by-guest")" = "$want" ] || fail "guest read a different file"
grep -q "^written by " "$share/from-guest" || fail "guest's file did not reach the host"
grep -qx 524288 "$share/nvme.out" || fail "the NVMe disk is not 256 MiB"
grep -qx nvme-ok "$share/nvme.out" || fail "NVMe data did not round-trip"
echo "vm-run-share-nvme: ok"
