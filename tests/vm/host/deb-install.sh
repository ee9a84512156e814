#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# kernels: 6.1
# The Debian packages of `make deb` on a test kernel, as a user installs them:
# - on the host, DKMS (in a scratch tree) builds vmtrace.ko from the source
#   vmtrace-dkms installs, for this kernel's headers, and packs the binaries
#   with `dkms mktarball --binaries-only` (the guest has no headers, and a
#   compiler under TCG would take minutes);
# - in the guest, tests/vm/packages/install.sh installs both packages with
#   dpkg -i, loads those binaries with `dkms ldtarball` and `dkms install`,
#   traces with the installed command (which loads the module itself),
#   reads the trace with plain babeltrace2 (the plugin where babeltrace2
#   looks), and removes the packages with dpkg -r: nothing they installed,
#   and no module, is left.
# On 6.1 only: DKMS builds against 6.12's headers on the host all the same
# (make check-deb), and the guest's part is the same on both; on 6.12 under
# one TCG thread it took 213 s of make check.
set -uo pipefail
k=$1
. "$(dirname "$0")/../../../scripts/lib.sh"
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$VMTRACE_ROOT" || exit 1
rel=$(kernel_release "$k") || fail "kernel $k is not set up"
[ "$k" != debug ] || fail "the packages are tested on Debian's kernels only"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

version=$(dpkg-parsechangelog -S Version)
upstream=${version%-*}
tools=build/deb/vmtrace_${version}_amd64.deb
dkms_deb=build/deb/vmtrace-dkms_${version}_all.deb
make_debs "$tmp/make.log" || { tail -30 "$tmp/make.log"; fail "make deb"; }
echo "packages: $(basename "$tools"), $(basename "$dkms_deb")"

# DKMS on the host: the packaged source, this kernel's headers.
dpkg-deb -x "$dkms_deb" "$tmp/root"
mkdir -p "$tmp/dkms-tree" "$tmp/share"
dk=(--dkmstree "$tmp/dkms-tree" --sourcetree "$tmp/root/usr/src")
{
	dkms add "vmtrace/$upstream" "${dk[@]}" &&
		dkms build "vmtrace/$upstream" -k "$rel" "${dk[@]}" &&
		dkms mktarball "vmtrace/$upstream" -k "$rel" --binaries-only \
			--archive "$tmp/share/vmtrace-dkms.tar.gz" "${dk[@]}"
} >"$tmp/dkms.log" 2>&1 || { tail -30 "$tmp/dkms.log"; fail "dkms on the host for $rel"; }
[ -s "$tmp/share/vmtrace-dkms.tar.gz" ] || fail "dkms mktarball wrote no archive"
echo "dkms built vmtrace.ko for $rel: $(tar -tzf "$tmp/share/vmtrace-dkms.tar.gz" | grep -c '\.ko') module file"
cp "$tools" "$dkms_deb" "$tmp/share/"
echo "$upstream" >"$tmp/share/version"

"$VMTRACE_ROOT/scripts/vm-run" --kernel "$k" --share "$tmp/share" --timeout 900 -- \
	/opt/vmtrace/tests/vm/packages/install.sh
