// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The relay protocol's messages (relay_proto.h, docs/RELAY.md): encoders,
 * and decoders that check every length, every reserved byte and every
 * name before a relay acts on a message.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/bytes.h"
#include "format/relay_proto.h"

void vmt_relay_header_encode(uint8_t out[VMT_RELAY_HEADER_SIZE], const struct vmt_relay_header *h)
{
	memcpy(out, VMT_RELAY_MAGIC, 4);
	vmt_put16(out + 4, h->type);
	vmt_put16(out + 6, h->flags);
	vmt_put32(out + 8, h->length);
	vmt_put32(out + 12, 0);
	vmt_put64(out + 16, h->seq);
}

/* The payload's least and greatest length for @type. */
static void length_bounds(unsigned int type, uint32_t *least, uint32_t *most)
{
	switch (type) {
	case VMT_RELAY_HELLO:
		*least = *most = VMT_RELAY_HELLO_SIZE;
		return;
	case VMT_RELAY_CHALLENGE:
		*least = *most = VMT_RELAY_NONCE_SIZE;
		return;
	case VMT_RELAY_PROOF:
		*least = *most = VMT_RELAY_MAC_SIZE;
		return;
	case VMT_RELAY_WELCOME:
		*least = *most = VMT_RELAY_WELCOME_SIZE;
		return;
	case VMT_RELAY_REFUSE:
		*least = 0;
		*most = VMT_RELAY_REFUSE_MAX;
		return;
	case VMT_RELAY_BLOCK:
		*least = 64;
		*most = VMT_RELAY_BLOCK_MAX;
		return;
	case VMT_RELAY_END:
		*least = *most = VMT_RELAY_END_SIZE;
		return;
	default:
		*least = *most = 0;
	}
}

int vmt_relay_header_decode(const uint8_t in[VMT_RELAY_HEADER_SIZE], struct vmt_relay_header *h,
			    char *msg, size_t msg_size)
{
	uint32_t least, most;

	if (memcmp(in, VMT_RELAY_MAGIC, 4)) {
		snprintf(msg, msg_size, "not a relay message (no magic)");
		return -EBADMSG;
	}
	h->type = vmt_get16(in + 4);
	h->flags = vmt_get16(in + 6);
	h->length = vmt_get32(in + 8);
	h->seq = vmt_get64(in + 16);
	if (!h->type || h->type >= VMT_RELAY_TYPES) {
		snprintf(msg, msg_size, "unknown message type %u", h->type);
		return -EBADMSG;
	}
	if (h->flags & ~VMT_RELAY_FLAG_MAC || vmt_get32(in + 12)) {
		snprintf(msg, msg_size, "message type %u: unknown flags 0x%x or reserved bytes",
			 h->type, h->flags);
		return -EBADMSG;
	}
	length_bounds(h->type, &least, &most);
	if (h->length < least || h->length > most) {
		snprintf(msg, msg_size, "message type %u of %u bytes (%u to %u)", h->type,
			 h->length, least, most);
		return -EBADMSG;
	}
	return 0;
}

void vmt_relay_hello_encode(uint8_t out[VMT_RELAY_HELLO_SIZE], const struct vmt_relay_hello *h)
{
	memset(out, 0, VMT_RELAY_HELLO_SIZE);
	vmt_put32(out, h->protocol);
	vmt_put32(out + 4, h->format);
	vmt_put32(out + 8, h->flags);
	memcpy(out + 16, h->sender, VMT_RELAY_SENDER_SIZE);
	memcpy(out + 32, h->host, strnlen(h->host, VMT_RELAY_NAME_SIZE - 1));
	memcpy(out + 96, h->session, strnlen(h->session, VMT_RELAY_NAME_SIZE - 1));
	memcpy(out + 160, h->nonce, VMT_RELAY_NONCE_SIZE);
}

int vmt_relay_name_check(const char *name, char *msg, size_t msg_size)
{
	size_t n = strnlen(name, VMT_RELAY_NAME_SIZE);

	if (!n || n >= VMT_RELAY_NAME_SIZE) {
		snprintf(msg, msg_size, "a name of 1 to %d bytes is needed", VMT_RELAY_NAME_SIZE - 1);
		return -EINVAL;
	}
	if (name[0] == '.') {
		snprintf(msg, msg_size, "'%s' starts with '.'", name);
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-')) {
			snprintf(msg, msg_size, "byte %zu of the name is 0x%02x (only letters, digits, '.', '_' and '-')",
				 i, c);
			return -EINVAL;
		}
	}
	return 0;
}

/* A NUL-padded name field: its text, once checked. */
static int name_decode(const uint8_t *in, char *out, const char *what, char *msg,
		       size_t msg_size)
{
	char why[160];
	size_t n;

	memcpy(out, in, VMT_RELAY_NAME_SIZE);
	n = strnlen(out, VMT_RELAY_NAME_SIZE);
	if (n == VMT_RELAY_NAME_SIZE) {
		snprintf(msg, msg_size, "%s name: no NUL in %d bytes", what, VMT_RELAY_NAME_SIZE);
		return -EBADMSG;
	}
	for (size_t i = n; i < VMT_RELAY_NAME_SIZE; i++)
		if (out[i]) {
			snprintf(msg, msg_size, "%s name: bytes after its NUL", what);
			return -EBADMSG;
		}
	if (vmt_relay_name_check(out, why, sizeof(why))) {
		snprintf(msg, msg_size, "bad %s name: %s", what, why);
		return -EBADMSG;
	}
	return 0;
}

int vmt_relay_hello_decode(const uint8_t in[VMT_RELAY_HELLO_SIZE], struct vmt_relay_hello *h,
			   char *msg, size_t msg_size)
{
	int err;

	memset(h, 0, sizeof(*h));
	h->protocol = vmt_get32(in);
	h->format = vmt_get32(in + 4);
	h->flags = vmt_get32(in + 8);
	memcpy(h->sender, in + 16, VMT_RELAY_SENDER_SIZE);
	memcpy(h->nonce, in + 160, VMT_RELAY_NONCE_SIZE);
	if (h->protocol != VMT_RELAY_PROTOCOL) {
		snprintf(msg, msg_size, "protocol version %u (this relay speaks %u)", h->protocol,
			 VMT_RELAY_PROTOCOL);
		return -EPROTO;
	}
	if (vmt_get32(in + 12) || h->flags & ~VMT_RELAY_HELLO_KEYED) {
		snprintf(msg, msg_size, "hello: unknown flags 0x%x or reserved bytes", h->flags);
		return -EBADMSG;
	}
	err = name_decode(in + 32, h->host, "host", msg, msg_size);
	if (!err)
		err = name_decode(in + 96, h->session, "session", msg, msg_size);
	return err;
}
