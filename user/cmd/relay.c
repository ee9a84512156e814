// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace relay --listen ADDR:PORT --dir DIR [--key FILE] [limits]
 * vmtrace relay --list --dir DIR
 *
 * Receives traces from collectors (record --relay, convert --relay) and
 * writes each as an ordinary trace file, DIR/HOST/SESSION.vmt, block by
 * block as they arrive, through libvmtrace's writer of encoded blocks: a
 * relay killed mid-trace leaves complete blocks that `verify --repair`
 * keeps, and that a sender reconnecting resumes after. The protocol is
 * docs/RELAY.md.
 *
 * One thread and poll(): what a relay does per frame is a checksum and a
 * write() of bytes already compressed, so one core keeps up with many
 * senders, and the session table, the limits and the files need no lock.
 * A connection's messages are read into its buffer as they come and acted
 * on once whole; the relay's own messages (acks, refusals) are small and
 * queued per connection.
 *
 * Outline: options and the key; the sessions' files (names, owner,
 * resume, lock); messages per state (hello, proof, blocks, end); the
 * poll loop; --list.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/bytes.h"
#include "commands.h"
#include "format/trace_format.h"
#include "util/cmd_util.h"
#include "util/relay_auth.h"
#include "util/relay_net.h"

static const char relay_usage[] =
	"usage: vmtrace relay --listen ADDR:PORT --dir DIR [--key FILE] [--max-sessions N]\n"
	"                     [--max-bytes SIZE] [--idle SECONDS] [-q]\n"
	"       vmtrace relay --list --dir DIR\n"
	"  Receives traces from any number of collectors at once (record --relay HOST:PORT)\n"
	"  and writes each as DIR/HOST/SESSION.vmt, frame by frame as they arrive: a trace\n"
	"  file like record's, crash-safe as record's (verify --repair keeps the complete\n"
	"  frames of a relay killed mid-trace); a sender that reconnects resumes after\n"
	"  the last frame stored. The protocol: docs/RELAY.md.\n"
	"  --listen ADDR:PORT  where to listen (:PORT every address, [::1]:PORT IPv6)\n"
	"  --dir DIR        where the traces go, one folder a host\n"
	"  --key FILE       accept only senders that prove they hold this key\n"
	"                   (record --relay-key FILE), and authenticate every message\n"
	"  --max-sessions N sessions receiving at once (default 64); more are refused\n"
	"  --max-bytes SIZE a session's file at most (k, M, G; default 0: no limit)\n"
	"  --idle SECONDS   a sender silent this long is cut off (default 600; senders\n"
	"                   ping every 30 s when they have nothing to send)\n"
	"  --list           the sessions in DIR: host, session, bytes, and whether each\n"
	"                   is receiving, complete or unfinished\n"
	"  -q               say nothing but errors\n";

void usage_relay(FILE *out)
{
	fputs(relay_usage, out);
}

enum conn_state { WANT_HELLO, WANT_PROOF, RECEIVING, CLOSING };

/* A trace file's header (docs/FORMAT.md): a file shorter has no block yet. */
#define VMT_TRACE_HEADER_BYTES	64

/* Connections beyond --max-sessions that may be saying hello at once. */
#define MAX_PENDING	64

struct conn {
	int fd;
	enum conn_state state;
	char peer[80];
	uint8_t *in;			/* the message being read */
	size_t in_have, in_size;
	struct vmt_relay_header h;	/* once the header is in */
	bool have_header;
	uint8_t *out;			/* queued for the sender */
	size_t out_have, out_sent, out_size;
	struct vmt_relay_hello hello;
	uint8_t hello_bytes[VMT_RELAY_HELLO_SIZE];
	uint8_t nonce[VMT_RELAY_NONCE_SIZE];
	uint8_t session_key[VMT_RELAY_MAC_SIZE];
	bool keyed;
	uint64_t recv_counter, send_counter;
	struct vmt_trace_writer *writer;	/* while RECEIVING */
	char path[4096];
	int lock_fd;			/* flock()ed while receiving: --list sees it */
	uint64_t acked, bytes;
	uint32_t nr_streams;		/* in the file: the id a stream of the relay's gets */
	uint64_t last_time;		/* the greatest frame time: where a lost record goes */
	time_t last_active;
};

struct relay {
	const char *dir;
	struct relay_key key;
	bool keyed, quiet;
	unsigned int max_sessions;
	uint64_t max_bytes;
	unsigned int idle;
	struct conn **conns;
	unsigned int nr_conns;
	unsigned int receiving;
};

static volatile sig_atomic_t stopping;

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

static void say(const struct relay *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(const struct relay *r, const char *fmt, ...)
{
	va_list ap;

	if (r->quiet)
		return;
	va_start(ap, fmt);
	fputs("vmtrace relay: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* ---- Messages out ------------------------------------------------------ */

static int queue_message(struct conn *c, unsigned int type, uint64_t seq, const void *payload,
			 uint32_t len)
{
	size_t need = c->out_have + VMT_RELAY_HEADER_SIZE + len + VMT_RELAY_MAC_SIZE;
	long n;

	if (need > c->out_size) {
		uint8_t *out = realloc(c->out, need);

		if (!out)
			return -ENOMEM;
		c->out = out;
		c->out_size = need;
	}
	n = relay_message(c->out + c->out_have, type, seq, payload, len,
			  c->keyed ? c->session_key : NULL, c->send_counter);
	if (n < 0)
		return (int)n;
	if (c->keyed)
		c->send_counter++;
	c->out_have += (size_t)n;
	return 0;
}

static void stop_session(struct relay *r, struct conn *c, bool finished);

/* Say why, to the sender and on stderr, and close once it is sent. */
static void refuse(struct relay *r, struct conn *c, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void refuse(struct relay *r, struct conn *c, const char *fmt, ...)
{
	char why[VMT_RELAY_REFUSE_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if ((size_t)n >= sizeof(why))
		n = sizeof(why) - 1;
	fprintf(stderr, "vmtrace relay: %s: refused: %s\n", c->peer, why);
	stop_session(r, c, false);
	queue_message(c, VMT_RELAY_REFUSE, 0, why, (uint32_t)n);
	c->state = CLOSING;
}

/* ---- Sessions' files --------------------------------------------------- */

/* DIR/HOST/.SESSION.owner: the sender id that owns the session, in hex. */
static void owner_path(const struct relay *r, const struct conn *c, char *buf, size_t size)
{
	snprintf(buf, size, "%s/%s/.%s.owner", r->dir, c->hello.host, c->hello.session);
}

static void sender_hex(const uint8_t *id, char *hex)
{
	for (int i = 0; i < VMT_RELAY_SENDER_SIZE; i++)
		sprintf(hex + 2 * i, "%02x", id[i]);
}

/*
 * The connection receiving @self's session, if another one is: NULL when
 * none is. A sender reconnecting before the relay saw its old connection
 * die (no FIN on a dropped network) finds its own.
 */
static struct conn *session_receiver(const struct relay *r, const struct conn *self)
{
	for (unsigned int i = 0; i < r->nr_conns; i++) {
		struct conn *c = r->conns[i];

		if (c != self && c->state == RECEIVING &&
		    !strcmp(c->hello.host, self->hello.host) &&
		    !strcmp(c->hello.session, self->hello.session))
			return c;
	}
	return NULL;
}

/* Open (or resume) the session's file, and welcome the sender. */
static void start_session(struct relay *r, struct conn *c)
{
	char owner[4200], tmp[4210], hex[2 * VMT_RELAY_SENDER_SIZE + 2], had[sizeof(hex)] = "";
	struct vmt_trace_error err;
	struct vmt_trace *done;
	uint8_t welcome[VMT_RELAY_WELCOME_SIZE] = { 0 };
	struct conn *old;
	bool exists;
	FILE *f;

	old = session_receiver(r, c);
	if (old && memcmp(old->hello.sender, c->hello.sender, VMT_RELAY_SENDER_SIZE)) {
		refuse(r, c, "session %s/%s is receiving from another sender", c->hello.host,
		       c->hello.session);
		return;
	}
	if (old) {
		/* Its sender is back on a new connection: the old one is dead. */
		say(r, "%s/%s: the sender reconnected from %s; its old connection is closed",
		    c->hello.host, c->hello.session, c->peer);
		stop_session(r, old, false);
	}
	if (r->receiving >= r->max_sessions) {
		refuse(r, c, "the relay receives %u sessions already (--max-sessions)",
		       r->max_sessions);
		return;
	}
	snprintf(c->path, sizeof(c->path), "%s/%s", r->dir, c->hello.host);
	if (mkdir(c->path, 0755) && errno != EEXIST) {
		refuse(r, c, "cannot make %s/: %s", c->hello.host, strerror(errno));
		return;
	}
	snprintf(c->path, sizeof(c->path), "%s/%s/%s.vmt", r->dir, c->hello.host,
		 c->hello.session);
	owner_path(r, c, owner, sizeof(owner));
	sender_hex(c->hello.sender, hex);
	/* A file cut before its header was whole (a relay killed at once) is begun anew. */
	exists = file_size(c->path) >= VMT_TRACE_HEADER_BYTES;
	if (exists) {
		f = fopen(owner, "r");
		if (f) {
			if (!fgets(had, sizeof(had), f))
				had[0] = '\0';
			fclose(f);
		}
		had[strcspn(had, "\n")] = '\0';
		if (strcmp(had, hex)) {
			refuse(r, c, "session %s/%s belongs to another sender", c->hello.host,
			       c->hello.session);
			return;
		}
		if (vmt_trace_open(&done, c->path, 0, &err) == 0) {
			/* Its own sender, whose DONE was lost: done it is. */
			uint64_t blocks = vmt_trace_nr_streams(done) + vmt_trace_nr_frames(done);

			vmt_trace_close(done);
			say(r, "%s/%s: complete already, %llu blocks: told its sender again",
			    c->hello.host, c->hello.session, (unsigned long long)blocks);
			queue_message(c, VMT_RELAY_DONE, blocks, NULL, 0);
			c->state = CLOSING;
			return;
		}
	} else {
		/* Whole or not at all: written beside, then renamed. */
		snprintf(tmp, sizeof(tmp), "%s.tmp", owner);
		f = fopen(tmp, "w");
		if (!f || fprintf(f, "%s\n", hex) < 0 || fclose(f) || rename(tmp, owner)) {
			refuse(r, c, "cannot write %s: %s", owner, strerror(errno));
			return;
		}
	}
	if (vmt_trace_writer_open_blocks(&c->writer, c->path, exists, &err)) {
		refuse(r, c, "session %s/%s: %s", c->hello.host, c->hello.session, err.message);
		return;
	}
	c->nr_streams = 0;
	c->last_time = 0;
	if (exists && vmt_trace_open(&done, c->path, VMT_TRACE_OPEN_GROWING, &err) == 0) {
		c->nr_streams = vmt_trace_nr_streams(done);
		for (uint32_t i = 0; i < c->nr_streams; i++) {
			struct vmt_trace_stream_stats st;

			if (vmt_trace_stream(done, i)->time_offset != VMT_TRACE_NO_TIME &&
			    !vmt_trace_stream_stats(done, i, &st) && st.entries &&
			    st.last_time > c->last_time)
				c->last_time = st.last_time;
		}
		vmt_trace_close(done);
	}
	c->lock_fd = open(c->path, O_RDONLY | O_CLOEXEC);
	if (c->lock_fd >= 0)
		flock(c->lock_fd, LOCK_EX | LOCK_NB);
	c->acked = vmt_trace_writer_blocks(c->writer);
	c->bytes = (uint64_t)file_size(c->path);
	c->state = RECEIVING;
	r->receiving++;
	say(r, "%s/%s: receiving from %s%s (%llu blocks stored)", c->hello.host, c->hello.session,
	    c->peer, c->keyed ? ", authenticated" : "", (unsigned long long)c->acked);
	vmt_put32(welcome, VMT_RELAY_PROTOCOL);
	vmt_put32(welcome + 4, c->keyed);
	queue_message(c, VMT_RELAY_WELCOME, c->acked, welcome, sizeof(welcome));
}

/* The sender is gone or refused: the file stays as it is, to resume or repair. */
static void stop_session(struct relay *r, struct conn *c, bool finished)
{
	if (c->state != RECEIVING)
		return;
	if (!finished) {
		vmt_trace_writer_abandon(c->writer);
		say(r, "%s/%s: stopped after %llu blocks (resumable; verify --repair makes it a trace)",
		    c->hello.host, c->hello.session, (unsigned long long)c->acked);
	}
	c->writer = NULL;
	if (c->lock_fd >= 0)
		close(c->lock_fd);
	c->lock_fd = -1;
	r->receiving--;
	c->state = CLOSING;
}

/* ---- Messages in ------------------------------------------------------- */

static void on_hello(struct relay *r, struct conn *c, const uint8_t *payload)
{
	char why[200];

	memcpy(c->hello_bytes, payload, VMT_RELAY_HELLO_SIZE);
	if (vmt_relay_hello_decode(payload, &c->hello, why, sizeof(why))) {
		refuse(r, c, "%s", why);
		return;
	}
	if (c->hello.format > VMT_TRACE_FORMAT_VERSION) {
		refuse(r, c, "trace format version %u (this relay writes %u and before)",
		       c->hello.format, VMT_TRACE_FORMAT_VERSION);
		return;
	}
	if (r->keyed && !(c->hello.flags & VMT_RELAY_HELLO_KEYED)) {
		refuse(r, c, "this relay takes only senders with its key (record --relay-key FILE)");
		return;
	}
	if (!r->keyed && c->hello.flags & VMT_RELAY_HELLO_KEYED) {
		refuse(r, c, "this relay has no key (relay --key FILE)");
		return;
	}
	if (!r->keyed) {
		start_session(r, c);
		return;
	}
	if (relay_random(c->nonce, sizeof(c->nonce))) {
		refuse(r, c, "no random bytes for a challenge");
		return;
	}
	c->state = WANT_PROOF;
	queue_message(c, VMT_RELAY_CHALLENGE, 0, c->nonce, sizeof(c->nonce));
}

static void on_proof(struct relay *r, struct conn *c, const uint8_t *payload)
{
	uint8_t want[VMT_RELAY_MAC_SIZE];

	if (relay_proof(&r->key, c->hello_bytes, c->nonce, want) ||
	    !relay_mac_equal(want, payload)) {
		refuse(r, c, "wrong key: the sender did not prove it holds the relay's key");
		return;
	}
	if (relay_session_key(&r->key, c->hello.nonce, c->nonce, c->session_key)) {
		refuse(r, c, "cannot derive the session key");
		return;
	}
	c->keyed = true;	/* every message from here on has its MAC */
	start_session(r, c);
}

static void on_block(struct relay *r, struct conn *c, const uint8_t *payload)
{
	uint64_t stored = vmt_trace_writer_blocks(c->writer);
	int err;

	if (c->h.seq != stored) {
		refuse(r, c, "block %llu where block %llu comes next", (unsigned long long)c->h.seq,
		       (unsigned long long)stored);
		return;
	}
	if (r->max_bytes && c->bytes + c->h.length > r->max_bytes) {
		refuse(r, c, "session %s/%s would pass its limit of %llu bytes (--max-bytes); "
		       "what is stored is kept", c->hello.host, c->hello.session,
		       (unsigned long long)r->max_bytes);
		return;
	}
	err = vmt_trace_writer_append_block(c->writer, payload, c->h.length);
	if (err == -EBADMSG || err == -EINVAL) {
		refuse(r, c, "block %llu: %s", (unsigned long long)c->h.seq,
		       vmt_trace_writer_error_message(c->writer));
		return;
	}
	if (err) {
		/* A full disk, an I/O error: this session stops, the others go on. */
		fprintf(stderr, "vmtrace relay: %s/%s: %s; the session stops, keeping its %llu blocks "
			"('vmtrace verify --repair %s' once there is room)\n", c->hello.host,
			c->hello.session, vmt_trace_writer_error_message(c->writer),
			(unsigned long long)stored, c->path);
		refuse(r, c, "the relay cannot store session %s/%s: %s", c->hello.host,
		       c->hello.session, strerror(-err));
		return;
	}
	c->bytes += c->h.length;
	if (!memcmp(payload, "VMTS", 4)) {
		c->nr_streams++;
	} else if (vmt_get16(payload + 30) & (VMT_FRAME_TIME_SORTED | VMT_FRAME_TIME_RANGE)) {
		uint64_t last = vmt_get64(payload + 40);

		if (last > c->last_time)
			c->last_time = last;
	}
}

/*
 * The frames the sender's spool dropped, in band as the ring's losses are:
 * a stream of the relay's, "lost.relay", after the sender's streams, and a
 * frame of one VMT_REC_LOST record counting the records dropped, stored
 * as they are (codec none). 0 or the writer's -errno.
 */
static int append_losses(struct conn *c, uint64_t records)
{
	struct vmt_trace_stream_info info = {
		.id = c->nr_streams, .entry_size = sizeof(struct vmt_record),
		.kind = VMT_STREAM_RECORDS, .record_type = VMT_REC_LOST,
		.cpu = VMT_TRACE_ANY_CPU, .time_offset = 0, .name = "lost.relay",
	};
	uint8_t stream[VMT_STREAM_BLOCK_SIZE], frame[VMT_FRAME_HEADER_SIZE + sizeof(struct vmt_record)];
	struct vmt_record lost;
	struct vmt_frame_header h = {
		.stream_id = c->nr_streams, .entry_count = 1, .flags = VMT_FRAME_TIME_SORTED,
		.first_time = c->last_time, .last_time = c->last_time,
		.raw_size = sizeof(lost), .comp_size = sizeof(lost),
	};
	int err;

	memset(&lost, 0, sizeof(lost));
	lost.hdr.type = VMT_REC_LOST;
	lost.hdr.time_ns = c->last_time;
	lost.lost.count = records;
	memcpy(frame + VMT_FRAME_HEADER_SIZE, &lost, sizeof(lost));
	h.payload_crc = vmt_crc32(frame + VMT_FRAME_HEADER_SIZE, sizeof(lost));
	vmt_frame_header_encode(frame, &h);
	vmt_stream_block_encode(stream, &info);
	err = vmt_trace_writer_append_block(c->writer, stream, sizeof(stream));
	return err ? err : vmt_trace_writer_append_block(c->writer, frame, sizeof(frame));
}

static void on_end(struct relay *r, struct conn *c, const uint8_t *payload)
{
	uint64_t stored = vmt_trace_writer_blocks(c->writer), total;
	uint64_t frames = vmt_get64(payload), records = vmt_get64(payload + 8);
	struct vmt_trace_error err;

	if (c->h.seq != stored) {
		refuse(r, c, "the end after %llu blocks, but %llu are stored",
		       (unsigned long long)c->h.seq, (unsigned long long)stored);
		return;
	}
	if (records && append_losses(c, records)) {
		refuse(r, c, "session %s/%s: writing its lost record: %s", c->hello.host,
		       c->hello.session, vmt_trace_writer_error_message(c->writer));
		return;
	}
	if (frames)
		say(r, "%s/%s: the sender dropped %llu frames (%llu records), a lost record says",
		    c->hello.host, c->hello.session, (unsigned long long)frames,
		    (unsigned long long)records);
	total = vmt_trace_writer_blocks(c->writer);
	if (vmt_trace_writer_close(c->writer, &err)) {
		c->writer = NULL;
		fprintf(stderr, "vmtrace relay: %s/%s: %s\n", c->hello.host, c->hello.session,
			err.message);
		stop_session(r, c, true);
		queue_message(c, VMT_RELAY_REFUSE, 0, err.message,
			      (uint32_t)strnlen(err.message, VMT_RELAY_REFUSE_MAX));
		return;
	}
	say(r, "%s/%s: complete, %llu blocks, %lld bytes", c->hello.host, c->hello.session,
	    (unsigned long long)total, file_size(c->path));
	stop_session(r, c, true);
	queue_message(c, VMT_RELAY_DONE, total, NULL, 0);
}

/* A whole message is in c->in: header, payload, MAC. */
static void on_message(struct relay *r, struct conn *c)
{
	const uint8_t *payload = c->in + VMT_RELAY_HEADER_SIZE;
	bool want_mac = c->keyed;
	uint8_t mac[VMT_RELAY_MAC_SIZE];

	if (!!(c->h.flags & VMT_RELAY_FLAG_MAC) != want_mac) {
		refuse(r, c, "message type %u %s a MAC", c->h.type, want_mac ? "without" : "with");
		return;
	}
	if (want_mac) {
		if (relay_message_mac(c->session_key, c->recv_counter++, c->in, payload,
				      c->h.length, mac) ||
		    !relay_mac_equal(mac, payload + c->h.length)) {
			refuse(r, c, "message type %u: wrong MAC", c->h.type);
			return;
		}
	}
	switch (c->state) {
	case WANT_HELLO:
		if (c->h.type != VMT_RELAY_HELLO)
			break;
		on_hello(r, c, payload);
		return;
	case WANT_PROOF:
		if (c->h.type != VMT_RELAY_PROOF)
			break;
		on_proof(r, c, payload);
		return;
	case RECEIVING:
		if (c->h.type == VMT_RELAY_BLOCK) {
			on_block(r, c, payload);
			return;
		}
		if (c->h.type == VMT_RELAY_END) {
			on_end(r, c, payload);
			return;
		}
		if (c->h.type == VMT_RELAY_PING) {
			queue_message(c, VMT_RELAY_ACK, c->acked, NULL, 0);
			return;
		}
		break;
	case CLOSING:
		return;
	}
	refuse(r, c, "message type %u out of turn", c->h.type);
}

/*
 * The type a connection may send now: HELLO, PROOF, or while receiving
 * BLOCK (END and PING too: returned as they come).
 */
static unsigned int expected_type(const struct conn *c)
{
	switch (c->state) {
	case WANT_HELLO:
		return VMT_RELAY_HELLO;
	case WANT_PROOF:
		return VMT_RELAY_PROOF;
	case RECEIVING:
		if (c->h.type == VMT_RELAY_END || c->h.type == VMT_RELAY_PING)
			return c->h.type;
		return VMT_RELAY_BLOCK;
	default:
		return 0;
	}
}

/* Read what is there; act on each whole message. 0, or -1: the connection is done. */
static int on_readable(struct relay *r, struct conn *c)
{
	for (;;) {
		size_t want = VMT_RELAY_HEADER_SIZE;
		ssize_t n;

		if (c->have_header)
			want += c->h.length + (c->h.flags & VMT_RELAY_FLAG_MAC ?
					       VMT_RELAY_MAC_SIZE : 0);
		if (want > c->in_size) {
			uint8_t *in = realloc(c->in, want);

			if (!in) {
				refuse(r, c, "out of memory");
				return 0;
			}
			c->in = in;
			c->in_size = want;
		}
		n = read(c->fd, c->in + c->in_have, want - c->in_have);
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (n <= 0)
			return -1;
		c->last_active = time(NULL);
		c->in_have += (size_t)n;
		if (c->in_have < want)
			continue;
		if (!c->have_header) {
			char why[200];

			if (vmt_relay_header_decode(c->in, &c->h, why, sizeof(why))) {
				refuse(r, c, "%s", why);
				return 0;
			}
			/* Out of turn is refused before its payload is read (or allocated). */
			if (c->h.type != expected_type(c)) {
				refuse(r, c, "message type %u out of turn", c->h.type);
				return 0;
			}
			c->have_header = true;
			if (c->h.length || c->h.flags & VMT_RELAY_FLAG_MAC)
				continue;
		}
		on_message(r, c);
		c->have_header = false;
		c->in_have = 0;
		if (c->state == CLOSING)
			return 0;
	}
}

/* ---- The loop ---------------------------------------------------------- */

static int listen_on(const char *addr, char *msg, size_t msg_size)
{
	struct addrinfo *ai, *p;
	int fd = -1, one = 1;

	if (relay_resolve(addr, true, &ai, msg, msg_size))
		return -1;
	for (p = ai; p; p = p->ai_next) {
		fd = socket(p->ai_family, p->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
			    p->ai_protocol);
		if (fd < 0)
			continue;
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (!bind(fd, p->ai_addr, p->ai_addrlen) && !listen(fd, 64))
			break;
		snprintf(msg, msg_size, "cannot listen on %s: %s", addr, strerror(errno));
		close(fd);
		fd = -1;
	}
	if (!p && fd < 0 && !msg[0])
		snprintf(msg, msg_size, "cannot listen on %s", addr);
	freeaddrinfo(ai);
	return fd;
}

static void accept_one(struct relay *r, int lfd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	char host[64] = "?", port[16] = "?";
	struct conn *c, **conns;
	int fd = accept4(lfd, (struct sockaddr *)&ss, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd < 0)
		return;
	/* Connections not yet receiving cost a little each: a bound all the same. */
	if (r->nr_conns >= r->max_sessions + MAX_PENDING) {
		close(fd);
		return;
	}
	c = calloc(1, sizeof(*c));
	conns = realloc(r->conns, (r->nr_conns + 1) * sizeof(*conns));
	if (!c || !conns) {
		free(c);
		if (conns)
			r->conns = conns;
		close(fd);
		return;
	}
	r->conns = conns;
	getnameinfo((struct sockaddr *)&ss, len, host, sizeof(host), port, sizeof(port),
		    NI_NUMERICHOST | NI_NUMERICSERV);
	snprintf(c->peer, sizeof(c->peer), "%s port %s", host, port);
	c->fd = fd;
	c->lock_fd = -1;
	c->last_active = time(NULL);
	r->conns[r->nr_conns++] = c;
}

static void drop_conn(struct relay *r, unsigned int i)
{
	struct conn *c = r->conns[i];

	stop_session(r, c, false);
	close(c->fd);
	free(c->in);
	free(c->out);
	free(c);
	r->conns[i] = r->conns[--r->nr_conns];
}

/* Send what is queued; -1 when the connection is done. */
static int on_writable(struct conn *c)
{
	while (c->out_sent < c->out_have) {
		ssize_t n = send(c->fd, c->out + c->out_sent, c->out_have - c->out_sent,
				 MSG_NOSIGNAL);

		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return 0;
		if (n <= 0)
			return -1;
		c->out_sent += (size_t)n;
	}
	c->out_sent = c->out_have = 0;
	return c->state == CLOSING ? -1 : 0;
}

static int serve(struct relay *r, int lfd)
{
	struct pollfd *fds = NULL;

	while (!stopping) {
		unsigned int n = r->nr_conns;
		struct pollfd *grown = realloc(fds, (n + 1) * sizeof(*fds));
		time_t now;

		if (!grown)
			break;
		fds = grown;
		fds[0] = (struct pollfd){ .fd = lfd, .events = POLLIN };
		for (unsigned int i = 0; i < n; i++)
			fds[i + 1] = (struct pollfd){
				.fd = r->conns[i]->fd,
				.events = (r->conns[i]->state == CLOSING ? 0 : POLLIN) |
					  (r->conns[i]->out_have ? POLLOUT : 0),
			};
		if (poll(fds, n + 1, 1000) < 0 && errno != EINTR)
			break;
		now = time(NULL);
		/* Backwards, so that dropping one moves only those already seen. */
		for (unsigned int i = n; i-- > 0;) {
			struct conn *c = r->conns[i];
			uint64_t stored;
			int done = 0;

			if (fds[i + 1].revents & (POLLIN | POLLHUP | POLLERR))
				done = on_readable(r, c);
			if (!done && c->state == RECEIVING && c->writer) {
				stored = vmt_trace_writer_blocks(c->writer);
				if (stored != c->acked) {
					c->acked = stored;
					queue_message(c, VMT_RELAY_ACK, stored, NULL, 0);
				}
			}
			if (!done && c->state != CLOSING && now - c->last_active > r->idle)
				refuse(r, c, "silent for %u s (--idle)", r->idle);
			if (!done && c->out_have)
				done = on_writable(c);
			if (!done && c->state == CLOSING && !c->out_have)
				done = -1;
			if (done)
				drop_conn(r, i);
		}
		if (fds[0].revents & POLLIN)
			accept_one(r, lfd);
	}
	while (r->nr_conns)
		drop_conn(r, r->nr_conns - 1);
	free(fds);
	free(r->conns);
	return 0;
}

/* ---- --list -------------------------------------------------------------- */

static int list_sessions(const char *dir)
{
	DIR *top = opendir(dir), *sub;
	struct dirent *h, *s;
	char path[4096];

	if (!top) {
		fprintf(stderr, "vmtrace relay: cannot read %s: %s\n", dir, strerror(errno));
		return 1;
	}
	printf("%-24s %-32s %14s  %s\n", "host", "session", "bytes", "state");
	while ((h = readdir(top))) {
		if (h->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, h->d_name);
		sub = opendir(path);
		if (!sub)
			continue;
		while ((s = readdir(sub))) {
			size_t len = strlen(s->d_name);
			struct vmt_trace_error err;
			struct vmt_trace *t;
			const char *state;
			int fd;

			if (s->d_name[0] == '.' || len < 5 || strcmp(s->d_name + len - 4, ".vmt"))
				continue;
			snprintf(path, sizeof(path), "%s/%s/%s", dir, h->d_name, s->d_name);
			fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd >= 0 && flock(fd, LOCK_SH | LOCK_NB) && errno == EWOULDBLOCK) {
				state = "receiving";
			} else if (vmt_trace_open(&t, path, 0, &err) == 0) {
				vmt_trace_close(t);
				state = "complete";
			} else {
				state = "unfinished";
			}
			if (fd >= 0)
				close(fd);
			printf("%-24s %-32.*s %14lld  %s\n", h->d_name, (int)(len - 4), s->d_name,
			       file_size(path), state);
		}
		closedir(sub);
	}
	closedir(top);
	return 0;
}

int cmd_relay(int argc, char **argv)
{
	static const struct option options[] = {
		{ "listen", required_argument, NULL, 'l' },
		{ "dir", required_argument, NULL, 'd' },
		{ "key", required_argument, NULL, 'k' },
		{ "max-sessions", required_argument, NULL, 'S' },
		{ "max-bytes", required_argument, NULL, 'B' },
		{ "idle", required_argument, NULL, 'I' },
		{ "list", no_argument, NULL, 'L' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct relay r = { .max_sessions = 64, .idle = 600 };
	const char *listen_addr = NULL, *key_path = NULL;
	struct sigaction sa = { .sa_handler = on_signal };
	char msg[300] = "";
	bool list = false;
	long long v;
	int opt, lfd;
	struct stat st;

	while ((opt = getopt_long(argc, argv, "qh", options, NULL)) != -1) {
		switch (opt) {
		case 'l':
			listen_addr = optarg;
			break;
		case 'd':
			r.dir = optarg;
			break;
		case 'k':
			key_path = optarg;
			break;
		case 'S':
			v = parse_number("relay", "--max-sessions", optarg, 1, 100000);
			if (v < 0)
				return 2;
			r.max_sessions = (unsigned int)v;
			break;
		case 'B':
			v = relay_parse_size(optarg);
			if (v < 0) {
				fprintf(stderr, "vmtrace relay: --max-bytes '%s': a size (k, M, G) expected\n",
					optarg);
				return 2;
			}
			r.max_bytes = (uint64_t)v;
			break;
		case 'I':
			v = parse_number("relay", "--idle", optarg, 1, 1000000);
			if (v < 0)
				return 2;
			r.idle = (unsigned int)v;
			break;
		case 'L':
			list = true;
			break;
		case 'q':
			r.quiet = true;
			break;
		case 'h':
			usage_relay(stdout);
			return 0;
		default:
			usage_relay(stderr);
			return 2;
		}
	}
	if (optind < argc || !r.dir || list == !!listen_addr) {
		fprintf(stderr, "vmtrace relay: %s\n", optind < argc ? "no operand is taken" :
			!r.dir ? "--dir DIR is needed" : "either --listen ADDR:PORT or --list");
		usage_relay(stderr);
		return 2;
	}
	if (list)
		return list_sessions(r.dir);
	if (stat(r.dir, &st) || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "vmtrace relay: --dir %s: not a folder\n", r.dir);
		return 2;
	}
	if (key_path) {
		if (relay_key_read(key_path, &r.key, msg, sizeof(msg))) {
			fprintf(stderr, "vmtrace relay: %s\n", msg);
			return 2;
		}
		r.keyed = true;
	}
	lfd = listen_on(listen_addr, msg, sizeof(msg));
	if (lfd < 0) {
		fprintf(stderr, "vmtrace relay: %s\n", msg);
		return msg[0] == '\'' ? 2 : 1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	say(&r, "listening on %s, storing in %s%s", listen_addr, r.dir,
	    r.keyed ? ", senders must hold the key" : "");
	serve(&r, lfd);
	close(lfd);
	say(&r, "stopped");
	return 0;
}
