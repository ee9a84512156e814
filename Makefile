# SPDX-License-Identifier: GPL-2.0
#
# vmtrace: one Makefile for the module, the user tools, the BPF programs and
# every test. `make help` lists the targets.

SHELL := /bin/bash
.DEFAULT_GOAL := all

BUILD := build
KDIR ?= /lib/modules/$(shell uname -r)/build
# The kernels the VM tests run on; the debug kernel takes a while to build once.
TEST_KERNELS ?= 6.1 6.12 debug

CC ?= gcc
CLANG ?= clang
BPFTOOL ?= bpftool
CPPFLAGS := -D_GNU_SOURCE -Iinclude/uapi -Iuser/lib/include -Iuser/lib
CFLAGS := -std=c11 -O2 -g -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes
# A distribution's flags after ours (debian/rules: dpkg-buildflags' hardening).
CPPFLAGS += $(EXTRA_CPPFLAGS)
CFLAGS += $(EXTRA_CFLAGS)
SANITIZE := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all

LIB_SRCS := $(wildcard user/lib/*/*.c)
LIB_HDRS := $(wildcard user/lib/include/vmtrace/*.h user/lib/*/*.h) include/uapi/linux/vmtrace.h
UNIT_TESTS := $(patsubst tests/unit/%.c,%,$(wildcard tests/unit/test_*.c))
# The exact-mode decoder, kernel/exact/exact_insn.c, built into userspace tests.
UNIT_TESTS += exact-insn
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
BPF_PROGS := $(patsubst bpf/%.bpf.c,%,$(wildcard bpf/*.bpf.c))

.PHONY: all help module tools bpf setup vm-images debug-kernel test-modules \
	check check-quick check-unit unit-build check-python check-parallel check-fuzz check-kunit check-vm check-vm-quick \
	checkpatch fuzz bench bench-analyses bench-relay bench-cachesim bench-loops bench-parallel bench-profile bench-python demo man lib install install-python install-dkms deb check-deb clean

all: tools bpf module

help:
	@echo 'make                build the module (KDIR=$(KDIR)), tools and BPF objects'
	@echo 'make demo           build everything, boot the 6.1 VM and trace a workload'
	@echo 'make check          every test: unit, fuzz, KUnit and VM tests on $(TEST_KERNELS)'
	@echo 'make check-quick    unit tests and one VM smoke test on 6.1'
	@echo 'make check-vm       VM tests: KERNELS="6.1 6.12 debug" TESTS=capture,protect (default all)'
	@echo 'make bench          benchmarks, written to docs/BENCHMARKS.md'
	@echo 'make bench-analyses the analyses'"'"' speed alone (traces recorded in the 6.1 VM and synthetic)'
	@echo 'make bench-cachesim the cache simulator'"'"'s speed alone, against cachegrind (host only)'
	@echo 'make bench-loops    the loop codec'"'"'s speed alone, against zstd, xz and the model codec (host only)'
	@echo 'make bench-profile  PSnAP profiles'"'"' accuracy, size and speed alone (traces recorded in the 6.1 VM)'
	@echo 'make bench-python   the Python package'"'"'s reading speed alone, against dump and pandas'"'"' read_csv (host only)'
	@echo 'make fuzz           run each fuzz target long (FUZZ_SECONDS=600), then the'
	@echo '                    interface fuzzer in VMs (IFUZZ_SECONDS=900 on IFUZZ_KERNELS)'
	@echo 'make setup          install build dependencies and the test kernels'
	@echo 'make install        vmtrace, its man page, vmtrace_marker.h and libvmtrace (.so, .a,'
	@echo '                    headers, libvmtrace.pc) under $$(DESTDIR)$$(PREFIX) (PREFIX=$(PREFIX)),'
	@echo '                    the babeltrace2 plugin into $$(DESTDIR)$$(BT2_PLUGINDIR), the Python'
	@echo '                    package into $$(DESTDIR)$$(PYTHONDIR) (PREFIX/lib/python3/dist-packages)'
	@echo 'make deb            Debian packages vmtrace, vmtrace-mpi, vmtrace-dkms and python3-vmtrace, into build/deb/'
	@echo '                    (docs/PACKAGING.md); make check-deb tests them and DKMS'
	@echo 'make vm-images      build the test VM images'

# ---- The module ------------------------------------------------------------

module:
	@scripts/build-module $(KDIR)

# The module for every test kernel; the debug kernel also gets vmtrace-kunit.ko,
# which carries the KUnit suites.
test-modules: vm-images
	@for k in $(TEST_KERNELS); do \
		{ scripts/build-module --kernel $$k && \
		  if [ $$k = debug ]; then scripts/build-module --kunit --kernel debug; fi; \
		} >$(BUILD)/module-$$k.log 2>&1 || \
		{ cat $(BUILD)/module-$$k.log; exit 1; }; \
		grep '^.*built' $(BUILD)/module-$$k.log || true; \
	done

# ---- User tools -------------------------------------------------------------

$(BUILD)/obj/%.o: %.c $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<

$(BUILD)/asan/%.o: %.c $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(SANITIZE) -c -o $@ $<

$(BUILD)/lib/libvmtrace.a: $(patsubst %.c,$(BUILD)/obj/%.o,$(LIB_SRCS))
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^

$(BUILD)/lib/libvmtrace-asan.a: $(patsubst %.c,$(BUILD)/asan/%.o,$(LIB_SRCS))
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^

# libvmtrace.so.0: position-independent objects, and only the public headers'
# functions exported (user/lib/libvmtrace.map).
# The version: debian/changelog's first entry, without the Debian revision.
VERSION := $(shell awk -F'[()-]' 'NR == 1 { print $$2 }' debian/changelog)
SONAME := libvmtrace.so.0
$(BUILD)/pic/%.o: %.c $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -c -o $@ $<

$(BUILD)/lib/libvmtrace.so.$(VERSION): $(patsubst %.c,$(BUILD)/pic/%.o,$(LIB_SRCS)) user/lib/libvmtrace.map
	@mkdir -p $(dir $@)
	$(CC) -shared -pthread -Wl,-soname,$(SONAME) -Wl,--version-script=user/lib/libvmtrace.map \
		-Wl,-z,defs $(LDFLAGS) -o $@ $(filter %.o,$^) -lzstd -llzma -lz -lm

lib: $(BUILD)/lib/libvmtrace.a $(BUILD)/lib/libvmtrace.so.$(VERSION)

CMD_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(filter-out user/cmd/mpi_main.c,\
	$(wildcard user/cmd/*.c user/cmd/util/*.c)))
$(CMD_OBJS): CPPFLAGS += -I$(BUILD)/bpf
$(CMD_OBJS): $(wildcard user/cmd/*.h user/cmd/util/*.h) $(patsubst %,$(BUILD)/bpf/%.skel.h,$(BPF_PROGS))

$(BUILD)/bin/vmtrace: $(CMD_OBJS) $(BUILD)/lib/libvmtrace.a
	@mkdir -p $(dir $@)
	$(CC) -pthread $(LDFLAGS) -o $@ $^ -lbpf -lelf -lzstd -llzma -lz -lm -lcrypto

# vmtrace-mpi: the same commands with MPI's main() (user/cmd/mpi_main.c), which
# vmtrace becomes when mpirun starts it; built where Open MPI's mpicc is.
MPICC := $(shell command -v mpicc 2>/dev/null)
MPI_BIN := $(if $(MPICC),$(BUILD)/bin/vmtrace-mpi)
$(BUILD)/obj/mpi/mpi_main.o: user/cmd/mpi_main.c user/cmd/commands.h user/cmd/util/ranks.h $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(MPICC) $(CPPFLAGS) $(CFLAGS) -c -o $@ $<
$(BUILD)/bin/vmtrace-mpi: $(BUILD)/obj/mpi/mpi_main.o $(filter-out %/user/cmd/main.o,$(CMD_OBJS)) \
		$(BUILD)/lib/libvmtrace.a
	@mkdir -p $(dir $@)
	$(MPICC) -pthread $(LDFLAGS) -o $@ $^ -lbpf -lelf -lzstd -llzma -lz -lm -lcrypto

# Programs the VM tests run in the guest (tests/vm/progs/NAME.c -> vmt-NAME).
TEST_PROGS := $(patsubst tests/vm/progs/%.c,$(BUILD)/bin/vmt-%,$(wildcard tests/vm/progs/*.c))
$(BUILD)/bin/vmt-%: tests/vm/progs/%.c tests/vm/progs/prog.h include/vmtrace_marker.h include/uapi/linux/vmtrace.h
	@mkdir -p $(dir $@)
	$(CC) -Iinclude -Iinclude/uapi $(CFLAGS) -o $@ $<
# exact mode's "all" steps ld.so too: bound at load, its lazy binding's
# xsavec (which the decoder does not know) stays out of the test's way.
$(BUILD)/bin/vmt-exact-all: CFLAGS += -Wl,-z,now

# Host-side benchmark helpers (tests/bench/NAME.c -> vmt-NAME), with
# libvmtrace for those that read traces.
BENCH_PROGS := $(patsubst tests/bench/%.c,$(BUILD)/bin/vmt-%,$(wildcard tests/bench/*.c))
# vmt-model-stats: the model codec's own sources, built with its bit counters in.
MODEL_STATS_SRCS := user/lib/codec/codec_model.c user/lib/codec/model_replay.c \
	user/lib/codec/range_coder.c user/lib/base/bytes.c
$(BUILD)/bin/vmt-model-stats: tests/bench/model-stats.c $(MODEL_STATS_SRCS) \
		$(wildcard user/lib/codec/*.h user/lib/base/*.h) include/uapi/linux/vmtrace.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -DVMT_MODEL_STATS $(CFLAGS) -o $@ $< $(MODEL_STATS_SRCS) -lz -lm
$(BUILD)/bin/vmt-%: tests/bench/%.c include/uapi/linux/vmtrace.h $(BUILD)/lib/libvmtrace.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -o $@ $< $(BUILD)/lib/libvmtrace.a -lzstd -llzma -lz -lm

# The babeltrace2 plugin (user/bt2): source.vmtrace.trace, libvmtrace linked
# in (built position-independent for it) and none of its symbols exported.
BT2_SRCS := $(wildcard user/bt2/*.c)
BT2_PLUGIN := $(BUILD)/babeltrace2/babeltrace-plugin-vmtrace.so
$(BUILD)/pic/%.o: %.c $(LIB_HDRS) $(wildcard user/bt2/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -fPIC -c -o $@ $<

$(BUILD)/lib/libvmtrace-pic.a: $(patsubst %.c,$(BUILD)/pic/%.o,$(LIB_SRCS))
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^

$(BT2_PLUGIN): $(patsubst %.c,$(BUILD)/pic/%.o,$(BT2_SRCS)) $(BUILD)/lib/libvmtrace-pic.a
	@mkdir -p $(dir $@)
	$(CC) -shared -pthread -Wl,--exclude-libs,ALL -Wl,-z,defs -o $@ $^ \
		-lbabeltrace2 -lzstd -llzma -lz -lm

# vmtrace(1), made by the command from its own help text (vmtrace.c).
$(BUILD)/man/vmtrace.1: $(BUILD)/bin/vmtrace
	@mkdir -p $(dir $@)
	$< help --man >$@.tmp
	mv $@.tmp $@

man: $(BUILD)/man/vmtrace.1

tools: $(BUILD)/bin/vmtrace $(MPI_BIN) $(BUILD)/man/vmtrace.1 lib $(BT2_PLUGIN) $(TEST_PROGS) $(BENCH_PROGS)

# The command, its man page, the marker header with the uapi header it
# includes (<linux/vmtrace.h>); libvmtrace: static, shared, its public
# headers and libvmtrace.pc (LIBDIR: Debian's rules give the multiarch one);
# and the babeltrace2 plugin where babeltrace2 looks for plugins: its system
# directory (it searches no other prefix); the Python package (python/vmtrace,
# docs/python.md) into PYTHONDIR, Debian's dist-packages under PREFIX (none
# when PYTHONDIR is empty).
PREFIX ?= /usr/local
LIBDIR ?= $(PREFIX)/lib
INSTALL_LIB := $(DESTDIR)$(LIBDIR)
BT2_PLUGINDIR ?= $(shell pkg-config --variable=libdir babeltrace2)/babeltrace2/plugins
PYTHONDIR ?= $(PREFIX)/lib/python3/dist-packages
install: $(BUILD)/bin/vmtrace $(MPI_BIN) $(BUILD)/man/vmtrace.1 lib $(BT2_PLUGIN) $(if $(PYTHONDIR),install-python)
	install -D -m 755 $(BUILD)/bin/vmtrace $(DESTDIR)$(PREFIX)/bin/vmtrace
	$(if $(MPI_BIN),install -D -m 755 $(MPI_BIN) $(DESTDIR)$(PREFIX)/bin/vmtrace-mpi)
	install -D -m 644 $(BUILD)/man/vmtrace.1 $(DESTDIR)$(PREFIX)/share/man/man1/vmtrace.1
	install -D -m 644 include/vmtrace_marker.h $(DESTDIR)$(PREFIX)/include/vmtrace_marker.h
	install -D -m 644 include/uapi/linux/vmtrace.h $(DESTDIR)$(PREFIX)/include/linux/vmtrace.h
	install -D -m 644 $(BT2_PLUGIN) $(DESTDIR)$(BT2_PLUGINDIR)/$(notdir $(BT2_PLUGIN))
	install -d $(DESTDIR)$(PREFIX)/include/vmtrace $(INSTALL_LIB)/pkgconfig
	install -m 644 user/lib/include/vmtrace/*.h $(DESTDIR)$(PREFIX)/include/vmtrace/
	install -m 644 $(BUILD)/lib/libvmtrace.a $(INSTALL_LIB)/
	install -m 644 $(BUILD)/lib/libvmtrace.so.$(VERSION) $(INSTALL_LIB)/
	ln -sf libvmtrace.so.$(VERSION) $(INSTALL_LIB)/$(SONAME)
	ln -sf $(SONAME) $(INSTALL_LIB)/libvmtrace.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(LIBDIR)|' -e 's|@VERSION@|$(VERSION)|' \
		user/lib/libvmtrace.pc.in >$(INSTALL_LIB)/pkgconfig/libvmtrace.pc

# The Python package alone (debian/rules: python3-vmtrace's files).
install-python:
	install -d $(DESTDIR)$(PYTHONDIR)/vmtrace
	install -m 644 python/vmtrace/*.py $(DESTDIR)$(PYTHONDIR)/vmtrace/

# The module's sources and dkms.conf into $(DESTDIR)/usr/src/vmtrace-$(VERSION),
# where `dkms add vmtrace/$(VERSION)` finds them (the vmtrace-dkms package).
DKMS_SRC := $(DESTDIR)/usr/src/vmtrace-$(VERSION)
install-dkms:
	install -d $(DKMS_SRC)
	install -m 644 Kbuild $(DKMS_SRC)/
	find include/uapi kernel module -name '*.[ch]' -exec install -D -m 644 {} $(DKMS_SRC)/{} \;
	sed 's/#MODULE_VERSION#/$(VERSION)/' dkms.conf >$(DKMS_SRC)/dkms.conf

# Debian packages vmtrace, vmtrace-mpi, vmtrace-dkms and python3-vmtrace (debian/) into $(BUILD)/deb, then
# lintian on them (debian/source/lintian-overrides and docs/PACKAGING.md
# explain what it still says).
# make check-deb: the packages' contents, lintian's tags explained and DKMS
# building the packaged module for each kernel with headers (tests/deb.sh).
check-deb:
	@tests/deb.sh

DEB_CHANGES = $(BUILD)/deb/vmtrace_$(shell dpkg-parsechangelog -S Version)_amd64
deb:
	@mkdir -p $(BUILD)/deb
	VMTRACE_CACHE=$${VMTRACE_CACHE:-$${XDG_CACHE_HOME:-$$HOME/.cache}/vmtrace} \
	dpkg-buildpackage -b -us -uc \
		--buildinfo-option=-u$(CURDIR)/$(BUILD)/deb --changes-option=-u$(CURDIR)/$(BUILD)/deb \
		--buildinfo-file=$(DEB_CHANGES).buildinfo --changes-file=$(DEB_CHANGES).changes
	lintian $(DEB_CHANGES).changes

# ---- BPF programs -----------------------------------------------------------

# CO-RE: vmlinux.h from the BTF of Debian's 6.1 kernel.
$(BUILD)/bpf/vmlinux.h:
	@mkdir -p $(dir $@)
	$(BPFTOOL) btf dump file $$(scripts/vmlinux-btf) format c >$@.tmp
	mv $@.tmp $@

$(BUILD)/bpf/%.bpf.o: bpf/%.bpf.c $(BUILD)/bpf/vmlinux.h include/uapi/linux/vmtrace.h
	$(CLANG) -g -O2 -Wall -Werror -target bpf -D__TARGET_ARCH_x86 \
		-I$(BUILD)/bpf -Iinclude/uapi -c -o $@ $<

.SECONDARY: $(patsubst %,$(BUILD)/bpf/%.bpf.o,$(BPF_PROGS))
$(BUILD)/bpf/%.skel.h: $(BUILD)/bpf/%.bpf.o
	$(BPFTOOL) gen skeleton $< >$@

bpf: $(patsubst %,$(BUILD)/bpf/%.skel.h,$(BPF_PROGS))

# ---- Set-up -------------------------------------------------------------------

setup:
	@scripts/setup

debug-kernel: setup
	@scripts/build-debug-kernel

vm-images: setup
	@if echo " $(TEST_KERNELS) " | grep -q ' debug '; then scripts/build-debug-kernel; fi
	@scripts/vm-image $(patsubst %,--kernel %,$(TEST_KERNELS))

# ---- Tests --------------------------------------------------------------------

$(BUILD)/tests/%: tests/unit/%.c $(BUILD)/lib/libvmtrace-asan.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) $(SANITIZE) -pthread -o $@ $^ -lcmocka -lzstd -llzma -lz

EXACT_INSN := kernel/exact/exact_insn.c kernel/exact/exact_insn.h tests/unit/exact-insn-shim.h
$(BUILD)/tests/exact-insn: tests/unit/exact-insn.c $(EXACT_INSN)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Ikernel -Itests/unit $(CFLAGS) $(SANITIZE) -o $@ $< kernel/exact/exact_insn.c -lcmocka

# Not sanitized (it runs under valgrind), and -no-pie: the same addresses natively and there.
$(BUILD)/oracle/exact-insn-oracle: tests/unit/exact-insn-oracle.c tests/unit/exact-insn-forms.S \
		$(EXACT_INSN)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Ikernel -Itests/unit $(CFLAGS) -no-pie -o $@ $(filter %.c %.S,$^)

# The kernel's enabled set (kernel/protect/enabled_set.c), built in user space over
# tests/unit/kernel_shim/, against the model codec's replay of it.
$(BUILD)/tests/test_replay_kernel: tests/unit/test_replay_kernel.c $(BUILD)/lib/libvmtrace-asan.a \
		kernel/protect/enabled_set.c kernel/protect/enabled_set.h $(wildcard tests/unit/kernel_shim/linux/*.h)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests/unit/kernel_shim -Ikernel $(CFLAGS) $(SANITIZE) -pthread -o $@ $< \
		$(BUILD)/lib/libvmtrace-asan.a -lcmocka -lzstd -llzma -lz

# The cmocka suites, the exact-mode decoder against valgrind's lackey
# (exact-insn-lackey.sh) and objdump on the C library (exact-insn-objdump.sh), then the command line's contract (tests/unit/cli.sh), the docs' file names (doc-paths.sh),
# the analysis commands on traces the scripts make (analysis-*.sh, reduce.sh,
# hmtt.sh, report.sh), phases between markers against a model (phases.sh), curves of
# exact accesses against a brute-force LRU stack (exact-source.sh), every
# reading command's output the same whatever -j (jobs.sh)
# and under 2 and 3 MPI processes (mpi.sh), trace sets against the trace they
# were cut from, and at -j 1, -j 2 and 2 processes (trace-set.sh), cachesim against a brute-force model (cachesim.sh) and
# its threads against one (cachesim-threads.sh), profiles and their
# synthetic traces against the trace they came from (profile.sh),
# export's formats read back by python3 (export.sh), raw
# export, data included, through convert and back (export-raw.sh), lackey's
# and din traces through convert --from (import.sh), cachesim's misses against
# valgrind's cachegrind on four programs (cachesim-cachegrind.sh), loop
# compression of lackey traces, lossless and near-constant in size (loops.sh), report
# --html in headless Chromium (report-html.sh), the babeltrace2 plugin read by
# babeltrace2 (babeltrace2.sh), loading the module through a fake modprobe
# (modprobe.sh), a trace of the format before this one's streams (old-trace.sh),
# the Python package over libvmtrace.so against dump and export (python.sh),
# its worked example examples/explore.ipynb executed headless (notebook.sh),
# the relay and its senders on loopback (relay.sh)
# and `make install` into a scratch root (install.sh).
# What the unit tests run: their ASan and UBSan binaries, the tools, the
# plugin. unit-build makes them alone, as scripts/check does with -j before
# its lanes (a build in the unit stage would be one job beside a guest).
UNIT_DEPS := $(patsubst %,$(BUILD)/tests/%,$(UNIT_TESTS)) $(BUILD)/bin/vmtrace $(MPI_BIN) \
	$(BUILD)/bin/vmt-synth $(BT2_PLUGIN) $(BUILD)/oracle/exact-insn-oracle \
	$(BUILD)/lib/libvmtrace.so.$(VERSION)
unit-build: $(UNIT_DEPS)
check-unit: $(UNIT_DEPS)
	@scripts/run-unit-tests $(filter $(BUILD)/tests/%,$^)
	@tests/unit/exact-insn-lackey.sh $(BUILD)/oracle/exact-insn-oracle
	@tests/unit/exact-insn-objdump.sh $(BUILD)/oracle/exact-insn-oracle
	@tests/unit/cli.sh $(BUILD)/bin/vmtrace
	@tests/unit/doc-paths.sh
	@tests/unit/analysis-wss.sh $(BUILD)/bin/vmtrace
	@tests/unit/reduce.sh $(BUILD)/bin/vmtrace $(BUILD)/bin/vmt-synth
	@tests/unit/rewrite.sh $(BUILD)/bin/vmtrace
	@tests/unit/disk-full.sh $(BUILD)/bin/vmtrace
	@tests/unit/analysis-cli.sh $(BUILD)/bin/vmtrace
	@tests/unit/phases.sh $(BUILD)/bin/vmtrace
	@tests/unit/exact-source.sh $(BUILD)/bin/vmtrace
	@tests/unit/shards-error.sh $(BUILD)/bin/vmtrace $(BUILD)/bin/vmt-synth
	@tests/unit/relay.sh $(BUILD)/bin/vmtrace $(BUILD)/bin/vmt-synth
ifeq ($(NO_PARALLEL),)
	@tests/unit/jobs.sh $(BUILD)/bin/vmtrace $(BUILD)/bin/vmt-synth
	@tests/unit/mpi.sh $(BUILD)/bin/vmtrace $(BUILD)/bin/vmt-synth
	@tests/unit/trace-set.sh $(BUILD)/bin/vmtrace $(BUILD)/bin/vmt-synth
endif
	@tests/unit/cachesim.sh $(BUILD)/bin/vmtrace
	@tests/unit/cachesim-emit.sh $(BUILD)/bin/vmtrace
	@tests/unit/profile.sh $(BUILD)/bin/vmtrace
	@tests/unit/cachesim-threads.sh $(BUILD)/bin/vmtrace
	@tests/unit/hmtt.sh $(BUILD)/bin/vmtrace
	@tests/unit/hmtt-plot.sh $(BUILD)/bin/vmtrace
	@tests/unit/report.sh $(BUILD)/bin/vmtrace $(BUILD)/bin/vmt-synth
	@tests/unit/export.sh $(BUILD)/bin/vmtrace $(BUILD)/bin/vmt-synth
	@tests/unit/export-raw.sh $(BUILD)/bin/vmtrace $(BUILD)/bin/vmt-synth
	@tests/unit/import.sh $(BUILD)/bin/vmtrace $(BUILD)/bin/vmt-synth
	@tests/unit/cachesim-cachegrind.sh $(BUILD)/bin/vmtrace
	@tests/unit/loops.sh $(BUILD)/bin/vmtrace
	@tests/unit/report-html.sh $(BUILD)/bin/vmtrace $(BUILD)/bin/vmt-synth
	@MAKE="$(MAKE)" tests/unit/babeltrace2.sh $(BUILD)/bin/vmtrace $(BUILD)/bin/vmt-synth $(dir $(BT2_PLUGIN))
	@tests/unit/modprobe.sh $(BUILD)/bin/vmtrace
	@tests/unit/old-trace.sh $(BUILD)/bin/vmtrace $(BUILD)/bin/vmt-synth
ifeq ($(NO_PYTHON),)
	@tests/unit/python.sh $(BUILD)/bin/vmtrace $(BUILD)/bin/vmt-synth
	@tests/unit/notebook.sh $(BUILD)/bin/vmtrace $(BUILD)/bin/vmt-synth
endif
	@MAKE="$(MAKE)" tests/unit/install.sh

# The Python package's suites alone: check-unit runs them unless NO_PYTHON is
# set, as scripts/check sets it to run them in the debug kernel's lane.
check-python: $(BUILD)/bin/vmtrace $(BUILD)/bin/vmt-synth $(BUILD)/lib/libvmtrace.so.$(VERSION)
	@tests/unit/python.sh $(BUILD)/bin/vmtrace $(BUILD)/bin/vmt-synth
	@tests/unit/notebook.sh $(BUILD)/bin/vmtrace $(BUILD)/bin/vmt-synth

# Threads and MPI alone (jobs.sh, mpi.sh, trace-set.sh): check-unit runs them unless
# NO_PARALLEL is set, as scripts/check sets it to run them in the debug
# kernel's lane.
check-parallel: $(BUILD)/bin/vmtrace $(MPI_BIN) $(BUILD)/bin/vmt-synth
	@tests/unit/jobs.sh $(BUILD)/bin/vmtrace $(BUILD)/bin/vmt-synth
	@tests/unit/mpi.sh $(BUILD)/bin/vmtrace $(BUILD)/bin/vmt-synth
	@tests/unit/trace-set.sh $(BUILD)/bin/vmtrace $(BUILD)/bin/vmt-synth

# The library built once for every fuzz target, instrumented for the fuzzer
# (fuzzer-no-link: libFuzzer's main goes in with each target alone).
FUZZ_CFLAGS := -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION -g -O1
$(BUILD)/fuzz-obj/%.o: %.c $(LIB_HDRS)
	@mkdir -p $(dir $@)
	$(CLANG) $(CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer-no-link,address,undefined -c -o $@ $<

$(BUILD)/lib/libvmtrace-fuzz.a: $(patsubst %.c,$(BUILD)/fuzz-obj/%.o,$(LIB_SRCS))
	@mkdir -p $(dir $@)
	$(AR) rcs $@ $^

$(BUILD)/fuzz/%: tests/fuzz/%.c $(BUILD)/lib/libvmtrace-fuzz.a
	@mkdir -p $(dir $@)
	$(CLANG) $(CPPFLAGS) $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined -o $@ $^ \
		-lzstd -llzma -lz

FUZZ_SECONDS ?= 600
check-fuzz: $(patsubst %,$(BUILD)/fuzz/%,$(FUZZ_TARGETS))
	@scripts/run-fuzz 6 $^

# The libFuzzer targets, then the module's interface fuzzer (tests/vm/progs/
# ifuzz.c) for IFUZZ_SECONDS on 6.12 and on the debug kernel, a new seed each,
# then FAILINJECT_ROUNDS rounds of injected allocation failures on the debug
# kernel (tests/vm/guest/failinject.sh) and RMMOD_ROUNDS removals mid-trace
# (tests/vm/guest/rmmod-stress.sh) on every test kernel, under one TCG thread
# where its header says so, then stress.sh at its long sizes on each.
IFUZZ_SECONDS ?= 900
IFUZZ_KERNELS ?= 6.12 debug
RMMOD_ROUNDS ?= 200
FAILINJECT_ROUNDS ?= 60
fuzz: $(patsubst %,$(BUILD)/fuzz/%,$(FUZZ_TARGETS)) tools
	@scripts/run-fuzz $(FUZZ_SECONDS) $(filter $(BUILD)/fuzz/%,$^)
	@$(MAKE) -s test-modules TEST_KERNELS="$(sort $(IFUZZ_KERNELS) $(TEST_KERNELS))"
	@for k in $(IFUZZ_KERNELS); do \
		echo "interface fuzzer on $$k, $(IFUZZ_SECONDS) s"; \
		scripts/vm-run --kernel $$k --timeout $$(($(IFUZZ_SECONDS) + 900)) -- \
			/opt/vmtrace/tests/vm/guest/ifuzz.sh $(IFUZZ_SECONDS) || exit 1; \
	done
	@echo "$(FAILINJECT_ROUNDS) rounds of injected allocation failures on debug"
	@scripts/vm-run --kernel debug --timeout 7200 -- \
		/opt/vmtrace/tests/vm/guest/failinject.sh $(FAILINJECT_ROUNDS)
	@for k in $(TEST_KERNELS); do \
		echo "$(RMMOD_ROUNDS) removals mid-trace on $$k"; \
		tcg=$$(sed -n 's/^# tcg single: //p' tests/vm/guest/rmmod-stress.sh | \
			grep -qw -- "$$k" && echo single || echo multi); \
		scripts/vm-run --kernel $$k --tcg $$tcg --timeout 7200 -- \
			/opt/vmtrace/tests/vm/guest/rmmod-stress.sh $(RMMOD_ROUNDS) || exit 1; \
	done
	@for k in $(TEST_KERNELS); do \
		echo "stress at its long sizes on $$k"; \
		scripts/vm-run --kernel $$k --timeout 7200 -- \
			/opt/vmtrace/tests/vm/guest/stress.sh long || exit 1; \
	done

check-kunit: test-modules
	@scripts/run-kunit

# make check-vm [KERNELS="6.1 debug"] [TESTS=capture,protect]: chosen VM tests.
KERNELS ?= $(TEST_KERNELS)
check-vm: tools
	@$(MAKE) -s test-modules TEST_KERNELS="$(KERNELS)"
	@scripts/run-vm-tests $(if $(TESTS),--tests $(TESTS)) $(KERNELS)

check-vm-quick: tools test-modules
	@scripts/run-vm-tests --quick 6.1

checkpatch:
	@scripts/checkpatch

# The README's test command.
check:
	@scripts/check

check-quick:
	@scripts/check --quick

bench: tools test-modules $(BUILD)/bin/vmt-cachesim-bench $(BUILD)/bin/vmt-loops-bench
	@scripts/bench

# The cache simulator's section of docs/BENCHMARKS.md alone: on the host, no VM.
bench-cachesim: tools $(BUILD)/bin/vmt-cachesim-bench
	@scripts/bench-cachesim

# The Python package's section of docs/BENCHMARKS.md alone: on the host, no VM.
bench-python: tools
	@scripts/bench-python

# vmtrace relay's storing speed on loopback (docs/BENCHMARKS.md, "Relay"): on the host, no VM.
bench-relay: tools
	@scripts/bench-relay

# The loop codec's speed section of docs/BENCHMARKS.md alone: on the host, no VM.
bench-loops: tools $(BUILD)/bin/vmt-loops-bench
	@scripts/bench-loops

# The profiles' section of docs/BENCHMARKS.md alone: traces recorded in the
# 6.1 VM, profiled, synthesized and compared on the host.
bench-profile: tools test-modules
	@scripts/bench-profile

# Reading and the analyses on one thread and on two, and under MPI: the
# section "Every core: threads and MPI" of docs/BENCHMARKS.md, on the host.
bench-parallel: tools
	@scripts/bench-parallel

# The analyses' section of docs/BENCHMARKS.md alone: on the host, no VM.
bench-analyses: tools test-modules
	@scripts/bench-analyses

demo: setup
	@$(MAKE) -s tools test-modules TEST_KERNELS=6.1
	@scripts/demo

clean:
	rm -rf $(BUILD)
