#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# scripts/lint.sh: the kernel code's style and static checks (`make lint`).
#   1. checkpatch.pl --strict --no-tree --terse -f on usb/*.[ch],
#      i2c-sensor/*.[ch], core/*.[ch], include/isocam/*.h and the suite's
#      test modules, tests/vm/kmods/*.c. checkpatch,
#      spelling.txt and const_structs.checkpatch come from Debian's
#      linux-source-6.1 tarball, extracted once into build/lint/.
#   2. sparse and W=1: make -C $KDIR M=<tree> C=2 W=1 modules, on a copy of
#      the kernel sources in build/lint/tree-SERIES (so the check never
#      races with a normal build's objects in the source tree), for every
#      supported kernel: 6.1 and 6.12 (make deps installs their headers)
#      and 7.2 when a 7.2 tree was built here (make kernel KERNEL=7.2, or
#      the debug kernel, the same source; make check-debug always lints
#      against it). LINT_KERNELS="6.1 ..." names others. Any "warning:"
#      or "error:" fails.
#   3. shellcheck -x -S warning on every tracked shell script (the harness,
#      the suite, the benches, scripts/ and .ci/run). Below warning, its
#      notes are about single-quoted strings with a $ in them, which the
#      suite's wait_for evaluates later on purpose.
# Warnings are failures. Prints a summary; exits non-zero on any finding.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LINT=$ROOT/build/lint
SRC_TARBALL=${SRC_TARBALL:-$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n 1)}
mkdir -p "$LINT"

# --- checkpatch ---------------------------------------------------------------
CP=$LINT/scripts/checkpatch.pl
if [ ! -x "$CP" ]; then
	[ -n "$SRC_TARBALL" ] && [ -f "$SRC_TARBALL" ] ||
		{ echo "lint: no /usr/src/linux-source-*.tar.xz (make deps)" >&2; exit 2; }
	echo "lint: extracting checkpatch from $SRC_TARBALL (once)"
	top=$(basename "$SRC_TARBALL" .tar.xz)
	tar -xJf "$SRC_TARBALL" -C "$LINT" --strip-components=1 \
		"$top/scripts/checkpatch.pl" "$top/scripts/spelling.txt" \
		"$top/scripts/const_structs.checkpatch" ||
		{ echo "lint: cannot extract checkpatch" >&2; exit 2; }
fi

cd "$ROOT" || exit 2
shopt -s nullglob
files=(usb/*.[ch] i2c-sensor/*.[ch] core/*.[ch] compat/*.h include/isocam/*.h tests/vm/kmods/*.c)
shopt -u nullglob
# Kbuild's generated *.mod.c are not ours.
srcs=()
for f in "${files[@]}"; do
	case "$f" in
	*.mod.c) ;;
	# Userspace-only (stdint types): the emulator and the test tools.
	include/isocam/frame_stamp.h) ;;
	*) srcs+=("$f") ;;
	esac
done

cp_errors=0 cp_warnings=0 cp_checks=0
cp_log=$LINT/checkpatch.log
: >"$cp_log"
for f in "${srcs[@]}"; do
	# CAMELCASE: without a tree checkpatch does not know the kernel's own
	# mixed-case identifiers (USB descriptor fields like bNumEndpoints).
	ignore=CAMELCASE
	# The compat header is where the version checks belong, and where
	# macros define old kernels' ops around the new ones.
	case "$f" in
	compat/*) ignore=$ignore,LINUX_VERSION_CODE,CONSTANT_COMPARISON,MACRO_WITH_FLOW_CONTROL ;;
	esac
	perl "$CP" --strict --no-tree --terse --show-types --ignore "$ignore" -f "$f" >>"$cp_log" 2>&1
done
# --terse: one "file:line: SEVERITY:TYPE: message" line per finding.
grep -E ': (ERROR|WARNING|CHECK):' "$cp_log"
cp_errors=$(grep -c ': ERROR:' "$cp_log")
cp_warnings=$(grep -c ': WARNING:' "$cp_log")
cp_checks=$(grep -c ': CHECK:' "$cp_log")
cp_total=$((cp_errors + cp_warnings + cp_checks))

# --- sparse + W=1, on each kernel ----------------------------------------------
# sparse_on SERIES KDIR: adds to sp_findings; logs in build/lint/.
sp_findings=0
sp_summary=
sparse_on() {
	local series=$1 kdir=$2 log=$LINT/sparse-$1.log tree=$LINT/tree-$1 st n d
	rm -rf "$tree"
	mkdir -p "$tree"
	cp Kbuild "$tree/"
	for d in usb i2c-sensor core compat include; do
		[ ! -d "$d" ] || cp -r "$d" "$tree/"
	done
	find "$tree" \( -name '*.o' -o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' \
		-o -name '.*.cmd' -o -name 'modules.order' -o -name 'Module.symvers' \) -delete
	# A fresh make, not a child of make check's -j jobserver: make's own
	# "jobserver unavailable" notice would read as a finding.
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		make -C "$kdir" M="$tree" C=2 W=1 modules >"$log" 2>&1
	st=$?
	# The suite's test modules too, in a tree of their own.
	rm -rf "$tree-kmods"
	cp -r tests/vm/kmods "$tree-kmods"
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
		make -C "$kdir" M="$tree-kmods" C=2 W=1 modules >>"$log" 2>&1 || st=$?
	sed -i "s|$tree-kmods/|$ROOT/tests/vm/kmods/|g" "$log"
	# Report paths in the source tree, not the copy.
	sed -i "s|$tree/|$ROOT/|g" "$log"
	grep -E 'warning:|error:' "$log"
	n=$(grep -cE 'warning:|error:' "$log")
	if [ "$st" != 0 ] && [ "$n" = 0 ]; then
		tail -n 20 "$log"
		n=1
	fi
	sp_findings=$((sp_findings + n))
	sp_summary="$sp_summary $series: $n,"
	echo "lint: sparse C=2 + W=1 against $series ($kdir): $n warnings/errors, build status $st ($log)"
}

for series in ${LINT_KERNELS:-6.1 6.12 7.2}; do
	kdir=$("$ROOT/scripts/find-kernel.sh" --kdir "$series" 2>/dev/null)
	if [ -z "$kdir" ] && [ "$series" = 7.2 ] && [ -z "${LINT_KERNELS:-}" ]; then
		kdir=$("$ROOT/scripts/find-kernel.sh" --kdir debug 2>/dev/null)
		if [ -z "$kdir" ]; then
			echo "lint: 7.2: no tree built here yet (make kernel KERNEL=7.2; make check-debug lints against 7.2)"
			continue
		fi
	fi
	if [ -z "$kdir" ] || [ ! -f "$kdir/Makefile" ]; then
		echo "lint: no kernel build tree for $series (make deps; make kernel KERNEL=$series)" >&2
		sp_findings=$((sp_findings + 1))
		continue
	fi
	sparse_on "$series" "$kdir"
done

# --- shellcheck ---------------------------------------------------------------
sh_log=$LINT/shellcheck.log
mapfile -t shells < <(git -C "$ROOT" ls-files '*.sh' .ci/run)
if command -v shellcheck >/dev/null; then
	shellcheck -x -S warning -f gcc "${shells[@]}" >"$sh_log" 2>&1
	cat "$sh_log"
	sh_findings=$(grep -cE ': (error|warning):' "$sh_log")
else
	echo "lint: shellcheck is not installed (make deps)" | tee "$sh_log"
	sh_findings=1
fi

echo "lint: checkpatch --strict: ${#srcs[@]} files, $cp_errors errors, $cp_warnings warnings, $cp_checks checks ($cp_log)"
echo "lint: sparse C=2 + W=1:${sp_summary%,} warnings/errors"
echo "lint: shellcheck -S warning: ${#shells[@]} scripts, $sh_findings findings ($sh_log)"
if [ "$cp_total" != 0 ] || [ "$sp_findings" != 0 ] || [ "$sh_findings" != 0 ]; then
	echo "lint: FAILED"
	exit 1
fi
echo "lint: clean"
