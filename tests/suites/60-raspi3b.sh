# Raspberry Pi 3 (raspi3b): the flashable raw image, both ways QEMU can boot the board (the raw image
# at EL2 like the Pi firmware, the ELF at EL3 with every core at the entry), the secondary cores'
# release through the spin table, and the BCM2835 DMA driver's tests from the raw image.
. tests/lib.sh
if ! echo " $TEST_BOARDS " | grep -q ' raspi3b '; then
	t_not_run raspi3b.all "raspi3b is not in TEST_BOARDS ($TEST_BOARDS)"
	t_done; exit
fi
B3="$BUILD/raspi3b"

# kernel8.img is the ELF's loadable content from 0x80000, starting with the entry code.
img="$B3/kernel8.img"
if [ -s "$img" ] && [ -s "$B3/anefw.elf" ]; then
	tmp=$(mktemp)
	aarch64-linux-gnu-objcopy -O binary "$B3/anefw.elf" "$tmp"
	entry=$(aarch64-linux-gnu-readelf -h "$B3/anefw.elf" | awk '/Entry point/ {print $4}')
	if cmp -s "$img" "$tmp" && [ "$entry" = "0x80000" ]; then
		t_pass raspi3b.kernel8_img_is_the_image_at_0x80000
	else
		t_fail raspi3b.kernel8_img_is_the_image_at_0x80000 "entry $entry"
	fi
	rm -f "$tmp"
else
	t_fail raspi3b.kernel8_img_is_the_image_at_0x80000 "no $img"
fi

# The raw image boots like on the board (EL2, core 0 alone) and runs the main job.
out=$(qemu_run --board raspi3b --timeout 30 "$img" 2>&1); rc=$?
if [ "$rc" -eq 0 ] && echo "$out" | grep -q 'board: raspi3b' \
	&& echo "$out" | grep -q 'entered at EL2' && echo "$out" | grep -q 'anefw: done'; then
	t_pass raspi3b.kernel8_img_boots_at_el2_and_runs_the_job
else
	t_fail raspi3b.kernel8_img_boots_at_el2_and_runs_the_job "exit $rc"
	echo "$out" | tail -n 10
fi

# Entry at EL2 (raw image) and EL3 (ELF) both end at EL1 with the MMU on.
for el in 2 3; do
	out=$(qemu_run --board raspi3b --el "$el" --timeout 30 "$B3/anefw-tests.elf" mode=el 2>&1); rc=$?
	if [ "$rc" -eq 0 ] && echo "$out" | grep -q "entered at EL$el, running at EL1, mmu on"; then
		t_pass "raspi3b.entry_el$el"
	else
		t_fail "raspi3b.entry_el$el" "exit $rc: $out"
	fi
done

# From the raw image (cores 1-3 parked in the boot stub's spin table): the secondary cores are
# released and run with the MMU on (core 1 first as the command service's host core, started from
# the stub by the spin table, then again with cores 2-3), and the DMA tests pass on the BCM2835
# controller.
out=$(qemu_run --board raspi3b --el 2 --timeout 60 "$B3/anefw-tests.elf" cmd_shm raspi3b bcm2835_dma dma_board 2>&1); rc=$?
if [ "$rc" -eq 0 ] && echo "$out" | grep -q '^ok   raspi3b.secondary_cores_are_released' \
	&& echo "$out" | grep -q '^ok   cmd_shm.session_with_a_host_core' \
	&& echo "$out" | grep -q '^ok   dma_board.stride_2d' \
	&& echo "$out" | grep -Eq '^[1-9][0-9]* passed, 0 failed, 0 skipped'; then
	t_pass "raspi3b.el2_spin_table_release_and_bcm2835_dma ($(echo "$out" | tail -n1))"
else
	t_fail raspi3b.el2_spin_table_release_and_bcm2835_dma "exit $rc"
	echo "$out" | grep -v '^ok' | tail -n 20
fi
t_done
