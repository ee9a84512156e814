// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace start, stop and status: a background collector, for long traces
 * and for systemd (Type=forking, PIDFile=RUNDIR/collector.pid).
 *
 * `start [record options]` forks a collector that runs what `record` runs
 * (util/recording.c) in its own session, its output in
 * RUNDIR/collector.log, and returns once tracing is on. The collector holds an exclusive flock() on
 * RUNDIR/collector.pid for as long as it lives and rewrites
 * RUNDIR/collector.state about once a second; the lock, not the pid, says
 * whether it is alive, so a pid file left by a collector that was killed
 * is known for stale whatever process has that pid now. `stop` sends
 * SIGTERM (the collector finalizes the file, as record does on ^C), waits
 * for the lock, and prints what the collector wrote while finishing: its
 * summary line. RUNDIR is $VMTRACE_RUNDIR, or /run/vmtrace.
 *
 * Exit status: 0 success; 1 failure (no collector to stop, one already
 * running, ...); 2 bad usage; status: 0 a collector runs, 3 none does.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "util/cmd_util.h"
#include "util/recording.h"

#define STATUS_NOT_RUNNING 3

struct rundir {
	char dir[PATH_MAX - 32];
	char pid_path[PATH_MAX], state_path[PATH_MAX], log_path[PATH_MAX];
};

static void rundir_init(struct rundir *r)
{
	const char *dir = getenv("VMTRACE_RUNDIR");

	snprintf(r->dir, sizeof(r->dir), "%s", dir && *dir ? dir : "/run/vmtrace");
	snprintf(r->pid_path, sizeof(r->pid_path), "%s/collector.pid", r->dir);
	snprintf(r->state_path, sizeof(r->state_path), "%s/collector.state", r->dir);
	snprintf(r->log_path, sizeof(r->log_path), "%s/collector.log", r->dir);
}

/* What collector.state says: key=value lines. */
struct collector_state {
	long pid;
	char file[PATH_MAX];
	char state[16];			/* tracing, finished */
	long long started, updated;	/* Unix times */
	int exit_status;
	unsigned long long records, lost, bytes, raw_bytes;
	double seconds;
};

static int read_state(const struct rundir *r, struct collector_state *s)
{
	char line[PATH_MAX + 16], *value;
	FILE *f = fopen(r->state_path, "r");

	memset(s, 0, sizeof(*s));
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		value = strchr(line, '=');
		if (!value)
			continue;
		*value++ = '\0';
		if (!strcmp(line, "file"))
			snprintf(s->file, sizeof(s->file), "%.*s", (int)sizeof(s->file) - 1, value);
		else if (!strcmp(line, "state"))
			snprintf(s->state, sizeof(s->state), "%.*s", (int)sizeof(s->state) - 1, value);
		else if (!strcmp(line, "pid"))
			s->pid = strtol(value, NULL, 10);
		else if (!strcmp(line, "started"))
			s->started = strtoll(value, NULL, 10);
		else if (!strcmp(line, "updated"))
			s->updated = strtoll(value, NULL, 10);
		else if (!strcmp(line, "exit_status"))
			s->exit_status = (int)strtol(value, NULL, 10);
		else if (!strcmp(line, "seconds"))
			s->seconds = strtod(value, NULL);
		else if (!strcmp(line, "records"))
			s->records = strtoull(value, NULL, 10);
		else if (!strcmp(line, "lost"))
			s->lost = strtoull(value, NULL, 10);
		else if (!strcmp(line, "bytes"))
			s->bytes = strtoull(value, NULL, 10);
		else if (!strcmp(line, "raw_bytes"))
			s->raw_bytes = strtoull(value, NULL, 10);
	}
	fclose(f);
	return 0;
}

/* Replace collector.state whole (a reader never sees half of it). */
static void write_state(const struct rundir *r, const struct collector_state *s)
{
	char tmp[PATH_MAX + 8];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", r->state_path);
	f = fopen(tmp, "w");
	if (!f)
		return;
	fprintf(f, "pid=%ld\nfile=%s\nstate=%s\nstarted=%lld\nupdated=%lld\nexit_status=%d\n"
		"seconds=%.1f\nrecords=%llu\nlost=%llu\nbytes=%llu\nraw_bytes=%llu\n",
		s->pid, s->file, s->state, s->started, (long long)time(NULL), s->exit_status,
		s->seconds, s->records, s->lost, s->bytes, s->raw_bytes);
	if (fclose(f) == 0)
		rename(tmp, r->state_path);
	else
		unlink(tmp);
}

/* The pid in the pid file, or 0 when there is none. */
static long read_pid(int fd)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

enum liveness { NONE, ALIVE, STALE };

/*
 * Is a collector alive? Opens the pid file (*@fd, -1 when there is none)
 * and tries its lock: held, ALIVE; free but the file names a pid, STALE
 * (the lock is then ours, in *@fd); no file, or an empty one, NONE.
 */
static enum liveness probe(const struct rundir *r, int *fd, long *pid)
{
	*pid = 0;
	*fd = open(r->pid_path, O_RDWR | O_CLOEXEC);
	if (*fd < 0)
		return NONE;
	*pid = read_pid(*fd);
	if (flock(*fd, LOCK_EX | LOCK_NB))
		return ALIVE;
	return *pid ? STALE : NONE;
}

static void say_stale(const char *cmd, const struct rundir *r, long pid)
{
	struct collector_state s;

	if (read_state(r, &s) || s.pid != pid)
		s.file[0] = '\0';	/* the state of another collector */
	fprintf(stderr, "vmtrace %s: stale %s: collector %ld died without finishing%s%s%s\n", cmd,
		r->pid_path, pid, s.file[0] ? " " : "", s.file,
		s.file[0] ? " ('vmtrace verify --repair' keeps its complete frames)" : "");
}

/*
 * Create the run directory and take the pid file's lock: the lock fd, or
 * -1 having said why not (a collector already runs, ...). A stale pid file
 * is said and replaced.
 */
static int take_pid_file(const struct rundir *r)
{
	struct stat st_fd, st_path;
	long pid;
	int fd;

	if (mkdir(r->dir, 0755) && errno != EEXIST) {
		fprintf(stderr, "vmtrace start: cannot create %s: %s\n", r->dir, strerror(errno));
		return -1;
	}
	for (;;) {
		switch (probe(r, &fd, &pid)) {
		case ALIVE: {
			struct collector_state s;

			if (read_state(r, &s) || s.pid != pid)
				s.file[0] = '\0';
			fprintf(stderr, "vmtrace start: a collector is already running (pid %ld%s%s); 'vmtrace stop' ends it\n",
				pid, s.file[0] ? ", writing " : "", s.file);
			close(fd);
			return -1;
		}
		case STALE:
			say_stale("start", r, pid);
			unlink(r->pid_path);
			close(fd);
			continue;
		case NONE:
			if (fd >= 0)
				break;
			fd = open(r->pid_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
			if (fd < 0 && errno == EEXIST)
				continue;	/* another start made it first: look again */
			if (fd < 0 || flock(fd, LOCK_EX | LOCK_NB)) {
				fprintf(stderr, "vmtrace start: %s: %s\n", r->pid_path, strerror(errno));
				if (fd >= 0)
					close(fd);
				return -1;
			}
			break;
		}
		/* Locked; still the file at the path (not one a stop or start unlinked)? */
		if (!fstat(fd, &st_fd) && !stat(r->pid_path, &st_path) &&
		    st_fd.st_ino == st_path.st_ino && st_fd.st_dev == st_path.st_dev)
			return fd;
		close(fd);
	}
}

/* ---- The collector (the child) ------------------------------------------- */

struct daemon_ctx {
	const struct rundir *rundir;
	struct collector_state state;
	int ready_fd;			/* the pipe to start; -1 once told */
};

static void on_started(void *ctx)
{
	struct daemon_ctx *d = ctx;

	snprintf(d->state.state, sizeof(d->state.state), "tracing");
	write_state(d->rundir, &d->state);
	if (d->ready_fd >= 0) {
		if (write(d->ready_fd, "1", 1) != 1)
			fprintf(stderr, "vmtrace start: telling start: %s\n", strerror(errno));
		close(d->ready_fd);
		d->ready_fd = -1;
	}
}

static void on_progress(void *ctx, const struct record_progress *p)
{
	struct daemon_ctx *d = ctx;

	d->state.seconds = p->seconds;
	d->state.records = p->records;
	d->state.lost = p->lost;
	d->state.bytes = p->bytes;
	d->state.raw_bytes = p->raw_bytes;
	write_state(d->rundir, &d->state);
}

/* In the child: detach, run the session, leave the final state. Never returns. */
static void run_collector(const struct rundir *r, struct record_job *job, int lock_fd,
			  int ready_fd, const char *abs_path)
{
	struct daemon_ctx d = { .rundir = r, .ready_fd = ready_fd };
	struct record_hooks hooks = { .started = on_started, .progress = on_progress, .ctx = &d };
	char pid[32];
	int fd, status;

	setsid();
	fd = open("/dev/null", O_RDONLY);
	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		close(fd);
	}
	fd = open(r->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd >= 0) {
		dup2(fd, STDOUT_FILENO);
		dup2(fd, STDERR_FILENO);
		close(fd);
	}
	setvbuf(stderr, NULL, _IOLBF, 0);
	snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(lock_fd, 0) || pwrite(lock_fd, pid, strlen(pid), 0) != (ssize_t)strlen(pid))
		fprintf(stderr, "vmtrace start: writing %s: %s\n", r->pid_path, strerror(errno));
	d.state.pid = (long)getpid();
	d.state.started = (long long)time(NULL);
	snprintf(d.state.file, sizeof(d.state.file), "%s", abs_path);
	snprintf(d.state.state, sizeof(d.state.state), "starting");
	write_state(r, &d.state);
	fprintf(stderr, "vmtrace start: collector %ld writing %s\n", d.state.pid, abs_path);

	status = record_run("start", job, &hooks);

	snprintf(d.state.state, sizeof(d.state.state), "finished");
	d.state.exit_status = status;
	write_state(r, &d.state);
	fprintf(stderr, "vmtrace start: collector %ld finished, exit status %d\n", d.state.pid,
		status);
	/* Gone before the lock is: whoever waits on it finds no pid file. */
	unlink(r->pid_path);
	fflush(NULL);
	_exit(status);
}

/* ---- start ----------------------------------------------------------------- */

static long long log_size(const struct rundir *r)
{
	struct stat st;

	return stat(r->log_path, &st) ? 0 : (long long)st.st_size;
}

/* Copy the log from byte @from to @out. */
static void print_log_since(const struct rundir *r, long long from, FILE *out)
{
	char buf[4096];
	size_t n;
	FILE *f = fopen(r->log_path, "r");

	if (!f)
		return;
	if (fseek(f, (long)from, SEEK_SET) == 0)
		while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
			fwrite(buf, 1, n, out);
	fclose(f);
}

/* start takes record's options. */
void usage_start(FILE *out)
{
	record_print_usage("start", out);
}

int cmd_start(int argc, char **argv)
{
	char abs_path[PATH_MAX], cwd[PATH_MAX - 256];
	struct record_job job;
	struct rundir r;
	long long log_from;
	int lock_fd, pipefd[2], status;
	char ready = 0;
	pid_t child;

	status = record_parse_args("start", argc, argv, &job);
	if (status)
		return status;
	rundir_init(&r);
	if (job.path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		snprintf(abs_path, sizeof(abs_path), "%s", job.path);
	else
		snprintf(abs_path, sizeof(abs_path), "%s/%s", cwd, job.path);
	lock_fd = take_pid_file(&r);
	if (lock_fd < 0)
		return 1;
	log_from = log_size(&r);
	if (pipe2(pipefd, O_CLOEXEC)) {
		fprintf(stderr, "vmtrace start: pipe: %s\n", strerror(errno));
		return 1;
	}
	fflush(NULL);
	child = fork();
	if (child < 0) {
		fprintf(stderr, "vmtrace start: fork: %s\n", strerror(errno));
		unlink(r.pid_path);
		return 1;
	}
	if (child == 0) {
		close(pipefd[0]);
		job.path = abs_path;
		run_collector(&r, &job, lock_fd, pipefd[1], abs_path);
	}
	close(pipefd[1]);
	close(lock_fd);
	/* One byte once tracing is on; end of file if the collector gave up first. */
	while (read(pipefd[0], &ready, 1) < 0 && errno == EINTR)
		;
	close(pipefd[0]);
	if (ready != '1') {
		waitpid(child, &status, 0);
		print_log_since(&r, log_from, stderr);
		fprintf(stderr, "vmtrace start: the collector did not start (exit status %d; log in %s)\n",
			WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status),
			r.log_path);
		return 1;
	}
	if (!job.quiet)
		fprintf(stderr, "vmtrace start: collector %d tracing into %s (log: %s; 'vmtrace stop' finishes it)\n",
			child, abs_path, r.log_path);
	return 0;
}

/* ---- stop ------------------------------------------------------------------ */

static const char stop_usage[] =
	"usage: vmtrace stop [--timeout S]\n"
	"  SIGTERM to the background collector, which finalizes its file; wait for it\n"
	"  to exit (at most S seconds, default 60) and print its summary\n";

void usage_stop(FILE *out)
{
	fputs(stop_usage, out);
}

int cmd_stop(int argc, char **argv)
{
	static const struct option options[] = {
		{ "timeout", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	struct collector_state s;
	struct timespec tick = { .tv_nsec = 50 * 1000 * 1000 };
	long long timeout = 60, log_from, waited_ms = 0;
	struct rundir r;
	long pid;
	int opt, fd;

	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		if (opt != 't') {
			usage_stop(stderr);
			return 2;
		}
		timeout = parse_number("stop", "timeout", optarg, 1, 86400);
		if (timeout < 0)
			return 2;
	}
	if (optind != argc) {
		usage_stop(stderr);
		return 2;
	}
	rundir_init(&r);
	switch (probe(&r, &fd, &pid)) {
	case NONE:
		if (read_state(&r, &s) == 0 && s.pid && !strcmp(s.state, "finished"))
			fprintf(stderr, "vmtrace stop: no collector is running: the last one (pid %ld) ended by itself, exit status %d (its log: %s)\n",
				s.pid, s.exit_status, r.log_path);
		else
			fprintf(stderr, "vmtrace stop: no collector is running (no %s)\n", r.pid_path);
		if (fd >= 0)
			close(fd);
		return 1;
	case STALE:
		say_stale("stop", &r, pid);
		fprintf(stderr, "vmtrace stop: no collector is running; removed the stale pid file\n");
		unlink(r.pid_path);
		close(fd);
		return 1;
	case ALIVE:
		break;
	}
	log_from = log_size(&r);
	if (kill((pid_t)pid, SIGTERM)) {
		fprintf(stderr, "vmtrace stop: collector %ld: %s\n", pid, strerror(errno));
		close(fd);
		return 1;
	}
	fprintf(stderr, "vmtrace stop: stopping collector %ld\n", pid);
	/* Its lock goes when it exits, after the file is finished. */
	while (flock(fd, LOCK_EX | LOCK_NB)) {
		if (waited_ms >= timeout * 1000) {
			fprintf(stderr, "vmtrace stop: collector %ld still running after %lld s (its log: %s)\n",
				pid, timeout, r.log_path);
			close(fd);
			return 1;
		}
		nanosleep(&tick, NULL);
		waited_ms += 50;
	}
	close(fd);
	print_log_since(&r, log_from, stderr);
	if (read_state(&r, &s) == 0 && s.pid == pid && !strcmp(s.state, "finished"))
		return s.exit_status ? 1 : 0;
	fprintf(stderr, "vmtrace stop: collector %ld exited without saying how (its log: %s)\n", pid,
		r.log_path);
	return 1;
}

/* ---- status ---------------------------------------------------------------- */

static void print_module_status(void)
{
	static const char *const files[] = {
		"state", "targets", "faults", "records", "lost", "evictions", "protected",
		"restored",
	};
	char path[128], value[256];
	FILE *f;

	if (access("/sys/kernel/vmtrace", F_OK)) {
		printf("module: not loaded\n");
		return;
	}
	printf("module:");
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "/sys/kernel/vmtrace/%s", files[i]);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(value, sizeof(value), f)) {
			value[strcspn(value, "\n")] = '\0';
			printf(" %s=%s", files[i], value);
		}
		fclose(f);
	}
	printf("\n");
	/* Each session in use (several collectors at once); a module older than the file has none. */
	f = fopen("/sys/kernel/vmtrace/sessions", "r");
	if (!f)
		return;
	while (fgets(value, sizeof(value), f)) {
		value[strcspn(value, "\n")] = '\0';
		printf("session %s\n", value);
	}
	fclose(f);
}

void usage_status(FILE *out)
{
	fputs("usage: vmtrace status\n"
	      "  the module's state and counters (session 0's, the one sysfs drives), a line\n"
	      "  for each session in use (the module traces up to four, each for its own\n"
	      "  collector), and the background collector's progress\n", out);
}

int cmd_status(int argc, char **argv)
{
	struct collector_state s;
	struct rundir r;
	enum liveness live;
	long pid;
	int fd;

	(void)argv;
	if (argc != 1) {
		usage_status(stderr);
		return 2;
	}
	rundir_init(&r);
	print_module_status();
	live = probe(&r, &fd, &pid);
	if (fd >= 0)
		close(fd);
	if (read_state(&r, &s) == 0 && live != NONE && s.pid != pid)
		memset(&s, 0, sizeof(s));	/* another collector's */
	if (live == ALIVE) {
		printf("collector: pid %ld, %s, writing %s\n", pid, s.state[0] ? s.state : "starting",
		       s.file);
		printf("progress: %.0f s: %llu records, %llu bytes written (%.1fx), %llu lost; updated %lld s ago\n",
		       s.seconds, s.records, s.bytes,
		       s.bytes ? (double)s.raw_bytes / (double)s.bytes : 0.0, s.lost,
		       s.updated ? (long long)time(NULL) - s.updated : 0);
		return 0;
	}
	if (live == STALE)
		printf("collector: none running; stale pid file: collector %ld died without finishing %s\n",
		       pid, s.file[0] ? s.file : "its file");
	else if (s.pid && !strcmp(s.state, "finished"))
		printf("collector: none running; the last one (pid %ld) finished %s, exit status %d%s%s%s, %llu records\n",
		       s.pid, s.file, s.exit_status, s.exit_status ? " (its log says why: " : "",
		       s.exit_status ? r.log_path : "", s.exit_status ? ")" : "", s.records);
	else
		printf("collector: none running\n");
	return STATUS_NOT_RUNNING;
}
