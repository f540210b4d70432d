#!/usr/bin/env bash
# Installs what the build needs from Debian, only what is missing. Run by the Makefile.
set -euo pipefail
need=()
have() { command -v "$1" >/dev/null 2>&1; }
have aarch64-linux-gnu-gcc || need+=(gcc-aarch64-linux-gnu)
have aarch64-linux-gnu-as || need+=(binutils-aarch64-linux-gnu)
have qemu-system-aarch64 || need+=(qemu-system-arm)
have gcc || need+=(gcc)
have make || need+=(make)
have clang || need+=(clang)
ls /usr/src/newlib/newlib-*.tar.* >/dev/null 2>&1 || need+=(newlib-source)
/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1 || need+=(python3-numpy)
# drm.h, for building eiln's libane unchanged in the Asahi-userspace tests (docs/asahi.md)
[ -f /usr/include/libdrm/drm.h ] || need+=(libdrm-dev)
# libFuzzer and the sanitizer runtimes for clang
ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 \
	|| [ "$(uname -m)" != x86_64 ] || need+=(libclang-rt-dev)
if [ ${#need[@]} -eq 0 ]; then
	echo "setup: all build dependencies present"
	exit 0
fi
echo "setup: installing ${need[*]}"
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
$SUDO apt-get install -y -q --no-install-recommends "${need[@]}"
