#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/rewrite.sh VMTRACE: every command that writes a trace keeps
# every field of every record it keeps. The source: raw records of every type
# with every payload byte random (rewrite/records.py: every flag of every field
# set in some records: huge, kernel mode, dirty, accessed, split, string,
# stack, data dropped...), with variable-size data. Each output is exported
# raw and compared with the source field by field (rewrite/compare.py):
# - convert, with each codec (model, vpc, zstd, xz, none): every record;
# - export --format raw, then convert of that, then export again: every record;
# - reduce --sad (model and zstd, per process too): every record but the
#   references it drops, in order, and some dropped;
# - verify --repair of a file cut mid-frame: the records of each stream's
#   complete frames, in order, and some.
NAME=rewrite
. "$(dirname "$0")/rewrite/lib.sh"
bin=$1
# same WHAT SOURCE.raw TRACE [compare.py's option]: TRACE exported raw is SOURCE.
same() {
	local what=$1 src=$2 trace=$3 out
	shift 3
	if ! "$bin" export --format raw "$trace" -o "$trace.raw" >"$tmp/err" 2>&1; then
		fail "$what: export: $(cat "$tmp/err")"
		return 1
	fi
	if out=$(python3 "$here/rewrite/compare.py" "$src" "$trace.raw" "$@"); then
		ok
		echo "rewrite: $what: $out"
	else
		fail "$what: $out"
		return 1
	fi
}

python3 "$here/rewrite/records.py" 1 3000 >"$tmp/src.raw" || { echo "rewrite: FAIL: no source"; exit 1; }
for codec in model vpc zstd xz none; do
	"$bin" convert --codec $codec "$tmp/src.raw" -o "$tmp/$codec.vmt" >/dev/null 2>"$tmp/err" ||
		fail "convert --codec $codec: $(cat "$tmp/err")"
	same "convert --codec $codec" "$tmp/src.raw" "$tmp/$codec.vmt"
done

"$bin" export --format raw "$tmp/model.vmt" -o "$tmp/exported.raw" 2>"$tmp/err" &&
	"$bin" convert "$tmp/exported.raw" -o "$tmp/again.vmt" >/dev/null 2>>"$tmp/err" ||
	fail "export raw, then convert: $(cat "$tmp/err")"
same "export raw, then convert" "$tmp/src.raw" "$tmp/again.vmt"

for args in "--sad 8" "--sad 8 --codec zstd" "--sad 8 --per-process"; do
	# shellcheck disable=SC2086
	if "$bin" reduce $args "$tmp/model.vmt" -o "$tmp/reduced.vmt" >"$tmp/out" 2>&1; then
		kept=$(sed -n 's/.*: SAD R=8[a-z ]*: \([0-9]*\) of \([0-9]*\) references kept.*/\1 \2/p' "$tmp/out")
		read -r k n <<<"$kept"
		[ -n "$kept" ] && [ "$k" -lt "$n" ] || fail "reduce $args dropped no reference: $(cat "$tmp/out")"
		same "reduce $args ($k of $n references kept)" "$tmp/src.raw" "$tmp/reduced.vmt" --subset
	else
		fail "reduce $args: $(cat "$tmp/out")"
	fi
done

# A collector killed mid-frame: the file cut 1000 bytes into its last frame's
# bytes (its directory and trailer are gone too); --repair keeps what is whole.
size=$(stat -c %s "$tmp/zstd.vmt")
head -c $((size * 3 / 4)) "$tmp/zstd.vmt" >"$tmp/cut.vmt"
if "$bin" verify --repair "$tmp/cut.vmt" >"$tmp/out" 2>&1; then
	n=$("$bin" dump "$tmp/cut.vmt" 2>/dev/null | wc -l)
	[ "$n" -gt 0 ] || fail "verify --repair kept no record: $(cat "$tmp/out")"
	same "verify --repair ($n records kept)" "$tmp/src.raw" "$tmp/cut.vmt" --some
else
	fail "verify --repair: $(cat "$tmp/out")"
fi

finish
