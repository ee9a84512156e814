#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# In the guest, for tests/vm/host/deb-install.sh: the packages of `make deb`
# and the DKMS binaries built on the host for this kernel are in /mnt/share.
. /opt/vmtrace/tests/vm/lib.sh
share=/mnt/share
rel=$(uname -r)
ver=$(cat "$share/version")
cd /var/tmp || exit 1

# /lib/modules/REL is the read-only module disk: an overlay lets DKMS (and
# its depmod) write into it, in this throwaway guest.
modprobe overlay
mkdir -p ov/upper ov/work
mount -t overlay overlay -o "lowerdir=/lib/modules/$rel,upperdir=ov/upper,workdir=ov/work" \
	"/lib/modules/$rel"

# The installed system's files (package state and logs aside).
snapshot() {
	find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /run -o -path /tmp \
		-o -path /var/tmp -o -path /var/log -o -path /var/cache -o -path /var/lib/dpkg \
		-o -path /mnt -o -path /opt \) -prune -o -print
	find "/lib/modules/$rel" -print
}
snapshot | sort >before.txt
modprobe -n vmtrace 2>/dev/null && fail "a vmtrace module is installed before the packages are"

dpkg -i "$share"/vmtrace_*.deb "$share"/vmtrace-dkms_*.deb >dpkg-i.log 2>&1 ||
	{ cat dpkg-i.log; fail "dpkg -i"; }
for p in vmtrace vmtrace-dkms; do
	expect_eq "$(dpkg-query -W -f '${Status}' "$p")" "install ok installed" "$p's state"
done
echo "dpkg -i: vmtrace and vmtrace-dkms installed"
# Its postinst added the source to DKMS; with no headers here it built nothing.
grep -q "^vmtrace/$ver: added" <<<"$(dkms status)" || fail "dkms status after dpkg -i: $(dkms status)"
# Load the binaries DKMS built on the host from the same source. ldtarball
# adds the module itself, so the package's entry is taken off first; the
# source stays in /usr/src, and ldtarball links it again.
dkms remove "vmtrace/$ver" --all >dkms.log 2>&1 || { cat dkms.log; fail "dkms remove"; }
dkms ldtarball "$share/vmtrace-dkms.tar.gz" >>dkms.log 2>&1 || { cat dkms.log; fail "dkms ldtarball"; }
expect_eq "$(readlink "/var/lib/dkms/vmtrace/$ver/source")" "/usr/src/vmtrace-$ver" "the DKMS source"
dkms install "vmtrace/$ver" -k "$rel" >>dkms.log 2>&1 || { cat dkms.log; fail "dkms install"; }
status=$(dkms status)
grep -q "^vmtrace/$ver, $rel, x86_64: installed" <<<"$status" || fail "dkms status: $status"
ko=$(modinfo -n vmtrace) || fail "modprobe cannot find the module DKMS installed"
[[ "$ko" == "/lib/modules/$rel/updates/dkms/vmtrace.ko"* ]] || fail "vmtrace is $ko, not DKMS's"
expect_eq "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" "$rel" "the module's kernel"
echo "dkms: $status; module $ko"

# The installed command loads the module itself and traces.
grep -q '^vmtrace ' /proc/modules && fail "vmtrace is loaded before the first record"
/usr/bin/vmtrace record -o run.vmt --protect -n 64 -- /opt/vmtrace/bin/vmt-pages 256 2000 \
	2>record.txt || { cat record.txt; fail "vmtrace record"; }
cat record.txt
grep -q '^vmtrace ' /proc/modules || fail "vmtrace record did not load the module"
/usr/bin/vmtrace dump run.vmt >dump.txt
pid=$(awk '$2 == "ref" { sub("pid=", "", $4); n[$4]++ } END { for (p in n) if (n[p] > best) { best = n[p]; pid = p } print pid }' dump.txt)
pages=$(awk -v pid="pid=$pid" '$2 == "ref" && $4 == pid { sub("addr=0x", "", $6); p[substr($6, 1, length($6) - 3)] = 1 } END { print length(p) }' dump.txt)
[ "${pages:-0}" -ge 256 ] || fail "the traced program's references cover ${pages:-0} pages, not its 256"
records=$(/usr/bin/vmtrace stats run.vmt | sed -n 's/^records: //p')
echo "traced: $records records, pid $pid's references on $pages pages"

# Plain babeltrace2 finds the installed plugin by itself.
babeltrace2 run.vmt >bt.txt 2>bt.err || { head bt.err; fail "babeltrace2 run.vmt"; }
expect_eq "$(wc -l <bt.txt)" "$records" "babeltrace2's events"
expect_eq "$(grep -c ' vmtrace:ref: ' bt.txt)" "$(grep -c ' ref ' dump.txt)" "babeltrace2's references"
echo "babeltrace2 run.vmt: $records events, as vmtrace stats counts"

# dpkg -r takes back everything: the module DKMS installed included.
rmmod vmtrace
dpkg -r vmtrace-dkms vmtrace >dpkg-r.log 2>&1 || { cat dpkg-r.log; fail "dpkg -r"; }
modprobe -n vmtrace 2>/dev/null && fail "modprobe still finds vmtrace after dpkg -r"
[ -z "$(dkms status)" ] || fail "dkms status after dpkg -r: $(dkms status)"
snapshot | sort >after.txt
diff before.txt after.txt >left.txt || { cat left.txt; fail "dpkg -r left the system changed"; }
echo "dpkg -r: the system's files are as before the install ($(wc -l <before.txt) paths)"
