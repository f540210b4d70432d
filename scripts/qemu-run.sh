#!/usr/bin/env bash
# Boots an anefw ELF under QEMU with semihosting, the console on stdout, and a hard time limit.
# Usage: qemu-run.sh [--board B] [--icount] [--el 1|2|3] [--gdb] [--timeout S] ELF [ARG...]
# The ARGs become the firmware's semihosting command line. The exit status is the firmware's
# (semihosting exit), or 137 when the time limit killed it.
set -euo pipefail
board=qemu-virt; icount=0; el=1; gdb=0; limit=${QEMU_TIMEOUT:-120}
while [ $# -gt 0 ]; do
	case "$1" in
	--board) board=$2; shift 2;;
	--icount) icount=1; shift;;
	--el) el=$2; shift 2;;
	--gdb) gdb=1; shift;;
	--timeout) limit=$2; shift 2;;
	--) shift; break;;
	-*) echo "qemu-run: unknown option $1" >&2; exit 2;;
	*) break;;
	esac
done
[ $# -ge 1 ] || { echo "usage: qemu-run.sh [options] ELF [ARG...]" >&2; exit 2; }
elf=$1; shift
[ -f "$elf" ] || { echo "qemu-run: no such image: $elf" >&2; exit 2; }

case "$board" in
qemu-virt)
	case "$el" in
	1) machine="virt";;
	2) machine="virt,virtualization=on";;
	3) machine="virt,secure=on";;
	*) echo "qemu-run: --el takes 1, 2 or 3" >&2; exit 2;;
	esac
	args=(-M "$machine" -cpu cortex-a53 -smp 1 -m 512M -nic none);;
raspi3b)
	args=(-M raspi3b);;
*) echo "qemu-run: unknown board $board" >&2; exit 2;;
esac

# Semihosting arguments: commas are doubled for QEMU's option parser.
semi="enable=on,target=native,chardev=con0,arg=anefw"
for a in "$@"; do
	semi="$semi,arg=${a//,/,,}"
done
args+=(-display none -monitor none -chardev stdio,id=con0,mux=on -serial chardev:con0
	-semihosting-config "$semi" -kernel "$elf")
[ "$icount" -eq 1 ] && args+=(-icount shift=0,align=off,sleep=off)
if [ "$gdb" -eq 1 ]; then
	args+=(-S -gdb tcp::1234)
	echo "QEMU is halted with its gdb stub on port 1234. Attach with:"
	echo "  gdb-multiarch $elf -ex 'target remote :1234'"
	exec qemu-system-aarch64 "${args[@]}"
fi
exec timeout -s KILL "$limit" qemu-system-aarch64 "${args[@]}"
