// SPDX-License-Identifier: GPL-2.0
/*
 * The relay's keys and MACs (relay_auth.h): HMAC-SHA256 from libcrypto
 * (OpenSSL 3's EVP_MAC), nonces from getrandom().
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "base/bytes.h"
#include "relay_auth.h"

int relay_key_read(const char *path, struct relay_key *key, char *msg, size_t msg_size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	int err;

	if (fd < 0) {
		err = -errno;
		snprintf(msg, msg_size, "cannot read the key %s: %s", path, strerror(errno));
		return err;
	}
	n = read(fd, key->bytes, sizeof(key->bytes));
	err = n < 0 ? -errno : 0;
	if (n == (ssize_t)sizeof(key->bytes)) {
		char more;

		if (read(fd, &more, 1) == 1)
			n = -1;
	}
	close(fd);
	if (err) {
		snprintf(msg, msg_size, "cannot read the key %s: %s", path, strerror(-err));
		return err;
	}
	if (n < RELAY_KEY_MIN) {
		snprintf(msg, msg_size, "the key %s has %s bytes: %d to %d are needed "
			 "(e.g. head -c 32 /dev/urandom > FILE)", path,
			 n < 0 ? "too many" : "too few", RELAY_KEY_MIN, RELAY_KEY_MAX);
		return -EINVAL;
	}
	key->len = (size_t)n;
	return 0;
}

int relay_random(void *out, size_t n)
{
	uint8_t *p = out;

	while (n) {
		ssize_t got = getrandom(p, n, 0);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		p += got;
		n -= (size_t)got;
	}
	return 0;
}

int relay_hmac(const uint8_t *key, size_t key_len, const void *a, size_t a_len, const void *b,
	       size_t b_len, uint8_t out[VMT_RELAY_MAC_SIZE])
{
	static EVP_MAC *mac;
	OSSL_PARAM params[] = {
		OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)"SHA256", 0),
		OSSL_PARAM_construct_end(),
	};
	EVP_MAC_CTX *ctx;
	size_t len = 0;
	int ok;

	/* Fetched once; a race fetches twice and keeps one, which is harmless. */
	if (!mac)
		mac = EVP_MAC_fetch(NULL, "HMAC", NULL);
	if (!mac)
		return -EOPNOTSUPP;
	ctx = EVP_MAC_CTX_new(mac);
	if (!ctx)
		return -ENOMEM;
	ok = EVP_MAC_init(ctx, key, key_len, params) &&
	     (!a_len || EVP_MAC_update(ctx, a, a_len)) &&
	     (!b_len || EVP_MAC_update(ctx, b, b_len)) &&
	     EVP_MAC_final(ctx, out, &len, VMT_RELAY_MAC_SIZE) && len == VMT_RELAY_MAC_SIZE;
	EVP_MAC_CTX_free(ctx);
	return ok ? 0 : -EIO;
}

int relay_proof(const struct relay_key *key, const uint8_t hello[VMT_RELAY_HELLO_SIZE],
		const uint8_t relay_nonce[VMT_RELAY_NONCE_SIZE], uint8_t out[VMT_RELAY_MAC_SIZE])
{
	static const char label[] = "vmtrace relay proof";
	uint8_t msg[sizeof(label) - 1 + VMT_RELAY_HELLO_SIZE];

	memcpy(msg, label, sizeof(label) - 1);
	memcpy(msg + sizeof(label) - 1, hello, VMT_RELAY_HELLO_SIZE);
	return relay_hmac(key->bytes, key->len, msg, sizeof(msg), relay_nonce,
			  VMT_RELAY_NONCE_SIZE, out);
}

int relay_session_key(const struct relay_key *key,
		      const uint8_t sender_nonce[VMT_RELAY_NONCE_SIZE],
		      const uint8_t relay_nonce[VMT_RELAY_NONCE_SIZE],
		      uint8_t out[VMT_RELAY_MAC_SIZE])
{
	static const char label[] = "vmtrace relay session";
	uint8_t msg[sizeof(label) - 1 + VMT_RELAY_NONCE_SIZE];

	memcpy(msg, label, sizeof(label) - 1);
	memcpy(msg + sizeof(label) - 1, sender_nonce, VMT_RELAY_NONCE_SIZE);
	return relay_hmac(key->bytes, key->len, msg, sizeof(msg), relay_nonce,
			  VMT_RELAY_NONCE_SIZE, out);
}

int relay_message_mac(const uint8_t session_key[VMT_RELAY_MAC_SIZE], uint64_t counter,
		      const uint8_t header[VMT_RELAY_HEADER_SIZE], const void *payload,
		      size_t len, uint8_t out[VMT_RELAY_MAC_SIZE])
{
	uint8_t head[8 + VMT_RELAY_HEADER_SIZE];

	vmt_put64(head, counter);
	memcpy(head + 8, header, VMT_RELAY_HEADER_SIZE);
	return relay_hmac(session_key, VMT_RELAY_MAC_SIZE, head, sizeof(head), payload, len, out);
}

int relay_mac_equal(const uint8_t *a, const uint8_t *b)
{
	return CRYPTO_memcmp(a, b, VMT_RELAY_MAC_SIZE) == 0;
}
