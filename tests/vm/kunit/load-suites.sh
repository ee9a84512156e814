#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest side of scripts/run-kunit: loading the module runs its KUnit suites
# (vmtrace-kunit.ko, built with --kunit); print their KTAP from the kernel log.
set -euo pipefail
dmesg -C
insmod /opt/vmtrace/lib/vmtrace-kunit.ko
rmmod vmtrace
# KTAP starts at the first suite header; strip the printk timestamps.
dmesg | sed -e 's/^\[[ 0-9.]*\] //' | sed -n '/^\(KTAP version\|    # Subtest:\|# Subtest:\)/,$p'
