#include "fw/policy/policy.h"
#include "tests/harness/harness.h"

static void setup(struct pol_table *t)
{
	pol_init(t, 32);
	CHECK_EQ(pol_forbid(t, 0x40000000, 0x100000), POL_OK);          /* firmware image */
	CHECK_EQ(pol_grant(t, 0, 0x1000, 0x4000, 0x80000000, POL_READ, 0), POL_OK); /* weights */
	CHECK_EQ(pol_grant(t, 1, 0x0, 0x2000, 0x81000000, POL_READ, 0), POL_OK);    /* input */
	CHECK_EQ(pol_grant(t, 2, 0x0, 0x2000, 0x82000000, POL_WRITE, 0), POL_OK);   /* output */
}

TEST(policy, rebase_inside_grant)
{
	static struct pol_table t; /* 384 KiB: not on the target's stack */
	uint64_t rt = 0;
	setup(&t);
	CHECK_EQ(pol_rebase(&t, 0, 0x1000, 0x4000, POL_READ, &rt), POL_OK);
	CHECK_EQ(rt, 0x80000000);
	CHECK_EQ(pol_rebase(&t, 0, 0x2040, 0x40, POL_READ, &rt), POL_OK);
	CHECK_EQ(rt, 0x80001040);
	CHECK_EQ(pol_check_offset(&t, 2, 0x1ff0, 0x10, POL_WRITE, &rt), POL_OK);
	CHECK_EQ(rt, 0x82001ff0);
	CHECK_EQ(pol_check_aliasing(&t, NULL), POL_OK);
}

TEST(policy, refusals_are_named)
{
	static struct pol_table t; /* 384 KiB: not on the target's stack */
	uint64_t rt = 0x1234;
	setup(&t);
	CHECK_EQ(pol_rebase(&t, 32, 0, 4, POL_READ, &rt), POL_E_BAR_INDEX);
	CHECK_EQ(pol_rebase(&t, 5, 0, 4, POL_READ, &rt), POL_E_BAR_ABSENT);
	CHECK_EQ(pol_rebase(&t, 0, 0xfff, 4, POL_READ, &rt), POL_E_OUT_OF_BUFFER);
	CHECK_EQ(pol_rebase(&t, 0, 0x4fff, 2, POL_READ, &rt), POL_E_OUT_OF_BUFFER);
	CHECK_EQ(pol_rebase(&t, 0, 0x1001, UINT64_MAX, POL_READ, &rt), POL_E_OVERFLOW);
	CHECK_EQ(pol_rebase(&t, 0, 0x1000, 0, POL_READ, &rt), POL_E_EMPTY);
	CHECK_EQ(pol_rebase(&t, 0, 0x1000, 4, POL_WRITE, &rt), POL_E_ACCESS);
	CHECK_EQ(pol_check_offset(&t, 2, 0, 4, POL_READ, &rt), POL_E_ACCESS);
	CHECK_EQ(rt, 0x1234); /* nothing written on refusal */
	CHECK_STR(pol_err_name(POL_E_ACCESS), "access-not-granted");
}

TEST(policy, grants_are_checked)
{
	static struct pol_table t; /* 384 KiB: not on the target's stack */
	setup(&t);
	CHECK_EQ(pol_grant(&t, 0, 0, 16, 0x90000000, POL_READ, 0), POL_E_GRANT_TWICE);
	CHECK_EQ(pol_grant(&t, 40, 0, 16, 0x90000000, POL_READ, 0), POL_E_BAR_INDEX);
	CHECK_EQ(pol_grant(&t, 3, 0, 0, 0x90000000, POL_READ, 0), POL_E_GRANT);
	CHECK_EQ(pol_grant(&t, 3, UINT64_MAX, 2, 0x90000000, POL_READ, 0), POL_E_GRANT);
	CHECK_EQ(pol_grant(&t, 3, 0, 16, 0x90000000, 8, 0), POL_E_GRANT);
	CHECK_EQ(pol_grant(&t, 3, 0, 0x1000, 0xfffff800, POL_READ, 0), POL_E_REACH);
	CHECK_EQ(pol_grant(&t, 3, 0, 16, 0x100000000ull, POL_READ, 0), POL_E_REACH); /* 64-bit */
	CHECK_EQ(pol_grant(&t, 3, 0, 0x1000, 0x400ff000, POL_RW, 0), POL_E_FORBIDDEN);
	CHECK_EQ(pol_grant(&t, 3, 0, 0x1000, 0x3ffff800, POL_RW, 0), POL_E_FORBIDDEN);
	CHECK_EQ(pol_grant(&t, 3, 0, 0x1000, 0x40100000, POL_RW, 0), POL_OK); /* just above */
}

TEST(policy, strided_extent)
{
	uint64_t ext = 0;
	uint64_t d[3] = {4, 3, 2}, s[3] = {2, 64, 1024};
	CHECK_EQ(pol_strided_extent(d, s, 3, 2, &ext), POL_OK);
	CHECK_EQ(ext, 2 + 3 * 2 + 2 * 64 + 1 * 1024);
	uint64_t big[2] = {0x100000000ull, 0x100000000ull}, bs[2] = {0x100000000ull, 1};
	CHECK_EQ(pol_strided_extent(big, bs, 2, 2, &ext), POL_E_OVERFLOW);
	uint64_t z[1] = {0}, zs[1] = {4};
	CHECK_EQ(pol_strided_extent(z, zs, 1, 2, &ext), POL_E_EMPTY);
}

TEST(policy, output_may_not_overlap_input)
{
	static struct pol_table t; /* 384 KiB: not on the target's stack */
	uint64_t rt;
	pol_init(&t, 32);
	/* two BARs mapping the same memory: a read through one, a write through the other */
	CHECK_EQ(pol_grant(&t, 1, 0, 0x1000, 0x10000000, POL_READ, 0), POL_OK);
	CHECK_EQ(pol_grant(&t, 2, 0, 0x1000, 0x10000800, POL_RW, 0), POL_OK);
	t.td = 0;
	CHECK_EQ(pol_check_offset(&t, 1, 0, 0x1000, POL_READ, &rt), POL_OK);
	t.td = 3; /* the accesses now recorded are TD 3's */
	CHECK_EQ(pol_check_offset(&t, 2, 0, 0x100, POL_WRITE, &rt), POL_OK);
	struct pol_alias ab = {99, 99};
	CHECK_EQ(pol_check_aliasing(&t, &ab), POL_E_ALIAS);
	CHECK_EQ(ab.bar, 2u); /* the write's BAR */
	CHECK_EQ(ab.td, 3);   /* and its TD */

	/* the same buffer, declared in place, may be read and written */
	pol_init(&t, 32);
	CHECK_EQ(pol_grant(&t, 3, 0, 0x1000, 0x10000000, POL_RW, POL_FLAG_IN_PLACE), POL_OK);
	CHECK_EQ(pol_check_offset(&t, 3, 0, 0x1000, POL_READ, &rt), POL_OK);
	CHECK_EQ(pol_check_offset(&t, 3, 0, 0x1000, POL_WRITE, &rt), POL_OK);
	CHECK_EQ(pol_check_aliasing(&t, NULL), POL_OK);
}
