#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# tests/unit/python.sh VMTRACE [VMT-SYNTH]: the Python package (python/vmtrace,
# docs/python.md) over the build tree's libvmtrace.so (VMTRACE's
# ../lib/libvmtrace.so.0.*), with pytest on tests/python/: every field of
# every record of the test traces (tests/unit/data/*.vmt, and traces made
# with convert, vmt-synth and loops) is what `vmtrace dump` prints, filters
# pass what dump's options pass, to_pandas(TYPE) is `export --format csv
# --type TYPE`, the dtypes are the C headers' (a program compiled with them),
# and a damaged file (the fuzz corpus, cut and flipped traces) reads as dump
# reads it or raises TraceError, in a child interpreter that must not die.
# The interpreter: $PYTHON, else the first of python3 and /usr/bin/python3
# (Debian's, which python3-numpy, python3-pandas and python3-pytest serve)
# that has numpy, pandas and pytest.
set -uo pipefail
bin=$(realpath "${1:?usage: python.sh VMTRACE [VMT-SYNTH]}")
synth=$(realpath "${2:-$(dirname "$bin")/vmt-synth}")
top=$(cd "$(dirname "$0")/../.." && pwd)

libs=("$(dirname "$bin")"/../lib/libvmtrace.so.0.*)
lib=${libs[0]}
if [ ! -f "$lib" ]; then
	echo "python: FAIL: no libvmtrace.so.0.* beside $bin (make lib)"
	exit 1
fi
python=${PYTHON:-}
if [ -z "$python" ]; then
	for p in python3 /usr/bin/python3; do
		if "$p" -c 'import numpy, pandas, pytest' 2>/dev/null; then
			python=$p
			break
		fi
	done
fi
if [ -z "$python" ]; then
	echo "python: FAIL: no python3 with numpy, pandas and pytest (scripts/setup installs python3-numpy, python3-pandas, python3-pytest)"
	exit 1
fi

# No .pyc files or pytest cache left in the tree; the package and the
# tests' helpers found from the tree, the library from the build.
out=$(cd "$top" && PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$top/python:$top/tests/python" \
	VMTRACE_LIBRARY=$(realpath "$lib") VMTRACE="$bin" VMT_SYNTH="$synth" \
	"$python" -m pytest -q -p no:cacheprovider tests/python 2>&1)
rc=$?
echo "$out"
summary=$(tail -1 <<<"$out" | sed 's/^=* *//; s/ *=*$//')
echo "python: pytest tests/python ($("$python" --version 2>&1), $(basename "$lib")): $summary"
[ $rc -eq 0 ]
