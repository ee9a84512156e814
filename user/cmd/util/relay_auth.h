/* SPDX-License-Identifier: GPL-2.0 */
/*
 * relay_auth.c: the relay's keys and MACs (docs/RELAY.md,
 * "Authentication"): HMAC-SHA256 through OpenSSL's libcrypto, the key
 * file, nonces, and the message MAC both ends compute.
 */
#ifndef VMTRACE_CMD_RELAY_AUTH_H
#define VMTRACE_CMD_RELAY_AUTH_H

#include <stddef.h>
#include <stdint.h>

#include "format/relay_proto.h"

#define RELAY_KEY_MIN	16
#define RELAY_KEY_MAX	4096

struct relay_key {
	uint8_t bytes[RELAY_KEY_MAX];
	size_t len;
};

/* Read @path's bytes as the key: 0, or -errno with @msg set. */
int relay_key_read(const char *path, struct relay_key *key, char *msg, size_t msg_size);
/* @n random bytes (getrandom()): 0 or -errno. */
int relay_random(void *out, size_t n);
/* HMAC-SHA256 of @a then @b (either may be empty) under @key of @key_len bytes. */
int relay_hmac(const uint8_t *key, size_t key_len, const void *a, size_t a_len, const void *b,
	       size_t b_len, uint8_t out[VMT_RELAY_MAC_SIZE]);
/*
 * The sender's proof: HMAC(key, "vmtrace relay proof" || hello payload ||
 * relay nonce); and the session key both ends derive: HMAC(key, "vmtrace
 * relay session" || sender nonce || relay nonce).
 */
int relay_proof(const struct relay_key *key, const uint8_t hello[VMT_RELAY_HELLO_SIZE],
		const uint8_t relay_nonce[VMT_RELAY_NONCE_SIZE], uint8_t out[VMT_RELAY_MAC_SIZE]);
int relay_session_key(const struct relay_key *key,
		      const uint8_t sender_nonce[VMT_RELAY_NONCE_SIZE],
		      const uint8_t relay_nonce[VMT_RELAY_NONCE_SIZE],
		      uint8_t out[VMT_RELAY_MAC_SIZE]);
/*
 * A message's MAC: HMAC(session key, u64 counter || header || payload),
 * the counter numbering each direction's messages from 0 after the proof.
 */
int relay_message_mac(const uint8_t session_key[VMT_RELAY_MAC_SIZE], uint64_t counter,
		      const uint8_t header[VMT_RELAY_HEADER_SIZE], const void *payload,
		      size_t len, uint8_t out[VMT_RELAY_MAC_SIZE]);
/* Whether two MACs are equal, in time that does not depend on where they differ. */
int relay_mac_equal(const uint8_t *a, const uint8_t *b);

#endif
