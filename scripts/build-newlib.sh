#!/usr/bin/env bash
# Build newlib-nano for aarch64-none-elf from Debian's newlib-source tarball, using the Debian
# aarch64-linux-gnu cross tools as the target compiler. Output: $PREFIX/aarch64-none-elf/{include,lib}.
# Usage: build-newlib.sh BUILD_DIR PREFIX
set -euo pipefail
build=$1
prefix=$2
tarball=$(ls /usr/src/newlib/newlib-*.tar.* 2>/dev/null | head -n1)
[ -n "$tarball" ] || { echo "build-newlib: no newlib tarball under /usr/src/newlib (apt-get install newlib-source)" >&2; exit 1; }
rm -rf "$build" "$prefix"
mkdir -p "$build/src" "$build/obj" "$build/empty-sysroot"
tar -xf "$tarball" -C "$build/src" --strip-components=1
cd "$build/obj"
cross=aarch64-linux-gnu
# CFLAGS_FOR_TARGET: freestanding, no PIE, no outline atomics (avoids __getauxval), strict
# alignment (the firmware runs parts of its life with the MMU off), empty sysroot so no host headers.
tflags="-g -Os -ffunction-sections -fdata-sections -fno-pie -mcpu=cortex-a53 -mstrict-align -mno-outline-atomics --sysroot=$build/empty-sysroot"
"$build/src/configure" \
  --target=aarch64-none-elf --prefix="$prefix" \
  CC_FOR_TARGET="$cross-gcc" CXX_FOR_TARGET="$cross-g++" GCC_FOR_TARGET="$cross-gcc" \
  AR_FOR_TARGET="$cross-ar" AS_FOR_TARGET="$cross-as" LD_FOR_TARGET="$cross-ld" \
  NM_FOR_TARGET="$cross-nm" OBJDUMP_FOR_TARGET="$cross-objdump" RANLIB_FOR_TARGET="$cross-ranlib" \
  STRIP_FOR_TARGET="$cross-strip" READELF_FOR_TARGET="$cross-readelf" \
  CFLAGS_FOR_TARGET="$tflags" \
  --disable-newlib-supplied-syscalls \
  --enable-newlib-reent-small \
  --disable-newlib-fvwrite-in-streamio \
  --disable-newlib-fseek-optimization \
  --disable-newlib-wide-orient \
  --enable-newlib-nano-malloc \
  --disable-newlib-unbuf-stream-opt \
  --enable-lite-exit \
  --enable-newlib-global-atexit \
  --enable-newlib-nano-formatted-io \
  --disable-newlib-multithread \
  --disable-nls --disable-multilib \
  > "$build/configure.log" 2>&1
make -j"$(nproc)" all-target-newlib > "$build/make.log" 2>&1 || { tail -40 "$build/make.log" >&2; exit 1; }
make install-target-newlib > "$build/install.log" 2>&1 || { tail -40 "$build/install.log" >&2; exit 1; }
echo "newlib-nano installed in $prefix"
