#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The ring set is never seen half made or freed by a reader that does not
# configure (issue 22): a process poll()s while another configures with
# alternating ring sizes, then markers are written while tracing starts,
# stops and changes size. Before the fix the first oopsed in
# vmt_session_poll() (a NULL control page) on 6.12 and the debug kernel.
. /opt/vmtrace/tests/vm/lib.sh
insmod "$VMT_LIB/vmtrace.ko"
# Before the fix both kernels oopsed within the first few hundred configures
# (6.12 in 2 s, the debug kernel in 10 s); each configure there is ~5x slower.
n=2000
debug_kernel && n=500
vmt-ring-race "$n" || fail "vmt-ring-race $n"
rmmod vmtrace
echo "ring-race: ok"
