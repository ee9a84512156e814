// SPDX-License-Identifier: GPL-2.0
/*
 * kernel/exact/exact_insn.c against an independent oracle, valgrind's lackey.
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

#include "exact/exact_insn.h"

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

/*
 * objdump -d --insn-width=16 of any binary on stdin: every instruction objdump
 * decodes must decode to objdump's length (or be refused), and have a memory
 * operand exactly when objdump's operands show one.
 */
struct objdump_insn {
	u64 addr;
	u8 code[16];
	u8 n;
	bool mem;		/* "(" in the operands, or an absolute address */
	bool no_access;		/* lea, nop, prefetch, clflush: an operand, no access */
	bool string;		/* movs, stos, ...: objdump shows (%rsi), (%rdi) */
	s64 disp;		/* the memory operand's displacement as objdump shows it */
	char mnemonic[24];
};

/* Whether AT&T operands name memory, and its displacement: "-0x8(%rbp)", "0x10", "(%rax)". */
static bool objdump_mem(char *ops, s64 *disp)
{
	char *paren, *p;

	*disp = 0;
	/* x87 registers are %st(N) */
	for (p = strstr(ops, "%st("); p; p = strstr(p, "%st("))
		memcpy(p, "%st[", 4);
	paren = strchr(ops, '(');
	if (paren) {
		for (p = paren; p > ops && !strchr(" ,:*", p[-1]); p--)
			;
		if (p < paren)
			*disp = strtoll(p, NULL, 16);
		return true;
	}
	/* an absolute address: a number without '$' (jump targets have no 0x) */
	for (p = strstr(ops, "0x"); p; p = strstr(p + 2, "0x")) {
		if (p > ops && (p[-1] == '$' || p[-1] == '-'))
			continue;
		*disp = (s64)strtoull(p, NULL, 16);
		return true;
	}
	return false;
}

static bool objdump_line(char *line, struct objdump_insn *in)
{
	char *p = line, *ops, word[32];
	unsigned long long addr;
	unsigned int b;
	int used = 0;
	char *end;

	if (sscanf(p, " %llx:\t%n", &addr, &used) != 1 || !used || p[used - 1] != '\t')
		return false;
	p += used;
	in->addr = addr;
	in->n = 0;
	while (sscanf(p, "%2x%n", &b, &used) == 1 && used == 2 && in->n < 16) {
		in->code[in->n++] = b;
		p += used;
		while (*p == ' ')
			p++;
	}
	/* objdump shows fwait (9b) as a prefix of the x87 instruction after it */
	if (*p != '\t' || !in->n || (in->code[0] == 0x9b && in->n > 1))
		return false;
	p++;
	/* prefixes objdump writes as words: skip to the mnemonic */
	while (!strncmp(p, "lock ", 5) || !strncmp(p, "rep ", 4) || !strncmp(p, "repz ", 5) ||
	       !strncmp(p, "repnz ", 6) || !strncmp(p, "notrack ", 8) || !strncmp(p, "bnd ", 4) ||
	       !strncmp(p, "data16 ", 7) || !strncmp(p, "addr32 ", 7) || !strncmp(p, "cs ", 3) ||
	       !strncmp(p, "ds ", 3) || !strncmp(p, "fs ", 3) || !strncmp(p, "gs ", 3) ||
	       !strncmp(p, "ss ", 3) || !strncmp(p, "es ", 3) ||
	       !strncmp(p, "xacquire ", 9) || !strncmp(p, "xrelease ", 9))
		p = strchr(p, ' ') + 1;
	snprintf(in->mnemonic, sizeof(in->mnemonic), "%.*s", (int)strcspn(p, " \n"), p);
	/* data among the code, port I/O: nothing to compare */
	snprintf(word, sizeof(word), " %s ", in->mnemonic);
	if (strstr(" (bad) .byte in out insb insw insl outsb outsw outsl ", word) ||
	    !strncmp(in->mnemonic, "rex", 3))
		return false;
	ops = p + strcspn(p, " \n");
	/* drop the comment and the symbol of a target: "# 1d2ff0 <...>", "26000 <f+0x10>" */
	end = strpbrk(ops, "#<");
	if (end)
		*end = 0;
	in->mem = objdump_mem(ops, &in->disp);
	in->string = !strncmp(in->mnemonic, "movs", 4) || !strncmp(in->mnemonic, "stos", 4) ||
		     !strncmp(in->mnemonic, "lods", 4) || !strncmp(in->mnemonic, "cmps", 4) ||
		     !strncmp(in->mnemonic, "scas", 4);
	in->no_access = !strncmp(in->mnemonic, "lea", 3) || !strncmp(in->mnemonic, "nop", 3) ||
			!strncmp(in->mnemonic, "prefetch", 8) ||
			!strncmp(in->mnemonic, "clflush", 7);
	return true;
}

struct refusal {
	char mnemonic[24];
	unsigned int count;
};

static void count_refusal(struct refusal *r, unsigned int max, const char *mnemonic)
{
	unsigned int i;

	for (i = 0; i < max && r[i].count; i++)
		if (!strcmp(r[i].mnemonic, mnemonic))
			break;
	if (i == max)
		return;
	snprintf(r[i].mnemonic, sizeof(r[i].mnemonic), "%s", mnemonic);
	r[i].count++;
}

static int check_objdump(const char *name)
{
	unsigned int total = 0, agreed = 0, refused = 0, bad = 0, mem = 0, i, j;
	static struct objdump_insn in[2];
	struct refusal refusals[64] = { 0 };
	struct vmt_insn insn;
	char line[512];
	int cur = 0, have = 0;

	/* one instruction behind, so that the next one's bytes can follow it */
	for (;;) {
		bool more = fgets(line, sizeof(line), stdin);
		struct objdump_insn *prev = &in[cur ^ 1];
		u8 code[32];
		unsigned int avail;

		if (more && !objdump_line(line, &in[cur]))
			continue;
		if (have) {
			memcpy(code, prev->code, prev->n);
			avail = prev->n;
			if (more && in[cur].addr == prev->addr + prev->n) {
				memcpy(code + avail, in[cur].code, in[cur].n);
				avail += in[cur].n;
			}
			total++;
			if (vmt_insn_decode(code, avail < 15 ? avail : 15, &insn)) {
				refused++;
				count_refusal(refusals, 64, prev->mnemonic);
			} else if (insn.len != prev->n || (!prev->string &&
				   (insn.kind == VMT_INSN_MODRM) != (prev->mem && !prev->no_access)) ||
				   (insn.kind == VMT_INSN_MODRM && insn.disp != prev->disp)) {
				if (bad++ < 20)
					fprintf(stderr, "%s: %#llx %s: len %u kind %u disp %#llx,"
						" objdump len %u%s disp %#llx\n", name,
						(unsigned long long)prev->addr, prev->mnemonic,
						insn.len, insn.kind, (unsigned long long)insn.disp,
						prev->n, prev->mem ? " with a memory operand" : "",
						(unsigned long long)prev->disp);
			} else {
				agreed++;
				mem += insn.kind == VMT_INSN_MODRM;
			}
		}
		if (!more)
			break;
		have = 1;
		cur ^= 1;
	}
	printf("exact-insn-objdump: %s: %u instructions, %u agree with objdump on length and"
	       " memory operand (%u with one, and its displacement), %u refused, %u disagree\n",
	       name, total, agreed, mem, refused, bad);
	if (refused) {
		/* the most refused, for what to decode next */
		printf("exact-insn-objdump: refused:");
		for (j = 0; j < 12; j++) {
			unsigned int best = 0;

			for (i = 1; i < 64; i++)
				if (refusals[i].count > refusals[best].count)
					best = i;
			if (!refusals[best].count)
				break;
			printf(" %s %u", refusals[best].mnemonic, refusals[best].count);
			refusals[best].count = 0;
		}
		printf("\n");
	}
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "run")) {
		run_forms();
		printf("%#llx\n", (unsigned long long)thread_pointer());
		return 0;
	}
	if (argc == 3 && !strcmp(argv[1], "objdump"))
		return check_objdump(argv[2]);
	if (argc == 5 && !strcmp(argv[1], "check"))
		return check(argv[2], strtoull(argv[3], NULL, 0), argv[4]);
	fprintf(stderr, "usage: %s run | check LACKEY_LOG LACKEY_FS_BASE OBJDUMP_LENGTHS"
		" | objdump NAME <OBJDUMP_OUTPUT\n",
		argv[0]);
	return 2;
}
