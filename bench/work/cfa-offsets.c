// SPDX-License-Identifier: GPL-2.0
/*
 * How many bytes above sp does the return address lie, over the code of
 * some ELF files? This sizes tprof-read's default (hybrid) snapshot: an
 * interrupted function whose CFA is sp + N needs the N bytes from sp for
 * its return address (the word at sp + N - 8); one whose CFA is bp-based
 * needs none (the FP chain joins at its bp). Every byte of code with CFI
 * (.eh_frame, else .debug_frame: Go) counts by the CFI row covering it.
 *
 * A second table counts functions (ELF symbols): each frameless one (no
 * bp-based row) by its largest N, the bytes its return address needs
 * wherever it is interrupted.
 *
 *   cfa-offsets FILE...    one line per file, then the total
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const unsigned int sizes[] = { 16, 32, 64, 128, 256, 512, 1024, 2048,
				      4096, 8192 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

struct tally {
	unsigned long long bytes;	/* code bytes with a CFI row */
	unsigned long long nocfi;	/* code bytes without */
	unsigned long long fp;		/* CFA bp-based */
	unsigned long long expr;	/* CFA an expression (PLT) */
	unsigned long long upto[NSIZES];	/* sp-based, N <= sizes[i] */
	unsigned long long n_hist[65536 / 8 + 1];
	/* functions: frameless ones by their largest N; with a frame */
	unsigned long long f_hist[65536 / 8 + 1], f_frameless, f_fp;
};

/* one function's rows so far */
struct fn {
	bool fp;
	long long maxn;
};

static void row(Dwarf_Frame *fr, unsigned long long len, int sp, int bp,
		struct tally *t, struct fn *f)
{
	Dwarf_Op *ops;
	size_t nops, i;
	int reg = -1;
	long long off = 0;

	t->bytes += len;
	if (dwarf_frame_cfa(fr, &ops, &nops) || nops != 1) {
		t->expr += len;
		return;
	}
	if (ops[0].atom == DW_OP_bregx) {
		reg = ops[0].number;
		off = (long long)ops[0].number2;
	} else if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		reg = ops[0].atom - DW_OP_breg0;
		off = (long long)ops[0].number;
	}
	if (reg == bp) {
		t->fp += len;
		f->fp = true;
		return;
	}
	if (reg != sp || off < 0) {
		t->expr += len;
		return;
	}
	if (off > f->maxn)
		f->maxn = off;
	for (i = 0; i < NSIZES; i++)
		if ((unsigned long long)off <= sizes[i])
			t->upto[i] += len;
	t->n_hist[off / 8 < 65536 / 8 ? off / 8 : 65536 / 8] += len;
}

/* every function symbol of .symtab, else .dynsym, by its rows */
static void scan_functions(Elf *elf, Dwarf_CFI *eh, Dwarf_CFI *dbg, int sp,
			   int bp, struct tally *t)
{
	static struct tally junk;
	Elf_Scn *scn = NULL, *symscn = NULL;
	GElf_Shdr sh;
	Elf_Data *data;
	size_t i, n;

	while ((scn = elf_nextscn(elf, scn)))
		if (gelf_getshdr(scn, &sh) && (sh.sh_type == SHT_SYMTAB ||
		    (sh.sh_type == SHT_DYNSYM && !symscn)))
			symscn = scn;
	if (!symscn || !gelf_getshdr(symscn, &sh) ||
	    !(data = elf_getdata(symscn, NULL)))
		return;
	n = sh.sh_size / (sh.sh_entsize ? sh.sh_entsize : 1);
	for (i = 0; i < n; i++) {
		struct fn f = { .maxn = -1 };
		Dwarf_Addr a, end;
		GElf_Sym sym;

		if (!gelf_getsym(data, i, &sym) ||
		    GELF_ST_TYPE(sym.st_info) != STT_FUNC || !sym.st_size ||
		    sym.st_shndx == SHN_UNDEF)
			continue;
		for (a = sym.st_value; a < sym.st_value + sym.st_size; a = end) {
			Dwarf_Frame *fr = NULL;
			Dwarf_Addr start;
			bool sig;

			if (!(eh && !dwarf_cfi_addrframe(eh, a, &fr)) &&
			    !(dbg && !dwarf_cfi_addrframe(dbg, a, &fr))) {
				end = a + 1;
				continue;
			}
			dwarf_frame_info(fr, &start, &end, &sig);
			if (end <= a)
				end = a + 1;
			row(fr, 0, sp, bp, &junk, &f);
			free(fr);
		}
		if (f.fp) {
			t->f_fp++;
		} else if (f.maxn >= 0) {
			t->f_frameless++;
			t->f_hist[f.maxn / 8 < 65536 / 8 ? f.maxn / 8 :
				  65536 / 8]++;
		}
	}
}

static int scan(const char *path, struct tally *t)
{
	int fd = open(path, O_RDONLY), sp = 7, bp = 6;
	Dwarf_CFI *eh, *dbg = NULL;
	Elf_Scn *scn = NULL;
	Dwarf *dw;
	Elf *elf;

	if (fd < 0) {
		perror(path);
		return -1;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf) {
		close(fd);
		return -1;
	}
	if (gelf_getclass(elf) == ELFCLASS32) {
		sp = 4;
		bp = 5;
	}
	eh = dwarf_getcfi_elf(elf);
	dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
	if (dw)
		dbg = dwarf_getcfi(dw);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Dwarf_Addr a, end;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS ||
		    !(sh.sh_flags & SHF_EXECINSTR))
			continue;
		for (a = sh.sh_addr; a < sh.sh_addr + sh.sh_size; a = end) {
			Dwarf_Frame *fr = NULL;
			Dwarf_Addr start;
			bool sig;

			if (!(eh && !dwarf_cfi_addrframe(eh, a, &fr)) &&
			    !(dbg && !dwarf_cfi_addrframe(dbg, a, &fr))) {
				t->nocfi++;
				end = a + 1;
				continue;
			}
			dwarf_frame_info(fr, &start, &end, &sig);
			if (end <= a)
				end = a + 1;
			if (end > sh.sh_addr + sh.sh_size)
				end = sh.sh_addr + sh.sh_size;
			row(fr, end - a, sp, bp, t, &(struct fn){ 0 });
			free(fr);
		}
	}
	scan_functions(elf, eh, dbg, sp, bp, t);
	if (dw)
		dwarf_end(dw);
	if (eh)
		dwarf_cfi_end(eh);
	elf_end(elf);
	close(fd);
	return 0;
}

/* the smallest N with at least pct of the sp-based bytes at or below it */
static unsigned int pctl(const struct tally *t, double pct)
{
	unsigned long long sp_bytes = t->bytes - t->fp - t->expr, acc = 0;
	size_t i;

	for (i = 0; i <= 65536 / 8; i++) {
		acc += t->n_hist[i];
		if (acc >= pct / 100.0 * sp_bytes)
			return i * 8;
	}
	return 65536;
}

static unsigned int fpctl(const struct tally *t, double pct)
{
	unsigned long long acc = 0;
	size_t i;

	for (i = 0; i <= 65536 / 8; i++) {
		acc += t->f_hist[i];
		if (acc >= pct / 100.0 * t->f_frameless)
			return i * 8;
	}
	return 65536;
}

static void print_fn(const char *name, const struct tally *t)
{
	unsigned long long acc = 0;
	size_t i, k = 0;

	printf("| %s | %llu | %llu | %u | %u | %u |", name, t->f_fp,
	       t->f_frameless, fpctl(t, 50), fpctl(t, 90), fpctl(t, 99));
	for (i = 0; i <= 65536 / 8 && k < NSIZES; i++) {
		while (k < NSIZES && i * 8 > sizes[k]) {
			printf(" %.2f%% |", 100.0 * acc /
			       (t->f_frameless ? t->f_frameless : 1));
			k++;
		}
		acc += t->f_hist[i];
	}
	for (; k < NSIZES; k++)
		printf(" %.2f%% |", 100.0 * acc /
		       (t->f_frameless ? t->f_frameless : 1));
	printf("\n");
}

static void print(const char *name, const struct tally *t)
{
	size_t i;

	printf("| %s | %llu | %.1f%% | %.1f%% | %u | %u | %u |", name, t->bytes,
	       100.0 * t->fp / (t->bytes ? t->bytes : 1),
	       100.0 * t->expr / (t->bytes ? t->bytes : 1),
	       pctl(t, 50), pctl(t, 90), pctl(t, 99));
	/* covered: bp-based rows need no bytes; sp-based ones need N */
	for (i = 0; i < NSIZES; i++)
		printf(" %.2f%% |", 100.0 * (t->fp + t->upto[i]) /
		       (t->bytes ? t->bytes : 1));
	printf("\n");
}

int main(int argc, char **argv)
{
	static struct tally total, one, per[64];
	size_t i;
	int a;

	elf_version(EV_CURRENT);
	printf("Code bytes, by the CFI row covering each:\n\n");
	printf("| file | code bytes with CFI | CFA bp-based | CFA expression | sp-based N p50 | p90 | p99 |");
	for (i = 0; i < NSIZES; i++)
		printf(" covered by %u |", sizes[i]);
	printf("\n|---|---|---|---|---|---|---|");
	for (i = 0; i < NSIZES; i++)
		printf("---|");
	printf("\n");
	if (argc > 64)
		argc = 64;
	for (a = 1; a < argc; a++) {
		const char *base = strrchr(argv[a], '/');

		memset(&one, 0, sizeof(one));
		if (scan(argv[a], &one))
			continue;
		print(base ? base + 1 : argv[a], &one);
		total.bytes += one.bytes;
		total.nocfi += one.nocfi;
		total.fp += one.fp;
		total.expr += one.expr;
		for (i = 0; i < NSIZES; i++)
			total.upto[i] += one.upto[i];
		for (i = 0; i <= 65536 / 8; i++) {
			total.n_hist[i] += one.n_hist[i];
			total.f_hist[i] += one.f_hist[i];
		}
		total.f_fp += one.f_fp;
		total.f_frameless += one.f_frameless;
		memcpy(&per[a], &one, sizeof(one));
	}
	print("all", &total);
	printf("\nFunctions (ELF symbols): frameless ones by the largest N of their rows:\n\n");
	printf("| file | with a frame (bp-based rows) | frameless | largest N p50 | p90 | p99 |");
	for (i = 0; i < NSIZES; i++)
		printf(" covered by %u |", sizes[i]);
	printf("\n|---|---|---|---|---|---|");
	for (i = 0; i < NSIZES; i++)
		printf("---|");
	printf("\n");
	for (a = 1; a < argc; a++) {
		const char *base = strrchr(argv[a], '/');

		if (per[a].bytes)
			print_fn(base ? base + 1 : argv[a], &per[a]);
	}
	print_fn("all", &total);
	return 0;
}
