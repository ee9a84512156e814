/* SPDX-License-Identifier: GPL-2.0 */
/*
 * relay_client.c: a sender of a trace to `vmtrace relay` (docs/RELAY.md).
 * It sits under the trace writer as its block sink: every stream block
 * and frame the writer makes goes into a bounded spool (memory, then a
 * file), and a thread of its own sends the spool to the relay, frees what
 * the relay acknowledges, and reconnects with backoff when the connection
 * drops, resuming after the last block the relay holds. When the spool is
 * full, record frames are dropped and counted; the counts go to the relay
 * with the end, which writes them into its trace as a VMT_REC_LOST record,
 * as the kernel's ring losses are. `record --relay` and `convert --relay`
 * use it.
 */
#ifndef VMTRACE_CMD_RELAY_CLIENT_H
#define VMTRACE_CMD_RELAY_CLIENT_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

#include "vmtrace/trace.h"

struct relay_options {
	const char *addr;		/* --relay HOST:PORT; NULL: no relay */
	const char *key_path;		/* --relay-key FILE */
	const char *host;		/* --relay-host; default: gethostname() */
	const char *session;		/* --relay-session; default: the caller's */
	long long spool_memory;		/* --relay-spool; -1: the default, 64 MiB */
	long long spool_file;		/* --relay-spool-file; -1: the default, 1 GiB */
	long long wait;			/* --relay-wait seconds at the end; -1: 60 */
};

#define RELAY_OPT_BASE	0x5200
#define RELAY_LONG_OPTIONS						\
	{ "relay", required_argument, NULL, RELAY_OPT_BASE },		\
	{ "relay-key", required_argument, NULL, RELAY_OPT_BASE + 1 },	\
	{ "relay-host", required_argument, NULL, RELAY_OPT_BASE + 2 },	\
	{ "relay-session", required_argument, NULL, RELAY_OPT_BASE + 3 }, \
	{ "relay-spool", required_argument, NULL, RELAY_OPT_BASE + 4 },	\
	{ "relay-spool-file", required_argument, NULL, RELAY_OPT_BASE + 5 }, \
	{ "relay-wait", required_argument, NULL, RELAY_OPT_BASE + 6 }

extern const char relay_options_usage[];

void relay_options_init(struct relay_options *o);
/* 1: @opt was one of RELAY_LONG_OPTIONS; 0: not one; -1: bad (said). */
int relay_parse_option(const char *cmd, int opt, const char *arg, struct relay_options *o);

struct relay_client;

/*
 * Check the options and read the key: the client, or NULL having said why.
 * Nothing goes to the relay before relay_client_connect().
 * @default_session: the session's name without --relay-session.
 */
struct relay_client *relay_client_start(const char *cmd, const struct relay_options *o,
					const char *default_session);
/*
 * Start the sending thread, which connects (says hello: the relay opens
 * the session) when it can. 0, or -1 having said why. record calls it once
 * the module has taken its configuration, so that a refused record leaves
 * no session at the relay.
 */
int relay_client_connect(struct relay_client *c);
/* The writer's sink (vmt_trace_writer_set_sink()): never blocks on the network. */
int relay_client_sink(void *client, const void *block, size_t len);
/*
 * The writer is closed: send the rest, wait (up to --relay-wait) for the
 * relay to hold it all, stop, print the summary line (unless @quiet) and
 * free the client. 0, or 1 when the relay did not get everything (said).
 * A client never connected just goes, printing nothing: the relay has no
 * session of it.
 */
int relay_client_finish(struct relay_client *c, bool quiet);

#endif
