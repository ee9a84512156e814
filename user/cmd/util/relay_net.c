// SPDX-License-Identifier: GPL-2.0
/* Addresses, sizes and messages for the relay and its senders (relay_net.h). */
#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "relay_auth.h"
#include "relay_net.h"

int relay_resolve(const char *text, bool passive, struct addrinfo **ai, char *msg,
		  size_t msg_size)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	char host[256];
	const char *port, *colon;
	int err;

	if (text[0] == '[') {
		const char *end = strchr(text, ']');

		if (!end || end[1] != ':' || (size_t)(end - text) > sizeof(host)) {
			snprintf(msg, msg_size, "'%s': [IPv6]:PORT expected", text);
			return -1;
		}
		memcpy(host, text + 1, (size_t)(end - text - 1));
		host[end - text - 1] = '\0';
		port = end + 2;
	} else {
		colon = strrchr(text, ':');
		if (!colon || (size_t)(colon - text) >= sizeof(host)) {
			snprintf(msg, msg_size, "'%s': HOST:PORT expected", text);
			return -1;
		}
		memcpy(host, text, (size_t)(colon - text));
		host[colon - text] = '\0';
		port = colon + 1;
	}
	if (!*port || strspn(port, "0123456789") != strlen(port) || atoi(port) < 1 ||
	    atoi(port) > 65535) {
		snprintf(msg, msg_size, "'%s': the port must be 1 to 65535", text);
		return -1;
	}
	if (passive)
		hints.ai_flags = AI_PASSIVE;
	err = getaddrinfo(*host ? host : NULL, port, &hints, ai);
	if (err) {
		snprintf(msg, msg_size, "'%s': %s", text, gai_strerror(err));
		return -1;
	}
	return 0;
}

long long relay_parse_size(const char *text)
{
	char *end;
	unsigned long long v;
	unsigned int shift = 0;

	if (!*text || *text == '-')
		return -1;
	errno = 0;
	v = strtoull(text, &end, 10);
	if (errno || end == text)
		return -1;
	if (*end == 'k' || *end == 'K')
		shift = 10;
	else if (*end == 'M')
		shift = 20;
	else if (*end == 'G')
		shift = 30;
	if (shift)
		end++;
	if (*end || v > (1ull << 62) >> shift)
		return -1;
	return (long long)(v << shift);
}

long relay_message(uint8_t *out, unsigned int type, uint64_t seq, const void *payload,
		   uint32_t len, const uint8_t *session_key, uint64_t counter)
{
	struct vmt_relay_header h = { .type = (uint16_t)type, .length = len, .seq = seq,
				      .flags = session_key ? VMT_RELAY_FLAG_MAC : 0 };
	int err;

	vmt_relay_header_encode(out, &h);
	if (len)
		memcpy(out + VMT_RELAY_HEADER_SIZE, payload, len);
	if (!session_key)
		return VMT_RELAY_HEADER_SIZE + (long)len;
	err = relay_message_mac(session_key, counter, out, out + VMT_RELAY_HEADER_SIZE, len,
				out + VMT_RELAY_HEADER_SIZE + len);
	return err ? err : VMT_RELAY_HEADER_SIZE + (long)len + VMT_RELAY_MAC_SIZE;
}
