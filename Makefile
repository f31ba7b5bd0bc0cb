# podcast: build, test, demo, install. `make demo` and `make test` work on a fresh machine.

PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift

.PHONY: setup build test demo bench fuzz install install-files man deb clean

# The binary `install-files` takes the completions from (any build of podcast).
PODCAST ?= .build/release/podcast

## Installs the system libraries and tools (apt-get; only what is missing).
setup:
	@scripts/setup.sh

## Builds the release binary at .build/release/podcast, with the Swift runtime linked in
## (about 3 MiB less memory and a faster start than loading it as shared libraries).
build: setup
	$(SWIFT) build -c release --product podcast --static-swift-stdlib

## Installs what it needs, builds and runs every test. The release build is for DebianPackageTests,
## which packages it (a debug build loads the Swift runtime from the toolchain: no package has it).
test: build
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

## Runs the offline demo: a local iTunes-like server, then podcast against it.
demo: setup
	@scripts/demo.sh

## Benchmarks against the tools users would otherwise use.
bench: build
	@scripts/bench.sh

## Fuzzes the feed parser with libFuzzer for FUZZ_SECONDS (default 600); fails on a crash.
fuzz: setup
	@scripts/fuzz.sh

## Installs the binary to $(DESTDIR)$(PREFIX)/bin, the man page and the bash, zsh and fish completions.
install: build install-files
	install -d "$(DESTDIR)$(PREFIX)/bin"
	install -m 0755 .build/release/podcast "$(DESTDIR)$(PREFIX)/bin/podcast"

## Installs the man page (man/podcast.1) and the completions $(PODCAST) writes, under $(DESTDIR)$(PREFIX).
install-files:
	install -d "$(DESTDIR)$(PREFIX)/share/man/man1" "$(DESTDIR)$(PREFIX)/share/bash-completion/completions" \
		"$(DESTDIR)$(PREFIX)/share/zsh/site-functions" "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d"
	install -m 0644 man/podcast.1 "$(DESTDIR)$(PREFIX)/share/man/man1/podcast.1"
	"$(PODCAST)" --generate-completion-script bash >"$(DESTDIR)$(PREFIX)/share/bash-completion/completions/podcast"
	"$(PODCAST)" --generate-completion-script zsh >"$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_podcast"
	"$(PODCAST)" --generate-completion-script fish >"$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/podcast.fish"

## Generates man/podcast.1 from the command tree (argument-parser's generate-manual plugin); commit the result.
man:
	$(SWIFT) package generate-manual
	# A blank line is no mdoc: it becomes a paragraph break, so `man` renders the page without warnings.
	# The hidden `worker` command (the background worker's entry point) is no command for people.
	sed -e 's/^$$/.Pp/' -e '/^\.It Em worker$$/,/^\.It Em /{/^\.It Em worker$$/d;/^\.It Em /!d;}' \
		.build/plugins/GenerateManual/outputs/podcast/podcast.1 >man/podcast.1

## Builds the Debian package .build/deb/podcast_<version>_<arch>.deb of the release binary (scripts/deb.sh);
## `sudo apt install ./.build/deb/podcast_*.deb` installs it with what it depends on.
deb: build
	@scripts/deb.sh

clean:
	rm -rf .build
