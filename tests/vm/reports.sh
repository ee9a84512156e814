# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by scripts/vm-run (host) and tests/vm/batch.sh (guest): the kernel
# log lines that fail a run, as an extended regular expression.
REPORT_RE='WARNING:|BUG:|Oops|general protection fault|kernel BUG at|Kernel panic|UBSAN:|'
REPORT_RE+='possible circular locking|possible recursive locking|inconsistent lock state|'
REPORT_RE+='suspicious RCU usage|INFO: task .* blocked|kmemleak: .* new suspected|'
REPORT_RE+='Call Trace:'
# drop_oom_reports: stdin to stdout less the OOM killer's own reports (from
# "invoked oom-killer:" to its "Killed process" line), whose call trace is
# the killer at work, not a fault: tests/vm/guest/killed.sh calls it in.
drop_oom_reports() {
	awk '/ invoked oom-killer: / { skip = 1 } !skip { print } /[Oo]ut of memory: Killed process / { skip = 0 }'
}
