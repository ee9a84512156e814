#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/cachesim-cachegrind.sh VMTRACE: vmtrace cachesim against valgrind's
# cachegrind (issue 31, docs/analysis/cachesim.md "Against cachegrind").
#
# Each program runs under `valgrind --tool=lackey --trace-mem=yes`, its log goes
# through `vmtrace convert --from lackey` and `vmtrace cachesim --csv` simulates
# every configuration below in one pass; the same program runs under
# `valgrind --tool=cachegrind --cache-sim=yes --I1=.. --D1=.. --LL=..` once a
# configuration. Valgrind lays a client out the same way whatever the tool, so
# both see the same addresses. Compared, from cachegrind.out's summary line
# (events Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw) and vmtrace's rows:
#   D1 misses  D1mr + D1mw          the level-1 data row's misses     within 0.5%
#   LL misses  ILmr + DLmr + DLmw   the LL row's (fetches' too)       within 1%
#   I1 misses  I1mr                 the level-1 instruction row's     within 1%
# and, printed only, lackey's accesses against cachegrind's Ir and Dr + Dw.
#
# Why a difference can remain (valgrind 3.19's cachegrind/cg_main.c, cg_sim.c,
# cg-arch.c and lackey/lk_main.c; a model of both tools' conventions, run on
# matmul's and xz's lackey logs, gave cachegrind's and vmtrace's counts
# exactly):
# - Accesses: the same. Both tools instrument the same VEX IR alike: a load
#   an L (cachegrind's Dr), a store an S (Dw), a load and a store of the same
#   address and size by one instruction one M (Dm, counted as a read: Dr,
#   D1mr, DLmr; vmtrace counts a read-modify-write's miss as a read too); a
#   CAS or a dirty helper's memory (fxsave...) a read and a write; loads and
#   stores at their IR type's size, 32 bytes for AVX, in both. Lackey's I and
#   L+M+S lines equal cachegrind's Ir and Dr+Dw here to the one (printed
#   below). They differ only when the two run at different VEX optimisation
#   levels: at --vex-iropt-level=0 (exact-insn-lackey.sh's) lackey also sees
#   the loads the default level drops as dead, 27 more data accesses and 54
#   more instructions on a 32x32 matmul; this test runs both at the default.
# - Sizes: cachegrind cuts a dirty helper's or a CAS's access (fxsave's
#   160-byte x87 part) to its smallest line size, lackey prints it whole;
#   cachegrind counts an instruction Vex could not decode (length 0) as 1
#   byte (valgrind then raises SIGILL in the program). None occurs in these
#   programs: their largest access is 32 bytes.
# - Straddles at LL: cachegrind sends an access that missed I1 or D1 on to
#   LL whole, as one access: one LL miss at most, even when both its lines
#   miss there; where only one line missed L1, its LL looks the other up too.
#   vmtrace sends on only the lines that missed, each a demand access of LL,
#   so a straddling access both of whose lines miss everywhere (a first
#   touch of code across a line end, most of them) is 2 LL misses to vmtrace,
#   1 to cachegrind. This is all of the LL difference where LL is large.
# - Write-backs: cachegrind has none; vmtrace's L1 writes a dirty victim back
#   to LL, which fills it there when LL no longer holds it, and a later miss
#   of L1 may then hit LL (or the fill evicts a line cachegrind's LL keeps):
#   with a small LL, some LL misses fewer. On xz, the cachegrind preset:
#   straddles +21, write-backs -11, vmtrace 8260 against cachegrind's 8250.
# - The preset cachegrind is valgrind's fallback when it cannot read the
#   CPU's caches (cg-arch.c, configure_caches(), x86 and amd64): I1 and D1
#   65536 B 2-way, LL 262144 B 8-way, 64 B lines; the installed 3.19 binary
#   stores exactly these before its "Cannot auto-detect cache config"
#   warning. This machine's CPU is read, so the test gives them as options.
set -euo pipefail
vmtrace=$(realpath "${1:?usage: cachesim-cachegrind.sh VMTRACE}")
progs=$(cd "$(dirname "$0")" && pwd)/cachesim-progs
for tool in valgrind gcc xz; do
	if ! command -v "$tool" >/dev/null; then
		echo "cachesim-cachegrind: $tool is not installed (scripts/setup installs it)" >&2
		exit 1
	fi
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$SECONDS

# The configurations: a name, cachegrind's options, and vmtrace's hierarchy
# (the name its rows carry): from --cache, the preset, and a config file.
configs=(c32k c64k2 c16k32 mixed)
declare -A cg_opts=(
	[c32k]="--I1=32768,8,64 --D1=32768,8,64 --LL=8388608,16,64"
	[c64k2]="--I1=65536,2,64 --D1=65536,2,64 --LL=262144,8,64"
	[c16k32]="--I1=16384,4,32 --D1=16384,4,32 --LL=131072,8,32"
	[mixed]="--I1=32768,4,64 --D1=8192,2,32 --LL=1048576,16,128"
)
declare -A hierarchy=([c32k]=custom [c64k2]=cachegrind [c16k32]=c16k32 [mixed]=mixed)
declare -A what=(
	[c32k]="32k/8/64 + 8M/16/64"
	[c64k2]="preset cachegrind"
	[c16k32]="16k/4/32 + 128k/8/32"
	[mixed]="I32k/4/64 D8k/2/32 LL1M/16/128"
)
# A level-1 cache given once (L1) serves as an instruction and a data cache
# of that size each: cachegrind's --I1 and --D1 of the same geometry.
vm_opts=(--cache L1=32k:8:64 --cache LL=8M:16:64 --preset cachegrind --config "$tmp/hier.conf")
cat >"$tmp/hier.conf" <<'EOF'
hierarchy c16k32
cache I1
  size 16k
  assoc 4
  line 32
  kind instruction
cache D1
  size 16k
  assoc 4
  line 32
  kind data
cache LL
  size 128k
  assoc 8
  line 32
hierarchy mixed
cache I1
  size 32k
  assoc 4
  line 64
  kind instruction
cache D1
  size 8k
  assoc 2
  line 32
  kind data
cache LL
  size 1M
  assoc 16
  line 128
EOF

# The programs: three kernels built here, and xz compressing generated text
# (xz takes some 350 instructions a byte at -0, and lackey writes a line an
# access: 18 KB keeps it to seconds).
for p in matmul jacobi chase; do
	gcc -O1 -o "$tmp/$p" "$progs/$p.c"
done
awk 'BEGIN { x = 7; for (i = 0; i < 750; i++) { x = (x * 75 + 74) % 65537;
	printf "%06d,item-%d,%s,%d\n", i, x % 97, (x % 3 ? "ok" : "retry"), x } }' \
	>"$tmp/xz-input.txt"
programs=(matmul jacobi chase xz)
declare -A command=(
	[matmul]="$tmp/matmul" [jacobi]="$tmp/jacobi" [chase]="$tmp/chase"
	[xz]="xz -0 -T1 -c $tmp/xz-input.txt"
)

for p in "${programs[@]}"; do
	read -ra cmd <<<"${command[$p]}"
	if ! valgrind --tool=lackey --trace-mem=yes --log-file="$tmp/$p.lackey" "${cmd[@]}" \
		>/dev/null; then
		grep -v '^ \?[ILSM] ' "$tmp/$p.lackey" | tail -20 >&2
		echo "cachesim-cachegrind: $p failed under lackey" >&2
		exit 1
	fi
	"$vmtrace" convert --from lackey "$tmp/$p.lackey" -o "$tmp/$p.vmt" 2>"$tmp/$p.convert" || {
		cat "$tmp/$p.convert" >&2
		exit 1
	}
	rm "$tmp/$p.lackey"
	"$vmtrace" cachesim --csv --no-classify "${vm_opts[@]}" "$tmp/$p.vmt" >"$tmp/$p.csv"
	rm "$tmp/$p.vmt"
	for c in "${configs[@]}"; do
		read -ra opts <<<"${cg_opts[$c]}"
		if ! valgrind --tool=cachegrind --cache-sim=yes "${opts[@]}" \
			--cachegrind-out-file="$tmp/$p.$c.cg" "${cmd[@]}" >/dev/null 2>"$tmp/$p.$c.err"; then
			tail -20 "$tmp/$p.$c.err" >&2
			echo "cachesim-cachegrind: $p failed under cachegrind ($c)" >&2
			exit 1
		fi
	done
done

# One line a program and configuration: the three pairs of numbers and their
# differences in %, marked '!' past the bound; exit 1 when any is.
for p in "${programs[@]}"; do
	for c in "${configs[@]}"; do
		printf '%s %s %s %s %s\n' "$p" "$c" "${hierarchy[$c]}" "$tmp/$p.$c.cg" "$tmp/$p.csv"
	done
done | awk -v whatlist="$(for c in "${configs[@]}"; do printf '%s=%s;' "$c" "${what[$c]}"; done)" '
function field(line, name,    n, k, f, v) {
	n = split(line, f, ",")
	for (k = 1; k <= n; k++)
		if (hdr[k] == name)
			return f[k]
	return ""
}
function diff(cg, vm) {
	if (cg == 0)
		return vm == 0 ? 0 : 100
	return (vm - cg) * 100 / cg
}
function cell(cg, vm, bound,    d) {
	d = diff(cg, vm)
	if (d > bound || d < -bound)
		bad++
	return sprintf("%9d %9d %+7.3f%s", cg, vm, d, d > bound || d < -bound ? "!" : " ")
}
BEGIN {
	n = split(whatlist, w, ";")
	for (k = 1; k <= n; k++)
		if (split(w[k], kv, "=") == 2)
			what[kv[1]] = kv[2]
	printf "%-7s %-30s | %-28s | %-28s | %-28s\n", "", "",
		"D1 misses (bound 0.5%)", "LL misses (bound 1%)", "I1 misses (bound 1%)"
	printf "%-7s %-30s | %9s %9s %8s | %9s %9s %8s | %9s %9s %8s\n", "program", "config",
		"cachegrnd", "vmtrace", "diff %", "cachegrnd", "vmtrace", "diff %",
		"cachegrnd", "vmtrace", "diff %"
}
{
	prog = $1; conf = $2; hier = $3; cgfile = $4; csv = $5
	while ((getline line < cgfile) > 0) {
		if (line ~ /^events: /)
			nev = split(substr(line, 9), ev, " ")
		else if (line ~ /^summary: /)
			split(substr(line, 10), sv, " ")
	}
	close(cgfile)
	for (k = 1; k <= nev; k++)
		cg[ev[k]] = sv[k]
	delete vm
	getline line < csv
	split(line, hdr, ",")
	while ((getline line < csv) > 0) {
		split(line, f, ",")
		if (f[1] != hier)
			continue
		lvl = f[2] == "L1D" ? "D1" : f[2] == "L1I" ? "I1" : f[2]
		vm[lvl] = field(line, "misses")
		acc[lvl] = field(line, "accesses")
	}
	close(csv)
	printf "%-7s %-30s | %s | %s | %s\n", prog, what[conf],
		cell(cg["D1mr"] + cg["D1mw"], vm["D1"], 0.5),
		cell(cg["ILmr"] + cg["DLmr"] + cg["DLmw"], vm["LL"], 1),
		cell(cg["I1mr"], vm["I1"], 1)
	if (!(prog in refs_said)) {
		refs_said[prog] = 1
		notes = notes sprintf("%s: accesses, lackey - cachegrind: I %d - %d = %+d, D %d - %d = %+d\n",
			prog, acc["I1"], cg["Ir"], acc["I1"] - cg["Ir"],
			acc["D1"], cg["Dr"] + cg["Dw"], acc["D1"] - cg["Dr"] - cg["Dw"])
	}
}
END {
	printf "%s", notes
	if (bad) {
		printf "cachesim-cachegrind: %d difference%s past the bound (marked !)\n", bad,
			bad == 1 ? "" : "s"
		exit 1
	}
}'
echo "cachesim-cachegrind: ${#programs[@]} programs x ${#configs[@]} configurations within the bounds ($((SECONDS - start)) s)"
