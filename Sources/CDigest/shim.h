#ifndef PODCAST_CDIGEST_SHIM_H
#define PODCAST_CDIGEST_SHIM_H

// SHA-2 through libcrypto: its SHA-256 uses the processor's SHA extensions (and ARM's) at
// ~1.8 GB/s here, against ~1.4 GB/s for the rounds podcast once carried itself, and the digest
// of every downloaded file is the largest cost of a download after the network. The functions
// used are the plain per-algorithm ones (deprecated in OpenSSL 3 in favour of EVP, which would
// put a heap object behind every digest and a provider look-up before it): they keep the context
// a value Swift can copy and store inline. The wrappers give the three variants one context type.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>
#include <stddef.h>
#include <stdint.h>

/// One SHA-2 digest being taken by libcrypto (OpenSSL), kept by value: libcrypto's context for
/// the variant lives in these bytes, which hold no pointers, so a copy is an independent digest.
typedef struct {
    uint64_t storage[32];
} podcast_sha2_context;

_Static_assert(sizeof(SHA512_CTX) <= sizeof(podcast_sha2_context), "podcast_sha2_context holds a SHA512_CTX");
_Static_assert(sizeof(SHA256_CTX) <= sizeof(podcast_sha2_context), "podcast_sha2_context holds a SHA256_CTX");

/// Starts a digest of no bytes; `bits` is 256, 384 or 512 (the variant).
static inline void podcast_sha2_init(podcast_sha2_context *context, int bits) {
    switch (bits) {
    case 256: SHA256_Init((SHA256_CTX *)context); break;
    case 384: SHA384_Init((SHA512_CTX *)context); break;
    default: SHA512_Init((SHA512_CTX *)context); break;
    }
}

/// Adds `count` bytes at `bytes` to the message.
static inline void podcast_sha2_update(podcast_sha2_context *context, int bits, const void *bytes, size_t count) {
    if (bits == 256) {
        SHA256_Update((SHA256_CTX *)context, bytes, count);
    } else {
        // SHA-384 is SHA-512 with other initial words and a shorter output.
        SHA512_Update((SHA512_CTX *)context, bytes, count);
    }
}

/// Writes the digest, `bits / 8` bytes, to `digest`; start again before another message.
static inline void podcast_sha2_final(podcast_sha2_context *context, int bits, uint8_t *digest) {
    switch (bits) {
    case 256: SHA256_Final(digest, (SHA256_CTX *)context); break;
    case 384: SHA384_Final(digest, (SHA512_CTX *)context); break;
    default: SHA512_Final(digest, (SHA512_CTX *)context); break;
    }
}

/// Writes the SHA-1 digest (20 bytes) of `count` bytes at `bytes` to `digest`. SHA-1 is broken
/// for collisions and used for nothing podcast checks; only the Podcast Index API's request
/// signature asks for it.
static inline void podcast_sha1(const void *bytes, size_t count, uint8_t *digest) {
    SHA1((const unsigned char *)bytes, count, digest);
}

#endif
