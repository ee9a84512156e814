/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The relay protocol's messages (docs/RELAY.md): their layouts, limits,
 * encoders and checking decoders, without I/O or keys (the commands'
 * util/relay_*.c do those). Internal to libvmtrace; every integer is
 * little-endian, as in the trace file.
 */
#ifndef VMTRACE_INTERNAL_RELAY_PROTO_H
#define VMTRACE_INTERNAL_RELAY_PROTO_H

#include <stddef.h>
#include <stdint.h>

#define VMT_RELAY_PROTOCOL	1
#define VMT_RELAY_MAGIC		"VMTR"
#define VMT_RELAY_HEADER_SIZE	24
#define VMT_RELAY_MAC_SIZE	32	/* HMAC-SHA256 */
#define VMT_RELAY_NONCE_SIZE	32
#define VMT_RELAY_NAME_SIZE	64	/* a host's or a session's name, NUL included */
#define VMT_RELAY_SENDER_SIZE	16
#define VMT_RELAY_HELLO_SIZE	192
#define VMT_RELAY_WELCOME_SIZE	16
#define VMT_RELAY_REFUSE_MAX	256
#define VMT_RELAY_END_SIZE	16	/* u64 frames, u64 records the sender dropped */
/* A frame's header and its payload at most (trace_format.c's limit). */
#define VMT_RELAY_BLOCK_MAX	(64u + (64u << 20) + (4u << 20))

enum vmt_relay_type {
	VMT_RELAY_HELLO		= 1,	/* sender: who it is */
	VMT_RELAY_CHALLENGE	= 2,	/* relay with a key: its nonce */
	VMT_RELAY_PROOF		= 3,	/* sender: the HMAC that proves it holds the key */
	VMT_RELAY_WELCOME	= 4,	/* relay: seq is the blocks it holds; send from there */
	VMT_RELAY_REFUSE	= 5,	/* relay: why not (text); it closes the connection */
	VMT_RELAY_BLOCK		= 6,	/* sender: block number seq, a stream block or a frame */
	VMT_RELAY_ACK		= 7,	/* relay: seq blocks are in the file */
	VMT_RELAY_END		= 8,	/* sender: the trace ends after seq blocks; its drops */
	VMT_RELAY_DONE		= 9,	/* relay: the file is complete (seq: its blocks) */
	VMT_RELAY_PING		= 10,	/* sender, when silent a while: the relay answers ACK */
	VMT_RELAY_TYPES,
};

/* The header's flags: a MAC (VMT_RELAY_MAC_SIZE bytes) follows the payload. */
#define VMT_RELAY_FLAG_MAC	0x1

struct vmt_relay_header {
	uint16_t type;		/* enum vmt_relay_type */
	uint16_t flags;		/* VMT_RELAY_FLAG_* */
	uint32_t length;	/* payload bytes, MAC excluded */
	uint64_t seq;
};

/* HELLO's flags: the sender has a key and will prove it. */
#define VMT_RELAY_HELLO_KEYED	0x1

struct vmt_relay_hello {
	uint32_t protocol;		/* VMT_RELAY_PROTOCOL */
	uint32_t format;		/* the trace format version it writes */
	uint32_t flags;			/* VMT_RELAY_HELLO_* */
	uint8_t sender[VMT_RELAY_SENDER_SIZE];	/* random, the same on every reconnection */
	char host[VMT_RELAY_NAME_SIZE];
	char session[VMT_RELAY_NAME_SIZE];
	uint8_t nonce[VMT_RELAY_NONCE_SIZE];	/* keyed: the sender's */
};

void vmt_relay_header_encode(uint8_t out[VMT_RELAY_HEADER_SIZE], const struct vmt_relay_header *h);
/*
 * Checks the magic, the type, the flags, the reserved bytes and the
 * payload's length for the type; 0, or -EBADMSG with @msg set.
 */
int vmt_relay_header_decode(const uint8_t in[VMT_RELAY_HEADER_SIZE], struct vmt_relay_header *h,
			    char *msg, size_t msg_size);

void vmt_relay_hello_encode(uint8_t out[VMT_RELAY_HELLO_SIZE], const struct vmt_relay_hello *h);
/* Checks the reserved bytes and both names (vmt_relay_name_check()). */
int vmt_relay_hello_decode(const uint8_t in[VMT_RELAY_HELLO_SIZE], struct vmt_relay_hello *h,
			   char *msg, size_t msg_size);

/*
 * A host's or a session's name, which the relay makes a path component:
 * 1 to 63 bytes of letters, digits, '.', '_' and '-', not starting with
 * '.' (so never "." or ".."), no '/' and no control character.
 */
int vmt_relay_name_check(const char *name, char *msg, size_t msg_size);

#endif /* VMTRACE_INTERNAL_RELAY_PROTO_H */
