// SPDX-License-Identifier: GPL-2.0
/*
 * The collector's session, shared by `vmtrace record` and `record-raw`
 * (collect.h). It sleeps in poll() until a ring is a quarter full, a
 * target exits, or 100 ms pass, and drains every ring each time it wakes.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collect.h"
#include "spawn.h"

#define DRAIN_BATCH 1024

struct collector {
	const char *cmd;
	struct collect_options *options;
	int fd;
	int pidfds[VMT_MAX_PIDS];
	unsigned int nr_pidfds;
	struct vmt_geometry geometry;
	struct vmt_ring_view *views;
	uint64_t *overwritten;
	uint64_t records;
	struct vmt_status status;
	struct vmt_config config;	/* as configured: pids_ptr points nowhere after */
	bool command;			/* the target is a command vmtrace started */
	bool finished;			/* status holds the counters at the end */
	bool sink_failed;		/* the sink failed and said why */
	struct vmt_exact_arg exact;	/* exact mode's counters at the end */
	__u64 exact_cap_before;		/* the module's cap, given back at the end */
	struct vmt_record batch[DRAIN_BATCH];
};

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

void collector_close(struct collector *c)
{
	if (!c)
		return;
	if (c->views)
		for (unsigned int cpu = 0; cpu < c->geometry.nr_rings; cpu++)
			vmt_ring_unmap(&c->views[cpu], &c->geometry);
	free(c->views);
	free(c->overwritten);
	for (unsigned int i = 0; i < c->nr_pidfds; i++)
		if (c->pidfds[i] >= 0)
			close(c->pidfds[i]);
	if (c->fd >= 0)
		close(c->fd);
	free(c);
}

static void say_cannot_open(const char *cmd, int err)
{
	struct utsname u;

	fprintf(stderr, "vmtrace %s: cannot open %s: %s\n", cmd, VMT_DEVICE_PATH, strerror(-err));
	if (err == -ENOENT || err == -ENODEV || err == -ENXIO) {
		if (uname(&u))
			snprintf(u.release, sizeof(u.release), "$(uname -r)");
		fprintf(stderr, "vmtrace %s: the vmtrace module is not loaded; load it as root with\n"
			"    insmod build/module/%s/vmtrace.ko    (from the source tree, after 'make module')\n"
			"or  install it for every kernel with the vmtrace-dkms package (docs/PACKAGING.md)\n",
			cmd, u.release);
	} else if (err == -EACCES || err == -EPERM) {
		fprintf(stderr, "vmtrace %s: %s is root's only (mode 0600): run as root\n", cmd,
			VMT_DEVICE_PATH);
	}
}

extern char **environ;

/*
 * /dev/vmtrace is missing: `modprobe vmtrace` (from PATH; vmtrace-dkms or
 * `make install` of the module puts it under /lib/modules), then up to a
 * second for the node to appear. 0 once it opens (fd in *fd), or -1 with
 * what failed said; modprobe says why on its own stderr.
 */
static int load_module(const char *cmd, int *fd)
{
	char *argv[] = { "modprobe", "vmtrace", NULL };
	struct timespec tick = { .tv_nsec = 20 * 1000 * 1000 };
	int err, status;
	pid_t pid;

	fflush(NULL);
	err = posix_spawnp(&pid, "modprobe", NULL, NULL, argv, environ);
	if (err) {
		fprintf(stderr, "vmtrace %s: %s is missing and 'modprobe vmtrace' cannot run: %s%s\n",
			cmd, VMT_DEVICE_PATH, strerror(err),
			err == ENOENT ? " (no modprobe on PATH: Debian's kmod package has it)" : "");
		return -1;
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR) {
			fprintf(stderr, "vmtrace %s: waiting for modprobe: %s\n", cmd, strerror(errno));
			return -1;
		}
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "vmtrace %s: %s is missing and 'modprobe vmtrace' failed (%s %d)\n",
			cmd, VMT_DEVICE_PATH, WIFEXITED(status) ? "exit status" : "signal",
			WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
		return -1;
	}
	for (int i = 0; i < 50; i++) {
		*fd = vmt_device_open();
		if (*fd >= 0 || (*fd != -ENOENT && *fd != -ENODEV && *fd != -ENXIO))
			return 0;
		nanosleep(&tick, NULL);
	}
	fprintf(stderr, "vmtrace %s: 'modprobe vmtrace' succeeded but %s did not appear\n", cmd,
		VMT_DEVICE_PATH);
	return -1;
}

struct collector *collector_open(const char *cmd, struct collect_options *o)
{
	struct collector *c = calloc(1, sizeof(*c));

	if (!c) {
		fprintf(stderr, "vmtrace %s: out of memory\n", cmd);
		return NULL;
	}
	c->cmd = cmd;
	c->options = o;
	c->fd = -1;
	for (unsigned int i = 0; i < o->nr_pids; i++) {
		c->pidfds[i] = (int)syscall(SYS_pidfd_open, (pid_t)o->pids[i], 0);
		if (c->pidfds[i] < 0) {
			fprintf(stderr, "vmtrace %s: pid %u: %s\n", cmd, o->pids[i], strerror(errno));
			collector_close(c);
			return NULL;
		}
		c->nr_pidfds++;
	}
	c->fd = vmt_device_open();
	if ((c->fd == -ENOENT || c->fd == -ENODEV || c->fd == -ENXIO) &&
	    load_module(cmd, &c->fd)) {
		say_cannot_open(cmd, -ENOENT);
		collector_close(c);
		return NULL;
	}
	if (c->fd < 0) {
		say_cannot_open(cmd, c->fd);
		collector_close(c);
		return NULL;
	}
	return c;
}

static int map_rings(struct collector *c)
{
	int err = vmt_device_geometry(c->fd, &c->geometry);

	if (err)
		return err;
	c->views = calloc(c->geometry.nr_rings, sizeof(*c->views));
	c->overwritten = calloc(c->geometry.nr_rings, sizeof(*c->overwritten));
	if (!c->views || !c->overwritten)
		return -ENOMEM;
	for (unsigned int cpu = 0; cpu < c->geometry.nr_rings; cpu++) {
		err = vmt_ring_map(c->fd, &c->geometry, cpu, &c->views[cpu]);
		if (err)
			return err;
	}
	return 0;
}

static int drain(struct collector *c, const struct collect_sink *sink)
{
	long n;
	int err;

	for (unsigned int cpu = 0; cpu < c->geometry.nr_rings; cpu++) {
		if (!c->views[cpu].meta)
			continue;
		do {
			n = vmt_ring_view_read(&c->views[cpu], c->batch, DRAIN_BATCH,
					       &c->overwritten[cpu]);
			if (n < 0)
				return (int)n;
			if (n) {
				err = sink->records(sink->ctx, c->batch, (size_t)n);
				if (err) {
					c->sink_failed = true;
					return err;
				}
			}
			c->records += (uint64_t)n;
		} while (n == DRAIN_BATCH);
	}
	return 0;
}

static double now_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Every -p target has exited (its pidfd turned readable): stop watching it. */
static bool targets_exited(struct collector *c, const struct pollfd *fds)
{
	bool all = true;

	for (unsigned int i = 0; i < c->nr_pidfds; i++) {
		if (c->pidfds[i] >= 0 && (fds[i].revents & POLLIN)) {
			close(c->pidfds[i]);
			c->pidfds[i] = -1;
		}
		if (c->pidfds[i] >= 0)
			all = false;
	}
	return all;
}

/* Poll and drain until the session ends; the exit status, or -1 with *failed set. */
static int drain_loop(struct collector *c, pid_t child, const struct collect_sink *sink,
		      const char **failed, int *err)
{
	struct pollfd fds[VMT_MAX_PIDS + 1];
	double start = now_seconds(), last_tick = start;
	unsigned int nfds;
	int wstatus;

	for (;;) {
		nfds = 0;
		for (unsigned int i = 0; i < c->nr_pidfds; i++)
			fds[nfds++] = (struct pollfd){ .fd = c->pidfds[i], .events = POLLIN };
		fds[nfds++] = (struct pollfd){ .fd = c->fd, .events = POLLIN };
		if (poll(fds, nfds, 100) < 0 && errno != EINTR) {
			*err = -errno;
			*failed = "waiting for records";
			return -1;
		}
		if (interrupted)
			return 0;
		if (fds[nfds - 1].revents & POLLHUP) {
			fprintf(stderr, "vmtrace %s: tracing was stopped from elsewhere\n", c->cmd);
			return 1;
		}
		if (!child && c->nr_pidfds && targets_exited(c, fds))
			return 0;
		if (child && waitpid(child, &wstatus, WNOHANG) == child)
			return WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
		*err = drain(c, sink);
		if (*err) {
			*failed = "draining the rings";
			return -1;
		}
		if (sink->tick && now_seconds() - last_tick >= 1.0) {
			last_tick = now_seconds();
			sink->tick(sink->ctx, c, last_tick - start);
		}
	}
}

/* "tracing pid 12" (the form the VM tests read), or "tracing pids 12 34". */
static void print_pids(const char *cmd, const struct collect_options *o)
{
	fprintf(stderr, "vmtrace %s: tracing pid%s", cmd, o->nr_pids == 1 ? "" : "s");
	for (unsigned int i = 0; i < o->nr_pids; i++)
		fprintf(stderr, " %u", o->pids[i]);
	fputc('\n', stderr);
}

/* Keep every thread of @pid on @cpu (threads it makes later inherit it). */
static int pin_process(__u32 pid, const cpu_set_t *cpu)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int err = 0;

	snprintf(path, sizeof(path), "/proc/%u/task", pid);
	dir = opendir(path);
	if (!dir)
		return -errno;
	while ((d = readdir(dir)))
		if (d->d_name[0] != '.' &&
		    sched_setaffinity((pid_t)atoi(d->d_name), sizeof(*cpu), cpu) && errno != ESRCH)
			err = -errno;
	closedir(dir);
	return err;
}

/*
 * Exact mode: the ranges of --exact for each target (@child, or the -p
 * pids), replacing any a previous session left, and the targets pinned to
 * one CPU, the first this process may use. Return: 0 or negative errno,
 * @what saying what failed.
 */
static int exact_setup(struct collector *c, pid_t child, const char **what)
{
	const struct collect_options *o = c->options;
	struct vmt_exact_arg clear = { .op = VMT_EXACT_CLEAR };
	__u32 pids[VMT_MAX_PIDS];
	unsigned int nr = child ? 1 : o->nr_pids, i, j;
	cpu_set_t mine, one;
	int err, cpu = 0;

	/* Without --exact, no exact ioctl: a module without exact mode traces on. */
	if (!o->nr_exact)
		return 0;
	*what = "exact ranges";
	err = vmt_device_exact(c->fd, &clear);
	if (err)
		return err;
	c->exact_cap_before = clear.max_pages;
	for (j = 0; j < o->nr_exact; j++) {
		const char *m = o->exact[j].mapping;

		/* An older module would take "all" for a path, and trace nothing. */
		if (m && !strcmp(m, VMT_EXACT_ALL) && !(clear.features & VMT_EXACT_FEATURE_ALL)) {
			*what = "--exact all: the loaded vmtrace module predates it (load this release's)";
			return -EOPNOTSUPP;
		}
	}
	if (o->exact_max_pages) {
		struct vmt_exact_arg cap = { .op = VMT_EXACT_CAP,
					     .max_pages = (__u64)o->exact_max_pages };

		*what = "the exact pages' cap";
		err = vmt_device_exact(c->fd, &cap);
		if (err)
			return err;
	}
	if (child)
		pids[0] = (__u32)child;
	else
		memcpy(pids, o->pids, sizeof(pids[0]) * nr);
	if (o->config.flags & VMT_CONFIG_SYSTEM_WIDE) {
		pids[0] = 0;
		nr = 1;
	}
	*what = "pinning the target to one CPU";
	if (sched_getaffinity(0, sizeof(mine), &mine))
		return -errno;
	while (cpu < CPU_SETSIZE - 1 && !CPU_ISSET(cpu, &mine))
		cpu++;
	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	for (i = 0; i < nr && pids[i]; i++) {
		err = pin_process(pids[i], &one);
		if (err)
			return err;
	}
	for (i = 0; i < nr; i++) {
		for (j = 0; j < o->nr_exact; j++) {
			const struct collect_exact *e = &o->exact[j];
			struct vmt_exact_arg a = { .op = VMT_EXACT_ADD, .pid = pids[i],
						   .start = e->start, .end = e->end };

			*what = "exact ranges";
			if (e->mapping) {
				/* The module finds the mappings: at start, exec, mmap, brk... */
				a.op = VMT_EXACT_ADD_NAME;
				a.name_ptr = (__u64)(uintptr_t)e->mapping;
				a.name_len = (__u32)strlen(e->mapping);
			}
			err = vmt_device_exact(c->fd, &a);
			if (err)
				return err;
		}
	}
	return 0;
}

int collector_run(struct collector *c, char **command, const struct collect_sink *sink)
{
	struct vmt_config config = c->options->config;
	const char *failed = NULL;
	int release_fd = -1, err = 0, exit_status = 1;
	bool terminated = false;
	pid_t child = 0;
	__u32 target;

	interrupted = 0;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (command) {
		child = spawn_held(command, &release_fd);
		if (child < 0) {
			err = (int)child;
			child = 0;
			failed = "fork";
			goto out;
		}
		c->pidfds[0] = (int)syscall(SYS_pidfd_open, child, 0);
		c->nr_pidfds = c->pidfds[0] >= 0;
		target = (__u32)child;
		config.pids_ptr = (__u64)(uintptr_t)&target;
		config.nr_pids = 1;
	} else {
		config.pids_ptr = (__u64)(uintptr_t)c->options->pids;
		config.nr_pids = c->options->nr_pids;
	}
	if (config.flags & VMT_CONFIG_SYSTEM_WIDE) {
		config.pids_ptr = 0;
		config.nr_pids = 0;
	}
	err = vmt_device_configure(c->fd, &config);
	if (err) {
		failed = "configure";
		goto out;
	}
	c->config = config;
	c->command = child != 0;
	err = exact_setup(c, child, &failed);
	if (err)
		goto out;
	failed = NULL;
	err = map_rings(c);
	if (err) {
		failed = "mapping the rings";
		goto out;
	}
	err = vmt_device_start(c->fd);
	if (err) {
		failed = "start";
		goto out;
	}
	if (child) {
		err = spawn_release(release_fd);
		release_fd = -1;
		if (err) {
			failed = "starting the command";
			vmt_device_stop(c->fd);
			goto out;
		}
	}
	if (!c->options->quiet) {
		if (child)
			fprintf(stderr, "vmtrace %s: tracing command %d\n", c->cmd, child);
		else if (c->options->nr_pids)
			print_pids(c->cmd, c->options);
		else
			fprintf(stderr, "vmtrace %s: tracing every process until SIGINT or SIGTERM\n",
				c->cmd);
	}
	if (sink->started)
		sink->started(sink->ctx, c);

	exit_status = drain_loop(c, child, sink, &failed, &err);
	vmt_device_stop(c->fd);
	if (!failed) {
		err = drain(c, sink);
		if (err)
			failed = "draining the rings";
	}
	/*
	 * A command ends with a recording that failed (as perf record's
	 * does): SIGTERM, then wait. After a signal it runs on, with the
	 * terminal's signal of its own; after its exit it is reaped already.
	 */
	if (child && failed && exit_status == -1)
		terminated = kill(child, SIGTERM) == 0;
	else
		child = 0;
	if (!failed)
		c->finished = vmt_device_status(c->fd, &c->status) == 0;
	if (c->options->nr_exact) {
		struct vmt_exact_arg clear = { .op = VMT_EXACT_CLEAR };
		struct vmt_exact_arg cap = { .op = VMT_EXACT_CAP,
					     .max_pages = c->exact_cap_before };

		c->exact.op = VMT_EXACT_COUNTS;
		vmt_device_exact(c->fd, &c->exact);
		vmt_device_exact(c->fd, &clear);
		if (c->options->exact_max_pages && cap.max_pages)
			vmt_device_exact(c->fd, &cap);
	}
out:
	if (release_fd >= 0)
		spawn_abandon(child, release_fd);
	else if (child && failed)
		spawn_wait(child);
	/*
	 * SIGINT and SIGTERM stay caught: one that comes after tracing ended
	 * (the traced process exited first) must not kill the command while it
	 * writes the end of its output.
	 */
	if (failed && c->sink_failed)	/* the sink said why */
		fprintf(stderr, "vmtrace %s: tracing stopped%s\n", c->cmd,
			terminated ? ", and the command with SIGTERM" : "");
	else if (failed)
		fprintf(stderr, "vmtrace %s: %s: %s\n", c->cmd, failed, strerror(-err));
	if (failed)
		return 1;
	return exit_status;
}

static int64_t timespec_ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

/*
 * CLOCK_REALTIME less CLOCK_MONOTONIC, as LTTng measures its clocks' offset:
 * the realtime clock read between two monotonic reads, of 5 tries the one
 * with the narrowest window, against the window's middle. 0 if the clocks
 * cannot be read.
 */
static int64_t realtime_offset_ns(void)
{
	int64_t best = 0, narrowest = INT64_MAX;

	for (int i = 0; i < 5; i++) {
		struct timespec m1, r, m2;
		int64_t window;

		if (clock_gettime(CLOCK_MONOTONIC, &m1) || clock_gettime(CLOCK_REALTIME, &r) ||
		    clock_gettime(CLOCK_MONOTONIC, &m2))
			return 0;
		window = timespec_ns(&m2) - timespec_ns(&m1);
		if (window < narrowest) {
			narrowest = window;
			best = timespec_ns(&r) - (timespec_ns(&m1) + window / 2);
		}
	}
	return best;
}

void collector_session(const struct collector *c, struct vmt_trace_session *session)
{
	struct timespec now;

	memset(session, 0, sizeof(*session));
	session->size = sizeof(*session);
	session->flags = c->config.flags;
	session->enabled_pages = c->config.enabled_pages;
	session->policy = c->config.policy;
	session->events = c->config.events;
	session->ring_records = c->config.ring_records;
	session->reprotect_ms = c->config.reprotect_ms;
	session->nr_pids = c->config.nr_pids;
	if (c->command)
		session->session_flags |= VMT_SESSION_TARGETS_COMMAND;
	/* The records' clock, ktime_get_mono_fast_ns(), is CLOCK_MONOTONIC's. */
	if (!clock_gettime(CLOCK_MONOTONIC, &now))
		session->start_time_ns = timespec_ns(&now);
	session->realtime_offset_ns = realtime_offset_ns();
}

uint64_t collector_records(const struct collector *c)
{
	return c->records;
}

uint64_t collector_lost(const struct collector *c)
{
	uint64_t lost = 0;

	for (unsigned int cpu = 0; c->views && cpu < c->geometry.nr_rings; cpu++)
		if (c->views[cpu].meta)
			lost += __atomic_load_n(&c->views[cpu].meta->lost, __ATOMIC_RELAXED);
	return lost;
}

const struct vmt_status *collector_status(const struct collector *c)
{
	return c->finished ? &c->status : NULL;
}

void collector_print_lost(const struct collector *c, FILE *out)
{
	for (unsigned int cpu = 0; c->views && cpu < c->geometry.nr_rings; cpu++) {
		const struct vmt_ring_meta *meta = c->views[cpu].meta;
		unsigned long long lost = meta ? meta->lost : 0;

		if (lost || c->overwritten[cpu])
			fprintf(out, "; cpu%u: %llu lost, %llu overwritten", cpu, lost,
				(unsigned long long)c->overwritten[cpu]);
	}
}

void collector_print_counters(const struct collector *c, FILE *out)
{
	const struct vmt_status *status = &c->status;

	if (status->protected || status->restored || status->skipped_vmas || status->huge_pmds)
		fprintf(out, "[ protection: %llu PTEs and %llu huge pages protected at start, "
			"%llu restored at stop, %llu VMAs skipped ]\n",
			(unsigned long long)status->protected,
			(unsigned long long)status->huge_pmds,
			(unsigned long long)status->restored,
			(unsigned long long)status->skipped_vmas);
	if (status->evictions || status->overflows || status->deferred || status->reprotections)
		fprintf(out, "[ enabled sets: %llu evictions, %llu overflows, %llu deferred, "
			"%llu PTEs re-protected ]\n",
			(unsigned long long)status->evictions,
			(unsigned long long)status->overflows,
			(unsigned long long)status->deferred,
			(unsigned long long)status->reprotections);
	if (status->missed)
		fprintf(out, "[ %llu processes or address spaces not traced: over %u at once ]\n",
			(unsigned long long)status->missed, VMT_MAX_TARGETS);
	if (c->options->nr_exact && c->exact.left_out)
		fprintf(out, "[ exact: %llu pages of the ranges left out, over the cap of %llu ]\n",
			(unsigned long long)c->exact.left_out,
			(unsigned long long)c->exact.max_pages);
	if (c->options->nr_exact)
		fprintf(out, "[ exact: %llu accesses in %llu steps, %llu not decoded, %llu from the "
			"kernel, %llu steps cancelled, %llu missed, %llu unpinned, %llu unsafe "
			"switches ]\n",
			(unsigned long long)c->exact.accesses, (unsigned long long)c->exact.steps,
			(unsigned long long)c->exact.undecoded, (unsigned long long)c->exact.kernel,
			(unsigned long long)c->exact.cancelled, (unsigned long long)c->exact.missed,
			(unsigned long long)c->exact.unpinned,
			(unsigned long long)c->exact.unsafe_switches);
	if (status->data_dropped || status->events_missed)
		fprintf(out, "[ events: %llu names or paths left out (too long), "
			"%llu events not written whole ]\n",
			(unsigned long long)status->data_dropped,
			(unsigned long long)status->events_missed);
}
