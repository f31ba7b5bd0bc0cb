#ifndef PODCAST_CDIGEST_H
#define PODCAST_CDIGEST_H

#include <stddef.h>
#include <stdint.h>

/// 1 when this processor has the SHA extensions (and the SSSE3 and SSE4.1 they are used with),
/// so `podcast_sha256_blocks` can run; 0 otherwise (the caller then uses portable code).
int podcast_sha256_hardware_available(void);

/// Runs SHA-256's compression function over `count` whole 64-byte blocks at `blocks`, updating
/// the eight chaining words in `state`, with the SHA extensions. Call only when
/// `podcast_sha256_hardware_available()` returned 1.
void podcast_sha256_blocks(uint32_t state[8], const uint8_t *blocks, size_t count);

#endif
