// SPDX-License-Identifier: GPL-2.0
/*
 * vmt-ifuzz: the module's interface under random and concurrent use.
 *
 *   vmt-ifuzz [--seed S] [--seconds T] [--procs P]
 *
 * Two phases, both seeded (S, default the time): a failure prints the seed,
 * and the same seed makes the same calls again (the interleaving of phase 2
 * is the scheduler's).
 *
 * 1. Contract: one process, the session in each of its states (never
 *    configured; configured and off; on, with --protect, tracing a toucher
 *    process), makes random bad calls: every ioctl with bad pointers,
 *    half-valid configurations (a valid one with one field broken), unknown
 *    numbers, bad markers and writes, read(), bad mmap offsets, lengths and
 *    protections, junk into every settable sysfs file, a process without
 *    CAP_SYS_ADMIN opening the device. Each gets the error docs/ABI/ says
 *    (EINVAL, ENOTTY, EFAULT, EBUSY, EPERM, ...), and changes nothing: the
 *    staged settings, the state and the geometry read the same after it.
 * 2. Chaos: P processes for T seconds (default 4 and 30) call everything at
 *    random, valid, half-valid and random arguments alike: configure (with
 *    --protect switched on and off, the toucher and this process as
 *    targets), start, stop, status, geometry, markers, mmap, munmap (whole
 *    and in part) and mprotect of random rings, poll, fork with rings
 *    mapped, sysfs reads and writes. Every result must be one the call may
 *    give; a call never succeeds where the ABI says it cannot.
 *
 * Throughout, the toucher writes and reads back a pattern in its pages,
 * remaps and mprotects them: tracing must never change what a program reads.
 * Ends with tracing stopped. The caller unloads the module and scans for
 * leaks; a kernel report (oops, KASAN, lockdep) fails the run in vm-run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/capability.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/vmtrace.h>

#define PAGE		4096UL
#define SYSFS		"/sys/kernel/vmtrace/"
#define PID_MAX_LIMIT	(4 * 1024 * 1024)	/* the kernel's, on 64-bit */

static unsigned long long seed;
static int worker = -1;			/* -1: the contract phase */
static unsigned long op_count;
static void *unmapped;			/* a PROT_NONE page: a user address that faults */
static pid_t toucher;

static void __attribute__((format(printf, 1, 2), noreturn)) fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "FAIL: seed %llu, %s %d, call %lu: ", seed,
		worker < 0 ? "contract" : "worker", worker, op_count);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* ---- Randomness: xorshift64*, one stream a process ---------------------- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

static uint32_t below(uint32_t n)
{
	return rnd() % n;
}

static bool one_in(uint32_t n)
{
	return below(n) == 0;
}

static void rng_seed(uint64_t s)
{
	rng_state = s * 0x9E3779B97F4A7C15ULL + 1;
	rnd();
}

/* A user pointer that faults: NULL, low, inaccessible, non-canonical, kernel memory. */
static void *bad_pointer(void)
{
	static const uintptr_t bad[] = { 0, 1, 4095, 0xffff888000000000ULL, 0xffffffffff600000ULL,
					 0x800000000000ULL };

	return one_in(4) ? unmapped : (void *)bad[below(sizeof(bad) / sizeof(bad[0]))];
}

/* ---- Calls and their results --------------------------------------------- */

/* errno of a call that returns -1 on error, or 0. */
static int err_of(long ret)
{
	return ret < 0 ? errno : 0;
}

/* @err must be one of the errors in @allowed (0 is success), ended by -1. */
static void expect_in(const char *what, int err, const int *allowed)
{
	for (; *allowed >= 0; allowed++)
		if (err == *allowed)
			return;
	fail("%s: %s (%d), which it may not give", what, err ? strerror(err) : "success", err);
}

#define EXPECT_IN(what, err, ...) expect_in(what, err, (const int[]){ __VA_ARGS__, -1 })

static void expect_err(const char *what, int err, int want)
{
	if (err != want)
		fail("%s: %s, expected %s", what, err ? strerror(err) : "success",
		     want ? strerror(want) : "success");
}

/* ---- Configurations ------------------------------------------------------- */

static uint32_t pids[VMT_MAX_PIDS + 8];

/*
 * A valid configuration, then with probability 1/2 one field broken. Returns
 * the error the broken field must get (EINVAL, EFAULT), or 0 for a valid one
 * (which may still get EBUSY or ENOMEM).
 */
static int random_config(struct vmt_config *c)
{
	static const uint32_t sizes[] = { 0, 64, 128, 1024, 4096 };
	uint32_t i;

	memset(c, 0, sizeof(*c));
	c->ring_records = sizes[below(5)];
	c->flags = below(2) ? VMT_CONFIG_PROTECT : 0;
	c->flags |= one_in(4) ? VMT_CONFIG_OVERWRITE : 0;
	if (one_in(24)) {
		c->flags |= VMT_CONFIG_SYSTEM_WIDE;
	} else {
		c->flags |= one_in(3) ? VMT_CONFIG_FOLLOW : 0;
		c->nr_pids = 1 + below(3);
		pids[0] = toucher;
		pids[1] = getppid();
		pids[2] = 1 + below(PID_MAX_LIMIT);	/* likely no process: passed over */
		c->pids_ptr = (uintptr_t)pids;
	}
	c->events = rnd() & VMT_EVENTS & ~VMT_EVENT_PAGEMAP & ~VMT_EVENT_SWITCH_ALL;
	if (c->flags & VMT_CONFIG_PROTECT) {
		c->events |= one_in(2) ? VMT_EVENT_PAGEMAP : 0;
		c->enabled_pages = below(1025);
		c->policy = below(2);
		c->reprotect_ms = one_in(4) ? 10 + below(100) : 0;
	}
	if (one_in(2))
		return 0;
	switch (below(16)) {
	case 0:
		c->ring_records = one_in(2) ? 1 + below(63) : 65 + 2 * below(1 << 20);
		return EINVAL;
	case 1:
		c->ring_records = (1U << 25) << below(7);
		return EINVAL;
	case 2:
		c->flags |= 1U << (4 + below(28));
		return EINVAL;
	case 3:
		c->events |= 1U << (7 + below(25));
		return EINVAL;
	case 4:
		c->reserved0 = 1 + below(100);
		return EINVAL;
	case 5:
		c->reserved[below(4)] = rnd() | 1;
		return EINVAL;
	case 6:
		c->nr_pids = VMT_MAX_PIDS + 1 + below(1000);
		c->pids_ptr = (uintptr_t)pids;
		return EINVAL;
	case 7:
		if (c->flags & VMT_CONFIG_SYSTEM_WIDE)
			return 0;
		c->pids_ptr = (uintptr_t)bad_pointer();
		return EFAULT;
	case 8:
		if (c->flags & VMT_CONFIG_SYSTEM_WIDE)
			return 0;
		c->nr_pids = VMT_MAX_PIDS;
		for (i = 0; i < VMT_MAX_PIDS; i++)
			pids[i] = 1 + below(PID_MAX_LIMIT);
		pids[below(VMT_MAX_PIDS)] = one_in(2) ? 0 : PID_MAX_LIMIT + 1 + below(1U << 31);
		return EINVAL;
	case 9:
		if (c->flags & VMT_CONFIG_PROTECT)
			c->enabled_pages = VMT_MAX_ENABLED_PAGES + 1 + below(1 << 20);
		else
			c->enabled_pages = 1 + below(1000);
		return EINVAL;
	case 10:
		c->policy = 2 + below(100);
		return EINVAL;
	case 11:
		c->reprotect_ms = VMT_MAX_REPROTECT_MS + 1 + below(1000);
		return EINVAL;
	case 12:
		c->flags &= ~VMT_CONFIG_PROTECT;
		c->enabled_pages = c->policy = c->reprotect_ms = 0;
		c->events |= VMT_EVENT_PAGEMAP;
		return EINVAL;
	case 13:
		c->flags |= VMT_CONFIG_SYSTEM_WIDE | VMT_CONFIG_FOLLOW;
		return EINVAL;
	case 14:
		c->flags &= ~VMT_CONFIG_SYSTEM_WIDE;
		c->nr_pids = 0;
		return EINVAL;
	default:	/* the argument itself */
		return -EFAULT;
	}
}

/* CONFIGURE with a random configuration; checks the error. */
static int fuzz_configure(int fd, bool exact)
{
	struct vmt_config c;
	int want = random_config(&c), err;

	if (want == -EFAULT) {
		want = EFAULT;
		err = err_of(ioctl(fd, VMT_IOC_CONFIGURE, bad_pointer()));
	} else {
		err = err_of(ioctl(fd, VMT_IOC_CONFIGURE, &c));
	}
	if (want)
		expect_err("CONFIGURE, one field broken", err, want);
	else if (exact)
		return err;
	else
		EXPECT_IN("CONFIGURE, valid", err, 0, EBUSY, ENOMEM);
	return err;
}

/* An ioctl number that no layer above the driver takes, and the driver does not know. */
static unsigned long unknown_ioctl(void)
{
	static const unsigned long known[] = { VMT_IOC_VERSION, VMT_IOC_CONFIGURE, VMT_IOC_START,
					       VMT_IOC_STOP, VMT_IOC_STATUS, VMT_IOC_GEOMETRY,
					       VMT_IOC_MARKER };
	unsigned long cmd;
	unsigned int type, i;

	for (;;) {
		if (one_in(2))	/* ours, with another number, size or direction */
			cmd = _IOC(below(4), VMT_IOC_MAGIC, below(256), below(1 << 14));
		else
			cmd = (uint32_t)rnd();
		type = _IOC_TYPE(cmd);
		/* The VFS's own: 'f' (FS_IOC_*), 'X' (FIFREEZE), 'T' (FIONBIO), 0x94 (FICLONE), 0x15. */
		if (type == 'f' || type == 'X' || type == 'T' || type == 0x94 || type == 0x15 ||
		    type == 0)	/* FIGETBSZ is _IO(0x00, 2) */
			continue;
		for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
			if (cmd == known[i])
				break;
		if (i == sizeof(known) / sizeof(known[0]))
			return cmd;
	}
}

/* A bad marker (ioctl or write()); returns the error it must get. */
static void fuzz_bad_marker(int fd)
{
	char buf[4 + VMT_MAX_MARKER_LEN + 64] = { 0 };
	struct vmt_marker_arg m = { .id = rnd(), .len = 4, .text_ptr = (uintptr_t)"text" };

	switch (below(5)) {
	case 0:
		m.len = VMT_MAX_MARKER_LEN + 1 + below(1 << 20);
		expect_err("MARKER too long", err_of(ioctl(fd, VMT_IOC_MARKER, &m)), EINVAL);
		break;
	case 1:
		m.reserved[below(2)] = rnd() | 1;
		expect_err("MARKER reserved", err_of(ioctl(fd, VMT_IOC_MARKER, &m)), EINVAL);
		break;
	case 2:
		m.len = 1 + below(VMT_MAX_MARKER_LEN);
		m.text_ptr = (uintptr_t)bad_pointer();
		expect_err("MARKER bad text", err_of(ioctl(fd, VMT_IOC_MARKER, &m)), EFAULT);
		break;
	case 3:
		expect_err("MARKER bad argument",
			   err_of(ioctl(fd, VMT_IOC_MARKER, bad_pointer())), EFAULT);
		break;
	default:
		if (one_in(2))
			expect_err("write() under 4 bytes", err_of(write(fd, buf, below(4))), EINVAL);
		else
			expect_err("write() over the marker size",
				   err_of(write(fd, buf, 4 + VMT_MAX_MARKER_LEN + 1 + below(64))),
				   EINVAL);
	}
}

/* ---- sysfs ---------------------------------------------------------------- */

static const char *const settable[] = {
	"state", "ring_records", "overwrite", "targets", "protect", "follow",
	"enabled_pages", "policy", "reprotect_ms", "events",
};
#define NR_SETTABLE (sizeof(settable) / sizeof(settable[0]))
static const char *const readonly[] = {
	"abi_version", "data_dropped", "events_missed", "faults", "records", "lost",
	"lost_per_cpu", "protected", "restored", "skipped_vmas", "huge_pmds", "evictions",
	"overflows", "deferred", "reprotections", "missed",
};

static int sysfs_write(const char *file, const void *buf, size_t len)
{
	char path[128];
	int fd, err;

	snprintf(path, sizeof(path), SYSFS "%s", file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		fail("open %s: %s", path, strerror(errno));
	err = write(fd, buf, len) == (ssize_t)len ? 0 : errno;
	close(fd);
	return err;
}

static void sysfs_read(const char *file, char *buf, size_t size)
{
	char path[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), SYSFS "%s", file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		fail("open %s: %s", path, strerror(errno));
	n = read(fd, buf, size - 1);
	if (n <= 0 || buf[n - 1] != '\n')
		fail("read %s: %zd bytes, %s", path, n, n < 0 ? strerror(errno) : "no newline");
	buf[n] = 0;
	close(fd);
}

static bool numeric_file(const char *file)
{
	return !strcmp(file, "ring_records") || !strcmp(file, "enabled_pages") ||
	       !strcmp(file, "reprotect_ms");
}

/*
 * Junk for a settable file, none of which it takes: EINVAL, or ERANGE for a
 * number too big for a u32. Booleans (kstrtobool) take anything that starts
 * with y, t, 1, n, f, 0 or on/of: junk for them starts otherwise.
 */
static size_t sysfs_junk(const char *file, char *buf, size_t size)
{
	static const char *const words[] = {
		" ", "\n", "-1", "x", "2 x", "maybe", "enable", "99999999999999999999", ",",
	};
	static const char *const per_file[][5] = {
		{ "state", "onn", "of", "on off", "commit!" },
		{ "policy", "lru", "fifo clock", "FIFO", "clock," },
		{ "events", "none,", "switch,", "all", "switch,,task" },
		{ "targets", "0", "-5", "all all", "1 2 x" },
		{ "ring_records", "0x", "1e3", "4294967296", "100" },
	};
	size_t len, i;

	if (numeric_file(file) && one_in(2)) {	/* out of range */
		if (!strcmp(file, "ring_records"))
			return snprintf(buf, size, "%u",
					one_in(2) ? 1 + below(63) : 65 + 2 * below(1 << 22));
		return snprintf(buf, size, "%u",
				(!strcmp(file, "enabled_pages") ? VMT_MAX_ENABLED_PAGES :
								  VMT_MAX_REPROTECT_MS) +
					1 + below(1 << 30));
	}
	if (!strcmp(file, "targets") && one_in(3)) {	/* one pid too many */
		for (len = 0, i = 0; i <= VMT_MAX_PIDS; i++)
			len += snprintf(buf + len, size - len, "%u ", 1 + below(1000));
		return len;
	}
	switch (below(3)) {
	case 0:		/* random bytes, NUL and newline among them, after an 'x' */
		len = 1 + below(64);
		for (i = 0; i < len; i++)
			buf[i] = rnd();
		buf[0] = 'x';
		return len;
	case 1:
		for (i = 0; i < sizeof(per_file) / sizeof(per_file[0]); i++)
			if (!strcmp(file, per_file[i][0]))
				return snprintf(buf, size, "%s", per_file[i][1 + below(4)]);
		/* fall through */
	default:
		return snprintf(buf, size, "%s", words[below(sizeof(words) / sizeof(words[0]))]);
	}
}

/* ---- The session's state, as a reader sees it ------------------------------ */

struct snapshot {
	char files[NR_SETTABLE][512];
	struct vmt_geometry geometry;
	int geometry_err;
	__u32 state;
};

static void snapshot(int fd, struct snapshot *s)
{
	struct vmt_status st;
	size_t i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < NR_SETTABLE; i++)
		sysfs_read(settable[i], s->files[i], sizeof(s->files[i]));
	s->geometry_err = err_of(ioctl(fd, VMT_IOC_GEOMETRY, &s->geometry));
	if (ioctl(fd, VMT_IOC_STATUS, &st))
		fail("STATUS: %s", strerror(errno));
	s->state = st.state;
}

static void expect_unchanged(int fd, const struct snapshot *before, const char *after_what)
{
	struct snapshot now;
	size_t i;

	snapshot(fd, &now);
	for (i = 0; i < NR_SETTABLE; i++)
		if (strcmp(before->files[i], now.files[i]))
			fail("after %s, %s reads '%.60s', was '%.60s'", after_what, settable[i],
			     now.files[i], before->files[i]);
	if (before->geometry_err != now.geometry_err ||
	    memcmp(&before->geometry, &now.geometry, sizeof(now.geometry)))
		fail("after %s, the geometry changed", after_what);
	if (before->state != now.state)
		fail("after %s, the state changed from %u to %u", after_what, before->state,
		     now.state);
}

/* ---- mmap ----------------------------------------------------------------- */

struct mapping {
	char *addr;
	size_t len;
	bool records;	/* the records of a ring (read-only), or a control page */
};

/* Reading every page of a mapping: the rings must be there, whole. */
static void touch_mapping(const struct mapping *m)
{
	volatile char sum = 0;
	size_t off;

	for (off = 0; off < m->len; off += PAGE)
		sum += m->addr[off];
	(void)sum;
	if (!m->records) {
		const struct vmt_ring_meta *meta = (const void *)m->addr;

		if (meta->record_size != VMT_RECORD_SIZE || meta->abi_version != VMT_ABI_VERSION ||
		    meta->records_offset != PAGE)
			fail("a control page reads record_size %u, abi %u, offset %u",
			     meta->record_size, meta->abi_version, meta->records_offset);
	}
}

/*
 * mmap of a random ring part, or a bad offset or length: succeeds only for a
 * whole control page (PAGE, any protection) or a ring's whole records
 * (read-only). Under other processes' configures the geometry may change in
 * between, so only the set of possible results is checked here; the
 * contract phase checks exact errors.
 */
static int fuzz_mmap(int fd, struct mapping *m, bool exact)
{
	struct vmt_geometry g;
	int prot = PROT_READ, flags = one_in(4) ? MAP_PRIVATE : MAP_SHARED, kind = below(4), err;
	unsigned long long off;
	size_t len;
	void *addr;

	if (ioctl(fd, VMT_IOC_GEOMETRY, &g)) {
		g.nr_rings = 2;
		g.ring_stride = PAGE * (1 + below(64));
	}
	off = (unsigned long long)below(g.nr_rings + 1) * g.ring_stride;
	switch (kind) {
	case 0:		/* a control page */
		len = PAGE;
		prot |= one_in(2) ? PROT_WRITE : 0;
		break;
	case 1:		/* records */
		off += PAGE;
		len = g.ring_stride - PAGE;
		prot |= one_in(4) ? PROT_WRITE : 0;
		break;
	case 2:		/* a wrong length */
		off += one_in(2) ? PAGE : 0;
		len = PAGE * (2 + below(8));
		if (off % g.ring_stride == PAGE && len == g.ring_stride - PAGE)
			len += PAGE;
		break;
	default:	/* an offset inside */
		off += PAGE * (2 + below(8));
		if (off % g.ring_stride == 0 || off % g.ring_stride == PAGE)
			off += 2 * PAGE;
		len = PAGE;
	}
	addr = mmap(NULL, len, prot, flags, fd, off);
	err = addr == MAP_FAILED ? errno : 0;
	if (exact) {
		bool in_range = off / g.ring_stride < g.nr_rings;
		int want = EINVAL;

		if (in_range && kind == 0)
			want = 0;
		else if (in_range && kind == 1)	/* VM_WRITE, private or shared */
			want = prot & PROT_WRITE ? EPERM : 0;
		expect_err("mmap", err, want);
	} else {
		EXPECT_IN("mmap", err, 0, EINVAL, ENODEV, EPERM);
	}
	if (err)
		return err;
	/*
	 * Mapped, the rings keep their size: the geometry now is the one
	 * the mmap saw (another process may have changed it before).
	 */
	if (ioctl(fd, VMT_IOC_GEOMETRY, &g))
		fail("GEOMETRY with a ring mapped: %s", strerror(errno));
	m->addr = addr;
	m->len = len;
	m->records = off % g.ring_stride == PAGE;
	if (off / g.ring_stride >= g.nr_rings ||
	    (m->records ? len != g.ring_stride - PAGE || (prot & PROT_WRITE) :
			  off % g.ring_stride || len != PAGE))
		fail("mmap of %zu bytes at %#llx, prot %#x, succeeded (stride %llu)", len, off,
		     prot, (unsigned long long)g.ring_stride);
	touch_mapping(m);
	if (m->records) {
		/* Read-only for good: mprotect cannot make it writable. */
		expect_err("mprotect(PROT_WRITE) of records",
			   err_of(mprotect(m->addr, PAGE, PROT_READ | PROT_WRITE)), EACCES);
	} else if (prot & PROT_WRITE) {
		/* A reader may write any tail: the producer trusts none. */
		((struct vmt_ring_meta *)m->addr)->tail = rnd();
	}
	return 0;
}

/* Unmap all of @m, or a part (splitting the mapping) and then the rest. */
static void unmap(struct mapping *m)
{
	if (m->len > PAGE && one_in(2)) {
		size_t part = PAGE * (1 + below(m->len / PAGE - 1));

		if (munmap(m->addr, part))
			fail("munmap of a part: %s", strerror(errno));
		touch_mapping(&(struct mapping){ m->addr + part, m->len - part, true });
		if (munmap(m->addr + part, m->len - part))
			fail("munmap of the rest: %s", strerror(errno));
	} else if (munmap(m->addr, m->len)) {
		fail("munmap: %s", strerror(errno));
	}
	m->addr = NULL;
}

/* ---- Without CAP_SYS_ADMIN -------------------------------------------------- */

/* Root without capabilities: open() gets EPERM from the driver itself. */
static void expect_eperm_without_caps(void)
{
	pid_t pid = fork();
	int status;

	if (pid < 0)
		fail("fork: %s", strerror(errno));
	if (pid == 0) {
		struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
		struct __user_cap_data_struct data[2] = { 0 };
		int fd;

		if (syscall(SYS_capset, &hdr, data))
			_exit(10);
		fd = open("/dev/vmtrace", O_RDWR);
		_exit(fd < 0 && errno == EPERM ? 0 : 11);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		fail("open() without CAP_SYS_ADMIN: status %#x, expected EPERM", status);
}

/* ---- Phase 1: the contract ---------------------------------------------------- */

/* One random bad call, exact error, nothing changed. */
static void contract_call(int fd, const char *state)
{
	struct snapshot before;
	char buf[4096], what[96];
	struct mapping m;
	int err;

	snapshot(fd, &before);
	op_count++;
	switch (below(9)) {
	case 0: {
		struct vmt_config c;
		int want = random_config(&c);

		if (!want)
			return;
		snprintf(what, sizeof(what), "a half-valid CONFIGURE (%s)", state);
		err = want < 0 ? err_of(ioctl(fd, VMT_IOC_CONFIGURE, bad_pointer())) :
				 err_of(ioctl(fd, VMT_IOC_CONFIGURE, &c));
		expect_err(what, err, want < 0 ? EFAULT : want);
		break;
	}
	case 1:
		snprintf(what, sizeof(what), "an unknown ioctl (%s)", state);
		expect_err(what, err_of(ioctl(fd, unknown_ioctl(), buf)), ENOTTY);
		break;
	case 2: {
		static const unsigned long out[] = { VMT_IOC_VERSION, VMT_IOC_STATUS,
						     VMT_IOC_GEOMETRY };
		unsigned long cmd = out[below(3)];

		snprintf(what, sizeof(what), "ioctl %#lx, bad pointer (%s)", cmd, state);
		err = err_of(ioctl(fd, cmd, bad_pointer()));
		expect_err(what, err,
			   cmd == VMT_IOC_GEOMETRY && before.geometry_err ? ENODEV : EFAULT);
		break;
	}
	case 3:
		snprintf(what, sizeof(what), "a bad marker (%s)", state);
		fuzz_bad_marker(fd);
		break;
	case 4:
		snprintf(what, sizeof(what), "read() (%s)", state);
		expect_err(what, err_of(read(fd, buf, 1 + below(sizeof(buf)))), EINVAL);
		break;
	case 5:
		snprintf(what, sizeof(what), "mmap (%s)", state);
		if (before.geometry_err) {
			void *addr = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0);

			expect_err(what, addr == MAP_FAILED ? errno : 0, ENODEV);
		} else if (!fuzz_mmap(fd, &m, true)) {
			unmap(&m);
		}
		break;
	case 6: {
		const char *file = settable[below(NR_SETTABLE)];
		size_t len = sysfs_junk(file, buf, sizeof(buf));

		snprintf(what, sizeof(what), "'%.20s' into %s (%s)", buf, file, state);
		err = sysfs_write(file, buf, len);
		if (numeric_file(file))
			EXPECT_IN(what, err, EINVAL, ERANGE);
		else
			expect_err(what, err, EINVAL);
		break;
	}
	case 7:
		snprintf(what, sizeof(what), "open() without CAP_SYS_ADMIN (%s)", state);
		expect_eperm_without_caps();
		break;
	default:
		/* Order: stop while off, start while on, configure while on. */
		snprintf(what, sizeof(what), "a call out of order (%s)", state);
		if (before.state == VMT_STATE_OFF) {
			expect_err("STOP while off", err_of(ioctl(fd, VMT_IOC_STOP)), EINVAL);
			expect_err("state off while off", sysfs_write("state", "off", 3), EINVAL);
			if (before.geometry_err)
				expect_err("START before any configure",
					   err_of(ioctl(fd, VMT_IOC_START)), EINVAL);
		} else {
			struct vmt_config c;

			expect_err("START while on", err_of(ioctl(fd, VMT_IOC_START)), EBUSY);
			while (random_config(&c))
				;
			expect_err("CONFIGURE while on", err_of(ioctl(fd, VMT_IOC_CONFIGURE, &c)),
				   EBUSY);
		}
	}
	expect_unchanged(fd, &before, what);
}

/* A configure of another ring size while a ring is mapped: EBUSY. */
static void contract_mapped_resize(int fd)
{
	struct vmt_geometry g;
	struct snapshot before;
	struct vmt_config c;
	void *meta;

	if (ioctl(fd, VMT_IOC_GEOMETRY, &g))
		return;
	meta = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0);
	if (meta == MAP_FAILED)
		fail("mmap of ring 0's control page: %s", strerror(errno));
	snapshot(fd, &before);
	while (random_config(&c) || c.ring_records == g.ring_records ||
	       (!c.ring_records && g.ring_records == VMT_DEFAULT_RING_RECORDS))
		;
	op_count++;
	expect_err("CONFIGURE of another ring size while mapped",
		   err_of(ioctl(fd, VMT_IOC_CONFIGURE, &c)), EBUSY);
	expect_unchanged(fd, &before, "a resize while mapped");
	munmap(meta, PAGE);
}

static void contract(int fd, int calls)
{
	uint32_t target = toucher;
	struct vmt_config c = { .ring_records = 1024, .flags = VMT_CONFIG_PROTECT,
				.nr_pids = 1, .pids_ptr = (uintptr_t)&target,
				.enabled_pages = 64, .events = VMT_EVENTS & ~VMT_EVENT_SWITCH_ALL };
	int i;

	for (i = 0; i < calls; i++)
		contract_call(fd, "never configured");
	if (ioctl(fd, VMT_IOC_CONFIGURE, &c))
		fail("CONFIGURE: %s", strerror(errno));
	for (i = 0; i < calls; i++)
		contract_call(fd, "configured, off");
	contract_mapped_resize(fd);
	if (ioctl(fd, VMT_IOC_START))
		fail("START: %s", strerror(errno));
	for (i = 0; i < calls; i++)
		contract_call(fd, "on, protecting the toucher");
	contract_mapped_resize(fd);
	if (ioctl(fd, VMT_IOC_STOP))
		fail("STOP: %s", strerror(errno));
}

/* ---- Phase 2: chaos ------------------------------------------------------------- */

/* What succeeded, so that a run shows it reached the states that matter. */
static struct {
	unsigned long configures, starts, mappings, markers;
} done;

static void sysfs_chaos(void)
{
	static const char *const valid[NR_SETTABLE][4] = {
		{ "on", "off", "commit", "off" },	{ "64", "1024", "4096", "128" },
		{ "0", "1", "0", "0" },			{ "all", "1", "2 3", "1" },
		{ "0", "1", "1", "0" },			{ "0", "1", "0", "0" },
		{ "0", "16", "512", "1" },		{ "fifo", "clock", "fifo", "fifo" },
		{ "0", "20", "0", "0" },
		{ "none", "marker", "task,vma", "switch,task,vma,dma,marker" },
	};
	size_t i = below(NR_SETTABLE), len;
	char buf[4096], what[64];
	int err;

	if (one_in(3)) {
		if (i == 3 && one_in(2))	/* the toucher */
			len = snprintf(buf, sizeof(buf), "%d", toucher);
		else
			len = snprintf(buf, sizeof(buf), "%s", valid[i][below(4)]);
	} else if (one_in(2)) {
		len = sysfs_junk(settable[i], buf, sizeof(buf));
	} else {
		sysfs_read(settable[i], buf, sizeof(buf));
		sysfs_read(readonly[below(sizeof(readonly) / sizeof(readonly[0]))], buf,
			   sizeof(buf));
		return;
	}
	snprintf(what, sizeof(what), "a write of %s", settable[i]);
	err = sysfs_write(settable[i], buf, len);
	if (i == 0)	/* state: configure's errors, start's, stop's */
		EXPECT_IN(what, err, 0, EINVAL, EBUSY, ENOMEM);
	else if (numeric_file(settable[i]))
		EXPECT_IN(what, err, 0, EINVAL, ERANGE);
	else
		EXPECT_IN(what, err, 0, EINVAL);
}

static void chaos_call(int fd, struct mapping *maps, int nr_maps)
{
	struct mapping *m = &maps[below(nr_maps)];
	char buf[4 + VMT_MAX_MARKER_LEN] = { 0 };
	struct vmt_status st;
	struct vmt_geometry g;
	struct vmt_version v;
	int err;

	op_count++;
	switch (below(16)) {
	case 0:
	case 1:
		done.configures += !fuzz_configure(fd, false);
		break;
	case 2:
		err = err_of(ioctl(fd, VMT_IOC_START));
		EXPECT_IN("START", err, 0, EINVAL, EBUSY, ENOMEM);
		done.starts += !err;
		break;
	case 3:
		EXPECT_IN("STOP", err_of(ioctl(fd, VMT_IOC_STOP)), 0, EINVAL);
		break;
	case 4:
		if (one_in(4))
			expect_err("STATUS, bad pointer",
				   err_of(ioctl(fd, VMT_IOC_STATUS, bad_pointer())), EFAULT);
		else if (ioctl(fd, VMT_IOC_STATUS, &st) || st.state > VMT_STATE_ON)
			fail("STATUS: %s, state %u", strerror(errno), st.state);
		break;
	case 5:
		err = err_of(ioctl(fd, VMT_IOC_GEOMETRY, one_in(4) ? bad_pointer() : (void *)&g));
		EXPECT_IN("GEOMETRY", err, 0, ENODEV, EFAULT);
		if (ioctl(fd, VMT_IOC_VERSION, &v) || v.abi_version != VMT_ABI_VERSION)
			fail("VERSION: %s", strerror(errno));
		break;
	case 6:
		expect_err("an unknown ioctl", err_of(ioctl(fd, unknown_ioctl(), buf)), ENOTTY);
		break;
	case 7: {
		struct vmt_marker_arg a = { .id = rnd(), .len = below(VMT_MAX_MARKER_LEN + 1),
					    .text_ptr = (uintptr_t)buf };

		if (one_in(3)) {
			fuzz_bad_marker(fd);
		} else if (one_in(2)) {
			err = err_of(ioctl(fd, VMT_IOC_MARKER, &a));
			EXPECT_IN("MARKER", err, 0, ENODATA, ENOSPC);
			done.markers += !err;
		} else {
			size_t len = 4 + below(VMT_MAX_MARKER_LEN + 1);
			ssize_t n = write(fd, buf, len);

			if (n >= 0 && (size_t)n != len)
				fail("write() of a marker returned %zd of %zu", n, len);
			EXPECT_IN("write() of a marker", err_of(n), 0, ENODATA, ENOSPC);
		}
		break;
	}
	case 8:
		expect_err("read()", err_of(read(fd, buf, sizeof(buf))), EINVAL);
		break;
	case 9:
	case 10:
		if (m->addr)
			unmap(m);
		else
			done.mappings += !fuzz_mmap(fd, m, false);
		break;
	case 11:
		if (m->addr)
			touch_mapping(m);
		break;
	case 12: {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (poll(&p, 1, below(3)) < 0 || (p.revents & (POLLERR | POLLNVAL)))
			fail("poll: %s, revents %#x", strerror(errno), p.revents);
		break;
	}
	case 13:
		/* A child with the rings mapped reads them and exits. */
		if (one_in(8)) {
			pid_t pid = fork();
			int status, i;

			if (pid < 0)
				break;	/* no room for a process: not the module's */
			if (pid == 0) {
				for (i = 0; i < nr_maps; i++)
					if (maps[i].addr)
						touch_mapping(&maps[i]);
				_exit(0);
			}
			if (waitpid(pid, &status, 0) != pid || status)
				fail("a child reading the mapped rings: status %#x", status);
		}
		break;
	default:
		sysfs_chaos();
	}
}

static void chaos_worker(int index, time_t deadline)
{
	struct mapping maps[4] = { 0 };
	int fd, i;

	worker = index;
	op_count = 0;
	rng_seed(seed + 1 + index);
	fd = open("/dev/vmtrace", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		fail("open: %s", strerror(errno));
	while (time(NULL) < deadline) {
		chaos_call(fd, maps, 4);
		/* Mappings are let go of soon: a mapped ring keeps its size. */
		if (one_in(16))
			for (i = 0; i < 4; i++)
				if (maps[i].addr)
					unmap(&maps[i]);
	}
	printf("worker %d: %lu calls; succeeded: %lu configures, %lu starts, %lu mmaps, %lu markers\n",
	       index, op_count, done.configures, done.starts, done.mappings, done.markers);
	exit(0);
}

/* ---- The toucher ------------------------------------------------------------------ */

#define TOUCH_PAGES 1024

static volatile sig_atomic_t toucher_done;

static void toucher_stop(int sig)
{
	(void)sig;
	toucher_done = 1;
}

/*
 * Writes a pattern to its pages and reads it back, remaps some, mprotects
 * some, forks now and then: whatever tracing does, every read gives what was
 * written. Exits 0 when told to stop (SIGUSR1), 3 at the first wrong value.
 */
static void toucher_main(void)
{
	uint64_t *expect = calloc(TOUCH_PAGES, sizeof(*expect));
	volatile uint64_t *mem;
	unsigned long rounds = 0;
	uint32_t i;

	signal(SIGUSR1, toucher_stop);
	rng_seed(seed ^ 0xdeadbeef);
	mem = mmap(NULL, TOUCH_PAGES * PAGE, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!expect || mem == MAP_FAILED)
		_exit(2);
	while (!toucher_done) {
		i = below(TOUCH_PAGES);
		if (mem[i * PAGE / 8] != expect[i]) {
			fprintf(stderr, "FAIL: seed %llu: the toucher read %#llx at page %u, wrote %#llx\n",
				seed, (unsigned long long)mem[i * PAGE / 8], i,
				(unsigned long long)expect[i]);
			_exit(3);
		}
		expect[i] = rnd();
		mem[i * PAGE / 8] = expect[i];
		if (one_in(512)) {	/* 16 pages back to zero */
			i = below(TOUCH_PAGES - 16);
			if (madvise((void *)&mem[i * PAGE / 8], 16 * PAGE, MADV_DONTNEED))
				_exit(2);
			memset(&expect[i], 0, 16 * sizeof(*expect));
		}
		if (one_in(512)) {	/* read-only for a while, read back */
			i = below(TOUCH_PAGES - 16);
			if (mprotect((void *)&mem[i * PAGE / 8], 16 * PAGE, PROT_READ))
				_exit(2);
			for (uint32_t j = i; j < i + 16; j++)
				if (mem[j * PAGE / 8] != expect[j])
					_exit(3);
			if (mprotect((void *)&mem[i * PAGE / 8], 16 * PAGE, PROT_READ | PROT_WRITE))
				_exit(2);
		}
		if (one_in(4096)) {	/* a child that reads a page and exits */
			pid_t pid = fork();
			int status;

			if (pid == 0)
				_exit(mem[0] == expect[0] ? 0 : 3);
			if (pid > 0 && (waitpid(pid, &status, 0) != pid || status))
				_exit(3);
		}
		rounds++;
	}
	fprintf(stderr, "toucher: %lu rounds, every value read back\n", rounds);
	_exit(0);
}

/* ---- main -------------------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f, "usage: vmt-ifuzz [--seed S] [--seconds T] [--procs P] [--calls N]\n"
		   "  Fuzzes /dev/vmtrace and /sys/kernel/vmtrace/ (the module loaded, tracing off):\n"
		   "  N contract calls in each session state (default 300), then P processes\n"
		   "  (default 4) calling at random for T seconds (default 30). S: default the time.\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "seconds", required_argument, NULL, 't' },
		{ "procs", required_argument, NULL, 'p' },
		{ "calls", required_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	int seconds = 30, procs = 4, calls = 300, c, i, status, fd, failed = 0;
	pid_t workers[64];
	time_t deadline;

	seed = time(NULL);
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 't':
			seconds = atoi(optarg);
			break;
		case 'p':
			procs = atoi(optarg);
			break;
		case 'n':
			calls = atoi(optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc || seconds < 0 || procs < 1 || procs > 64 || calls < 0) {
		usage(stderr);
		return 2;
	}
	printf("vmt-ifuzz: seed %llu, %d contract calls a state, %d processes for %d s\n", seed,
	       calls, procs, seconds);
	fflush(stdout);
	rng_seed(seed);
	/* Kept mapped, inaccessible: an unmapped hole would be reused by mmap. */
	unmapped = mmap(NULL, PAGE, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (unmapped == MAP_FAILED)
		fail("an inaccessible page: %s", strerror(errno));

	toucher = fork();
	if (toucher < 0)
		fail("fork: %s", strerror(errno));
	if (toucher == 0)
		toucher_main();
	fd = open("/dev/vmtrace", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		fail("open /dev/vmtrace: %s", strerror(errno));

	contract(fd, calls);
	printf("contract: %lu calls, each with the error documented, nothing changed\n", op_count);
	fflush(stdout);

	deadline = time(NULL) + seconds;
	for (i = 0; i < procs; i++) {
		workers[i] = fork();
		if (workers[i] < 0)
			fail("fork: %s", strerror(errno));
		if (workers[i] == 0)
			chaos_worker(i, deadline);
	}
	for (i = 0; i < procs; i++) {
		if (waitpid(workers[i], &status, 0) != workers[i] || status) {
			fprintf(stderr, "FAIL: seed %llu: worker %d ended with status %#x\n", seed, i,
				status);
			failed = 1;
		}
	}
	/* Stopped, whatever the workers left; a sysfs "on" stays on too. */
	EXPECT_IN("the last STOP", err_of(ioctl(fd, VMT_IOC_STOP)), 0, EINVAL);
	kill(toucher, SIGUSR1);
	if (waitpid(toucher, &status, 0) != toucher || status) {
		fprintf(stderr, "FAIL: seed %llu: the toucher ended with status %#x\n", seed, status);
		failed = 1;
	}
	if (failed)
		return 1;
	printf("vmt-ifuzz: seed %llu: no failure\n", seed);
	return 0;
}
