#ifndef PODCAST_CLIBFUZZER_SHIM_H
#define PODCAST_CLIBFUZZER_SHIM_H

#include <stddef.h>
#include <stdint.h>

// libFuzzer's driver, called from our own `main` (LLVM's "using libFuzzer as a library"). SwiftPM
// links every executable with `--defsym main=<module>_main`, so libFuzzer's own `main` can never
// be used; the symbol itself comes from the runtime that -sanitize=fuzzer links (no link line).
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
