# SPDX-License-Identifier: GPL-2.0
# Sourced by the guest-side tests: small assertions that say what failed.
set -euo pipefail
VMT_LIB=/opt/vmtrace/lib

fail() { echo "FAIL: $*" >&2; exit 1; }
expect_eq() { [ "$1" = "$2" ] || fail "$3: expected '$2', got '$1'"; }
expect_log() { grep -q -- "$1" <<<"$(dmesg)" || fail "kernel log lacks '$1'"; }
