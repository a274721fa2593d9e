// SPDX-License-Identifier: GPL-2.0
/*
 * tprof-agent: /metrics. The session's counts come from the shared model
 * (every record the reader consumed), the agent's own from procfs and
 * getrusage(): what an operator needs to see that nothing grows and that
 * no sample went missing uncounted.
 */
#include <dirent.h>
#include <malloc.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "agent/metrics.h"
#include "lib/util.h"

struct text {
	char *buf;
	size_t len, cap;
};

static void __attribute__((format(printf, 2, 3)))
put(struct text *t, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		va_start(ap, fmt);
		n = vsnprintf(t->buf + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n < t->cap - t->len)
			break;
		t->cap = t->cap * 2 + 256;
		t->buf = xrealloc(t->buf, t->cap);
	}
	t->len += n;
}

/* One metric without labels: its HELP, TYPE and value. */
static void metric(struct text *t, const char *name, const char *type,
		   const char *help, double v)
{
	put(t, "# HELP %s %s\n# TYPE %s %s\n%s %.17g\n", name, help, name,
	    type, name, v);
}

static double resident_bytes(void)
{
	unsigned long size, res;
	FILE *f = fopen("/proc/self/statm", "r");
	int n = f ? fscanf(f, "%lu %lu", &size, &res) : 0;

	if (f)
		fclose(f);
	return n == 2 ? (double)res * sysconf(_SC_PAGESIZE) : 0;
}

static double open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	double n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;	/* not the directory's own */
}

/* Processes followed now: not exited, denied or left out. */
static double live_procs(const struct profile *p)
{
	double n = 0;
	size_t i;

	for (i = 0; i < p->nprocs; i++)
		n += !p->procs[i].exited && !p->procs[i].denied &&
		     !p->procs[i].dropped;
	return n;
}

static double live_threads(const struct profile *p)
{
	double n = 0;
	size_t i;

	for (i = 0; i < p->nthreads; i++)
		n += !p->threads[i].exited;
	return n;
}

/* The session's and the windows' counts. */
static void put_counts(struct text *t, const struct profile *p,
		       const struct windows *ws)
{
	const struct { const char *name, *type, *help; double v; } m[] = {
		{ "tprof_records_total", "counter",
		  "Records the reader consumed from the module.", p->nrecords },
		{ "tprof_samples_total", "counter",
		  "Samples the module delivered (on- and off-CPU).",
		  p->sample_records },
		{ "tprof_sampled_seconds_total", "counter",
		  "Time the delivered samples stand for.",
		  p->sample_weight_ns / 1e9 },
		{ "tprof_lost_samples_total", "counter",
		  "Samples the module dropped (full rings, LOST records).",
		  p->lost_samples },
		{ "tprof_lost_seconds_total", "counter",
		  "Time the dropped samples stood for.",
		  p->lost_weight_ns / 1e9 },
		{ "tprof_throttles_total", "counter",
		  "Times the module stretched the periods (THROTTLE records).",
		  p->throttles },
		{ "tprof_followed_processes", "gauge",
		  "Processes followed now.", live_procs(p) },
		{ "tprof_followed_threads", "gauge",
		  "Threads seen that have not exited.", live_threads(p) },
		{ "tprof_windows_open", "gauge",
		  "Profile requests waiting for their window to end.",
		  ws->nopen },
		{ "tprof_profiles_served_total", "counter",
		  "Profiles answered.", ws->served },
		{ "tprof_profiles_failed_total", "counter",
		  "Profile requests answered with an error after their window.",
		  ws->failed },
		{ "tprof_window_late_samples_total", "counter",
		  "Samples that came after their window was answered.",
		  ws->late_samples },
	};

	size_t i;

	for (i = 0; i < ARRAY_SIZE(m); i++)
		metric(t, m[i].name, m[i].type, m[i].help, m[i].v);
}

/* What the shared model and the caches hold: flat over months, or not. */
static void put_sizes_of(struct text *t, const struct profile_sizes z,
			 size_t objects, const struct evict *ev)
{
	const struct { const char *name, *type, *help; double v; } m[] = {
		{ "tprof_model_processes", "gauge",
		  "Processes the model holds (exited ones until forgotten).",
		  z.procs },
		{ "tprof_model_threads", "gauge",
		  "Threads the model holds (exited ones until forgotten).",
		  z.threads },
		{ "tprof_model_maps_snapshots", "gauge",
		  "Memory maps snapshots held.", z.snapshots },
		{ "tprof_model_mappings", "gauge",
		  "Distinct executable mappings of the snapshots held.",
		  z.mappings },
		{ "tprof_model_objects", "gauge",
		  "Binaries cached (ELF, symbols, CFI), by path and build-id.",
		  objects },
		{ "tprof_model_python_code_objects", "gauge",
		  "Python code objects held (PYCODE records).", z.pycodes },
		{ "tprof_model_python_frames", "gauge",
		  "Python frames interned and in use.", z.pyframes },
		{ "tprof_model_perfmap_entries", "gauge",
		  "JIT symbols held (perf maps).", z.perfmap },
		{ "tprof_processes_seen_total", "counter",
		  "Processes the session has seen, forgotten ones too.",
		  z.procs + z.procs_forgotten },
		{ "tprof_processes_forgotten_total", "counter",
		  "Processes forgotten after they ended.", z.procs_forgotten },
		{ "tprof_threads_forgotten_total", "counter",
		  "Threads forgotten after they exited.", z.threads_forgotten },
		{ "tprof_objects_evicted_total", "counter",
		  "Binaries evicted from the cache (LRU, --max-objects).",
		  ev->objects },
		{ "tprof_evict_seconds_total", "counter",
		  "Time spent forgetting and evicting.", ev->run_ns / 1e9 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(m); i++)
		metric(t, m[i].name, m[i].type, m[i].help, m[i].v);
}

static void put_sizes(struct text *t, const struct profile *p,
		      const struct evict *ev)
{
	struct profile_sizes z;

	profile__sizes(p, &z);
	put_sizes_of(t, z, ev->objs ? objects__stats(ev->objs)->cached : 0,
		     ev);
	if (ev->u) {
		const struct unwind_stats *st = unwinder__stats(ev->u);

		metric(t, "tprof_unwind_cfi_rows", "gauge",
		       "CFI rows the unwinder holds (one per pc unwound from).",
		       st->rows_held);
		metric(t, "tprof_unwind_cfi_resets_total", "counter",
		       "Times the CFI rows reached their bound and were dropped.",
		       st->row_resets);
	}
}

/*
 * The heap as glibc's malloc sees it (every arena): what is allocated, and
 * what is free but still held (not yet trimmed). Resident memory that
 * grows with these flat is not the agent's.
 */
static void put_heap(struct text *t)
{
	struct mallinfo2 mi = mallinfo2();

	metric(t, "tprof_heap_in_use_bytes", "gauge",
	       "Memory allocated by the agent (malloc arenas and mmapped blocks).",
	       (double)(mi.uordblks + mi.hblkhd));
	metric(t, "tprof_heap_free_bytes", "gauge",
	       "Memory freed but still held by malloc's arenas.",
	       (double)mi.fordblks);
}

char *metrics__text(const struct profile *p, const struct windows *ws,
		    const struct evict *ev, size_t *len)
{
	struct text t = { .cap = 4096 };
	struct rusage ru;

	t.buf = xmalloc(t.cap);
	put_counts(&t, p, ws);
	put_sizes(&t, p, ev);
	put(&t, "# HELP tprof_profile_encode_seconds Time to resolve, symbolize and encode a window's profile.\n"
	    "# TYPE tprof_profile_encode_seconds summary\n"
	    "tprof_profile_encode_seconds_sum %.17g\n"
	    "tprof_profile_encode_seconds_count %llu\n",
	    ws->encode_ns / 1e9, (unsigned long long)ws->encodes);
	put_heap(&t);
	metric(&t, "process_resident_memory_bytes", "gauge",
	       "Resident memory of the agent.", resident_bytes());
	metric(&t, "process_open_fds", "gauge",
	       "Open file descriptors of the agent.", open_fds());
	if (!getrusage(RUSAGE_SELF, &ru))
		metric(&t, "process_cpu_seconds_total", "counter",
		       "CPU time of the agent (user and system).",
		       ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
		       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	*len = t.len;
	return t.buf;
}
