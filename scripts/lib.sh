# SPDX-License-Identifier: GPL-2.0
# Shared by the scripts in this folder: where caches live and how kernels are named.
# Source it; it defines variables and functions only.

VMTRACE_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# Caches live outside the repo so that a fresh clone reuses them.
VMTRACE_CACHE=${VMTRACE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/vmtrace}
KERNELS_DIR=$VMTRACE_CACHE/kernels
ROOTFS_DIR=$VMTRACE_CACHE/rootfs

# The Debian meta packages that name the current ABI of each test kernel.
# Debian bumps the ABI with every security update and drops old ones, so the
# concrete package is resolved from these at setup time, never written down.
declare -A KERNEL_IMAGE_META=([6.1]=linux-image-amd64 [6.12]=linux-image-6.12-amd64)
declare -A KERNEL_HEADERS_META=([6.1]=linux-headers-amd64 [6.12]=linux-headers-6.12-amd64)

die() { echo "${0##*/}: $*" >&2; exit 1; }
say() { [ -n "${QUIET:-}" ] || echo "${0##*/}: $*" >&2; }

# resolve_meta PKG: print the package a Debian meta package depends on now.
resolve_meta() {
	apt-cache depends "$1" 2>/dev/null |
		awk '$1 == "Depends:" && $2 ~ /^linux-/ { print $2; exit }'
}

# kernel_dir NAME: the cache folder of one test kernel (6.1, 6.12, debug).
kernel_dir() { echo "$KERNELS_DIR/$1"; }

# kernel_release NAME: its `uname -r`, once setup has unpacked or built it.
kernel_release() {
	local f
	f="$(kernel_dir "$1")/release"
	[ -r "$f" ] || return 1
	cat "$f"
}

# kernel_build_dir NAME: the kbuild tree to build modules against.
kernel_build_dir() {
	local rel
	if [ "$1" = debug ]; then
		echo "$(kernel_dir debug)/build"
		return
	fi
	rel=$(kernel_release "$1") || return 1
	echo "/lib/modules/$rel/build"
}

# timed LABEL CMD...: run CMD and print how long it took, for the stage timings
# (and add it to $VMT_TIMES, when set: see scripts/check).
timed() {
	local label=$1 start rc
	shift
	start=$(date +%s)
	"$@"
	rc=$?
	printf '[ stage %-24s %4ds  %s ]\n' "$label" $(($(date +%s) - start)) \
		"$([ $rc -eq 0 ] && echo ok || echo "FAILED ($rc)")" >&2
	[ -z "${VMT_TIMES:-}" ] ||
		printf '%d\tstage\t%s\n' $(($(date +%s) - start)) "$label" >>"$VMT_TIMES"
	return $rc
}

# linux_source_dir: Debian's linux-source-6.1, unpacked once into the cache.
# The debug kernel, KUnit under UML and checkpatch all come from it.
linux_source_dir() {
	local tarball=/usr/src/linux-source-6.1.tar.xz dir=$VMTRACE_CACHE/src
	local ver
	[ -r "$tarball" ] || die "$tarball is missing: run scripts/setup"
	ver=$(dpkg-query -W -f='${Version}' linux-source-6.1)
	if [ "$(cat "$dir/version" 2>/dev/null)" != "$ver" ]; then
		rm -rf "$dir"
		mkdir -p "$dir"
		tar -C "$dir" -xf "$tarball"
		echo "$ver" >"$dir/version"
	fi
	echo "$dir/linux-source-6.1"
}

# make_debs LOG: `make deb` into build/deb (its output, lintian's included,
# into LOG), once for a given source. make check's two lanes both want the
# packages (tests/deb.sh, tests/vm/host/deb-install.sh): a lock keeps them
# from building at once in one tree (dpkg-buildpackage stages in debian/),
# and the packages are kept, with the output, beside a stamp of the commit
# and the tree's changes they were built from, and built again only when
# those differ. Run from the top of the tree; 0 or make's status.
make_debs() {
	local log=$1 want
	mkdir -p build/deb
	want=$({ git rev-parse HEAD && git status --porcelain && git diff HEAD; } 2>/dev/null | sha256sum)
	(
		flock 9
		if [ "$(cat build/deb/.source 2>/dev/null)" != "$want" ] ||
		   [ -z "$(ls build/deb/*.deb 2>/dev/null)" ]; then
			rm -f build/deb/*.deb build/deb/.source
			make -s deb >build/deb/.make.log 2>&1 || exit
			echo "$want" >build/deb/.source
		fi
	) 9>build/deb/.lock
	local rc=$?
	cp build/deb/.make.log "$log" 2>/dev/null
	return $rc
}

# bench_section TITLE TEXT: docs/BENCHMARKS.md's section "## TITLE" becomes
# TEXT (its heading included), at the end; the other sections stay as they are.
bench_section() {
	local doc=$VMTRACE_ROOT/docs/BENCHMARKS.md tmp
	[ -e "$doc" ] || printf '# Benchmarks\n' >"$doc"
	tmp=$(mktemp)
	awk -v h="## $1" '$0 == h { skip = 1; next } skip && /^## / { skip = 0 } !skip' "$doc" >"$tmp"
	sed -e :a -e '/^\n*$/{$d;N;ba' -e '}' "$tmp" >"$doc"
	rm -f "$tmp"
	printf '\n%s\n' "$2" >>"$doc"
}

# seed_row NAME FILE [accesses]: a table row of `vmtrace compare`'s outputs in
# FILE (one a seed, one after another): per level the least to the most of
# the mean and of the worst |B - A| over the seeds, and the seeds whose
# synthetic trace meets issue 33's bar (per level, mean at most 1.0 point,
# worst at most 3.5). With "accesses", A's accesses come second.
seed_row() {
	awk -v p="$1" -v with_n="${3:-}" '
		function span(lo, hi) { return lo == hi ? sprintf("%.2f", lo) : sprintf("%.2f to %.2f", lo, hi) }
		/^# vmtrace compare: A / && match($0, /\([0-9,]+ exact accesses/) {
			n = substr($0, RSTART + 1, RLENGTH - 1)
			sub(/ .*/, "", n)
		}
		/^# per level/ { s++ }
		$1 ~ /^L[1-3]$/ && $2 == "mean" && $4 == "worst" {
			l = $1
			if ($3 > 1.0 || $5 > 3.5) bad[s] = 1
			if (!(l in seen) || $3 < mlo[l]) mlo[l] = $3
			if (!(l in seen) || $3 > mhi[l]) mhi[l] = $3
			if (!(l in seen) || $5 < wlo[l]) wlo[l] = $5
			if (!(l in seen) || $5 > whi[l]) whi[l] = $5
			seen[l] = 1
		}
		END {
			row = "| " p (with_n == "accesses" ? " | " n : "")
			for (k = 1; k <= 3; k++)
				row = row (("L" k) in seen ? " | " span(mlo["L" k], mhi["L" k]) " / " \
					   span(wlo["L" k], whi["L" k]) : " | –")
			ok = 0
			for (i = 1; i <= s; i++)
				ok += !(i in bad)
			print row " | " ok " of " s " |"
		}' "$2"
}
