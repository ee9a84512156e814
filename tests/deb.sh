#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/deb.sh (make check-deb): the Debian packages on the host, no VM.
# - `make deb` builds vmtrace, vmtrace-mpi, vmtrace-dkms and python3-vmtrace into build/deb/
#   (make_debs of scripts/lib.sh: once for a given source);
# - dpkg-deb -c: vmtrace holds the command, its man page, libvmtrace (.so.0
#   and its links, .a, libvmtrace.pc) and the headers; vmtrace-dkms holds
#   dkms.conf, Kbuild and every source the Kbuild's vmtrace-y names;
# - its dkms.conf names the package's upstream version and AUTOINSTALL=yes;
# - python3-vmtrace (Architecture all) holds python/vmtrace/*.py in
#   /usr/lib/python3/dist-packages/vmtrace and nothing else of ours, depends
#   on python3, python3-numpy and vmtrace (libvmtrace.so.0's package), and
#   suggests python3-pandas; vmtrace holds none of it. Unpacked with vmtrace
#   into a scratch root, Debian's python3 imports it from there and it loads
#   the root's libvmtrace.so.0 (LD_LIBRARY_PATH): it reads a test trace, and
#   what it reads is what the root's vmtrace command counts and dumps;
# - vmtrace holds no vmtrace-mpi and depends on no MPI library; vmtrace-mpi
#   holds /usr/bin/vmtrace-mpi (and vmtrace-mpi.1, a link to vmtrace.1) and
#   nothing else of ours, depends on vmtrace (= the version) and, through
#   ${shlibs:Depends}, on the package of the libmpi.so its binary needs, and
#   recommends openmpi-bin. Unpacked with vmtrace into the same root, `mpirun
#   -np 2 ROOT/usr/bin/vmtrace stats TRACE` (loopback only) runs the root's
#   vmtrace-mpi and prints what the root's vmtrace prints alone;
# - each tag lintian gives is explained in docs/PACKAGING.md;
# - DKMS (in scratch trees: --dkmstree, --sourcetree) adds the package's
#   source and builds vmtrace.ko for every kernel with headers under
#   /lib/modules; modinfo says each is vmtrace, for that kernel's release.
# The module is not loaded here: tests/vm/host/deb-install.sh installs the
# packages in the test guest, and traces with the module DKMS built.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failed=0
fail() { echo "deb: FAIL: $*"; failed=$((failed + 1)); }

cd "$top" || exit 1
. scripts/lib.sh
if ! make_debs "$tmp/make.log"; then
	tail -30 "$tmp/make.log"
	echo "deb: FAIL: make deb"
	exit 1
fi
version=$(dpkg-parsechangelog -S Version)
upstream=${version%-*}
tools=build/deb/vmtrace_${version}_amd64.deb
dkms_deb=build/deb/vmtrace-dkms_${version}_all.deb
py_deb=build/deb/python3-vmtrace_${version}_all.deb
mpi_deb=build/deb/vmtrace-mpi_${version}_amd64.deb
[ -f "$tools" ] && [ -f "$mpi_deb" ] && [ -f "$dkms_deb" ] && [ -f "$py_deb" ] ||
	{ echo "deb: FAIL: no $tools, $mpi_deb, $dkms_deb or $py_deb"; exit 1; }

# contents DEB: its paths, links as "PATH -> TARGET".
contents() { dpkg-deb -c "$1" | awk '{ $1 = $2 = $3 = $4 = $5 = ""; sub(/^ +\./, ""); print }'; }
contents "$tools" >"$tmp/tools"
lib=/usr/lib/$(dpkg-architecture -qDEB_HOST_MULTIARCH)
for f in /usr/bin/vmtrace /usr/share/man/man1/vmtrace.1.gz /usr/include/vmtrace_marker.h \
	/usr/include/linux/vmtrace.h /usr/include/vmtrace/trace.h /usr/include/vmtrace/vmtrace.h \
	/usr/include/vmtrace/analysis.h "$lib/libvmtrace.a" "$lib/libvmtrace.so.$upstream" \
	"$lib/libvmtrace.so.0 -> libvmtrace.so.$upstream" "$lib/libvmtrace.so -> libvmtrace.so.0" \
	"$lib/pkgconfig/libvmtrace.pc"; do
	grep -qxF "$f" "$tmp/tools" || fail "$tools lacks $f"
done

grep -q dist-packages "$tmp/tools" && fail "$tools holds the Python package: $(grep dist-packages "$tmp/tools" | head -3)"

# vmtrace-mpi: the MPI binary and its dependency on Open MPI are its own;
# vmtrace has neither.
before=$failed
grep -q vmtrace-mpi "$tmp/tools" && fail "$tools holds vmtrace-mpi: $(grep vmtrace-mpi "$tmp/tools" | head -3)"
deps=$(dpkg-deb -f "$tools" Pre-Depends Depends)
grep -qiE 'openmpi|libmpi' <<<"$deps" && fail "$tools depends on MPI: $deps"
contents "$mpi_deb" | grep -v '/$' | grep -v '^/usr/share/doc/vmtrace-mpi/' | sort >"$tmp/mpi"
printf '%s\n' /usr/bin/vmtrace-mpi '/usr/share/man/man1/vmtrace-mpi.1.gz -> vmtrace.1.gz' >"$tmp/mpi.want"
cmp -s "$tmp/mpi" "$tmp/mpi.want" ||
	fail "$mpi_deb holds $(tr '\n' ' ' <"$tmp/mpi"), not $(tr '\n' ' ' <"$tmp/mpi.want")"
mfield() { dpkg-deb -f "$mpi_deb" "$1"; }
[ "$(mfield Architecture)" = amd64 ] || fail "$mpi_deb: Architecture $(mfield Architecture), not amd64"
# The package of the libmpi.so.N the binary needs: shlibs' dependency.
dpkg-deb --fsys-tarfile "$mpi_deb" | tar -xOf - ./usr/bin/vmtrace-mpi >"$tmp/vmtrace-mpi"
libmpi=$(objdump -p "$tmp/vmtrace-mpi" | awk '$1 == "NEEDED" && $2 ~ /^libmpi\.so/ { print $2 }')
mpipkg=$(dpkg -S "$lib/$libmpi" 2>/dev/null | sed 's/[:,].*//')
[ -n "$mpipkg" ] || fail "$mpi_deb: vmtrace-mpi needs '$libmpi', which no installed package holds in $lib"
mdeps=$(mfield Depends | tr ',' '\n' | sed 's/^ *//')
grep -qxF "vmtrace (= $version)" <<<"$mdeps" || fail "$mpi_deb: Depends: $(mfield Depends): no vmtrace (= $version)"
grep -qE "^${mpipkg:-none}( |$)" <<<"$mdeps" || fail "$mpi_deb: Depends: $(mfield Depends): no $mpipkg ($libmpi)"
[ "$(mfield Recommends)" = openmpi-bin ] || fail "$mpi_deb: Recommends: $(mfield Recommends), not openmpi-bin"
[ $failed -eq "$before" ] &&
	echo "deb: vmtrace-mpi holds /usr/bin/vmtrace-mpi, depends on vmtrace (= $version) and $mpipkg ($libmpi), recommends openmpi-bin; vmtrace holds no vmtrace-mpi and depends on no MPI library"

# python3-vmtrace: the package's files, its relations, and the package at
# work from a scratch root with the library of vmtrace beside it.
pydir=/usr/lib/python3/dist-packages/vmtrace
contents "$py_deb" | grep -v '/$' | grep -v '^/usr/share/doc/python3-vmtrace/' | sort >"$tmp/py"
(cd python/vmtrace && printf "$pydir/%s\n" *.py) | sort >"$tmp/py.want"
cmp -s "$tmp/py" "$tmp/py.want" ||
	fail "$py_deb holds $(tr '\n' ' ' <"$tmp/py"), not $(tr '\n' ' ' <"$tmp/py.want")"
field() { dpkg-deb -f "$py_deb" "$1"; }
[ "$(field Architecture)" = all ] || fail "$py_deb: Architecture $(field Architecture), not all"
for dep in python3:any python3-numpy "vmtrace (>= $version)"; do
	field Depends | tr ',' '\n' | sed 's/^ *//' | grep -qxF "$dep" ||
		fail "$py_deb: Depends: $(field Depends): no $dep"
done
[ "$(field Suggests)" = python3-pandas ] || fail "$py_deb: Suggests: $(field Suggests), not python3-pandas"
dpkg-deb -x "$py_deb" "$tmp/pyroot" && dpkg-deb -x "$tools" "$tmp/pyroot" &&
	dpkg-deb -x "$mpi_deb" "$tmp/pyroot" || fail "dpkg-deb -x $py_deb $tools $mpi_deb"
trace=$top/tests/unit/data/format3-a2d8da3.vmt
records=$("$tmp/pyroot/usr/bin/vmtrace" stats "$trace" | sed -n 's/^records: //p')
"$tmp/pyroot/usr/bin/vmtrace" dump --type marker "$trace" >"$tmp/markers.dump"
# From $tmp (no python/ of the tree on sys.path), VMTRACE_LIBRARY unset: the
# package finds libvmtrace.so.0 as an installed one does, by its soname.
got=$(cd "$tmp" && env -u VMTRACE_LIBRARY PYTHONDONTWRITEBYTECODE=1 \
	PYTHONPATH="$tmp/pyroot/usr/lib/python3/dist-packages" LD_LIBRARY_PATH="$tmp/pyroot$lib" \
	/usr/bin/python3 - "$trace" <<'PY' 2>&1
import sys
import numpy as np
import vmtrace
maps = [l.split()[-1] for l in open('/proc/self/maps') if 'libvmtrace' in l]
with vmtrace.open(sys.argv[1]) as t:
    a = t.records()
    m = vmtrace.view(t.records(types='marker'), 'marker')
    markers = ','.join(f'{r["time_ns"]}:{r["id"]}' for r in m)
    texts = all(t.text(r) for r in m)
    refs = len(t.to_pandas('ref'))
print(vmtrace.__file__, ','.join(sorted(set(maps))), len(a),
      np.count_nonzero(a['type'] == vmtrace.TYPES['ref']), refs, markers or '-', texts)
PY
)
# Each marker's time and id as dump prints them (its text is tests/python's).
want=$(sed -n 's/^\([0-9]*\) marker .* id=\([0-9]*\) .*/\1:\2/p' "$tmp/markers.dump" | paste -sd,)
read -r file libs nrec nref npd markers texts <<<"$got"
if [ "$file" != "$tmp/pyroot$pydir/__init__.py" ] || [ "$libs" != "$tmp/pyroot$lib/libvmtrace.so.$upstream" ]; then
	fail "python3-vmtrace: imported $file with $libs, not the root's package and library: $got"
elif [ "$nrec" != "$records" ] || [ "$nref" != "$npd" ] || [ "$nref" -lt 1000 ] ||
     [ "$markers" != "${want:--}" ] || [ "$texts" != True ]; then
	fail "python3-vmtrace: $nrec records ($nref references, to_pandas $npd), markers $markers (texts: $texts); vmtrace stats counts $records, dump's markers $want"
else
	echo "deb: python3-vmtrace unpacked with dpkg-deb -x read $nrec records ($nref references, markers $markers) through the packaged libvmtrace.so.$upstream"
fi

# The root's vmtrace under mpirun (2 processes, over TCP on the loopback
# interface alone, as tests/unit/mpi.sh; root may run it) becomes the root's
# vmtrace-mpi, beside it, and prints what it prints alone.
"$tmp/pyroot/usr/bin/vmtrace" stats "$trace" >"$tmp/stats.alone" 2>&1
echo "exit $?" >>"$tmp/stats.alone"
env OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 LD_LIBRARY_PATH="$tmp/pyroot$lib" \
	mpirun -np 2 --oversubscribe --mca btl self,tcp --mca btl_tcp_if_include lo \
	--mca oob_tcp_if_include lo "$tmp/pyroot/usr/bin/vmtrace" stats "$trace" >"$tmp/stats.mpi" 2>&1
echo "exit $?" >>"$tmp/stats.mpi"
if ! grep -qx "records: $records" "$tmp/stats.alone" || ! grep -qx 'exit 0' "$tmp/stats.alone"; then
	fail "vmtrace stats from the root: $(head -c 300 "$tmp/stats.alone")"
elif ! cmp -s "$tmp/stats.alone" "$tmp/stats.mpi"; then
	fail "vmtrace-mpi: mpirun -np 2 ROOT/usr/bin/vmtrace stats prints otherwise than vmtrace alone: $(diff "$tmp/stats.alone" "$tmp/stats.mpi" | head -8)"
else
	echo "deb: vmtrace-mpi unpacked with vmtrace: mpirun -np 2 ROOT/usr/bin/vmtrace stats printed what vmtrace alone prints ($records records, $(wc -l <"$tmp/stats.alone") lines)"
fi

src=/usr/src/vmtrace-$upstream
contents "$dkms_deb" >"$tmp/dkms"
sources=$(sed -n '/^vmtrace-y/,/[^\\]$/p' Kbuild | tr ' \\\t' '\n\n\n' | sed -n 's/\.o$/.c/p')
[ "$(echo "$sources" | wc -l)" -ge 10 ] || fail "cannot read vmtrace-y from Kbuild"
for f in dkms.conf Kbuild include/uapi/linux/vmtrace.h $sources; do
	grep -qxF "$src/$f" "$tmp/dkms" || fail "$dkms_deb lacks $src/$f"
done
dpkg-deb -x "$dkms_deb" "$tmp/root"
conf=$tmp/root$src/dkms.conf
# dkms.conf is shell: read it with the shell, as dkms does.
# shellcheck disable=SC1090
got=$(kernel_source_dir=K dkms_tree=T bash -c '. "$1"; echo "$PACKAGE_NAME $PACKAGE_VERSION $AUTOINSTALL ${BUILT_MODULE_NAME[0]}"' _ "$conf")
[ "$got" = "vmtrace $upstream yes vmtrace" ] ||
	fail "dkms.conf: name, version, autoinstall, module '$got', not 'vmtrace $upstream yes vmtrace'"

# Every lintian tag named in docs/PACKAGING.md.
sed -n 's/^[EWIXP]: [^:]*: \([a-z0-9-]*\).*/\1/p' "$tmp/make.log" | sort -u >"$tmp/tags"
while read -r tag; do
	grep -q "\`$tag\`" docs/PACKAGING.md || fail "lintian's $tag is not explained in docs/PACKAGING.md"
done <"$tmp/tags"
grep -q '^E: ' "$tmp/make.log" && fail "lintian errors: $(grep '^E: ' "$tmp/make.log")"

# DKMS, for each kernel whose headers are installed.
mkdir -p "$tmp/dkms-tree"
dk=(--dkmstree "$tmp/dkms-tree" --sourcetree "$tmp/root/usr/src")
dkms add "vmtrace/$upstream" "${dk[@]}" >"$tmp/dkms.log" 2>&1 || fail "dkms add: $(cat "$tmp/dkms.log")"
built=0
for build in /lib/modules/*/build; do
	[ -r "$build/include/generated/utsrelease.h" ] || continue
	kver=$(basename "$(dirname "$build")")
	if ! dkms build "vmtrace/$upstream" -k "$kver" "${dk[@]}" >"$tmp/dkms.log" 2>&1; then
		fail "dkms build for $kver: $(tail -20 "$tmp/dkms.log")"
		continue
	fi
	ko=$(find "$tmp/dkms-tree/vmtrace/$upstream/$kver" -name 'vmtrace.ko*' | head -1)
	name=$(modinfo -F name "$ko" 2>&1)
	magic=$(modinfo -F vermagic "$ko" 2>&1)
	[ "$name" = vmtrace ] && [ "${magic%% *}" = "$kver" ] ||
		{ fail "dkms built '$ko' named '$name' for '$magic', not vmtrace for $kver"; continue; }
	echo "deb: dkms built vmtrace.ko for $kver"
	built=$((built + 1))
done
[ $built -gt 0 ] || fail "no kernel headers under /lib/modules/*/build to build against"

echo "deb: $(basename "$tools"), $(basename "$mpi_deb"), $(basename "$dkms_deb") and $(basename "$py_deb") built, contents checked, lintian tags: $(tr '\n' ' ' <"$tmp/tags"); dkms built the module for $built kernels; $failed failures"
[ $failed -eq 0 ]
