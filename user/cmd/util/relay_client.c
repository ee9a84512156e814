// SPDX-License-Identifier: GPL-2.0
/*
 * A sender of a trace to `vmtrace relay` (relay_client.h, docs/RELAY.md).
 *
 * The writer's threads put blocks into the spool (relay_client_sink(),
 * under the lock, never waiting on the network); the client's thread
 * connects, says hello (and proves the key), sends the spool from the
 * block the relay's welcome names, and frees blocks as acks come. Block
 * numbers count the blocks spooled, which are the blocks the relay
 * stores: a dropped frame never gets one.
 *
 * Outline: options; the spool (put, drop, free, read back); the
 * connection (connect, handshake, messages); the thread; start, losses,
 * finish and the summary.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/bytes.h"
#include "relay_auth.h"
#include "relay_client.h"
#include "relay_net.h"

#define DEFAULT_SPOOL_MEMORY	(64ll << 20)
#define DEFAULT_SPOOL_FILE	(1ll << 30)
#define DEFAULT_WAIT		60
#define BACKOFF_FIRST_MS	100
#define BACKOFF_MAX_MS		2000
#define IO_TIMEOUT_MS		10000
#define PING_SECONDS		30

const char relay_options_usage[] =
	"  --relay HOST:PORT  send the trace to `vmtrace relay` there too (with -o) or\n"
	"                   instead (without); frames wait in a spool while the relay is\n"
	"                   away, and the sender reconnects and resumes (docs/RELAY.md)\n"
	"  --relay-key FILE prove to the relay that we hold its key (relay --key FILE)\n"
	"  --relay-host NAME   the host's name at the relay (default: this host's)\n"
	"  --relay-session NAME  the trace's name at the relay: HOST/NAME.vmt\n"
	"  --relay-spool SIZE  memory for frames the relay has not acknowledged (64M)\n"
	"  --relay-spool-file SIZE  then a temporary file (1G); past both, record frames\n"
	"                   are dropped and counted in the trace as lost records\n"
	"  --relay-wait SECONDS  at the end, how long to wait for the relay (60)\n";

void relay_options_init(struct relay_options *o)
{
	memset(o, 0, sizeof(*o));
	o->spool_memory = o->spool_file = o->wait = -1;
}

int relay_parse_option(const char *cmd, int opt, const char *arg, struct relay_options *o)
{
	long long *size = NULL;

	switch (opt) {
	case RELAY_OPT_BASE:
		o->addr = arg;
		return 1;
	case RELAY_OPT_BASE + 1:
		o->key_path = arg;
		return 1;
	case RELAY_OPT_BASE + 2:
		o->host = arg;
		return 1;
	case RELAY_OPT_BASE + 3:
		o->session = arg;
		return 1;
	case RELAY_OPT_BASE + 4:
		size = &o->spool_memory;
		break;
	case RELAY_OPT_BASE + 5:
		size = &o->spool_file;
		break;
	case RELAY_OPT_BASE + 6:
		o->wait = strtoll(arg, NULL, 10);
		if (strspn(arg, "0123456789") != strlen(arg) || !*arg || o->wait > 86400) {
			fprintf(stderr, "vmtrace %s: --relay-wait '%s': 0 to 86400 seconds\n", cmd,
				arg);
			return -1;
		}
		return 1;
	default:
		return 0;
	}
	*size = relay_parse_size(arg);
	if (*size < 0) {
		fprintf(stderr, "vmtrace %s: '%s': a size in bytes (k, M or G) expected\n", cmd, arg);
		return -1;
	}
	return 1;
}

struct spooled {
	uint64_t seq;
	uint32_t len;
	bool in_file;
	uint64_t off;		/* in the spool file */
	uint8_t *data;		/* in memory */
};

struct relay_client {
	const char *cmd;
	char addr[256];
	struct relay_key key;
	bool keyed;
	struct vmt_relay_hello hello;
	uint64_t wait_s;
	int wake;			/* eventfd: a block came, or the end */
	pthread_t thread;
	bool thread_started;

	pthread_mutex_t lock;		/* everything below */
	struct spooled *spool;		/* [head, count): not acknowledged */
	size_t head, count, capacity;
	uint64_t next_seq;		/* the next block's number */
	uint64_t acked;			/* blocks the relay holds */
	uint64_t mem_used, mem_limit, file_end, file_limit, in_file;
	int spool_fd;			/* the spool file, made on first use */
	uint8_t *droppable;		/* per stream: its frames may be dropped */
	uint32_t nr_streams;
	bool finishing, done, failed;
	double deadline;		/* finishing: when to give up */
	char failure[300];
	/* counters for the summary */
	uint64_t blocks_sent, bytes_sent, spool_peak, filed, dropped_frames, dropped_records;
	uint64_t connections;
};

/* ---- The spool ----------------------------------------------------------- */

static int push(struct relay_client *c, const struct spooled *s)
{
	if (c->head + c->count == c->capacity) {
		if (c->head) {
			memmove(c->spool, c->spool + c->head, c->count * sizeof(*c->spool));
			c->head = 0;
		} else {
			size_t cap = c->capacity ? 2 * c->capacity : 256;
			struct spooled *grown = realloc(c->spool, cap * sizeof(*grown));

			if (!grown)
				return -ENOMEM;
			c->spool = grown;
			c->capacity = cap;
		}
	}
	c->spool[c->head + c->count++] = *s;
	return 0;
}

/* The relay holds blocks below @acked: free them. */
static void free_acked(struct relay_client *c, uint64_t acked)
{
	if (acked > c->acked)
		c->acked = acked;
	while (c->count && c->spool[c->head].seq < c->acked) {
		struct spooled *s = &c->spool[c->head];

		if (s->in_file) {
			c->in_file--;
		} else {
			c->mem_used -= s->len;
			free(s->data);
		}
		c->head++;
		c->count--;
	}
	if (!c->in_file)
		c->file_end = 0;
}

/* Stream blocks say which streams' frames can go when the spool is full. */
static void note_stream(struct relay_client *c, const uint8_t *block)
{
	uint32_t id = vmt_get32(block + 4), kind = vmt_get32(block + 12);
	uint32_t type = vmt_get32(block + 16);
	uint8_t *grown;

	if (id != c->nr_streams)
		return;
	grown = realloc(c->droppable, id + 1);
	if (!grown)
		return;
	c->droppable = grown;
	/* Records but the losses themselves; never the order, data or opaque ones. */
	c->droppable[id] = kind == VMT_STREAM_RECORDS && type != VMT_REC_LOST;
	c->nr_streams++;
}

int relay_client_sink(void *client, const void *block, size_t len)
{
	struct relay_client *c = client;
	const uint8_t *p = block;
	struct spooled s = { .len = (uint32_t)len };
	bool frame = len >= 64 && !memcmp(p, "VMTF", 4);
	bool droppable = false;
	uint64_t one = 1;
	int err = 0;

	pthread_mutex_lock(&c->lock);
	if (c->failed)
		goto out;
	if (len >= 64 && !memcmp(p, "VMTS", 4))
		note_stream(c, p);
	if (frame) {
		uint32_t stream = vmt_get32(p + 4);

		droppable = stream < c->nr_streams && c->droppable[stream];
	}
	if (c->mem_used + len > c->mem_limit && c->file_end + len <= c->file_limit) {
		if (c->spool_fd < 0) {
			const char *dir = getenv("TMPDIR");

			c->spool_fd = open(dir ? dir : "/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
		}
		if (c->spool_fd >= 0 && pwrite(c->spool_fd, p, len, (off_t)c->file_end) ==
		    (ssize_t)len) {
			s.in_file = true;
			s.off = c->file_end;
			c->file_end += len;
			c->in_file++;
			c->filed++;
		}
	}
	if (!s.in_file) {
		if (droppable && c->mem_used + len > c->mem_limit) {
			c->dropped_frames++;
			c->dropped_records += vmt_get32(p + 24);
			goto out;
		}
		s.data = malloc(len);
		if (!s.data) {
			err = -ENOMEM;
			goto out;
		}
		memcpy(s.data, p, len);
		c->mem_used += len;
	}
	s.seq = c->next_seq;
	err = push(c, &s);
	if (err) {
		free(s.data);
		goto out;
	}
	c->next_seq++;
	if (c->count > c->spool_peak)
		c->spool_peak = c->count;
out:
	pthread_mutex_unlock(&c->lock);
	if (write(c->wake, &one, sizeof(one)) < 0)
		err = err ? err : 0;
	return err;
}

/* ---- The connection ------------------------------------------------------ */

struct conn {
	int fd;
	uint8_t session_key[VMT_RELAY_MAC_SIZE];
	bool keyed;
	uint64_t send_counter, recv_counter;
	uint8_t *buf;
	size_t buf_size;
};

static int connect_to(const char *addr)
{
	struct addrinfo *ai, *p;
	char msg[200];
	int fd = -1;

	if (relay_resolve(addr, false, &ai, msg, sizeof(msg)))
		return -1;
	for (p = ai; p && fd < 0; p = p->ai_next) {
		struct pollfd pfd;
		int soerr = 0;
		socklen_t len = sizeof(soerr);

		fd = socket(p->ai_family, p->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
			    p->ai_protocol);
		if (fd < 0)
			continue;
		if (connect(fd, p->ai_addr, p->ai_addrlen) && errno != EINPROGRESS)
			goto next;
		pfd = (struct pollfd){ .fd = fd, .events = POLLOUT };
		if (poll(&pfd, 1, IO_TIMEOUT_MS) != 1 ||
		    getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) || soerr)
			goto next;
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
		continue;
next:
		close(fd);
		fd = -1;
	}
	freeaddrinfo(ai);
	return fd;
}

static int send_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Whole bytes within the timeout: 0, or -1 (closed, error, timeout). */
static int recv_all(int fd, uint8_t *p, size_t len)
{
	while (len) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t n;

		if (poll(&pfd, 1, IO_TIMEOUT_MS) != 1)
			return -1;
		n = recv(fd, p, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int send_message(struct conn *k, unsigned int type, uint64_t seq, const void *payload,
			uint32_t len)
{
	size_t need = VMT_RELAY_HEADER_SIZE + len + VMT_RELAY_MAC_SIZE;
	long n;

	if (need > k->buf_size) {
		uint8_t *grown = realloc(k->buf, need);

		if (!grown)
			return -1;
		k->buf = grown;
		k->buf_size = need;
	}
	n = relay_message(k->buf, type, seq, payload, len, k->keyed ? k->session_key : NULL,
			  k->send_counter);
	if (n < 0)
		return -1;
	if (k->keyed)
		k->send_counter++;
	return send_all(k->fd, k->buf, (size_t)n);
}

/*
 * One message from the relay into @h and @payload (VMT_RELAY_REFUSE_MAX
 * bytes at least): 0, -1 for a dropped connection, -2 for a message that
 * is wrong (said in @why).
 */
static int recv_message(struct conn *k, struct vmt_relay_header *h, uint8_t *payload,
			char *why, size_t why_size)
{
	uint8_t head[VMT_RELAY_HEADER_SIZE], mac[VMT_RELAY_MAC_SIZE], want[VMT_RELAY_MAC_SIZE];
	bool has_mac;

	if (recv_all(k->fd, head, sizeof(head)))
		return -1;
	if (vmt_relay_header_decode(head, h, why, why_size))
		return -2;
	if (h->length > VMT_RELAY_REFUSE_MAX) {
		snprintf(why, why_size, "the relay sent %u bytes of message type %u", h->length,
			 h->type);
		return -2;
	}
	has_mac = h->flags & VMT_RELAY_FLAG_MAC;
	if (recv_all(k->fd, payload, h->length) || (has_mac && recv_all(k->fd, mac, sizeof(mac))))
		return -1;
	/* A refusal before the proof was taken cannot carry a MAC. */
	if (k->keyed && !(h->type == VMT_RELAY_REFUSE && !has_mac)) {
		if (!has_mac || relay_message_mac(k->session_key, k->recv_counter++, head, payload,
						  h->length, want) || !relay_mac_equal(mac, want)) {
			snprintf(why, why_size, "message type %u from the relay %s", h->type,
				 has_mac ? "with a wrong MAC" : "without a MAC");
			return -2;
		}
	}
	return 0;
}

static void fail(struct relay_client *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct relay_client *c, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&c->lock);
	if (!c->failed) {
		va_start(ap, fmt);
		vsnprintf(c->failure, sizeof(c->failure), fmt, ap);
		va_end(ap);
		c->failed = true;
	}
	pthread_mutex_unlock(&c->lock);
}

/*
 * Hello, the proof, the welcome: the block the relay wants next, or -1 to
 * try again later, -2 when it refused (c->failed said why).
 */
static long long handshake(struct relay_client *c, struct conn *k)
{
	uint8_t hello[VMT_RELAY_HELLO_SIZE], payload[VMT_RELAY_REFUSE_MAX + 1];
	struct vmt_relay_header h;
	char why[200];
	int ret;

	if (c->keyed && relay_random(c->hello.nonce, sizeof(c->hello.nonce)))
		return -1;
	vmt_relay_hello_encode(hello, &c->hello);
	if (send_message(k, VMT_RELAY_HELLO, 0, hello, sizeof(hello)))
		return -1;
	ret = recv_message(k, &h, payload, why, sizeof(why));
	if (!ret && h.type == VMT_RELAY_CHALLENGE && c->keyed) {
		uint8_t proof[VMT_RELAY_MAC_SIZE];

		if (relay_proof(&c->key, hello, payload, proof) ||
		    relay_session_key(&c->key, c->hello.nonce, payload, k->session_key) ||
		    send_message(k, VMT_RELAY_PROOF, 0, proof, sizeof(proof)))
			return -1;
		k->keyed = true;
		ret = recv_message(k, &h, payload, why, sizeof(why));
	}
	if (ret == -1)
		return -1;
	if (ret == -2) {
		fail(c, "%s", why);
		return -2;
	}
	if (h.type == VMT_RELAY_REFUSE) {
		payload[h.length] = '\0';
		for (uint32_t i = 0; i < h.length; i++)
			if (payload[i] < 0x20 || payload[i] > 0x7e)
				payload[i] = '?';
		fail(c, "the relay refused: %s", (char *)payload);
		return -2;
	}
	if (h.type == VMT_RELAY_DONE) {
		/* The trace was complete at the relay already: our DONE was lost. */
		pthread_mutex_lock(&c->lock);
		if (c->finishing && h.seq >= c->next_seq) {
			free_acked(c, c->next_seq);
			c->done = true;
		}
		pthread_mutex_unlock(&c->lock);
		if (c->done)
			return -2;
	}
	if (h.type != VMT_RELAY_WELCOME) {
		fail(c, "the relay answered the hello with message type %u", h.type);
		return -2;
	}
	return (long long)h.seq;
}

/* Spooled block @seq's bytes into @out (grown as needed): its length, or -1. */
static long read_block(struct relay_client *c, uint64_t seq, uint8_t **out, size_t *size)
{
	struct spooled s;
	long len = -1;

	pthread_mutex_lock(&c->lock);
	if (c->count && seq >= c->spool[c->head].seq && seq < c->next_seq) {
		s = c->spool[c->head + (seq - c->spool[c->head].seq)];
		if (s.len > *size) {
			uint8_t *grown = realloc(*out, s.len);

			if (!grown)
				goto out;
			*out = grown;
			*size = s.len;
		}
		if (s.in_file ? pread(c->spool_fd, *out, s.len, (off_t)s.off) == (ssize_t)s.len :
				(memcpy(*out, s.data, s.len), true))
			len = s.len;
	}
out:
	pthread_mutex_unlock(&c->lock);
	return len;
}

/* Acks and the end, as they come: 0, -1 dropped, -2 failed. */
static int read_replies(struct relay_client *c, struct conn *k)
{
	uint8_t payload[VMT_RELAY_REFUSE_MAX + 1];
	struct vmt_relay_header h;
	char why[200];
	int ret = recv_message(k, &h, payload, why, sizeof(why));

	if (ret == -2)
		fail(c, "%s", why);
	if (ret)
		return ret;
	pthread_mutex_lock(&c->lock);
	switch (h.type) {
	case VMT_RELAY_ACK:
		if (h.seq > c->next_seq) {
			ret = -2;
			break;
		}
		free_acked(c, h.seq);
		break;
	case VMT_RELAY_DONE:
		/* The relay's own blocks (its lost record) may follow ours. */
		if (h.seq < c->next_seq) {
			ret = -2;
			break;
		}
		free_acked(c, c->next_seq);
		c->done = true;
		break;
	case VMT_RELAY_REFUSE:
		payload[h.length] = '\0';
		for (uint32_t i = 0; i < h.length; i++)
			if (payload[i] < 0x20 || payload[i] > 0x7e)
				payload[i] = '?';
		snprintf(c->failure, sizeof(c->failure), "the relay refused: %s", (char *)payload);
		c->failed = true;
		ret = -2;
		break;
	default:
		ret = -2;
	}
	if (ret == -2 && !c->failed) {
		snprintf(c->failure, sizeof(c->failure), "the relay sent message type %u (block %llu)",
			 h.type, (unsigned long long)h.seq);
		c->failed = true;
	}
	pthread_mutex_unlock(&c->lock);
	return ret;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ---- The thread ---------------------------------------------------------- */

/* Whether to stop trying: done, failed, or the end's wait is over. */
static bool over(struct relay_client *c)
{
	bool stop;

	pthread_mutex_lock(&c->lock);
	stop = c->done || c->failed || (c->finishing && now_s() > c->deadline);
	pthread_mutex_unlock(&c->lock);
	return stop;
}

/* One connection's life: until it drops (-1), fails (-2) or the relay is done (0). */
static int stream(struct relay_client *c, struct conn *k, uint64_t from)
{
	uint8_t *block = NULL;
	size_t block_size = 0;
	bool end_sent = false;
	double last_sent = now_s();
	int ret = 0;

	while (!over(c)) {
		struct pollfd pfd[2] = { { .fd = k->fd, .events = POLLIN },
					 { .fd = c->wake, .events = POLLIN } };
		bool finishing, to_send;
		uint64_t next, value;

		pthread_mutex_lock(&c->lock);
		finishing = c->finishing;
		next = c->next_seq;
		pthread_mutex_unlock(&c->lock);
		to_send = from < next || (finishing && !end_sent);
		if (to_send || now_s() - last_sent > PING_SECONDS)
			pfd[0].events |= POLLOUT;
		if (poll(pfd, 2, 200) < 0 && errno != EINTR) {
			ret = -1;
			break;
		}
		if (pfd[1].revents & POLLIN && read(c->wake, &value, sizeof(value)) < 0)
			value = 0;
		if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) {
			ret = read_replies(c, k);
			if (ret)
				break;
			continue;
		}
		if (!(pfd[0].revents & POLLOUT))
			continue;
		/* Silent a while: a ping, so that the relay's --idle spares us. */
		if (!to_send && now_s() - last_sent > PING_SECONDS) {
			if (send_message(k, VMT_RELAY_PING, 0, NULL, 0)) {
				ret = -1;
				break;
			}
			last_sent = now_s();
			continue;
		}
		if (from < next) {
			long len = read_block(c, from, &block, &block_size);

			if (len < 0) {
				fail(c, "block %llu is not in the spool", (unsigned long long)from);
				ret = -2;
				break;
			}
			if (send_message(k, VMT_RELAY_BLOCK, from, block, (uint32_t)len)) {
				ret = -1;
				break;
			}
			last_sent = now_s();
			pthread_mutex_lock(&c->lock);
			c->blocks_sent++;
			c->bytes_sent += (uint64_t)len;
			pthread_mutex_unlock(&c->lock);
			from++;
		} else if (finishing && !end_sent) {
			uint8_t end[VMT_RELAY_END_SIZE];

			/* What the spool dropped: the relay writes it into the trace. */
			pthread_mutex_lock(&c->lock);
			vmt_put64(end, c->dropped_frames);
			vmt_put64(end + 8, c->dropped_records);
			pthread_mutex_unlock(&c->lock);
			if (send_message(k, VMT_RELAY_END, next, end, sizeof(end))) {
				ret = -1;
				break;
			}
			end_sent = true;
		}
	}
	/*
	 * A send that failed may be the relay closing after a refusal: read
	 * it, if it came, so that the reason is said and no retry follows.
	 */
	for (int i = 0; ret == -1 && i < 64; i++) {
		struct pollfd pfd = { .fd = k->fd, .events = POLLIN };
		int got;

		if (poll(&pfd, 1, 100) != 1)
			break;
		got = read_replies(c, k);	/* acks first, perhaps, then the refusal */
		if (got == -2)
			ret = -2;
		else if (got)
			break;
	}
	free(block);
	return ret;
}

/* Whether the relay's welcome (block @from next) fits the spool; if not, fail. */
static bool resumable(struct relay_client *c, uint64_t from)
{
	uint64_t first;
	bool ok;

	pthread_mutex_lock(&c->lock);
	c->connections++;
	first = c->count ? c->spool[c->head].seq : c->next_seq;
	ok = from >= first && from <= c->next_seq;
	if (ok) {
		free_acked(c, from);
	} else if (!c->failed) {
		snprintf(c->failure, sizeof(c->failure),
			 "the relay holds %llu blocks, but the spool has blocks %llu to %llu",
			 (unsigned long long)from, (unsigned long long)first,
			 (unsigned long long)c->next_seq);
		c->failed = true;
	}
	pthread_mutex_unlock(&c->lock);
	return ok;
}

static void *run(void *arg)
{
	struct relay_client *c = arg;
	struct conn k = { .fd = -1 };
	unsigned int backoff = BACKOFF_FIRST_MS;

	while (!over(c)) {
		long long from;
		struct pollfd pfd = { .fd = c->wake, .events = 0 };

		k.fd = connect_to(c->addr);
		if (k.fd >= 0) {
			k.keyed = false;
			k.send_counter = k.recv_counter = 0;
			from = handshake(c, &k);
			if (from >= 0 && resumable(c, (uint64_t)from)) {
				backoff = BACKOFF_FIRST_MS;
				stream(c, &k, (uint64_t)from);
			}
			close(k.fd);
			k.fd = -1;
			if (over(c))
				break;
		}
		/* A relay away, or just gone: wait, longer each time, and try again. */
		poll(&pfd, 1, (int)backoff);
		backoff = backoff * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : backoff * 2;
	}
	free(k.buf);
	return NULL;
}

/* ---- Start, losses, finish ------------------------------------------------ */

static void sanitize(char *name)
{
	for (char *p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '.' || *p == '_' || *p == '-'))
			*p = '-';
	if (name[0] == '.')
		name[0] = '_';
}

struct relay_client *relay_client_start(const char *cmd, const struct relay_options *o,
					const char *default_session)
{
	struct relay_client *c = calloc(1, sizeof(*c));
	struct addrinfo *ai;
	char msg[300];

	if (!c) {
		fprintf(stderr, "vmtrace %s: out of memory\n", cmd);
		return NULL;
	}
	c->cmd = cmd;
	c->spool_fd = c->wake = -1;
	if (relay_resolve(o->addr, false, &ai, msg, sizeof(msg))) {
		fprintf(stderr, "vmtrace %s: --relay %s\n", cmd, msg);
		goto bad;
	}
	freeaddrinfo(ai);
	snprintf(c->addr, sizeof(c->addr), "%s", o->addr);
	c->hello.protocol = VMT_RELAY_PROTOCOL;
	c->hello.format = VMT_TRACE_FORMAT_VERSION;
	if (o->host) {
		snprintf(c->hello.host, sizeof(c->hello.host), "%s", o->host);
	} else {
		gethostname(c->hello.host, sizeof(c->hello.host) - 1);
		sanitize(c->hello.host);
	}
	snprintf(c->hello.session, sizeof(c->hello.session), "%s",
		 o->session ? o->session : default_session);
	if (!o->session)
		sanitize(c->hello.session);
	if (vmt_relay_name_check(c->hello.host, msg, sizeof(msg)) ||
	    strlen(o->host ? o->host : "") >= VMT_RELAY_NAME_SIZE) {
		fprintf(stderr, "vmtrace %s: --relay-host: %s\n", cmd, msg);
		goto bad;
	}
	if (vmt_relay_name_check(c->hello.session, msg, sizeof(msg)) ||
	    strlen(o->session ? o->session : "") >= VMT_RELAY_NAME_SIZE) {
		fprintf(stderr, "vmtrace %s: --relay-session: %s\n", cmd, msg);
		goto bad;
	}
	if (o->key_path) {
		if (relay_key_read(o->key_path, &c->key, msg, sizeof(msg))) {
			fprintf(stderr, "vmtrace %s: --relay-key: %s\n", cmd, msg);
			goto bad;
		}
		c->keyed = true;
		c->hello.flags |= VMT_RELAY_HELLO_KEYED;
	}
	if (relay_random(c->hello.sender, sizeof(c->hello.sender))) {
		fprintf(stderr, "vmtrace %s: no random bytes\n", cmd);
		goto bad;
	}
	c->mem_limit = (uint64_t)(o->spool_memory < 0 ? DEFAULT_SPOOL_MEMORY : o->spool_memory);
	c->file_limit = (uint64_t)(o->spool_file < 0 ? DEFAULT_SPOOL_FILE : o->spool_file);
	c->wait_s = (uint64_t)(o->wait < 0 ? DEFAULT_WAIT : o->wait);
	pthread_mutex_init(&c->lock, NULL);
	c->wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (c->wake < 0) {
		fprintf(stderr, "vmtrace %s: no eventfd for the relay: %s\n", cmd, strerror(errno));
		pthread_mutex_destroy(&c->lock);
		goto bad;
	}
	return c;
bad:
	free(c);
	return NULL;
}

int relay_client_connect(struct relay_client *c)
{
	int err;

	if (c->thread_started)
		return 0;
	err = pthread_create(&c->thread, NULL, run, c);
	if (err) {
		fprintf(stderr, "vmtrace %s: cannot start the relay's thread: %s\n", c->cmd,
			strerror(err));
		return -1;
	}
	c->thread_started = true;
	return 0;
}

static void format_mb(char *buf, size_t size, uint64_t bytes)
{
	snprintf(buf, size, "%.1f MB", (double)bytes / 1e6);
}

static void client_free(struct relay_client *c)
{
	free_acked(c, c->next_seq);
	free(c->spool);
	free(c->droppable);
	if (c->spool_fd >= 0)
		close(c->spool_fd);
	close(c->wake);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

int relay_client_finish(struct relay_client *c, bool quiet)
{
	uint64_t one = 1, unacked;
	char sent[32];
	int status;

	if (!c->thread_started) {
		/* Never connected: the relay has no session of it. */
		client_free(c);
		return 0;
	}
	pthread_mutex_lock(&c->lock);
	c->finishing = true;
	c->deadline = now_s() + (double)c->wait_s;
	pthread_mutex_unlock(&c->lock);
	if (write(c->wake, &one, sizeof(one)) < 0)
		one = 0;
	pthread_join(c->thread, NULL);
	unacked = c->next_seq - c->acked;
	status = c->done && !c->failed ? 0 : 1;
	if (c->failed)
		fprintf(stderr, "vmtrace %s: relay %s: %s\n", c->cmd, c->addr, c->failure);
	else if (!c->done)
		fprintf(stderr, "vmtrace %s: relay %s: %s after %llu s; %llu blocks not acknowledged\n",
			c->cmd, c->addr, c->connections ? "the trace did not complete" :
			"never reached", (unsigned long long)c->wait_s, (unsigned long long)unacked);
	if (!quiet) {
		format_mb(sent, sizeof(sent), c->bytes_sent);
		fprintf(stderr, "[ vmtrace %s: relay %s, %s/%s: %llu blocks (%s) sent, %llu acknowledged of %llu, %llu spooled at most (%llu through the spool file), %llu frames dropped (%llu records), %llu connections ]\n",
			c->cmd, c->addr, c->hello.host, c->hello.session,
			(unsigned long long)c->blocks_sent, sent, (unsigned long long)c->acked,
			(unsigned long long)c->next_seq, (unsigned long long)c->spool_peak,
			(unsigned long long)c->filed, (unsigned long long)c->dropped_frames,
			(unsigned long long)c->dropped_records, (unsigned long long)c->connections);
	}
	client_free(c);
	return status;
}
