// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace record-raw [-o FILE] [-a] [-r RECORDS] [--overwrite] [--follow]
 *                    [--protect [-n PAGES] [--policy fifo|clock] [--reprotect-ms MS]]
 *                    (-p PID | -- COMMAND [ARGS...])
 *
 * The smallest end-to-end reader: configures the module to trace COMMAND, or
 * the running process PID until it exits or SIGINT/SIGTERM (or, with -a,
 * every process while COMMAND runs), maps every CPU's ring, and
 * writes the raw 64-byte records to FILE (default vmtrace.raw) as it drains
 * them. The collector (`vmtrace record`) replaces it with a compressed,
 * seekable trace; this one proves the path and feeds the tests.
 *
 * It sleeps in poll() until a ring is a quarter full, the target exits, or
 * 100 ms pass, and drains every ring each time it wakes.
 */
#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/syscall.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vmtrace/vmtrace.h"
#include "commands.h"

#define DRAIN_BATCH 1024

static const char record_raw_usage[] =
	"usage: vmtrace record-raw [-o FILE] [-a] [-r RECORDS] [--overwrite] [--follow]\n"
	"                          [--protect [-n PAGES] [--policy fifo|clock] [--reprotect-ms MS]]\n"
	"                          (-p PID | -- COMMAND [ARGS...])\n"
	"  -a               trace every process but this one (COMMAND included);\n"
	"                   new processes are traced as they start\n"
	"  --follow         trace the processes the target forks, too (not with -a)\n"
	"  --protect        protect the target's pages: log every access to a page\n"
	"                   outside its enabled set\n"
	"  -n PAGES         pages the enabled set keeps unprotected (default 512, 0 allowed)\n"
	"  --policy P       which enabled page to protect again: fifo (default) or clock\n"
	"  --reprotect-ms MS protect every page again every MS milliseconds (default 0: never)\n";

/* A number within [0, max], or -1 with a message. */
static long parse_u32(const char *what, const char *text, unsigned long max)
{
	unsigned long n;
	char *end;

	errno = 0;
	n = strtoul(text, &end, 0);
	if (errno || *end || !*text || *text == '-' || n > max) {
		fprintf(stderr, "vmtrace record-raw: bad %s '%s' (0..%lu)\n", what, text, max);
		return -1;
	}
	return (long)n;
}

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

struct raw_rings {
	struct vmt_geometry geometry;
	struct vmt_ring_view *views;
	uint64_t *overwritten;
};

static int drain(struct raw_rings *rings, FILE *out, uint64_t *records)
{
	static struct vmt_record batch[DRAIN_BATCH];
	long n;

	for (unsigned int cpu = 0; cpu < rings->geometry.nr_rings; cpu++) {
		if (!rings->views[cpu].meta)
			continue;
		do {
			n = vmt_ring_view_read(&rings->views[cpu], batch, DRAIN_BATCH,
					       &rings->overwritten[cpu]);
			if (n < 0)
				return (int)n;
			if (n && fwrite(batch, sizeof(batch[0]), (size_t)n, out) != (size_t)n)
				return -EIO;
			*records += (uint64_t)n;
		} while (n == DRAIN_BATCH);
	}
	return 0;
}

static int map_rings(int fd, struct raw_rings *rings)
{
	int err = vmt_device_geometry(fd, &rings->geometry);

	if (err)
		return err;
	rings->views = calloc(rings->geometry.nr_rings, sizeof(*rings->views));
	rings->overwritten = calloc(rings->geometry.nr_rings, sizeof(*rings->overwritten));
	if (!rings->views || !rings->overwritten)
		return -ENOMEM;
	for (unsigned int cpu = 0; cpu < rings->geometry.nr_rings; cpu++) {
		err = vmt_ring_map(fd, &rings->geometry, cpu, &rings->views[cpu]);
		if (err)
			return err;
	}
	return 0;
}

static void unmap_rings(struct raw_rings *rings)
{
	if (rings->views)
		for (unsigned int cpu = 0; cpu < rings->geometry.nr_rings; cpu++)
			vmt_ring_unmap(&rings->views[cpu], &rings->geometry);
	free(rings->views);
	free(rings->overwritten);
}

static void print_summary(const char *path, struct raw_rings *rings, uint64_t records,
			  const struct vmt_status *status)
{
	fprintf(stderr, "[ vmtrace record-raw: wrote %s (%llu records, %llu faults, %llu lost",
		path, (unsigned long long)records, (unsigned long long)status->faults,
		(unsigned long long)status->lost);
	for (unsigned int cpu = 0; cpu < rings->geometry.nr_rings; cpu++) {
		const struct vmt_ring_meta *meta = rings->views[cpu].meta;
		unsigned long long lost = meta ? meta->lost : 0;

		if (lost || rings->overwritten[cpu])
			fprintf(stderr, "; cpu%u: %llu lost, %llu overwritten", cpu, lost,
				(unsigned long long)rings->overwritten[cpu]);
	}
	fprintf(stderr, ") ]\n");
	if (status->protected || status->restored || status->skipped_vmas || status->huge_pmds)
		fprintf(stderr, "[ protection: %llu PTEs and %llu huge pages protected at start, "
			"%llu restored at stop, %llu VMAs skipped ]\n",
			(unsigned long long)status->protected,
			(unsigned long long)status->huge_pmds,
			(unsigned long long)status->restored,
			(unsigned long long)status->skipped_vmas);
	if (status->evictions || status->overflows || status->deferred || status->reprotections)
		fprintf(stderr, "[ enabled sets: %llu evictions, %llu overflows, %llu deferred, "
			"%llu PTEs re-protected ]\n",
			(unsigned long long)status->evictions,
			(unsigned long long)status->overflows,
			(unsigned long long)status->deferred,
			(unsigned long long)status->reprotections);
	if (status->missed)
		fprintf(stderr, "[ %llu processes or address spaces not traced: over %u ]\n",
			(unsigned long long)status->missed, VMT_MAX_TARGETS);
}

int cmd_record_raw(int argc, char **argv)
{
	static const struct option options[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "all", no_argument, NULL, 'a' },
		{ "ring-records", required_argument, NULL, 'r' },
		{ "overwrite", no_argument, NULL, 'O' },
		{ "protect", no_argument, NULL, 'P' },
		{ "follow", no_argument, NULL, 'F' },
		{ "pid", required_argument, NULL, 'p' },
		{ "enabled-pages", required_argument, NULL, 'n' },
		{ "policy", required_argument, NULL, 'L' },
		{ "reprotect-ms", required_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 },
	};
	long enabled_pages = VMT_DEFAULT_ENABLED_PAGES, reprotect_ms = 0, policy = VMT_POLICY_FIFO;
	bool enabled_options = false;
	const char *path = "vmtrace.raw";
	struct vmt_config config = { 0 };
	struct raw_rings rings = { 0 };
	struct vmt_status status;
	const char *failed = NULL;
	int fd, release_fd = -1, opt, err = 0, exit_status = 1;
	uint64_t records = 0;
	__u32 target;
	char *end;
	FILE *out;
	pid_t pid, attach = 0;
	int pidfd = -1;

	while ((opt = getopt_long(argc, argv, "+o:ar:p:n:", options, NULL)) != -1) {
		switch (opt) {
		case 'o':
			path = optarg;
			break;
		case 'a':
			config.flags |= VMT_CONFIG_SYSTEM_WIDE;
			break;
		case 'r':
			errno = 0;
			config.ring_records = (__u32)strtoul(optarg, &end, 0);
			if (errno || *end || !*optarg) {
				fprintf(stderr, "vmtrace record-raw: bad ring size '%s'\n", optarg);
				return 2;
			}
			break;
		case 'O':
			config.flags |= VMT_CONFIG_OVERWRITE;
			break;
		case 'P':
			config.flags |= VMT_CONFIG_PROTECT;
			break;
		case 'F':
			config.flags |= VMT_CONFIG_FOLLOW;
			break;
		case 'n':
			enabled_pages = parse_u32("page count", optarg, VMT_MAX_ENABLED_PAGES);
			if (enabled_pages < 0)
				return 2;
			enabled_options = true;
			break;
		case 'R':
			reprotect_ms = parse_u32("interval", optarg, VMT_MAX_REPROTECT_MS);
			if (reprotect_ms < 0)
				return 2;
			enabled_options = true;
			break;
		case 'L':
			if (!strcmp(optarg, "fifo")) {
				policy = VMT_POLICY_FIFO;
			} else if (!strcmp(optarg, "clock")) {
				policy = VMT_POLICY_CLOCK;
			} else {
				fprintf(stderr, "vmtrace record-raw: bad policy '%s' (fifo or clock)\n",
					optarg);
				return 2;
			}
			enabled_options = true;
			break;
		case 'p':
			errno = 0;
			attach = (pid_t)strtol(optarg, &end, 10);
			if (errno || *end || attach <= 0) {
				fprintf(stderr, "vmtrace record-raw: bad pid '%s'\n", optarg);
				return 2;
			}
			break;
		default:
			fputs(record_raw_usage, stderr);
			return 2;
		}
	}
	if ((optind >= argc) == !attach || (attach && (config.flags & VMT_CONFIG_SYSTEM_WIDE))) {
		fputs(record_raw_usage, stderr);
		return 2;
	}
	if ((config.flags & VMT_CONFIG_SYSTEM_WIDE) && (config.flags & VMT_CONFIG_FOLLOW)) {
		fprintf(stderr, "vmtrace record-raw: -a traces new processes already; --follow is for one target\n");
		return 2;
	}
	if (config.flags & VMT_CONFIG_PROTECT) {
		config.enabled_pages = (__u32)enabled_pages;
		config.policy = (__u32)policy;
		config.reprotect_ms = (__u32)reprotect_ms;
	} else if (enabled_options) {
		fprintf(stderr, "vmtrace record-raw: -n, --policy and --reprotect-ms need --protect\n");
		return 2;
	}
	if (attach) {
		pidfd = (int)syscall(SYS_pidfd_open, attach, 0);
		if (pidfd < 0) {
			fprintf(stderr, "vmtrace record-raw: pid %d: %s\n", attach, strerror(errno));
			return 1;
		}
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);

	fd = vmt_device_open();
	if (fd < 0) {
		fprintf(stderr, "vmtrace record-raw: cannot open %s: %s%s\n", VMT_DEVICE_PATH,
			strerror(-fd), fd == -ENOENT ? " (load vmtrace.ko first)" : "");
		return 1;
	}
	out = fopen(path, "wb");
	if (!out) {
		fprintf(stderr, "vmtrace record-raw: cannot write %s: %s\n", path, strerror(errno));
		close(fd);
		return 1;
	}
	if (attach) {
		pid = attach;
	} else {
		pid = spawn_held(argv + optind, &release_fd);
		if (pid < 0) {
			err = (int)pid;
			failed = "fork";
			goto out_close;
		}
	}
	target = (__u32)pid;
	if (!(config.flags & VMT_CONFIG_SYSTEM_WIDE)) {
		config.nr_pids = 1;
		config.pids_ptr = (__u64)(uintptr_t)&target;
	}
	err = vmt_device_configure(fd, &config);
	if (err) {
		failed = "configure";
		goto out_abandon;
	}
	err = map_rings(fd, &rings);
	if (err) {
		failed = "mapping the rings";
		goto out_abandon;
	}
	err = vmt_device_start(fd);
	if (err) {
		failed = "start";
		goto out_abandon;
	}
	if (!attach) {
		err = spawn_release(release_fd);
		release_fd = -1;
		if (err) {
			failed = "starting the command";
			vmt_device_stop(fd);
			goto out_abandon;
		}
	}
	fprintf(stderr, "vmtrace record-raw: tracing %s %d\n", attach ? "pid" : "command", pid);

	/* The command's exit wakes poll() too. */
	if (!attach)
		pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	for (;;) {
		struct pollfd fds[2] = {
			{ .fd = fd, .events = POLLIN },
			{ .fd = pidfd, .events = POLLIN },
		};
		int wstatus;

		if (poll(fds, pidfd >= 0 ? 2 : 1, 100) < 0 && errno != EINTR) {
			err = -errno;
			failed = "waiting for records";
			break;
		}
		if (interrupted) {
			exit_status = 0;
			break;
		}
		if (fds[0].revents & POLLHUP) {
			fprintf(stderr, "vmtrace record-raw: tracing was stopped from elsewhere\n");
			break;
		}
		if (attach) {
			if (fds[1].revents & POLLIN) {
				exit_status = 0;
				break;
			}
		} else if (waitpid(pid, &wstatus, WNOHANG) == pid) {
			exit_status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus)
							 : 128 + WTERMSIG(wstatus);
			break;
		}
		err = drain(&rings, out, &records);
		if (err) {
			failed = "draining the rings";
			break;
		}
	}
	vmt_device_stop(fd);
	if (!failed) {
		err = drain(&rings, out, &records);
		if (err)
			failed = "draining the rings";
	}
	if (!failed && vmt_device_status(fd, &status) == 0)
		print_summary(path, &rings, records, &status);
	goto out_unmap;

out_abandon:
	if (release_fd >= 0)
		spawn_abandon(pid, release_fd);
	else if (!attach)
		spawn_wait(pid);
out_unmap:
	unmap_rings(&rings);
out_close:
	if (fclose(out) && !failed) {
		err = -errno;
		failed = "closing the output";
	}
	close(fd);
	if (pidfd >= 0)
		close(pidfd);
	if (failed) {
		fprintf(stderr, "vmtrace record-raw: %s: %s\n", failed, strerror(-err));
		return 1;
	}
	return exit_status;
}

static const char *const access_names[] = { "?", "R", "W", "?", "X" };
static const char *const cause_names[] = { "protection", "demand", "cow", "other" };

/* vmtrace dump-raw FILE: one record a line. */
int cmd_dump_raw(int argc, char **argv)
{
	struct vmt_record rec;
	unsigned long long index = 0;
	size_t n;
	FILE *in;

	if (argc != 2) {
		fprintf(stderr, "usage: vmtrace dump-raw FILE\n");
		return 2;
	}
	in = fopen(argv[1], "rb");
	if (!in) {
		fprintf(stderr, "vmtrace dump-raw: cannot read %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	while ((n = fread(&rec, 1, sizeof(rec), in)) == sizeof(rec)) {
		switch (rec.hdr.type) {
		case VMT_REC_REFERENCE:
			printf("%llu ref cpu=%u pid=%u tid=%u addr=0x%llx ip=0x%llx pfn=0x%llx access=%s mode=%s cause=%s err=0x%x%s\n",
			       (unsigned long long)rec.hdr.time_ns, rec.hdr.cpu, rec.hdr.pid,
			       rec.hdr.tid, (unsigned long long)rec.ref.vaddr,
			       (unsigned long long)rec.ref.ip, (unsigned long long)rec.ref.pfn,
			       rec.ref.access < 5 ? access_names[rec.ref.access] : "?",
			       rec.ref.kernel_mode ? "kernel" : "user",
			       rec.ref.cause < 4 ? cause_names[rec.ref.cause] : "?",
			       rec.ref.error_code,
			       rec.ref.flags & VMT_REF_HUGE ? " huge=1" : "");
			break;
		case VMT_REC_EVICT:
			printf("%llu evict cpu=%u pid=%u tid=%u addr=0x%llx pfn=0x%llx dirty=%d accessed=%d%s\n",
			       (unsigned long long)rec.hdr.time_ns, rec.hdr.cpu, rec.hdr.pid,
			       rec.hdr.tid, (unsigned long long)rec.ref.vaddr,
			       (unsigned long long)rec.ref.pfn,
			       !!(rec.ref.evict_flags & VMT_EVICT_DIRTY),
			       !!(rec.ref.evict_flags & VMT_EVICT_ACCESSED),
			       rec.ref.flags & VMT_REF_HUGE ? " huge=1" : "");
			break;
		case VMT_REC_LOST:
			printf("%llu lost cpu=%u count=%llu\n", (unsigned long long)rec.hdr.time_ns,
			       rec.hdr.cpu, (unsigned long long)rec.lost.count);
			break;
		default:
			printf("%llu type=%u cpu=%u\n", (unsigned long long)rec.hdr.time_ns,
			       rec.hdr.type, rec.hdr.cpu);
		}
		index++;
	}
	if (ferror(in) || n) {
		fprintf(stderr, "vmtrace dump-raw: %s: %s at record %llu (byte offset %llu)\n",
			argv[1], n ? "truncated record" : "read error", index,
			index * (unsigned long long)sizeof(rec));
		fclose(in);
		return 1;
	}
	fclose(in);
	return 0;
}
