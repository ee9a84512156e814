#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest side of tests/vm/host/dma-e1000.sh, on a VM with an e1000 card:
# UDP datagrams of a known size sent to the user network's gateway give the
# card's DMA maps to the device, one a frame (payload and UDP, IP and
# Ethernet headers); `vmtrace hmtt`'s requests by device and direction
# (HMTT's Table 4) name the card, with at least the datagrams as to_device
# requests and dump's count and bytes of its map records, and its size
# distribution (Figure 16) has the frames where their size falls.
. /opt/vmtrace/tests/vm/lib.sh
cd /tmp
insmod "$VMT_LIB/vmtrace.ko"
ifc=
for n in /sys/class/net/*; do
	if [ "$(basename "$(readlink -f "$n/device/driver" || true)")" = e1000 ]; then
		ifc=${n##*/}
	fi
done
[ -n "$ifc" ] || fail "no e1000 interface in $(ls /sys/class/net)"
dev=$(basename "$(readlink -f "/sys/class/net/$ifc/device")")
ip addr add 10.0.2.15/24 dev "$ifc"
ip link set "$ifc" up
# The gateway's address as slirp gives it: no ARP request among the frames.
ip neigh replace 10.0.2.2 lladdr 52:55:0a:00:02:02 dev "$ifc" nud permanent
carrier() { [ "$(cat "/sys/class/net/$ifc/carrier" 2>/dev/null)" = 1 ]; }
wait_for "$ifc's carrier" carrier
n=40 payload=1000
frame=$((payload + 8 + 20 + 14))
cat >send.py <<'PY'
import socket, sys
n, size = int(sys.argv[1]), int(sys.argv[2])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(n):
    assert s.sendto(bytes([i % 256]) * size, ("10.0.2.2", 9)) == size
PY
vmtrace record -q -e dma -o n.vmt -- python3 send.py $n $payload
vmtrace dump n.vmt | grep " dev=\"$dev\"" >n.txt || fail "no DMA events for $dev ($ifc)"
grep -q ' op=map_sg ' n.txt && fail "$dev mapped a scatterlist: a request is not one record"
grep ' op=map_page ' n.txt | grep ' dir=to_device ' >tx.txt || fail "no frame mapped to $dev"
sizes() { sed 's/.* size=\([0-9]*\) .*/\1/' "$1"; }
frames=$(sizes tx.txt | grep -cx $frame || true)
[ "$frames" -ge $n ] || fail "$frames maps of $frame bytes (a $payload-byte datagram's frame): $n sent"
# hmtt: the card's to_device row (8 fields) against dump's map records; its
# sizes in 1024..2047 (7 fields) against dump's too.
vmtrace hmtt --section dma --csv n.vmt >h.csv || fail "hmtt --section dma failed"
row=$(awk -F, -v dev="$dev" 'NF == 8 && $1 == dev && $2 == "to_device" { print $3, $4, $5 }' h.csv)
want="$(wc -l <tx.txt) $(wc -l <tx.txt) $(sizes tx.txt | awk '{ s += $1 } END { print s + 0 }')"
expect_eq "$row" "$want" "hmtt: $dev's to_device requests, segments and bytes against dump"
[ "${row%% *}" -ge $n ] || fail "hmtt: $dev's to_device requests ${row%% *}, $n datagrams sent"
cdf=$(awk -F, -v dev="$dev" 'NF == 7 && $1 == dev && $2 == "to_device" && $3 == 1024 { print $5 }' h.csv)
expect_eq "${cdf:-0}" "$(sizes tx.txt | awk '$1 >= 1024 && $1 <= 2047' | wc -l)" \
	"hmtt: $dev's to_device requests of 1024..2047 bytes against dump"
echo "dma-e1000: $n datagrams of $payload bytes: $frames frames of $frame bytes mapped to $dev ($ifc)"
echo "hmtt by device: $dev to_device: $row (requests, segments, bytes); $cdf of 1024..2047 bytes"
