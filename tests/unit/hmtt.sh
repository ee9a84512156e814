#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/hmtt.sh VMTRACE: `vmtrace hmtt` on traces made here (raw
# records written by python3, then `vmtrace convert`): its CSV against the
# counts worked out by hand, and bad input answered with a message and a
# non-zero exit.
set -uo pipefail
bin=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0 passed=0
fail() { echo "hmtt: FAIL: $*"; failed=$((failed + 1)); }
pass() { passed=$((passed + 1)); }

# raw FILE SPEC...: records, each "ref TIME PID VPN PFN", "dma TIME OP DIR SIZE" or
# "exact TIME PID ADDR".
raw() {
	python3 - "$@" <<'PY'
import struct, sys
out = bytearray()
for spec in sys.argv[2:]:
    f = spec.split()
    kind, t = f[0], int(f[1])
    if kind == "ref":
        pid, vpn, pfn = int(f[2]), int(f[3], 0), int(f[4], 0)
        out += struct.pack("<QIIHHI", t, pid, pid, 2, 0, 0)
        out += struct.pack("<QQQIBBBBII", vpn << 12, pfn, 0, 4, 1, 0, 0, 0, 0, 0)
    elif kind == "exact":
        pid, addr = int(f[2]), int(f[3], 0)
        out += struct.pack("<QIIHHI", t, pid, pid, 15, 0, 0)
        out += struct.pack("<QQHBBB3x16s", addr, 0, 8, 1, 0, 0, b"")
    else:
        op, d, size = int(f[2]), int(f[3]), int(f[4])
        out += struct.pack("<QIIHHI", t, 0, 0, 13, 0, 0)
        out += struct.pack("<QQIBBBBHHIQ", 0, 0, size, op, d, 1, 0, 0, 1, 0, 0)
open(sys.argv[1], "wb").write(out)
PY
}

# trace NAME SPEC...: $tmp/NAME.vmt.
trace() {
	local name=$1
	shift
	raw "$tmp/$name.raw" "$@" && "$bin" convert "$tmp/$name.raw" -o "$tmp/$name.vmt" >/dev/null 2>&1 ||
		fail "making $name"
}

# expect STATUS MESSAGE ARGS...: vmtrace hmtt ARGS exits STATUS, saying MESSAGE on stderr.
expect() {
	local want=$1 msg=$2 rc
	shift 2
	"$bin" hmtt "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	if [ $rc -ne "$want" ]; then
		fail "hmtt $*: exit $rc, not $want"
	elif ! grep -q -- "$msg" "$tmp/err"; then
		fail "hmtt $*: no '$msg' on stderr: $(head -1 "$tmp/err")"
	else
		pass
	fi
}

# Intervals of 1 ms from the first record (0): pid 1's pages 0x10..0x13 at
# frames 0x100..0x103, one a 100 us; to device 8192 at 50 us, from device
# 4096 at 1.2 ms, bidirectional 1024 at 1.3 ms (both), coherent 65536.
trace t "ref 0 1 0x10 0x100" "dma 50000 0 1 8192" "ref 100000 1 0x11 0x101" \
	"dma 60000 4 0 65536" "dma 1200000 2 2 4096" "ref 1250000 2 0x11 0x200" \
	"dma 1300000 0 0 1024" "ref 1400000 1 0x12 0x102" "ref 1500000 1 0x13 0x103"
"$bin" hmtt --csv --section dma --window 1ms "$tmp/t.vmt" >"$tmp/out" 2>"$tmp/err"
# interval 0: 2 refs (8192 bytes), read 8192: 8192 / 16384 = 50%
# interval 1: 3 refs (12288), read 1024, write 4096 + 1024: of 18432
# all: 5 refs (20480), read 9216, write 5120: of 34816
cat >"$tmp/want" <<'CSV'
start_s,references,cpu_bytes,dma_read_bytes,dma_write_bytes,bidirectional_bytes,coherent_bytes,read_pct,write_pct
0.000,2,8192,8192,0,0,65536,50.0000,0.0000
0.001,3,12288,1024,5120,1024,0,5.5556,27.7778
all,5,20480,9216,5120,1024,65536,26.4706,14.7059

size_lo,size_hi,map_page,map_sg,alloc,percent
1024,2047,1,0,0,25.0000
4096,8191,0,1,0,25.0000
8192,16383,1,0,0,25.0000
65536,131071,0,0,1,25.0000

device,direction,requests,segments,bytes,requests_pct,bytes_pct,avg_bytes
-,bidirectional,1,1,1024,33.3333,7.6923,1024.00
-,to_device,1,1,8192,33.3333,61.5385,8192.00
-,from_device,1,1,4096,33.3333,30.7692,4096.00

device,direction,size_lo,size_hi,requests,percent,cumulative_pct
-,bidirectional,1024,2047,1,100.0000,100.0000
-,to_device,8192,16383,1,100.0000,100.0000
-,from_device,4096,8191,1,100.0000,100.0000
CSV
diff -u "$tmp/want" "$tmp/out" >"$tmp/diff" && pass || fail "dma csv: $(cat "$tmp/diff" "$tmp/err")"

# v2p: pid 1's 0x10..0x13 contiguous (3 pairs of 3); pid 2's 0x11 alone.
"$bin" hmtt --csv --section v2p "$tmp/t.vmt" | sed -n 2p >"$tmp/out"
echo "5,5,0,5,5,0,3,3,100.0000" | diff -u - "$tmp/out" >"$tmp/diff" && pass ||
	fail "v2p csv: $(cat "$tmp/diff")"
# interleave: 1 1 2 1 1: runs 2, 1, 2.
"$bin" hmtt --csv --section interleave "$tmp/t.vmt" | sed -n 2p >"$tmp/out"
echo "5,2,3,2,1.6667,2,2" | diff -u - "$tmp/out" >"$tmp/diff" && pass ||
	fail "interleave csv: $(cat "$tmp/diff")"
# dram, map bank=12,13;row=20-30 (4 banks: a frame's low 2 bits; rows of
# 1 MiB): frames 0x100 0x101 0x200 0x102 0x103 are (bank, row) (0,1) (1,1)
# (0,2) (2,1) (3,1): miss, miss, conflict, miss, miss. Window 2 over banks
# 0 1 0 2 3: 2 distinct in each of 4 windows. Bits between 0x100000,
# 0x101000, 0x200000, 0x102000, 0x103000: 12 in 3 of the 4 pairs, 13 in 1,
# 20 and 21 in 2.
map='bank=12,13;row=20-30'
"$bin" hmtt --csv --section dram --dram-map "$map" --dram-window 2 "$tmp/t.vmt" >"$tmp/out" 2>"$tmp/err"
cat >"$tmp/want" <<'CSV'
space,accesses,no_frame,hits,misses,conflicts,hit_pct,miss_pct,conflict_pct,window,blp,max_banks,banks_touched,banks
physical,5,0,0,4,1,0.0000,80.0000,20.0000,2,2.0000,2,4,4

bit,changes,pairs,change_pct,field
CSV
for b in $(seq 6 47); do
	case $b in
	12) echo "12,3,4,75.0000,bank" ;;
	13) echo "13,1,4,25.0000,bank" ;;
	20 | 21) echo "$b,2,4,50.0000,row" ;;
	2[2-9] | 30) echo "$b,0,4,0.0000,row" ;;
	*) echo "$b,0,4,0.0000,-" ;;
	esac
done >>"$tmp/want"
diff -u "$tmp/want" "$tmp/out" >"$tmp/diff" && pass || fail "dram csv: $(cat "$tmp/diff" "$tmp/err")"
# --space virtual: pages 0x10 0x11 0x11 0x12 0x13, all row 0, banks 0 1 1 2 3:
# miss, miss, hit, miss, miss; windows of 2: 2 1 2 2 (7 / 4).
"$bin" hmtt --csv --section dram --dram-map "$map" --dram-window 2 --space virtual \
	"$tmp/t.vmt" 2>&1 | sed -n 2p >"$tmp/out"
echo "virtual,5,0,1,4,0,20.0000,80.0000,0.0000,2,1.7500,2,4,4" | diff -u - "$tmp/out" >"$tmp/diff" &&
	pass || fail "dram --space virtual csv: $(cat "$tmp/diff")"
# A preset's map, with XOR: bit 18 is row's and (XORed in) bg's.
"$bin" hmtt --csv --section dram --dram-map ddr5-2ch "$tmp/t.vmt" >"$tmp/out" 2>"$tmp/err"
tail -1 "$tmp/out" | grep -qx '47,0,4,0.0000,-' && grep -qx '18,0,4,0.0000,bg+row' "$tmp/out" &&
	pass || fail "dram ddr5-2ch: $(cat "$tmp/out" "$tmp/err")"
# A map reading bits past 47: the table goes up to its highest.
"$bin" hmtt --csv --section dram --dram-map 'bank=12;row=40-50' "$tmp/t.vmt" 2>&1 | tail -1 |
	grep -qx '50,0,4,0.0000,row' && pass || fail "dram: the bit table to bit 50"
# Exact accesses have no frame: their virtual addresses, said so.
trace exact "exact 0 5 0x1000" "exact 1 5 0x1040" "exact 2 5 0x1000"
"$bin" hmtt --section dram --dram-map "$map" "$tmp/exact.vmt" >"$tmp/out" 2>"$tmp/err" &&
	grep -q 'exact accesses have no frame' "$tmp/out" &&
	"$bin" hmtt --csv --section dram --dram-map "$map" "$tmp/exact.vmt" | sed -n 2p |
	grep -qx 'virtual,3,0,2,1,0,66.6667,33.3333,0.0000,32,1.0000,1,1,4' &&
	pass || fail "dram on exact accesses: $(cat "$tmp/out" "$tmp/err")"

# scr at windows 3 and 4 on t: pid 1's pages 0x10..0x13 at frames
# 0x100..0x103, pid 2's 0x11 at 0x200 between 0x101 and 0x102. Virtual and
# physical-process: pid 1's four in a stream, 4 of 5. Physical: the bus has
# 0x100 0x101 0x200 0x102 0x103: no stride within 3; within 4, (0x100,
# 0x101, 0x102) and (0x101, 0x102, 0x103). Strides at 3: pid 1's 0x12 and
# 0x13 complete a stream, +1 each.
"$bin" hmtt --csv --section scr --scr-window 3,4 "$tmp/t.vmt" >"$tmp/out" 2>"$tmp/err"
cat >"$tmp/want" <<'CSV'
space,window,references,covered,scr_pct
virtual,3,5,4,80.0000
physical-process,3,5,4,80.0000
physical,3,5,0,0.0000
virtual,4,5,4,80.0000
physical-process,4,5,4,80.0000
physical,4,5,4,80.0000

window,virtual_pct,physical_process_pct,physical_pct,lost_vm_points,lost_vm_pct,lost_interleave_points,lost_interleave_pct
3,80.0000,80.0000,0.0000,0.0000,0.0000,80.0000,100.0000
4,80.0000,80.0000,80.0000,0.0000,0.0000,0.0000,0.0000

space,window,stride_lo,stride_hi,count,forward,backward,percent,cumulative_percent
virtual,3,1,1,2,2,0,100.0000,100.0000
physical-process,3,1,1,2,2,0,100.0000,100.0000
CSV
diff -u "$tmp/want" "$tmp/out" >"$tmp/diff" && pass || fail "scr csv: $(cat "$tmp/diff" "$tmp/err")"
# Virtual memory's loss: pages 0x20..0x23 at frames 0x500 0x302 0x104 0x900,
# physically a stream of -0x1fe then a jump: 3 of 4 (75 %), virtually 4 of 4;
# lost 25 points, 25 % of the virtual SCR. The physical stride: -510 pages.
trace vm "ref 0 1 0x20 0x500" "ref 1 1 0x21 0x302" "ref 2 1 0x22 0x104" "ref 3 1 0x23 0x900"
"$bin" hmtt --csv --section scr "$tmp/vm.vmt" >"$tmp/out" 2>"$tmp/err"
cat >"$tmp/want" <<'CSV'
space,window,references,covered,scr_pct
virtual,32,4,4,100.0000
physical-process,32,4,3,75.0000
physical,32,4,3,75.0000

window,virtual_pct,physical_process_pct,physical_pct,lost_vm_points,lost_vm_pct,lost_interleave_points,lost_interleave_pct
32,100.0000,75.0000,75.0000,25.0000,25.0000,0.0000,0.0000

space,window,stride_lo,stride_hi,count,forward,backward,percent,cumulative_percent
virtual,32,1,1,2,2,0,100.0000,100.0000
physical-process,32,256,511,1,0,1,100.0000,100.0000
physical,32,256,511,1,0,1,100.0000,100.0000
CSV
diff -u "$tmp/want" "$tmp/out" >"$tmp/diff" && pass || fail "scr csv, vm: $(cat "$tmp/diff" "$tmp/err")"
# prefetch: pid 5 reads lines 0x1000.. and pid 6 lines 0x900000.., 10 lines
# each, alternating (exact accesses: their virtual addresses). Each alone: 3
# demand, 7 served, 7 + 2 prefetched. One tracker on the bus: taken by each
# access from the other stream, nothing confirmed: 20 demand.
specs=()
for i in $(seq 0 9); do
	specs+=("exact $((2 * i)) 5 $((0x1000 + 64 * i))" "exact $((2 * i + 1)) 6 $((0x900000 + 64 * i))")
done
trace pf "${specs[@]}"
"$bin" hmtt --csv --section prefetch --prefetch-trackers 1 "$tmp/pf.vmt" >"$tmp/out" 2>"$tmp/err"
cat >"$tmp/want" <<'CSV'
view,space,trackers,degree,accesses,no_frame,repeats,served,demand,prefetches,dram_accesses,streams,prefetch_rate_pct,accuracy_pct,coverage_pct
merged,virtual,1,2,20,0,0,0,20,0,20,0,0.0000,0.0000,0.0000
per-process,virtual,1,2,20,0,0,14,6,18,24,2,75.0000,77.7778,70.0000
CSV
diff -u "$tmp/want" "$tmp/out" >"$tmp/diff" && pass || fail "prefetch csv: $(cat "$tmp/diff" "$tmp/err")"
# Two trackers follow both; degree 4: 7 + 4 prefetched a stream.
"$bin" hmtt --csv --section prefetch --prefetch-trackers 2 --prefetch-degree 4 "$tmp/pf.vmt" |
	sed -n 2p >"$tmp/out"
echo "merged,virtual,2,4,20,0,0,14,6,22,28,2,78.5714,63.6364,70.0000" | diff -u - "$tmp/out" >"$tmp/diff" &&
	pass || fail "prefetch csv, 2 trackers: $(cat "$tmp/diff")"

# The tables, for people: aligned, thousands separated; every section but
# dram by default, dram with its default map when asked for.
"$bin" hmtt "$tmp/t.vmt" >"$tmp/out" 2>"$tmp/err" && grep -q '65,536' "$tmp/out" &&
	grep -q 'stream coverage rate' "$tmp/out" && ! grep -q '^DRAM' "$tmp/out" &&
	grep -q '^prefetch rate' "$tmp/out" && grep -q '^SCR lost' "$tmp/out" &&
	"$bin" hmtt --section scr,dram "$tmp/t.vmt" >"$tmp/out" 2>"$tmp/err" &&
	grep -q '^DRAM: row buffers' "$tmp/out" &&
	grep -q 'map ddr4-2ch: ch=6;' "$tmp/out" && pass || fail "hmtt TRACE: $(cat "$tmp/err")"

# --per-process: each process's dma, v2p, scr, dram and prefetch tables are those of
# the same sections run on that process alone (--pid); interleave is all's.
"$bin" hmtt --csv --per-process --section dma,v2p,scr,dram,prefetch "$tmp/t.vmt" >"$tmp/per" 2>"$tmp/err"
for pid in 1 2; do
	"$bin" hmtt --csv --section dma,v2p,scr,dram,prefetch --pid $pid "$tmp/t.vmt" >"$tmp/alone" 2>/dev/null
	# The tables after the one-row table of this pid, up to the next pid's.
	awk -v pid=$pid 'prev == "pid" { on = ($0 == pid); skip = 1 } { prev = $0 }
		/^pid$/ { on = 0 } on && !skip { print } { skip = 0 }' "$tmp/per" |
		sed -e '1{/^$/d}' -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$tmp/got"
	diff -u "$tmp/alone" "$tmp/got" >"$tmp/diff" && pass ||
		fail "--per-process's pid $pid against --pid $pid: $(cat "$tmp/diff")"
done
grep -qx pid "$tmp/per" || fail "--per-process printed no process"

# traffic (and dma by device): raw records with device names, frames,
# access and mode. traw FILE SPEC...: "ref T PID VPN PFN r|w|m USER0|KERNEL1",
# "dma T CPU OP DIR SIZE PHYS INDEX COUNT DEVICE", "unmap T PID VPN PFN".
traw() {
	python3 - "$@" <<'PY'
import struct, sys
out = bytearray()
for spec in sys.argv[2:]:
    f = spec.split()
    t = int(f[1])
    if f[0] == "ref":
        pid, vpn, pfn, k = int(f[2]), int(f[3], 0), int(f[4], 0), int(f[6])
        acc = {"r": 1, "w": 2, "m": 3}[f[5]]
        out += struct.pack("<QIIHHI", t, pid, pid, 2, 0, 0)
        out += struct.pack("<QQQIBBBBII", vpn << 12, pfn, 0, 4, acc, k, 0, 0, 0, 0)
    elif f[0] == "unmap":
        pid, vpn, pfn = int(f[2]), int(f[3], 0), int(f[4], 0)
        out += struct.pack("<QIIHHI", t, pid, pid, 14, 0, 0)
        out += struct.pack("<QQBBHIQQ", vpn << 12, pfn, 1, 0, 0, 0, 0, 0)
    else:
        cpu, op, d, size, phys, i, n = (int(x, 0) for x in f[2:9])
        name = f[9].encode()
        out += struct.pack("<QIIHHI", t, 0, 0, 13, cpu, len(name))
        out += struct.pack("<QQIBBBBHHIQ", 0, phys, size, op, d, 1, 0, i, n, 0, 0)
        for c in range(0, len(name), 40):
            chunk = name[c:c + 40]
            out += struct.pack("<QIIHHI", t, 0, 0, 5, cpu, len(chunk)) + chunk.ljust(40, b"\0")
open(sys.argv[1], "wb").write(out)
PY
}
# Hand-worked: nvme0 reads 8192 into frames 0x100 (mapped) and 0x200 (not) by a
# map_sg of two segments: one request, 128 lines, 64 untranslatable; "eth,0"
# sends 1042 bytes twice (17 lines each) from frame 0x101 (mapped) and, after
# page 0x10's unmap, from 0x100 (17 untranslatable). CPU: a user read and a
# kernel write with frames, a user read-modify-write without, at 1.999999 ms.
traw "$tmp/tr.raw" "ref 0 1 0x10 0x100 r 0" "ref 100 1 0x11 0x101 w 1" \
	"dma 200 0 2 2 4096 0x100000 0 2 nvme0" "dma 300 0 2 2 4096 0x200000 1 2 nvme0" \
	"dma 400 1 0 1 1042 0x101000 0 1 eth,0" "unmap 500 1 0x10 0x100" \
	"dma 600 1 0 1 1042 0x100000 0 1 eth,0" "ref 1999999 2 0x20 0 m 0" &&
	"$bin" convert "$tmp/tr.raw" -o "$tmp/tr.vmt" >/dev/null 2>&1 || fail "making tr"
"$bin" hmtt --csv --section dma --window 1ms "$tmp/tr.vmt" | awk 'n >= 2 { print } /^$/ { n++ }' \
	>"$tmp/out" 2>"$tmp/err"
cat >"$tmp/want" <<'CSV'
device,direction,requests,segments,bytes,requests_pct,bytes_pct,avg_bytes
"eth,0",to_device,2,2,2084,66.6667,20.2803,1042.00
nvme0,from_device,1,2,8192,33.3333,79.7197,8192.00

device,direction,size_lo,size_hi,requests,percent,cumulative_pct
"eth,0",to_device,1024,2047,2,100.0000,100.0000
nvme0,from_device,8192,16383,1,100.0000,100.0000
CSV
diff -u "$tmp/want" "$tmp/out" >"$tmp/diff" && pass || fail "dma by device csv: $(cat "$tmp/diff")"
"$bin" hmtt --csv --section traffic --window 1ms "$tmp/tr.vmt" >"$tmp/out" 2>"$tmp/err"
cat >"$tmp/want" <<'CSV'
kind,count,bytes,share_pct,basis
cpu_read,2,8192,30.7277,estimated
cpu_write,2,8192,30.7277,estimated
dma_read,2,2084,7.8170,upper bound
dma_write,2,8192,30.7277,upper bound

start_s,duration_s,cpu_read_bytes,cpu_write_bytes,dma_read_bytes,dma_write_bytes,cpu_read_bps,cpu_write_bps,dma_read_bps,dma_write_bps
0.000000,0.001000000,4096,4096,2084,8192,4096000.0,4096000.0,2084000.0,8192000.0
0.001000,0.001000000,4096,4096,0,0,4096000.0,4096000.0,0.0,0.0
all,0.002000000,8192,8192,2084,8192,4096000.0,4096000.0,1042000.0,4096000.0

mode,references,share_pct,reads,writes,read_bytes,write_bytes
user,2,66.6667,2,1,8192,4096
kernel,1,33.3333,0,1,0,4096

traffic,count,untranslatable,untranslatable_pct,left_out
cpu_references,2,0,0.0000,1
dma_lines,162,81,50.0000,0
all,164,81,49.3902,1
CSV
diff -u "$tmp/want" "$tmp/out" >"$tmp/diff" && pass || fail "traffic csv: $(cat "$tmp/diff" "$tmp/err")"
# In the default sections, for people; per process as with --pid.
"$bin" hmtt "$tmp/tr.vmt" >"$tmp/out" 2>"$tmp/err" && grep -q '^memory traffic by kind' "$tmp/out" &&
	grep -q '^  eth,0 .*to_device' "$tmp/out" && grep -q '^untranslatable physical' "$tmp/out" &&
	pass || fail "hmtt TRACE without traffic: $(cat "$tmp/err")"
"$bin" hmtt --csv --per-process --section traffic "$tmp/tr.vmt" >"$tmp/per" 2>"$tmp/err"
for pid in 1 2; do
	"$bin" hmtt --csv --section traffic --pid $pid "$tmp/tr.vmt" >"$tmp/alone" 2>/dev/null
	awk -v pid=$pid 'prev == "pid" { on = ($0 == pid); skip = 1 } { prev = $0 }
		/^pid$/ { on = 0 } on && !skip { print } { skip = 0 }' "$tmp/per" |
		sed -e '1{/^$/d}' -e :a -e '/^\n*$/{$d;N;ba' -e '}' >"$tmp/got"
	diff -u "$tmp/alone" "$tmp/got" >"$tmp/diff" && pass ||
		fail "traffic --per-process's pid $pid against --pid $pid: $(cat "$tmp/diff")"
done
# A DMA range past the last byte of the address space is left out and
# counted, not wrapped into a line count.
traw "$tmp/wrap.raw" "ref 0 1 0x10 0x100 r 0" "dma 100 0 0 1 4096 0xffffffffffffff00 0 1 d" &&
	"$bin" convert "$tmp/wrap.raw" -o "$tmp/wrap.vmt" >/dev/null 2>&1 || fail "making wrap"
"$bin" hmtt --csv --section traffic "$tmp/wrap.vmt" 2>&1 | grep -qx 'dma_lines,0,0,0.0000,1' &&
	pass || fail "a DMA range past 2^64: $("$bin" hmtt --csv --section traffic "$tmp/wrap.vmt" 2>&1 | tail -3)"
# More intervals than VMT_MAX_INTERVALS (2^24): refused with a message, no crash.
traw "$tmp/far.raw" "ref 0 1 0x10 0x100 r 0" "ref 576460752303423488 1 0x11 0x101 r 0" &&
	"$bin" convert "$tmp/far.raw" -o "$tmp/far.vmt" >/dev/null 2>&1 || fail "making far"
expect 1 "Value too large" --section traffic --window 1 "$tmp/far.vmt"
expect 1 "Value too large" --section dma --window 1 "$tmp/far.vmt"
# prefetch and dram in physical space under --addr: no_frame counts the
# references without a frame (1), not those out of range (2).
traw "$tmp/nf.raw" "ref 0 1 0x10 0x100 r 0" "ref 10 1 0x11 0x101 r 0" \
	"ref 20 1 0x12 0x102 r 0" "ref 30 1 0x13 0 r 0" &&
	"$bin" convert "$tmp/nf.raw" -o "$tmp/nf.vmt" >/dev/null 2>&1 || fail "making nf"
"$bin" hmtt --csv --section prefetch,dram --space physical --addr 0x100000-0x101000 \
	"$tmp/nf.vmt" >"$tmp/out" 2>"$tmp/err"
pf=$(awk -F, '$1 == "merged" { print $5, $6 }' "$tmp/out")
dr=$(awk -F, 'prev ~ /^space,accesses/ { print $2, $3 } { prev = $0 }' "$tmp/out")
[ "$pf" = "1 1" ] && [ "$dr" = "1 1" ] && pass ||
	fail "no_frame under --addr: prefetch '$pf', dram '$dr' (accesses, no_frame), want '1 1'"
# A THP's PAGEMAP records (huge=1: its first page and first frame) map and
# unmap its 512 pages: the faulting page's frame (0x1005, the THP's sixth) is
# one of them, and after the unmap a device's line there is untranslatable.
python3 - "$tmp/thp.raw" <<'PY' && "$bin" convert "$tmp/thp.raw" -o "$tmp/thp.vmt" >/dev/null 2>&1 ||
import struct, sys
out = bytearray()
def rec(t, typ, pid, payload):
    out.extend(struct.pack("<QIIHHI", t, pid, pid, typ, 0, 0) + payload.ljust(40, b"\0"))
rec(0, 2, 1, struct.pack("<QQQIBBBBII", 0x205123, 0x1005, 0, 4, 1, 0, 0, 0, 1, 0))
rec(10, 14, 1, struct.pack("<QQBBHI", 0x200000, 0x1000, 0, 1, 0, 0))
rec(20, 14, 1, struct.pack("<QQBBHI", 0x200000, 0x1000, 1, 1, 0, 0))
rec(30, 13, 0, struct.pack("<QQIBBBBHHIQ", 0, 0x1005000, 64, 0, 1, 1, 0, 0, 1, 0, 0))
open(sys.argv[1], "wb").write(out)
PY
	fail "making thp"
"$bin" hmtt --csv --section v2p,traffic "$tmp/thp.vmt" >"$tmp/out" 2>"$tmp/err"
v2p=$(awk -F, 'prev ~ /^pages,page_mappings/ { print $1, $3, $4, $6 } { prev = $0 }' "$tmp/out")
[ "$v2p" = "512 0 512 0" ] && grep -qx 'dma_lines,1,1,100.0000,0' "$tmp/out" && pass ||
	fail "a THP's PAGEMAP records: v2p '$v2p' (pages, remapped, frames, remapped; want 512 0 512 0), $(grep dma_lines "$tmp/out") $(cat "$tmp/err")"
# SCR lost compares the views over the same references: not under --addr.
"$bin" hmtt --csv --section scr --addr 0x10000-0x12000 "$tmp/nf.vmt" >"$tmp/out" 2>&1 &&
	! grep -q '^window,virtual_pct' "$tmp/out" && pass ||
	fail "scr's lost table under --addr: $(head -c 300 "$tmp/out")"
expect 2 "unknown section 'trafic'" --section dma,trafic "$tmp/tr.vmt"
expect 1 "no references pass the filters" --section traffic --pid 4242 "$tmp/tr.vmt"

# Bad input.
trace nodma "ref 0 1 0x10 0" "ref 10 1 0x11 0"
trace empty "dma 0 0 1 4096"
expect 2 "bad time '0'" --window 0 "$tmp/t.vmt"
expect 2 "bad time '10parsecs'" --window 10parsecs "$tmp/t.vmt"
expect 2 "unknown section 'dmaa'" --section v2p,dmaa "$tmp/t.vmt"
expect 2 "bad --scr-window '2'" --scr-window 2 "$tmp/t.vmt"
expect 2 "bad --scr-window '2'" --scr-window 8,2 "$tmp/t.vmt"
expect 2 "an empty window in '8,,16'" --scr-window 8,,16 "$tmp/t.vmt"
expect 2 "an empty window in '8,'" --scr-window 8, "$tmp/t.vmt"
expect 2 "more than 8 windows" --scr-window 3,4,5,6,7,8,9,10,11 "$tmp/t.vmt"
expect 2 "window 16 given twice" --scr-window 16,8,16 "$tmp/t.vmt"
expect 2 "bad --scr-window 'x'" --scr-window 8,x "$tmp/t.vmt"
expect 2 "bad --prefetch-trackers '0'" --prefetch-trackers 0 "$tmp/t.vmt"
expect 2 "bad --prefetch-trackers '1025'" --prefetch-trackers 1025 "$tmp/t.vmt"
expect 2 "bad --prefetch-degree '65'" --prefetch-degree 65 "$tmp/t.vmt"
expect 2 "bad --prefetch-degree 'two'" --prefetch-degree two "$tmp/t.vmt"
expect 2 "'row=17-64': bit 64 past 63" --dram-map 'bank=9,10;row=17-64' "$tmp/t.vmt"
expect 2 "'row=10-20': bit 10 overlaps, already bank's" --dram-map 'bank=9,10;row=10-20' "$tmp/t.vmt"
expect 2 "no bank bits" --dram-map 'row=17-32;col=0-12' "$tmp/t.vmt"
expect 2 "no row bits" --dram-map 'bank=13,14' "$tmp/t.vmt"
expect 2 "unknown field 'chan'" --dram-map 'chan=6;bank=13;row=14-30' "$tmp/t.vmt"
expect 2 "no preset 'ddr3'" --dram-map ddr3 "$tmp/t.vmt"
expect 2 "bad --dram-window '1'" --dram-window 1 "$tmp/t.vmt"
expect 1 "no DMA records in the trace" --section dma "$tmp/nodma.vmt"
expect 1 "no references in the trace" "$tmp/empty.vmt"
expect 1 "no references pass the filters" --pid 4242 "$tmp/t.vmt"
expect 1 "" "$tmp/no-such-file.vmt"
# The other sections go on without DMA records, which they say.
expect 0 "no DMA records in the trace" "$tmp/nodma.vmt"
# No frame in the trace: dram's physical section is empty, and says so.
"$bin" hmtt --section dram "$tmp/nodma.vmt" >"$tmp/out" 2>"$tmp/err" &&
	grep -q '2 references without a frame passed over: none names one' "$tmp/out" &&
	pass || fail "dram without frames: $(cat "$tmp/out" "$tmp/err")"

echo "hmtt: $passed checks passed, $failed failures"
[ $failed -eq 0 ]
