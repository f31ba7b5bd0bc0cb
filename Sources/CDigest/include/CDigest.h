#ifndef PODCAST_CDIGEST_H
#define PODCAST_CDIGEST_H

#include <stddef.h>
#include <stdint.h>

/// One SHA-2 digest being taken by libcrypto (OpenSSL), kept by value: libcrypto's context for
/// the variant lives in these bytes, which hold no pointers, so a copy is an independent digest.
typedef struct {
    uint64_t storage[32];
} podcast_sha2_context;

/// Starts a digest of no bytes; `bits` is 256, 384 or 512 (the variant).
void podcast_sha2_init(podcast_sha2_context *context, int bits);

/// Adds `count` bytes at `bytes` to the message.
void podcast_sha2_update(podcast_sha2_context *context, int bits, const void *bytes, size_t count);

/// Writes the digest, `bits / 8` bytes, to `digest`; start again before another message.
void podcast_sha2_final(podcast_sha2_context *context, int bits, uint8_t *digest);

#endif
