#!/usr/bin/env bash
# Boots an anefw ELF under QEMU with semihosting, the console on stdout, and a hard time limit.
# Usage: qemu-run.sh [--board B] [--icount] [--el 1|2|3] [--gdb] [--timeout S] [--serial-tcp PORT]
#                    [--link-tcp PORT] [--mem SIZE] IMAGE [ARG...]
# --serial-tcp PORT: the first UART on 127.0.0.1:PORT (QEMU listens and waits for one client
# before it starts the machine) instead of stdout; semihosting output stays on stdout.
# --link-tcp PORT: the command link (docs/service.md, "Transport 2") on 127.0.0.1:PORT, the same
# way: on qemu-virt a virtio console (the UART stays on stdout), on raspi3b the UART.
# --mem SIZE: the machine's RAM (qemu-virt; the default 2G, what the image is linked for: QEMU
# gives pages as the guest touches them); raspi3b has its 1G.
# The ARGs become the firmware's semihosting command line. The exit status is the firmware's
# (semihosting exit), or 137 when the time limit killed it.
# raspi3b: an ELF starts all four cores at EL3 (the default, --el 3); a raw image (*.img, *.bin)
# or --el 2 (the ELF converted to a raw image) boots like the Pi firmware: core 0 at EL2 at
# 0x80000, cores 1-3 parked in QEMU's spin table.
set -euo pipefail
board=qemu-virt; icount=0; el=; gdb=0; limit=${QEMU_TIMEOUT:-120}; tcp=; link=; mem=2G
while [ $# -gt 0 ]; do
	case "$1" in
	--board) board=$2; shift 2;;
	--icount) icount=1; shift;;
	--el) el=$2; shift 2;;
	--gdb) gdb=1; shift;;
	--timeout) limit=$2; shift 2;;
	--serial-tcp) tcp=$2; shift 2;;
	--link-tcp) link=$2; shift 2;;
	--mem) mem=$2; shift 2;;
	--) shift; break;;
	-*) echo "qemu-run: unknown option $1" >&2; exit 2;;
	*) break;;
	esac
done
[ $# -ge 1 ] || { echo "usage: qemu-run.sh [options] ELF [ARG...]" >&2; exit 2; }
elf=$1; shift
[ -f "$elf" ] || { echo "qemu-run: no such image: $elf" >&2; exit 2; }
# a TCP port is 1..65535: QEMU took 99999 as 34463 (99999 - 65536) and listened there, while
# make serve said to connect to 99999
for p in "$link" "$tcp"; do
	[ -z "$p" ] && continue
	ok=1
	case "$p" in *[!0-9]*) ok=0;; esac
	[ "$ok" = 1 ] && [ "${#p}" -le 5 ] && [ "$p" -ge 1 ] && [ "$p" -le 65535 ] && continue
	echo "qemu-run: a TCP port is a number from 1 to 65535 (--link-tcp, --serial-tcp, make serve's PORT): got '$p'" >&2
	exit 2
done

tmpimg=
cleanup() { [ -z "$tmpimg" ] || rm -f "$tmpimg"; }
case "$board" in
qemu-virt)
	case "${el:-1}" in
	1) machine="virt";;
	2) machine="virt,virtualization=on";;
	3) machine="virt,secure=on";;
	*) echo "qemu-run: --el takes 1, 2 or 3" >&2; exit 2;;
	esac
	args=(-M "$machine" -cpu cortex-a53 -smp 2 -m "$mem" -nic none)
	if [ -n "$link" ]; then
		# virtio 1.x registers (the driver, drivers/virtio, drives the modern interface)
		args+=(-global virtio-mmio.force-legacy=false
			-chardev "socket,id=link0,host=127.0.0.1,port=$link,server=on,wait=on"
			-device virtio-serial-device,max_ports=1 -device virtconsole,chardev=link0)
	fi;;
raspi3b)
	case "$elf" in *.img|*.bin) el=${el:-2};; esac
	case "${el:-3}" in
	3) ;;
	2)	if [ "$(head -c4 "$elf" | od -An -c | tr -d ' ')" = "177ELF" ]; then
			tmpimg=$(mktemp --suffix=.img)
			aarch64-linux-gnu-objcopy -O binary "$elf" "$tmpimg"
			elf=$tmpimg
		fi;;
	*) echo "qemu-run: raspi3b starts at EL3 (an ELF) or EL2 (a raw image)" >&2; exit 2;;
	esac
	[ -z "$link" ] || tcp=$link
	args=(-M raspi3b -m 1G -nic none);;
*) echo "qemu-run: unknown board $board" >&2; exit 2;;
esac

# Semihosting arguments: commas are doubled for QEMU's option parser.
semi="enable=on,target=native,chardev=con0,arg=anefw"
for a in "$@"; do
	# an output over a device or a FIFO: the firmware writes PATH.part and renames it over PATH
	# (semihosting has no stat, so it cannot write one in place); the host's rename replaced
	# the device with a regular file (out:NAME=/dev/null as root replaced /dev/null)
	case "$a" in out:*=?*)
		p=${a#*=}
		# a symbolic link is written through, as the host tool does (hal_file_resolve):
		# semihosting cannot read a link, and the rename replaced the link itself, so the
		# firmware is given the file it names
		if [ -L "$p" ]; then
			if ! r=$(readlink -f -- "$p"); then
				echo "error: $a: $p is a symbolic link that does not resolve (a loop, or its target's directory is not there) (nothing run)" >&2
				exit 1
			fi
			p=$r
			a="${a%%=*}=$p"
		fi
		if [ -e "$p" ] && [ ! -f "$p" ] && [ ! -d "$p" ]; then
			echo "error: $a: $p is a device or a FIFO, not a file; the firmware writes an output to PATH.part and renames it over PATH, which would replace it: give a file's path (nothing run)" >&2
			exit 1
		fi;;
	esac
	semi="$semi,arg=${a//,/,,}"
done
if [ -n "$tcp" ]; then
	case "$tcp" in ''|*[!0-9]*) echo "qemu-run: --serial-tcp takes a port number" >&2; exit 2;; esac
	serial=(-serial "tcp:127.0.0.1:$tcp,server=on,wait=on")
else
	serial=(-serial chardev:con0)
fi
args+=(-display none -monitor none -chardev stdio,id=con0,mux=on "${serial[@]}"
	-semihosting-config "$semi" -kernel "$elf")
[ "$icount" -eq 1 ] && args+=(-icount shift=0,align=off,sleep=off)
if [ "$gdb" -eq 1 ]; then
	args+=(-S -gdb tcp::1234)
	echo "QEMU is halted with its gdb stub on port 1234. Attach with:"
	echo "  gdb-multiarch $elf -ex 'target remote :1234'"
	if [ -n "$tmpimg" ]; then
		qemu-system-aarch64 "${args[@]}"; rc=$?; cleanup; exit $rc
	fi
	exec qemu-system-aarch64 "${args[@]}"
fi
if [ -n "$tmpimg" ]; then
	rc=0; timeout -s KILL "$limit" qemu-system-aarch64 "${args[@]}" || rc=$?
	cleanup; exit $rc
fi
exec timeout -s KILL "$limit" qemu-system-aarch64 "${args[@]}"
