// SHA-2 through libcrypto: its SHA-256 uses the processor's SHA extensions (and ARM's) at
// ~1.8 GB/s here, against ~1.4 GB/s for the rounds podcast once carried itself, and the digest
// of every downloaded file is the largest cost of a download after the network. The functions
// used are the plain per-algorithm ones (deprecated in OpenSSL 3 in favour of EVP, which would
// put a heap object behind every digest and a provider look-up before it): they keep the context
// a value Swift can copy and store inline.
//
// libcrypto is loaded on first use (dlopen), like libcurl (which loads it too): a command that
// takes no digest (`status`, `episodes`, `search`) does not pay for mapping it at start-up.
#define OPENSSL_SUPPRESS_DEPRECATED
#include "CDigest.h"

#include <dlfcn.h>
#include <openssl/opensslv.h>
#include <openssl/sha.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

_Static_assert(sizeof(SHA512_CTX) <= sizeof(podcast_sha2_context), "podcast_sha2_context holds a SHA512_CTX");
_Static_assert(sizeof(SHA256_CTX) <= sizeof(podcast_sha2_context), "podcast_sha2_context holds a SHA256_CTX");

// The library the headers podcast was built with belong to: "libcrypto.so.3" for OpenSSL 3.
#define PODCAST_STRING(value) #value
#define PODCAST_LIBCRYPTO(version) "libcrypto.so." PODCAST_STRING(version)

#define PODCAST_SHA2_FUNCTIONS(X)                                                                                      \
    X(SHA256_Init)                                                                                                     \
    X(SHA256_Update)                                                                                                   \
    X(SHA256_Final)                                                                                                    \
    X(SHA384_Init)                                                                                                     \
    X(SHA384_Final)                                                                                                    \
    X(SHA512_Init)                                                                                                     \
    X(SHA512_Update)                                                                                                   \
    X(SHA512_Final)

static struct {
#define PODCAST_SHA2_FIELD(name) __typeof__(&name) name;
    PODCAST_SHA2_FUNCTIONS(PODCAST_SHA2_FIELD)
#undef PODCAST_SHA2_FIELD
} crypto;

static pthread_once_t loading = PTHREAD_ONCE_INIT;

static void load(void) {
    void *library = dlopen(PODCAST_LIBCRYPTO(OPENSSL_SHLIB_VERSION), RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        const char *why = dlerror();
        fprintf(stderr, "error: %s could not be loaded (%s); install it (Debian, Ubuntu: apt install libssl3)\n",
                PODCAST_LIBCRYPTO(OPENSSL_SHLIB_VERSION), why ? why : "unknown error");
        exit(1);
    }
#define PODCAST_SHA2_RESOLVE(name)                                                                                     \
    if (!(crypto.name = (__typeof__(crypto.name))dlsym(library, #name))) {                                             \
        fprintf(stderr, "error: the libcrypto installed has no %s; reinstall OpenSSL %d\n", #name,                     \
                OPENSSL_SHLIB_VERSION);                                                                                \
        exit(1);                                                                                                       \
    }
    PODCAST_SHA2_FUNCTIONS(PODCAST_SHA2_RESOLVE)
#undef PODCAST_SHA2_RESOLVE
}

// The loaded library's functions; loads it on the first call.
#define CRYPTO (pthread_once(&loading, load), &crypto)

void podcast_sha2_init(podcast_sha2_context *context, int bits) {
    switch (bits) {
    case 256: CRYPTO->SHA256_Init((SHA256_CTX *)context); break;
    case 384: CRYPTO->SHA384_Init((SHA512_CTX *)context); break;
    default: CRYPTO->SHA512_Init((SHA512_CTX *)context); break;
    }
}

void podcast_sha2_update(podcast_sha2_context *context, int bits, const void *bytes, size_t count) {
    if (bits == 256) {
        CRYPTO->SHA256_Update((SHA256_CTX *)context, bytes, count);
    } else {
        // SHA-384 is SHA-512 with other initial words and a shorter output.
        CRYPTO->SHA512_Update((SHA512_CTX *)context, bytes, count);
    }
}

void podcast_sha2_final(podcast_sha2_context *context, int bits, uint8_t *digest) {
    switch (bits) {
    case 256: CRYPTO->SHA256_Final(digest, (SHA256_CTX *)context); break;
    case 384: CRYPTO->SHA384_Final(digest, (SHA512_CTX *)context); break;
    default: CRYPTO->SHA512_Final(digest, (SHA512_CTX *)context); break;
    }
}
