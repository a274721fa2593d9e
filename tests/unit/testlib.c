// SPDX-License-Identifier: GPL-2.0
/* tprof unit tests: tiny test framework and a record stream builder. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testlib.h"
#include "lib/util.h"

int t_checks_failed;
const char *t_skip_reason;

static const char *env_path(const char *var, const char *def,
			    const char *rel)
{
	static char bufs[8][4096];
	static int next;
	const char *base = getenv(var);
	char *b = bufs[next++ % 8];

	snprintf(b, sizeof(bufs[0]), "%s/%s", base && *base ? base : def, rel);
	return b;
}

const char *build_path(const char *rel)
{
	return env_path("TPROF_BUILD", "build", rel);
}

const char *root_path(const char *rel)
{
	return env_path("TPROF_ROOT", ".", rel);
}

bool have_cmd(const char *cmd)
{
	char buf[512];

	snprintf(buf, sizeof(buf), "command -v %s >/dev/null 2>&1", cmd);
	return system(buf) == 0;
}

int exec_errno(const char *path)
{
	int pfd[2], err = 0;
	ssize_t n;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC))
		return errno;
	pid = fork();
	if (pid < 0) {
		err = errno;
		close(pfd[0]);
		close(pfd[1]);
		return err;
	}
	if (pid == 0) {
		/* no mode: the program prints its usage and exits */
		char *const argv[] = { (char *)path, (char *)"--exec-probe", NULL };
		int fd = open("/dev/null", O_RDWR);

		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execv(path, argv);
		err = errno;
		if (write(pfd[1], &err, sizeof(err)) < 0)
			_exit(126);
		_exit(127);
	}
	close(pfd[1]);
	/* EOF (0 bytes): the exec succeeded and closed the pipe */
	do
		n = read(pfd[0], &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	if (n != sizeof(err))
		err = 0;
	close(pfd[0]);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	return err;
}

const char *modern_go(void)
{
	static char path[256];
	int v;

	for (v = 30; v >= 21; v--) {
		snprintf(path, sizeof(path), "/usr/lib/go-1.%d/bin/go", v);
		if (!access(path, X_OK))
			return path;
	}
	return NULL;
}

int write_text(const char *path, const char *text)
{
	FILE *fp = fopen(path, "we");
	int ok;

	CHECK(fp != NULL);
	if (!fp)
		return -1;
	ok = fputs(text, fp) >= 0;
	ok = !fclose(fp) && ok;
	CHECK(ok);
	return ok ? 0 : -1;
}

int run_capture(const char *cmd, char **out)
{
	size_t cap = 4096, n = 0;
	char *buf = xmalloc(cap);
	FILE *fp = popen(cmd, "r");
	int st;

	if (!fp) {
		free(buf);
		*out = NULL;
		return -1;
	}
	for (;;) {
		size_t r;

		if (cap - n < 1024) {
			cap *= 2;
			buf = xrealloc(buf, cap);
		}
		r = fread(buf + n, 1, cap - n - 1, fp);
		if (!r)
			break;
		n += r;
	}
	buf[n] = 0;
	st = pclose(fp);
	*out = buf;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

void t_check_has(const char *file, int line, const char *expr, const char *s,
		 const char *want)
{
	if (s && strstr(s, want))
		return;
	fprintf(stderr, "    %s:%d: %s does not hold \"%s\"\n", file, line,
		expr, want);
	t_checks_failed++;
}

const char *tprof_read_bin(void)
{
	const char *p = getenv("TPROF_READ");

	return p && *p ? p : build_path("tprof-read");
}

/* run_fmt() of prefix and then fmt's arguments (vsnprintf) */
static int run_vfmt(char **out, const char *prefix, const char *fmt,
		    va_list ap)
{
	char cmd[16384];
	size_t n = strlen(prefix);

	if (n >= sizeof(cmd))
		n = sizeof(cmd) - 1;
	memcpy(cmd, prefix, n);
	vsnprintf(cmd + n, sizeof(cmd) - n, fmt, ap);
	return run_capture(cmd, out);
}

int run_fmt(char **out, const char *fmt, ...)
{
	va_list ap;
	int st;

	va_start(ap, fmt);
	st = run_vfmt(out, "", fmt, ap);
	va_end(ap);
	return st;
}

int run_read(char **out, const char *fmt, ...)
{
	char prefix[4200];
	va_list ap;
	int st;

	snprintf(prefix, sizeof(prefix), "'%s' ", tprof_read_bin());
	va_start(ap, fmt);
	st = run_vfmt(out, prefix, fmt, ap);
	va_end(ap);
	return st;
}

int run_fake_read(char **out, const char *env, const char *preload,
		  const char *dev, const char *fmt, ...)
{
	char prefix[16384];
	va_list ap;
	int st;

	snprintf(prefix, sizeof(prefix),
		 "%s%sASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=1 LD_PRELOAD='%s' '%s' --device '%s' ",
		 env ? env : "", env ? " " : "",
		 preload ? preload : build_path("unit/fakedev.so"),
		 tprof_read_bin(), dev);
	va_start(ap, fmt);
	st = run_vfmt(out, prefix, fmt, ap);
	va_end(ap);
	return st;
}

void out_done(char *out)
{
	if (t_checks_failed && out)
		fprintf(stderr, "%s", out);
	free(out);
}

bool need_file(const char *path, const char *why)
{
	if (!access(path, R_OK))
		return true;
	SKIP(why);
	return false;
}

bool need_files(const char *why, ...)
{
	const char *path;
	bool ok = true;
	va_list ap;

	va_start(ap, why);
	while (ok && (path = va_arg(ap, const char *)))
		ok = need_file(path, why);
	va_end(ap);
	return ok;
}

bool need_cmd(const char *cmd, const char *why)
{
	if (have_cmd(cmd))
		return true;
	SKIP(why);
	return false;
}

bool need_fakedev(const char *dev)
{
	FILE *fp;

	if (!need_file(build_path("unit/fakedev.so"), "fakedev.so not built"))
		return false;
	fp = fopen(dev, "we");
	if (fp)
		fclose(fp);
	return true;
}

void sb_free(struct sbuf *b)
{
	free(b->p);
	memset(b, 0, sizeof(*b));
}

void sb_raw(struct sbuf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 256;
		b->p = xrealloc(b->p, b->cap);
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
}

static void pad8(struct sbuf *b)
{
	static const unsigned char z[8];

	if (b->len % 8)
		sb_raw(b, z, 8 - b->len % 8);
}

/* comm is NUL-padded, not necessarily NUL-terminated */
static void set_comm(__u8 dst[16], const char *comm)
{
	size_t n = strlen(comm);

	memset(dst, 0, 16);
	memcpy(dst, comm, n < 16 ? n : 16);
}

static void hdr(void *rec, unsigned int type, size_t size, uint64_t t)
{
	struct tprof_rec_hdr *h = rec;

	h->type = type;
	h->flags = 0;
	h->size = (size + 7) & ~7UL;
	h->time_ns = t;
}

void sb_session(struct sbuf *b, uint32_t pid, uint64_t period_ns,
		uint64_t realtime_ns, uint64_t time_ns)
{
	struct tprof_urec_session s = {
		.magic = TPROF_RAW_MAGIC, .realtime_ns = realtime_ns,
		.period_ns = period_ns, .pid = pid,
		.abi_version = TPROF_ABI_VERSION,
		.record_version = TPROF_RECORD_VERSION,
	};

	hdr(&s, TPROF_UREC_SESSION, sizeof(s), time_ns);
	sb_raw(b, &s, sizeof(s));
}

void sb_text_rec(struct sbuf *b, void *rec, size_t rec_size,
		 unsigned int type, const char *text, size_t len,
		 uint64_t time_ns)
{
	hdr(rec, type, rec_size + len, time_ns);
	sb_raw(b, rec, rec_size);
	sb_raw(b, text, len);
	pad8(b);
}

void sb_maps(struct sbuf *b, uint32_t pid, uint64_t time_ns, const char *text)
{
	struct tprof_urec_maps m = { .pid = pid, .len = strlen(text) };

	sb_text_rec(b, &m, sizeof(m), TPROF_UREC_MAPS, text, m.len, time_ns);
}

void sb_cgroup(struct sbuf *b, uint32_t pid, uint64_t time_ns,
	       const char *text)
{
	struct tprof_urec_cgroup c = { .pid = pid, .len = strlen(text) };

	sb_text_rec(b, &c, sizeof(c), TPROF_UREC_CGROUP, text, c.len, time_ns);
}

void sb_buildid(struct sbuf *b, uint32_t pid, uint32_t dev_major,
		uint32_t dev_minor, uint64_t inode, const char *path,
		const unsigned char *bid, uint32_t bid_len, uint64_t time_ns)
{
	struct tprof_urec_buildid r = {
		.pid = pid, .dev_major = dev_major, .dev_minor = dev_minor,
		.inode = inode, .path_len = strlen(path), .bid_len = bid_len,
	};

	hdr(&r, TPROF_UREC_BUILDID, sizeof(r) + bid_len + r.path_len, time_ns);
	sb_raw(b, &r, sizeof(r));
	sb_raw(b, bid, bid_len);
	sb_raw(b, path, r.path_len);
	pad8(b);
}

void sb_thread(struct sbuf *b, uint32_t pid, uint32_t tid, const char *comm,
	       uint64_t time_ns)
{
	struct tprof_rec_thread t = { .pid = pid, .tid = tid };

	hdr(&t, TPROF_REC_THREAD, sizeof(t), time_ns);
	set_comm(t.comm, comm);
	sb_raw(b, &t, sizeof(t));
}

void sb_exec(struct sbuf *b, uint32_t pid, const char *comm, uint64_t time_ns)
{
	struct tprof_rec_exec e = { .pid = pid, .tid = pid, .old_tid = pid };

	hdr(&e, TPROF_REC_EXEC, sizeof(e), time_ns);
	set_comm(e.comm, comm);
	sb_raw(b, &e, sizeof(e));
}

void sb_mmap(struct sbuf *b, uint32_t pid, uint64_t start, uint64_t end,
	     uint64_t pgoff, uint64_t inode, uint64_t time_ns)
{
	struct tprof_rec_mmap m = {
		.pid = pid, .tid = pid, .start = start, .end = end,
		.pgoff = pgoff, .inode = inode, .dev_major = 8, .dev_minor = 1,
		.prot = TPROF_MMAP_EXEC,
	};

	hdr(&m, TPROF_REC_MMAP, sizeof(m), time_ns);
	sb_raw(b, &m, sizeof(m));
}

void sb_sample(struct sbuf *b, uint32_t pid, uint32_t tid, uint64_t period_ns,
	       uint64_t weight_ns, uint64_t time_ns, unsigned int nk,
	       const uint64_t *kips, unsigned int nu, const uint64_t *uips)
{
	struct tprof_rec_sample s = {
		.pid = pid, .tid = tid, .cpu = 1, .nr_user = nu,
		.nr_kernel = nk, .weight_ns = weight_ns,
		.period_ns = period_ns, .abi = TPROF_ABI_X86_64,
	};

	hdr(&s, TPROF_REC_SAMPLE, sizeof(s) + 8 * (nk + nu), time_ns);
	if (weight_ns > period_ns)
		s.hdr.flags |= TPROF_RF_LATE;
	sb_raw(b, &s, sizeof(s));
	if (nk)
		sb_raw(b, kips, 8 * nk);
	if (nu)
		sb_raw(b, uips, 8 * nu);
}

void sb_off_sample(struct sbuf *b, uint32_t pid, uint32_t tid, uint32_t state,
		   uint64_t period_ns, uint64_t weight_ns, uint64_t time_ns,
		   unsigned int nu, const uint64_t *uips)
{
	struct tprof_rec_sample s = {
		.pid = pid, .tid = tid, .cpu = 1, .nr_user = nu,
		.weight_ns = weight_ns, .period_ns = period_ns,
		.abi = TPROF_ABI_X86_64, .off_state = state,
	};

	hdr(&s, TPROF_REC_SAMPLE, sizeof(s) + 8 * nu, time_ns);
	s.hdr.flags |= TPROF_RF_OFF_CPU;
	sb_raw(b, &s, sizeof(s));
	if (nu)
		sb_raw(b, uips, 8 * nu);
}

void sb_waker(struct sbuf *b, uint32_t pid, uint32_t tid, uint32_t kind,
	      uint32_t waker_pid, uint32_t waker_tid, const char *comm,
	      uint32_t seq, uint16_t flags, uint64_t time_ns)
{
	struct tprof_rec_waker w = {
		.pid = pid, .tid = tid, .kind = kind, .waker_pid = waker_pid,
		.waker_tid = waker_tid, .seq = seq,
	};

	hdr(&w, TPROF_REC_WAKER, sizeof(w), time_ns);
	w.hdr.flags = flags;
	if (comm)
		strncpy((char *)w.waker_comm, comm, sizeof(w.waker_comm) - 1);
	sb_raw(b, &w, sizeof(w));
}

void sb_wake_stack(struct sbuf *b, uint32_t pid, uint32_t tid, uint32_t seq,
		   uint32_t waker_pid, uint32_t waker_tid, const char *comm,
		   uint64_t time_ns, unsigned int nu, const uint64_t *uips)
{
	struct tprof_rec_sample s = {
		.pid = waker_pid, .tid = waker_tid, .cpu = 2, .nr_user = nu,
		.abi = TPROF_ABI_X86_64,
	};

	sb_waker(b, pid, tid, waker_pid == pid ? TPROF_WAKER_TASK :
		 TPROF_WAKER_SESSION, waker_pid, waker_tid, comm, seq,
		 TPROF_RF_WAKER_WAKEUP | TPROF_RF_GROUP, time_ns);
	hdr(&s, TPROF_REC_SAMPLE, sizeof(s) + 8 * nu, time_ns);
	s.hdr.flags = TPROF_RF_WAKE_STACK;
	sb_raw(b, &s, sizeof(s));
	if (nu)
		sb_raw(b, uips, 8 * nu);
}

void sb_thread_off(struct sbuf *b, uint32_t pid, uint32_t tid,
		   uint64_t begin_ns, const uint64_t ns[3], uint64_t irq_ns,
		   uint64_t samples, uint64_t weight_ns, uint64_t period_ns,
		   uint64_t time_ns)
{
	struct tprof_rec_thread_off o = {
		.pid = pid, .tid = tid, .begin_ns = begin_ns,
		.sleeping_ns = ns[0], .blocked_ns = ns[1], .runnable_ns = ns[2],
		.irq_ns = irq_ns, .samples = samples, .weight_ns = weight_ns,
		.period_ns = period_ns,
	};

	hdr(&o, TPROF_REC_THREAD_OFF, sizeof(o), time_ns);
	sb_raw(b, &o, sizeof(o));
}

void sb_sample_ustack(struct sbuf *b, uint32_t pid, uint32_t tid,
		      uint32_t abi, uint64_t period_ns, uint64_t time_ns,
		      unsigned int nu, const uint64_t *uips, uint16_t sflags,
		      const uint64_t regs[TPROF_UREG_NR], uint32_t stack_req,
		      const void *stack, uint32_t stack_bytes)
{
	struct tprof_rec_sample s = {
		.pid = pid, .tid = tid, .cpu = 1, .nr_user = nu,
		.weight_ns = period_ns, .period_ns = period_ns, .abi = abi,
	};
	struct tprof_rec_ustack u = {
		.tid = tid, .abi = abi, .stack_req = stack_req,
		.stack_bytes = stack_bytes,
	};

	hdr(&s, TPROF_REC_SAMPLE, sizeof(s) + 8 * nu, time_ns);
	s.hdr.flags = sflags | TPROF_RF_GROUP;
	sb_raw(b, &s, sizeof(s));
	if (nu)
		sb_raw(b, uips, 8 * nu);
	hdr(&u, TPROF_REC_USTACK, sizeof(u) + stack_bytes, time_ns);
	if (stack_bytes < stack_req)
		u.hdr.flags = TPROF_RF_USTACK_PARTIAL;
	memcpy(u.regs, regs, sizeof(u.regs));
	sb_raw(b, &u, sizeof(u));
	if (stack_bytes)
		sb_raw(b, stack, stack_bytes);
	pad8(b);
}

size_t sb_sample_uchain(struct sbuf *b, uint32_t pid, uint32_t tid,
			uint32_t abi, uint64_t time_ns, uint64_t pc,
			const uint64_t *stack, uint32_t stack_bytes,
			uint64_t sp, uint64_t fp, uint32_t nr_inner,
			const uint64_t *outer, uint32_t nr_outer)
{
	uint64_t regs[TPROF_UREG_NR] = { 0 };
	struct tprof_ustack_chain c = { nr_inner, nr_outer };
	struct tprof_rec_hdr *h;
	size_t at;

	regs[abi == TPROF_ABI_ARM64 ? TPROF_AREG_SP : TPROF_UREG_SP] = sp;
	regs[abi == TPROF_ABI_ARM64 ? TPROF_AREG_FP : TPROF_UREG_BP] = fp;
	regs[abi == TPROF_ABI_ARM64 ? TPROF_AREG_PC : TPROF_UREG_IP] = pc;
	sb_sample_ustack(b, pid, tid, abi, 1000000, time_ns, 1, &pc, 0, regs,
			 stack_bytes, stack, stack_bytes);
	at = b->len - sizeof(struct tprof_rec_ustack) - stack_bytes;
	sb_raw(b, &c, sizeof(c));
	if (nr_outer)
		sb_raw(b, outer, 8 * nr_outer);
	h = (struct tprof_rec_hdr *)(b->p + at);
	h->flags |= TPROF_RF_USTACK_CHAIN;
	h->size += sizeof(c) + 8 * nr_outer;
	return at;
}

void sb_stat(struct sbuf *b, unsigned int type, uint32_t pid, uint32_t tid,
	     uint64_t on_cpu_ns, uint64_t samples, uint64_t weight_ns,
	     uint64_t lost_samples, uint64_t lost_weight_ns,
	     uint64_t period_ns, const char *comm, uint64_t time_ns)
{
	struct tprof_rec_thread_stat s = {
		.pid = pid, .tid = tid, .on_cpu_ns = on_cpu_ns,
		.samples = samples, .weight_ns = weight_ns,
		.lost_samples = lost_samples, .lost_weight_ns = lost_weight_ns,
		.period_ns = period_ns,
	};

	hdr(&s, type, sizeof(s), time_ns);
	set_comm(s.comm, comm);
	sb_raw(b, &s, sizeof(s));
}

void sb_lost(struct sbuf *b, uint64_t n, uint64_t w, uint64_t recs,
	     uint64_t time_ns)
{
	struct tprof_rec_lost l = {
		.lost_samples = n, .lost_weight_ns = w, .lost_records = recs,
	};

	hdr(&l, TPROF_REC_LOST, sizeof(l), time_ns);
	sb_raw(b, &l, sizeof(l));
}

void sb_proc(struct sbuf *b, uint32_t pid, uint32_t ppid, const char *comm,
	     uint16_t flags, uint64_t time_ns)
{
	struct tprof_rec_proc r = { .pid = pid, .ppid = ppid };

	r.hdr.type = TPROF_REC_PROC;
	r.hdr.flags = flags;
	r.hdr.size = sizeof(r);
	r.hdr.time_ns = time_ns;
	snprintf((char *)r.comm, sizeof(r.comm), "%s", comm);
	sb_raw(b, &r, sizeof(r));
}

void sb_vdso(struct sbuf *b, uint32_t pid, uint64_t start, const void *img,
	     uint32_t len, uint64_t time_ns)
{
	struct tprof_urec_vdso v = { .pid = pid, .start = start, .len = len };

	v.hdr.type = TPROF_UREC_VDSO;
	v.hdr.size = (sizeof(v) + len + 7) & ~7UL;
	v.hdr.time_ns = time_ns;
	sb_raw(b, &v, sizeof(v));
	sb_raw(b, img, len);
	while (b->len % 8)
		sb_raw(b, "", 1);
}

void sb_proc_exit(struct sbuf *b, uint32_t pid, int code, uint64_t time_ns)
{
	struct tprof_rec_proc_exit e = { .pid = pid, .exit_code = code };

	hdr(&e, TPROF_REC_PROC_EXIT, sizeof(e), time_ns);
	sb_raw(b, &e, sizeof(e));
}

void sb_denied(struct sbuf *b, uint32_t pid, uint32_t reason, uint64_t time_ns)
{
	struct tprof_rec_denied d = { .pid = pid, .reason = reason };

	hdr(&d, TPROF_REC_DENIED, sizeof(d), time_ns);
	sb_raw(b, &d, sizeof(d));
}

void sb_unknown(struct sbuf *b, unsigned int type, size_t body_len,
		uint64_t time_ns)
{
	struct tprof_rec_hdr h;

	hdr(&h, type, sizeof(h) + body_len, time_ns);
	sb_raw(b, &h, sizeof(h));
	while (b->len % 8 || body_len) {
		sb_raw(b, "\x5a", 1);
		body_len = body_len ? body_len - 1 : 0;
	}
}

int sb_write(const struct sbuf *b, const char *path)
{
	FILE *fp = fopen(path, "we");

	if (!fp)
		return -errno;
	if (b->len && fwrite(b->p, b->len, 1, fp) != 1) {
		fclose(fp);
		return -EIO;
	}
	return fclose(fp) ? -errno : 0;
}

static Elf *open_elf(const char *path, int *fd)
{
	Elf *e;

	elf_version(EV_CURRENT);
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return NULL;
	e = elf_begin(*fd, ELF_C_READ, NULL);
	if (!e)
		close(*fd);
	return e;
}

char *fake_maps(const char *path, uint64_t base)
{
	struct sbuf out = { 0 };
	GElf_Ehdr eh;
	size_t i, n;
	Elf *e;
	int fd;

	e = open_elf(path, &fd);
	if (!e)
		return NULL;
	if (!gelf_getehdr(e, &eh) || elf_getphdrnum(e, &n))
		goto fail;
	if (eh.e_type == ET_EXEC)
		base = 0;
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;
		uint64_t start, end;
		char line[4600];

		if (!gelf_getphdr(e, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		start = base + (ph.p_vaddr & ~0xfffULL);
		end = base + ((ph.p_vaddr + ph.p_memsz + 0xfff) & ~0xfffULL);
		snprintf(line, sizeof(line),
			 "%llx-%llx %c%c%cp %08llx 08:01 1234 %s\n",
			 (unsigned long long)start, (unsigned long long)end,
			 ph.p_flags & PF_R ? 'r' : '-',
			 ph.p_flags & PF_W ? 'w' : '-',
			 ph.p_flags & PF_X ? 'x' : '-',
			 (unsigned long long)(ph.p_offset & ~0xfffULL), path);
		sb_raw(&out, line, strlen(line));
	}
	sb_raw(&out, "", 1);
	elf_end(e);
	close(fd);
	return (char *)out.p;
fail:
	elf_end(e);
	close(fd);
	sb_free(&out);
	return NULL;
}

int elf_symbol(const char *path, const char *name, uint64_t *value,
	       uint64_t *size)
{
	Elf_Scn *scn = NULL;
	Elf *e;
	int fd, ret = -ENOENT;

	e = open_elf(path, &fd);
	if (!e)
		return -errno;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		size_t i;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		d = elf_getdata(scn, NULL);
		for (i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *n;

			if (!gelf_getsym(d, i, &sym))
				continue;
			n = elf_strptr(e, sh.sh_link, sym.st_name);
			if (n && !strcmp(n, name) && sym.st_value) {
				*value = sym.st_value;
				*size = sym.st_size;
				ret = 0;
				goto out;
			}
		}
	}
out:
	elf_end(e);
	close(fd);
	return ret;
}

/* lib/util.c's reader, as tests want it: the buffer, or NULL */
unsigned char *read_whole(const char *path, size_t *len)
{
	char *buf;

	*len = 0;
	if (file_read_all(path, &buf, len))
		return NULL;
	return (unsigned char *)buf;
}
