#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest side of scripts/run-kunit: loading the module runs its KUnit suites
# (vmtrace-kunit.ko, built with --kunit); print their KTAP from the kernel log.
# insmod and rmmod run with the other CPUs offline, as in every guest test
# (lib.sh: loading and unloading patch the tracepoints' call sites, and TCG
# hangs now and then when another vCPU runs them; a KUnit run hung so in
# rmmod). The ring suite's race brings a second CPU up for itself.
. /opt/vmtrace/tests/vm/lib.sh
dmesg -C
insmod "$VMT_LIB/vmtrace-kunit.ko"
rmmod vmtrace
# KTAP starts at the first suite header; strip the printk timestamps.
dmesg | sed -e 's/^\[[ 0-9.]*\] //' | sed -n '/^\(KTAP version\|    # Subtest:\|# Subtest:\)/,$p'
