// SPDX-License-Identifier: GPL-2.0
/*
 * kernel/exact_insn.c against an independent oracle, valgrind's lackey.
 *
 * exact-insn-oracle run
 *	runs the forms of exact-insn-forms.S (under lackey, by the script) and
 *	prints the FS base it ran with.
 * exact-insn-oracle check LACKEY_LOG LACKEY_FS_BASE OBJDUMP_LENGTHS
 *	runs the same forms natively in a child, single-stepping it with ptrace;
 *	at each step inside the forms it decodes the instruction from the bytes
 *	at rip and computes its accesses from the registers of that moment
 *	(vmt_insn_accesses(), as the fault handler will). That sequence must be
 *	lackey's, instruction by instruction: length, and each data access's
 *	load/store/modify, address and size. Every instruction objdump saw in
 *	the forms must decode to objdump's length.
 *
 * Lackey's conventions, normalised here (see the script's header):
 * - a rep string instruction gets one "I" per iteration, and one more, with
 *   no data access, when the count reaches 0; native single-stepping has no
 *   such step: steps and I lines of rep strings with no access are dropped;
 * - xchg with memory is "L" then "M" of the same bytes: the L is dropped;
 * - bt/bts/btr/btc with a register bit offset access the byte holding the
 *   bit; the decoder gives what the SDM says the CPU accesses, the operand
 *   holding it: lackey's byte must lie inside it, with the same access;
 * - packed FMA (vfmadd231ps m) loads each element apart: contiguous accesses
 *   of one kind in one instruction are joined.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include "exact_insn.h"

extern const u8 vmt_forms[], vmt_forms_end[], vmt_forms_avx[], vmt_forms_avx_end[];
void vmt_forms_run(void) __asm__("vmt_forms");
void vmt_forms_avx_run(void) __asm__("vmt_forms_avx");

#define MAX_EVENTS 4

struct step {
	u64 ip;
	unsigned int len;
	int n;			/* data accesses */
	struct vmt_insn_access acc[MAX_EVENTS];
	bool bit_string;	/* bt* Ev, Gv: lackey's byte inside the decoder's operand */
};

struct steps {
	struct step *v;
	size_t n, cap;
};

static struct step *steps_add(struct steps *s)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1024;
		s->v = realloc(s->v, s->cap * sizeof(*s->v));
		if (!s->v) {
			perror("realloc");
			exit(2);
		}
	}
	memset(&s->v[s->n], 0, sizeof(s->v[0]));
	return &s->v[s->n++];
}

static bool have_avx(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2");
}

static const u8 *range_end(u64 ip)
{
	if (ip >= (u64)vmt_forms && ip < (u64)vmt_forms_end)
		return vmt_forms_end;
	if (ip >= (u64)vmt_forms_avx && ip < (u64)vmt_forms_avx_end)
		return vmt_forms_avx_end;
	return NULL;
}

static u64 thread_pointer(void)
{
	u64 fs;

	__asm__ volatile("mov %%fs:0, %0" : "=r"(fs));
	return fs;
}

static void run_forms(void)
{
	vmt_forms_run();
	if (have_avx())
		vmt_forms_avx_run();
}

static int decode_at(u64 ip, struct vmt_insn *insn)
{
	const u8 *end = range_end(ip);
	unsigned int avail = end - (const u8 *)ip;

	return vmt_insn_decode((const u8 *)ip, avail < 15 ? avail : 15, insn);
}

static bool rep_string(const struct vmt_insn *insn)
{
	return insn->kind == VMT_INSN_STRING && (insn->flags & (VMT_INSN_REP | VMT_INSN_REPNE));
}

/* The forms, single-stepped in a child: what the decoder says of each step. */
static int native_steps(struct steps *out, u64 lackey_fs, unsigned int *undecodable)
{
	struct user_regs_struct r;
	unsigned long gpr[16];
	struct vmt_insn insn;
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(3);
		raise(SIGSTOP);
		run_forms();
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status))
		return -1;
	for (;;) {
		if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL))
			return -1;
		if (waitpid(pid, &status, 0) != pid)
			return -1;
		if (WIFEXITED(status))
			return WEXITSTATUS(status) ? -1 : 0;
		if (!WIFSTOPPED(status) || WSTOPSIG(status) != SIGTRAP) {
			fprintf(stderr, "child stopped by signal %d\n", WSTOPSIG(status));
			kill(pid, SIGKILL);
			return -1;
		}
		if (ptrace(PTRACE_GETREGS, pid, NULL, &r))
			return -1;
		if (!range_end(r.rip))
			continue;
		if (decode_at(r.rip, &insn)) {
			fprintf(stderr, "undecodable at %#llx\n", r.rip);
			++*undecodable;
			continue;
		}
		gpr[0] = r.rax, gpr[1] = r.rcx, gpr[2] = r.rdx, gpr[3] = r.rbx;
		gpr[4] = r.rsp, gpr[5] = r.rbp, gpr[6] = r.rsi, gpr[7] = r.rdi;
		gpr[8] = r.r8, gpr[9] = r.r9, gpr[10] = r.r10, gpr[11] = r.r11;
		gpr[12] = r.r12, gpr[13] = r.r13, gpr[14] = r.r14, gpr[15] = r.r15;
		struct step *s = steps_add(out);

		s->ip = r.rip;
		s->len = insn.len;
		/* compare with lackey's run, whose FS base differs */
		s->n = vmt_insn_accesses(&insn, gpr, r.rip + insn.len, lackey_fs, 0, s->acc);
		s->bit_string = insn.flags & VMT_INSN_BITOFF;
		if (rep_string(&insn) && !s->n)
			out->n--;
	}
}

static u8 lackey_access(char c)
{
	return c == 'L' ? VMT_INSN_R : c == 'S' ? VMT_INSN_W : VMT_INSN_RW;
}

static int lackey_steps(const char *path, struct steps *out)
{
	unsigned long long addr;
	struct step *s = NULL;
	unsigned int size;
	char line[256], c;
	FILE *f;

	f = fopen(path, "r");
	if (!f) {
		perror(path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "I %llx,%u", &addr, &size) == 2) {
			struct vmt_insn insn;

			/* the rep iteration that ends on a zero count */
			if (s && !s->n && range_end(s->ip) && !decode_at(s->ip, &insn) &&
			    rep_string(&insn))
				out->n--;
			s = NULL;
			if (!range_end(addr))
				continue;
			s = steps_add(out);
			s->ip = addr;
			s->len = size;
		} else if (s && sscanf(line, " %c %llx,%u", &c, &addr, &size) == 3 &&
			   (c == 'L' || c == 'S' || c == 'M')) {
			/* xchg's L then M of the same bytes: one modify */
			if (c == 'M' && s->n && s->acc[s->n - 1].addr == addr &&
			    s->acc[s->n - 1].size == size && s->acc[s->n - 1].access == VMT_INSN_R)
				s->n--;
			/* FMA on ymm/xmm: one load per element, contiguous: one access */
			if (s->n && s->acc[s->n - 1].access == lackey_access(c) &&
			    s->acc[s->n - 1].addr + s->acc[s->n - 1].size == addr) {
				s->acc[s->n - 1].size += size;
				continue;
			}
			if (s->n == MAX_EVENTS) {
				fprintf(stderr, "more than %d accesses at %#llx\n", MAX_EVENTS,
					(unsigned long long)s->ip);
				fclose(f);
				return -1;
			}
			s->acc[s->n++] = (struct vmt_insn_access){ addr, size, lackey_access(c) };
		}
	}
	fclose(f);
	return 0;
}

static const char *access_name(u8 a)
{
	return a == VMT_INSN_R ? "L" : a == VMT_INSN_W ? "S" : a == VMT_INSN_RW ? "M" : "?";
}

static void print_step(const char *who, const struct step *s)
{
	int i;

	fprintf(stderr, "  %s: ip %#llx len %u:", who, (unsigned long long)s->ip, s->len);
	for (i = 0; i < s->n; i++)
		fprintf(stderr, " %s %#llx,%u", access_name(s->acc[i].access),
			(unsigned long long)s->acc[i].addr, s->acc[i].size);
	fprintf(stderr, "\n");
}

static bool same_access(const struct vmt_insn_access *a, const struct vmt_insn_access *b,
			bool bit_string)
{
	if (a->access != b->access)
		return false;
	if (bit_string)
		return b->addr >= a->addr && b->addr + b->size <= a->addr + a->size;
	return a->addr == b->addr && a->size == b->size;
}

static bool same_step(const struct step *a, const struct step *b)
{
	int i;

	if (a->ip != b->ip || a->len != b->len || a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++)
		if (!same_access(&a->acc[i], &b->acc[i], a->bit_string))
			return false;
	return true;
}

/* objdump's instruction boundaries: "ADDR LEN" lines. */
static int check_lengths(const char *path, unsigned int *agreed)
{
	unsigned long long addr;
	struct vmt_insn insn;
	unsigned int len;
	int bad = 0;
	FILE *f;

	f = fopen(path, "r");
	if (!f) {
		perror(path);
		return -1;
	}
	while (fscanf(f, "%llx %u", &addr, &len) == 2) {
		if (!range_end(addr))
			continue;
		if (decode_at(addr, &insn) || insn.len != len) {
			fprintf(stderr, "length at %#llx: objdump %u, decoder %d\n", addr, len,
				decode_at(addr, &insn) ? -1 : insn.len);
			bad++;
		} else {
			++*agreed;
		}
	}
	fclose(f);
	return bad;
}

static int check(const char *log, u64 lackey_fs, const char *lengths)
{
	struct steps native = { 0 }, lackey = { 0 };
	unsigned int undecodable = 0, lens = 0, accesses = 0, bit_strings = 0, distinct = 0;
	int bad = 0, shown = 0;
	size_t i;

	if (native_steps(&native, lackey_fs, &undecodable) || lackey_steps(log, &lackey))
		return 2;
	for (i = 0; i < native.n || i < lackey.n; i++) {
		const struct step *a = i < native.n ? &native.v[i] : NULL;
		const struct step *b = i < lackey.n ? &lackey.v[i] : NULL;

		if (a && b && same_step(a, b)) {
			accesses += a->n;
			bit_strings += a->bit_string;
			distinct += !i || native.v[i - 1].ip < a->ip;
			continue;
		}
		bad++;
		if (shown++ < 10) {
			fprintf(stderr, "exact-insn-oracle: step %zu differs\n", i);
			if (a)
				print_step("decoder", a);
			if (b)
				print_step("lackey ", b);
		}
		if (!a || !b || a->ip != b->ip)
			break;	/* out of step: the rest would only repeat it */
	}
	bad += undecodable;
	bad += check_lengths(lengths, &lens);
	printf("exact-insn-oracle: %zu steps (%u instructions) agree with lackey, %u accesses;"
	       " %u of them bt* with a register offset (lackey's byte inside the operand);"
	       " %u lengths agree with objdump\n", native.n, distinct, accesses, bit_strings, lens);
	printf("exact-insn-oracle: %d passed, %d failed\n", bad ? 0 : 1, bad ? 1 : 0);
	free(native.v);
	free(lackey.v);
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "run")) {
		run_forms();
		printf("%#llx\n", (unsigned long long)thread_pointer());
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "check"))
		return check(argv[2], strtoull(argv[3], NULL, 0), argv[4]);
	fprintf(stderr, "usage: %s run | check LACKEY_LOG LACKEY_FS_BASE OBJDUMP_LENGTHS\n",
		argv[0]);
	return 2;
}
