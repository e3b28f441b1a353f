# SPDX-License-Identifier: MIT
#
# sctk: one non-recursive GNU Makefile.  See README.md and HACKING.md
# (how to run one test, how to add a program).
#
#   make                      build build/lib/libsccore.a and build/bin/sc-*
#   make check [JOBS=n]       install missing packages, run the unit, bats and
#                             Node tests, n files at a time (default: 2 per core)
#   make SANITIZE=address,undefined check
#   make check-loaded [RUNS=3]  make check RUNS times beside stress-ng --cpu
#   make DEVELOPER=1          -Werror
#   make install PREFIX=/usr DESTDIR=/tmp/x
#   make deb                  build/sctk_VERSION-1_ARCH.deb (dpkg-deb)
#   make lint | bench | demo | clean | uninstall
#   make fuzz [FUZZ_TIME=60] [FUZZ_TARGETS="uri arrow"]   (clang, libFuzzer)
#   make valgrind [TESTS=test/unit/test-x.c]   (and a whole sc-serve session)
#   make stress [STRESS_PARTS="cuts upload"]     (a few minutes, loopback)

VERSION  = 0.1.0

PREFIX  ?= /usr/local
BINDIR  ?= $(PREFIX)/bin
MANDIR  ?= $(PREFIX)/share/man
DESTDIR ?=
CC      ?= cc
CFLAGS  ?= -O2 -g
PROTOC_C ?= protoc-c
# Bash completion, systemd's unit, sysusers.d and tmpfiles.d (make install).
COMPDIR ?= $(PREFIX)/share/bash-completion/completions
UNITDIR ?= $(PREFIX)/lib/systemd/system
SYSUSERSDIR ?= $(PREFIX)/lib/sysusers.d
TMPFILESDIR ?= $(PREFIX)/lib/tmpfiles.d
SYSCONFDIR ?= $(if $(filter /usr,$(PREFIX)),/etc,$(PREFIX)/etc)
INSTALL ?= install

ifdef SANITIZE
BUILD   ?= build/sanitize
CFLAGS  += -O1 -fsanitize=$(SANITIZE) -fno-sanitize-recover=$(SANITIZE) \
	   -fno-omit-frame-pointer
LDFLAGS += -fsanitize=$(SANITIZE)
else
BUILD   ?= build
endif

WARN     = -Wall -Wextra -Wformat=2 -Wformat-security -Wmissing-prototypes \
	   -Wstrict-prototypes -Wold-style-definition -Wpointer-arith -Wshadow \
	   -Wwrite-strings -Wvla -Wundef -fno-common
ifdef DEVELOPER
WARN    += -Werror
endif

GEN      = $(BUILD)/gen
OBJ      = $(BUILD)/obj
CSTD     = -std=c11 -D_GNU_SOURCE -DSCTK_VERSION='"$(VERSION)"' -pthread
ALL_CPPFLAGS = -Ilib -I$(GEN) $(CPPFLAGS)
# What lib/core needs; every program links it.
LIBS     = -lgrpc -lgpr -lprotobuf-c -lz -lcrypto -lpthread -lm
# A program's own libraries: LIBS_<program>.  Only sc-serve gets the
# server and engine libraries (SRVLIB_<program>) and SQLite.
LIBS_sc-exec    = -ledit
LIBS_sc-inspect = -lncursesw
# sc-serve also tells systemd it is ready (sd_notify, cmd/sc-serve/notify.c)
# and serves /metrics over HTTP (cmd/sc-serve/metrics_http.c).
LIBS_sc-serve   = -lsqlite3 -lsystemd -lmicrohttpd
LIBS_sc-upload  = -lcurl
SRVLIB_sc-serve = $(LIBSRV) $(LIBENG)
# lib/parquet's codecs (zlib is in LIBS): only what links libscparquet.
LIBS_PQ  = -lsnappy -lzstd
# Tests, tools and benches link everything.
LIBS_ALL = -lsqlite3 -lcurl -ledit $(LIBS)

.DEFAULT_GOAL := all
.DELETE_ON_ERROR:
.SUFFIXES:
.PHONY: all check unit bats install uninstall clean lint bench bench-count demo deps stress \
	format fuzz fuzz-bins valgrind deb

# --- protocol code, generated into $(GEN), never committed -------------
PROTOS   := $(sort $(shell find proto -name '*.proto'))
PROTO_REL = $(PROTOS:proto/%=%)
WKT      = google/protobuf/any.proto google/protobuf/duration.proto
GEN_C    = $(addprefix $(GEN)/,$(PROTO_REL:.proto=.pb-c.c) $(WKT:.proto=.pb-c.c))
GEN_H    = $(GEN_C:.c=.h)
GEN_OBJ  = $(GEN_C:$(GEN)/%.c=$(OBJ)/gen/%.o)

# One protoc-c run writes every file into a temporary directory that is
# renamed into place, so an interrupted run never leaves half a tree.
$(GEN)/.stamp: $(PROTOS)
	@rm -rf $(GEN).tmp && mkdir -p $(GEN).tmp
	$(PROTOC_C) -Iproto -I/usr/include --c_out=$(GEN).tmp $(PROTO_REL) $(WKT)
	@rm -rf $(GEN) && mv $(GEN).tmp $(GEN) && touch $@
$(GEN_C) $(GEN_H): $(GEN)/.stamp

# --- libraries --------------------------------------------------------
CORE_SRC := $(sort $(wildcard lib/core/*.c))
SRV_SRC  := $(sort $(wildcard lib/server/*.c))
# The engine: lib/engine/ and its folders (HACKING.md).
ENG_SRC  := $(sort $(wildcard lib/engine/*.c lib/engine/*/*.c))
CORE_OBJ  = $(CORE_SRC:%.c=$(OBJ)/%.o)
SRV_OBJ   = $(SRV_SRC:%.c=$(OBJ)/%.o)
ENG_OBJ   = $(ENG_SRC:%.c=$(OBJ)/%.o)
LIBCORE   = $(BUILD)/lib/libsccore.a
LIBSRV    = $(BUILD)/lib/libscserver.a
LIBENG    = $(BUILD)/lib/libscengine.a
# Parquet (lib/parquet): depends on lib/core only; tests and tools link it.
PQ_SRC   := $(sort $(wildcard lib/parquet/*.c))
PQ_OBJ    = $(PQ_SRC:%.c=$(OBJ)/%.o)
LIBPQ     = $(BUILD)/lib/libscparquet.a

# --- programs: every cmd/<tool>/ directory is one program --------------
TOOLS    := $(sort $(notdir $(wildcard cmd/sc-*)))
BINS      = $(TOOLS:%=$(BUILD)/bin/%)
MANS     := $(sort $(wildcard man/*.[1-8]))

# --- tests --------------------------------------------------------------
UNIT_SRC := $(sort $(wildcard test/unit/test-*.c))
UNIT_BIN  = $(UNIT_SRC:test/unit/%.c=$(BUILD)/test/%)
UNIT_LIB := $(filter-out $(UNIT_SRC),$(wildcard test/unit/*.c))
TOOL_SRC := $(sort $(wildcard test/tools/*.c))
TOOL_BIN  = $(TOOL_SRC:test/tools/%.c=$(BUILD)/test/tools/%)
BENCH_SRC := $(sort $(wildcard test/bench/*.c))
BENCH_BIN = $(BENCH_SRC:test/bench/%.c=$(BUILD)/bench/%)

all: $(LIBCORE) $(LIBSRV) $(LIBENG) $(LIBPQ) $(BINS)

$(OBJ)/gen/%.o: $(GEN)/%.c $(GEN)/.stamp
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(ALL_CPPFLAGS) $(CFLAGS) -w -c -o $@ $<

$(OBJ)/%.o: %.c $(GEN)/.stamp
	@mkdir -p $(@D)
	$(CC) $(CSTD) $(ALL_CPPFLAGS) $(CFLAGS) $(WARN) -MMD -MP -c -o $@ $<

$(LIBCORE): $(CORE_OBJ) $(GEN_OBJ)
	@mkdir -p $(@D)
	@rm -f $@
	$(AR) rcs $@ $^

$(LIBSRV): $(SRV_OBJ)
	@mkdir -p $(@D)
	@rm -f $@
	$(if $(SRV_OBJ),$(AR) rcs $@ $^,printf '!<arch>\n' >$@)

$(LIBENG): $(ENG_OBJ)
	@mkdir -p $(@D)
	@rm -f $@
	$(AR) rcs $@ $^

$(LIBPQ): $(PQ_OBJ)
	@mkdir -p $(@D)
	@rm -f $@
	$(AR) rcs $@ $^

define tool_rule
$(BUILD)/bin/$(1): $(patsubst %.c,$(OBJ)/%.o,$(wildcard cmd/$(1)/*.c)) \
    $$(SRVLIB_$(1)) $(LIBCORE)
	@mkdir -p $$(@D)
	$$(CC) $$(CFLAGS) $$(LDFLAGS) -o $$@ \
	    $(patsubst %.c,$(OBJ)/%.o,$(wildcard cmd/$(1)/*.c)) \
	    $$(SRVLIB_$(1)) $(LIBCORE) $$(LIBS_$(1)) $$(LIBS)
endef
$(foreach t,$(TOOLS),$(eval $(call tool_rule,$(t))))

$(BUILD)/test/test-%: $(OBJ)/test/unit/test-%.o $(UNIT_LIB:%.c=$(OBJ)/%.o) \
    $(LIBSRV) $(LIBENG) $(LIBPQ) $(LIBCORE)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(UNIT_LIB:%.c=$(OBJ)/%.o) \
	    $(LIBSRV) $(LIBENG) $(LIBPQ) $(LIBCORE) $(LIBS_PQ) $(LIBS_ALL)

$(BUILD)/test/tools/%: $(OBJ)/test/tools/%.o $(LIBPQ) $(LIBCORE)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBPQ) $(LIBCORE) $(LIBS_PQ) \
	    $(LIBS_ALL)

$(BUILD)/bench/%: $(OBJ)/test/bench/%.o $(LIBSRV) $(LIBENG) $(LIBCORE)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBSRV) $(LIBENG) $(LIBCORE) \
	    $(LIBS_ALL)

# The fuzz targets' entry points (test/fuzz/fuzz.h) are linked into the
# unit test that replays their corpora, so make check keeps them fixed.
FUZZ_SRC := $(sort $(wildcard test/fuzz/fuzz-*.c))
FUZZ_ENTRY = $(FUZZ_SRC:%.c=$(OBJ)/%.o) $(OBJ)/test/fuzz/targets.o

$(BUILD)/test/test-fuzz-corpus: $(OBJ)/test/unit/test-fuzz-corpus.o \
    $(FUZZ_ENTRY) $(UNIT_LIB:%.c=$(OBJ)/%.o) $(LIBSRV) $(LIBENG) $(LIBPQ) \
    $(LIBCORE)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(filter %.o,$^) $(LIBSRV) \
	    $(LIBENG) $(LIBPQ) $(LIBCORE) $(LIBS_PQ) $(LIBS_ALL)

-include $(shell find $(OBJ) -name '*.d' 2>/dev/null)

# The objects of tests, tools and benches are kept between builds (make
# would delete them as intermediate files and recompile them next time).
.SECONDARY: $(UNIT_SRC:%.c=$(OBJ)/%.o) $(UNIT_LIB:%.c=$(OBJ)/%.o) \
    $(TOOL_SRC:%.c=$(OBJ)/%.o) $(BENCH_SRC:%.c=$(OBJ)/%.o) $(FUZZ_ENTRY)

# --- check --------------------------------------------------------------
# scripts/deps is cheap when nothing is missing; it installs what is.
deps:
	@scripts/deps

TESTS ?=
JOBS  ?=
check: deps
	@$(MAKE) --no-print-directory all unit-bins
	@BUILD=$(BUILD) SANITIZE=$(SANITIZE) JOBS=$(JOBS) scripts/run-tests $(TESTS)

.PHONY: unit-bins
unit-bins: $(UNIT_BIN) $(TOOL_BIN)

# No test may need a quiet machine: make check RUNS times in a row with
# every core kept busy by stress-ng (scripts/check-loaded).
RUNS ?= 3
.PHONY: check-loaded
check-loaded: deps
	@BUILD=$(BUILD) SANITIZE=$(SANITIZE) JOBS=$(JOBS) scripts/check-loaded $(RUNS)

# --- fuzz (clang's libFuzzer; never part of check) -----------------------
# Every test/fuzz/fuzz-<name>.c becomes build/fuzz/fuzz-<name>, built with
# libFuzzer, ASan and UBSan over its own objects of lib/ and the generated
# code; test/fuzz/run runs each for FUZZ_TIME seconds on a copy of its
# seed corpus and keeps what it finds.  See test/fuzz/README.
FUZZ_CC    ?= clang
FUZZ_TIME  ?= 60
FUZZ_TARGETS ?=
FUZZ_DIR    = build/fuzz
FUZZ_CFLAGS = -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined \
	      -fno-sanitize-recover=undefined
FUZZ_BIN    = $(FUZZ_SRC:test/fuzz/%.c=$(FUZZ_DIR)/%)
FUZZ_LIBOBJ = $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(CORE_SRC) $(SRV_SRC) \
	      $(ENG_SRC) $(PQ_SRC)) \
	      $(GEN_C:$(GEN)/%.c=$(FUZZ_DIR)/obj/gen/%.o)

$(FUZZ_DIR)/obj/gen/%.o: $(GEN)/%.c $(GEN)/.stamp
	@mkdir -p $(@D)
	$(FUZZ_CC) $(CSTD) $(ALL_CPPFLAGS) $(FUZZ_CFLAGS) \
	    -fsanitize=fuzzer-no-link -w -c -o $@ $<

$(FUZZ_DIR)/obj/%.o: %.c $(GEN)/.stamp
	@mkdir -p $(@D)
	$(FUZZ_CC) $(CSTD) $(ALL_CPPFLAGS) $(FUZZ_CFLAGS) \
	    -fsanitize=fuzzer-no-link -DSC_FUZZ_MAIN -MMD -MP -c -o $@ $<

$(FUZZ_DIR)/fuzz-%: $(FUZZ_DIR)/obj/test/fuzz/fuzz-%.o $(FUZZ_LIBOBJ)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LIBS_PQ) $(LIBS_ALL)

-include $(shell find $(FUZZ_DIR)/obj -name '*.d' 2>/dev/null)
# Kept between runs (make would delete them as intermediate files).
.SECONDARY: $(FUZZ_LIBOBJ) $(FUZZ_SRC:%.c=$(FUZZ_DIR)/obj/%.o)

fuzz-bins: $(FUZZ_BIN)

fuzz: fuzz-bins
	@FUZZ_TIME=$(FUZZ_TIME) test/fuzz/run $(FUZZ_TARGETS)

# --- valgrind: memcheck of every unit test and of a whole sc-serve -------
# session (scripts/valgrind-server); not part of check.
valgrind: all unit-bins
	@BUILD=$(BUILD) scripts/valgrind-units $(TESTS)
	@BUILD=$(BUILD) scripts/valgrind-server

# --- stress: loopback load and fault runs, a few minutes (not in check) --
# test/stress/run prints its figures; see the top of that file.
stress: all unit-bins
	@BUILD=$(BUILD) test/stress/run $(STRESS_PARTS)

# --- install ------------------------------------------------------------
# Programs, man pages, bash completion (one file per program), and
# sc-serve's systemd unit with its sysusers.d and tmpfiles.d entries and
# SYSCONFDIR/default/sctk (not overwritten when present).
install: all
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
	    $(DESTDIR)$(MANDIR)/man7 $(DESTDIR)$(COMPDIR) \
	    $(DESTDIR)$(UNITDIR) $(DESTDIR)$(SYSUSERSDIR) \
	    $(DESTDIR)$(TMPFILESDIR) $(DESTDIR)$(SYSCONFDIR)/default
	$(INSTALL) -m 0755 $(BINS) $(DESTDIR)$(BINDIR)
	$(INSTALL) -m 0644 $(filter %.1,$(MANS)) $(DESTDIR)$(MANDIR)/man1
	$(INSTALL) -m 0644 $(filter %.7,$(MANS)) $(DESTDIR)$(MANDIR)/man7
	for t in $(TOOLS); do \
	    $(INSTALL) -m 0644 scripts/completion/sctk.bash \
		$(DESTDIR)$(COMPDIR)/$$t || exit 1; \
	done
	sed -e 's|@BINDIR@|$(BINDIR)|g' -e 's|@SYSCONFDIR@|$(SYSCONFDIR)|g' \
	    scripts/debian/sc-serve.service >$(DESTDIR)$(UNITDIR)/sc-serve.service
	chmod 0644 $(DESTDIR)$(UNITDIR)/sc-serve.service
	$(INSTALL) -m 0644 scripts/debian/sysusers.conf \
	    $(DESTDIR)$(SYSUSERSDIR)/sctk.conf
	$(INSTALL) -m 0644 scripts/debian/tmpfiles.conf \
	    $(DESTDIR)$(TMPFILESDIR)/sctk.conf
	[ -e $(DESTDIR)$(SYSCONFDIR)/default/sctk ] || \
	    $(INSTALL) -m 0644 scripts/debian/default \
		$(DESTDIR)$(SYSCONFDIR)/default/sctk

uninstall:
	rm -f $(TOOLS:%=$(DESTDIR)$(BINDIR)/%) $(TOOLS:%=$(DESTDIR)$(COMPDIR)/%)
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(filter %.1,$(MANS))))
	rm -f $(addprefix $(DESTDIR)$(MANDIR)/man7/,$(notdir $(filter %.7,$(MANS))))
	rm -f $(DESTDIR)$(UNITDIR)/sc-serve.service \
	    $(DESTDIR)$(SYSUSERSDIR)/sctk.conf $(DESTDIR)$(TMPFILESDIR)/sctk.conf \
	    $(DESTDIR)$(SYSCONFDIR)/default/sctk

# --- deb: build/sctk_VERSION_ARCH.deb (issue 29) -------------------------
# A DESTDIR install with PREFIX=/usr into $(BUILD)/deb/root, stripped, man
# pages compressed, control data from scripts/debian/ (Depends by
# dpkg-shlibdeps), packed by dpkg-deb as root:root.  Check it with
# lintian build/sctk_*.deb.
DEB_ARCH    = $(shell dpkg --print-architecture)
DEB_FILE   ?= $(BUILD)/sctk_$(VERSION)-1_$(DEB_ARCH).deb
DEB_DIR    ?= $(CURDIR)/$(BUILD)/deb
DEB_ROOT    = $(DEB_DIR)/root
deb: all
	@command -v dpkg-deb >/dev/null || { echo 'deb: needs dpkg-dev' >&2; exit 1; }
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_ROOT)/DEBIAN $(DEB_DIR)/src/debian
	$(MAKE) --no-print-directory install PREFIX=/usr SYSCONFDIR=/etc \
	    UNITDIR=/lib/systemd/system DESTDIR=$(DEB_ROOT)
	strip --strip-unneeded --remove-section=.comment \
	    --remove-section=.note $(DEB_ROOT)/usr/bin/*
	gzip -9n $(DEB_ROOT)/usr/share/man/man*/*
	$(INSTALL) -d $(DEB_ROOT)/usr/share/doc/sctk
	$(INSTALL) -m 0644 scripts/debian/copyright $(DEB_ROOT)/usr/share/doc/sctk/
	gzip -9nc scripts/debian/changelog \
	    >$(DEB_ROOT)/usr/share/doc/sctk/changelog.Debian.gz
	chmod 0644 $(DEB_ROOT)/usr/share/doc/sctk/changelog.Debian.gz
	$(INSTALL) -m 0755 scripts/debian/postinst scripts/debian/prerm \
	    scripts/debian/postrm $(DEB_ROOT)/DEBIAN/
	echo /etc/default/sctk >$(DEB_ROOT)/DEBIAN/conffiles
	printf 'Source: sctk\n\nPackage: sctk\nArchitecture: any\n' \
	    >$(DEB_DIR)/src/debian/control
	cd $(DEB_DIR)/src && dpkg-shlibdeps -O $(addprefix $(DEB_ROOT)/usr/bin/,$(TOOLS)) \
	    >../shlibs 2>../shlibs.err || { cat ../shlibs.err >&2; exit 1; }
	deps=$$(sed -n 's/^shlibs:Depends=//p' $(DEB_DIR)/shlibs); \
	size=$$(du -sk --exclude=DEBIAN $(DEB_ROOT) | cut -f1); \
	sed -e 's|@VERSION@|$(VERSION)|' -e 's|@ARCH@|$(DEB_ARCH)|' \
	    -e "s|@SIZE@|$$size|" -e "s|@DEPENDS@|$$deps|" \
	    scripts/debian/control.in >$(DEB_ROOT)/DEBIAN/control
	cd $(DEB_ROOT) && find . -path ./DEBIAN -prune -o -type f -print | \
	    sed 's|^\./||' | LC_ALL=C sort | xargs md5sum >DEBIAN/md5sums
	chmod 0644 $(DEB_ROOT)/DEBIAN/md5sums $(DEB_ROOT)/DEBIAN/control \
	    $(DEB_ROOT)/DEBIAN/conffiles
	dpkg-deb --root-owner-group -Zxz --build $(DEB_ROOT) $(DEB_FILE)

# --- lint ---------------------------------------------------------------
# The lint tools come from Debian through scripts/deps when missing.
NPROC  := $(shell nproc 2>/dev/null || echo 1)
C_FILES = $(shell find lib cmd test/unit test/tools test/bench test/fuzz -name '*.[ch]' 2>/dev/null)
lint: $(GEN)/.stamp
	@scripts/deps lint
	clang-format --dry-run -Werror $(C_FILES)
	cppcheck -j $(NPROC) --quiet --error-exitcode=1 --std=c11 --inline-suppr \
	    --suppress=missingIncludeSystem --suppress=unusedFunction \
	    --suppress=missingInclude -Ilib lib cmd
	mandoc -Tlint -W warning $(MANS)
	scripts/check-usage $(BUILD)
	scripts/check-exit-codes
	scripts/check-messages

format:
	clang-format -i $(C_FILES)

# --- bench and demo -----------------------------------------------------
bench: all $(BENCH_BIN)
	@BUILD=$(BUILD) test/bench/run
bench-count: all $(BENCH_BIN)
	@BUILD=$(BUILD) BENCH_ONLY=count test/bench/run

# The README's "run it" command: like check, it installs what is missing.
demo: deps
	@$(MAKE) --no-print-directory all
	@BUILD=$(BUILD) scripts/demo

# Removes the build directory in use (BUILD=..., build/sanitize under
# SANITIZE=); plain "make clean" removes build/ and all it holds.
clean:
	rm -rf $(BUILD)

# --- peers: real Apache Spark, PySpark and Sail as judges -----------------
# make peers installs them (scripts/peers: Java 17 from Debian, pinned
# PySpark with Spark's jars, pyarrow, pandas and Sail into
# $(BUILD)/peers/venv; about 1.1 GB; quick when present).  make
# check-peers runs test/peers/ against them (scripts/check-peers); without
# them it says what is missing and skips, except under CI.
.PHONY: peers check-peers
peers:
	@scripts/peers $(BUILD)

check-peers: all unit-bins
	@BUILD=$(BUILD) scripts/check-peers
