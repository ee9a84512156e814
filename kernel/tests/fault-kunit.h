/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests for record encoding: what a fault's error code and PTE become
 * in a reference record, and the record's layout. Included at the bottom of
 * fault.c.
 */
#ifndef _VMTRACE_FAULT_KUNIT_H
#define _VMTRACE_FAULT_KUNIT_H

#include <kunit/test.h>

static void probe_test_access_type(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, vmt_access_type(X86_PF_USER), VMT_ACCESS_READ);
	KUNIT_EXPECT_EQ(test, vmt_access_type(X86_PF_USER | X86_PF_PROT), VMT_ACCESS_READ);
	KUNIT_EXPECT_EQ(test, vmt_access_type(X86_PF_USER | X86_PF_WRITE), VMT_ACCESS_WRITE);
	KUNIT_EXPECT_EQ(test, vmt_access_type(X86_PF_WRITE | X86_PF_PROT), VMT_ACCESS_WRITE);
	/* A fetch is a fetch, whatever else the code says. */
	KUNIT_EXPECT_EQ(test, vmt_access_type(X86_PF_USER | X86_PF_INSTR), VMT_ACCESS_EXEC);
	KUNIT_EXPECT_EQ(test, vmt_access_type(X86_PF_INSTR | X86_PF_PROT), VMT_ACCESS_EXEC);
}

/* A present, writable, dirty PTE of frame 0x1234. */
static pte_t probe_test_pte(void)
{
	return pfn_pte(0x1234, __pgprot(_PAGE_PRESENT | _PAGE_RW | _PAGE_USER |
				       _PAGE_ACCESSED | _PAGE_DIRTY));
}

static void probe_test_fault_cause(struct kunit *test)
{
	pte_t present = probe_test_pte();
	pte_t protnone = vmt_pte_mkprotnone_for_test(present);
	pte_t readonly = pte_wrprotect(present);

	KUNIT_EXPECT_EQ(test, vmt_fault_cause(X86_PF_USER, protnone), VMT_CAUSE_PROTECTION);
	KUNIT_EXPECT_EQ(test, vmt_fault_cause(X86_PF_USER | X86_PF_WRITE, protnone),
			VMT_CAUSE_PROTECTION);
	KUNIT_EXPECT_EQ(test, vmt_fault_cause(X86_PF_USER, __pte(0)), VMT_CAUSE_DEMAND);
	KUNIT_EXPECT_EQ(test, vmt_fault_cause(X86_PF_USER | X86_PF_WRITE | X86_PF_PROT, readonly),
			VMT_CAUSE_COW);
	/* Not present but not none: swapped out, or a migration entry. */
	KUNIT_EXPECT_EQ(test, vmt_fault_cause(X86_PF_USER, __pte(0x1000 << 1)), VMT_CAUSE_OTHER);
	KUNIT_EXPECT_EQ(test, vmt_fault_cause(X86_PF_USER | X86_PF_PROT, readonly),
			VMT_CAUSE_OTHER);
}

static void probe_test_protnone_keeps_frame(struct kunit *test)
{
	pte_t present = probe_test_pte();
	pte_t protnone = vmt_pte_mkprotnone_for_test(present);

	KUNIT_EXPECT_TRUE(test, pte_protnone(protnone));
	KUNIT_EXPECT_FALSE(test, pte_val(protnone) & _PAGE_PRESENT);
	/* pte_pfn() undoes the L1TF inversion: the record gets the real frame. */
	KUNIT_EXPECT_EQ(test, pte_pfn(protnone), 0x1234);
	KUNIT_EXPECT_TRUE(test, pte_write(protnone));
}

static void probe_test_record_layout(struct kunit *test)
{
	/* The ABI, as include/uapi/linux/vmtrace.h lays it out. */
	KUNIT_EXPECT_EQ(test, sizeof(struct vmt_record), VMT_RECORD_SIZE);
	KUNIT_EXPECT_EQ(test, sizeof(struct vmt_record_header), 24);
	KUNIT_EXPECT_EQ(test, offsetof(struct vmt_record, ref.vaddr), 24);
	KUNIT_EXPECT_EQ(test, offsetof(struct vmt_record, ref.pfn), 32);
	KUNIT_EXPECT_EQ(test, offsetof(struct vmt_record, ref.ip), 40);
	KUNIT_EXPECT_EQ(test, offsetof(struct vmt_record, ref.error_code), 48);
	KUNIT_EXPECT_EQ(test, offsetof(struct vmt_record, ref.access), 52);
	KUNIT_EXPECT_EQ(test, offsetof(struct vmt_record, ref.evict_flags), 55);
	KUNIT_EXPECT_EQ(test, offsetof(struct vmt_record, ref.flags), 56);
	KUNIT_EXPECT_EQ(test, offsetof(struct vmt_record, lost.count), 24);
}

static struct kunit_case vmt_probe_test_cases[] = {
	KUNIT_CASE(probe_test_access_type),
	KUNIT_CASE(probe_test_fault_cause),
	KUNIT_CASE(probe_test_protnone_keeps_frame),
	KUNIT_CASE(probe_test_record_layout),
	{}
};

static struct kunit_suite vmt_probe_test_suite = {
	.name = "vmtrace-record",
	.test_cases = vmt_probe_test_cases,
};

kunit_test_suite(vmt_probe_test_suite);

#endif /* _VMTRACE_FAULT_KUNIT_H */
