/* SPDX-License-Identifier: GPL-2.0 */
/*
 * relay_net.c: what the relay (relay.c) and its senders (relay_client.c)
 * share: addresses, sizes, and building a message (docs/RELAY.md).
 */
#ifndef VMTRACE_CMD_RELAY_NET_H
#define VMTRACE_CMD_RELAY_NET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format/relay_proto.h"

struct addrinfo;

/*
 * "HOST:PORT", "[IPv6]:PORT" or ":PORT" (every address: the relay's
 * --listen) resolved into *@ai (freeaddrinfo() it): 0, or -1 with @msg set.
 */
int relay_resolve(const char *text, bool passive, struct addrinfo **ai, char *msg,
		  size_t msg_size);
/* A size in bytes with an optional k, M or G (powers of 1024); -1 when it is not one. */
long long relay_parse_size(const char *text);
/*
 * A message's bytes into @out (header, payload, and with @session_key its
 * MAC over @counter): their number, which is at most
 * VMT_RELAY_HEADER_SIZE + @len + VMT_RELAY_MAC_SIZE; -errno when the MAC
 * cannot be computed.
 */
long relay_message(uint8_t *out, unsigned int type, uint64_t seq, const void *payload,
		   uint32_t len, const uint8_t *session_key, uint64_t counter);

#endif
