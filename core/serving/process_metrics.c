/* Process metrics from /proc. See serving/process_metrics.h. */
#include <dirent.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "base/prom.h"
#include "serving/process_metrics.h"

/* The fields of /proc/self/stat the families need (proc(5) numbering). */
typedef struct proc_stat {
    unsigned long utime, stime;   /* 14, 15: clock ticks */
    long threads;                 /* 20 */
    unsigned long long start;     /* 22: clock ticks after boot */
    unsigned long vsize;          /* 23: bytes */
    long rss;                     /* 24: pages */
} proc_stat;

static bool read_stat(proc_stat *st) {
    char buf[1024];
    FILE *f = fopen("/proc/self/stat", "r");
    if (!f) return false;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    /* the command name (field 2) may hold spaces: start after its ')' */
    const char *p = strrchr(buf, ')');
    if (!p) return false;
    return sscanf(p + 2,
                  "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu %*d %*d %*d %*d %ld %*d %llu %lu %ld",
                  &st->utime, &st->stime, &st->threads, &st->start, &st->vsize, &st->rss) == 6;
}

/* Boot time in seconds since the epoch (/proc/stat btime), 0 unknown. */
static double boot_time(void) {
    FILE *f = fopen("/proc/stat", "r");
    if (!f) return 0;
    char line[256];
    double bt = 0;
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "btime ", 6) == 0) {
            bt = strtod(line + 6, NULL);
            break;
        }
    fclose(f);
    return bt;
}

static long open_fds(void) {
    DIR *d = opendir("/proc/self/fd");
    if (!d) return -1;
    long n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n - 1;   /* the directory's own descriptor */
}

static void gauge(ms_buf *b, const char *name, const char *type, const char *help, double v) {
    ms_prom_header(b, name, type, help);
    ms_buf_printf(b, "%s %.17g\n", name, v);
}

void ms_process_metrics_collect(void *ctx, ms_buf *b) {
    (void)ctx;
    long tick = sysconf(_SC_CLK_TCK), page = sysconf(_SC_PAGESIZE);
    proc_stat st;
    if (read_stat(&st) && tick > 0) {
        gauge(b, "process_cpu_seconds_total", "counter", "Total user and system CPU time spent in seconds.",
              (double)(st.utime + st.stime) / (double)tick);
        gauge(b, "process_resident_memory_bytes", "gauge", "Resident memory size in bytes.",
              (double)st.rss * (double)page);
        gauge(b, "process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.", (double)st.vsize);
        double bt = boot_time();
        if (bt > 0)
            gauge(b, "process_start_time_seconds", "gauge",
                  "Start time of the process since unix epoch in seconds.", bt + (double)st.start / (double)tick);
        gauge(b, "moonsched_threads", "gauge",
              "OS threads of the process (scheduler, binder, poster, informers, HTTP servers, controllers).",
              (double)st.threads);
    }
#ifdef __GLIBC__
    /* RSS alone cannot tell a leak from memory the allocator keeps free
     * between live blocks (docs/reliability.md): what the heap holds in
     * use, and what it holds free, tell them apart. mallinfo2 locks each
     * arena in turn (2 in `run`), once a scrape. */
    struct mallinfo2 mi = mallinfo2();
    gauge(b, "moonsched_heap_inuse_bytes", "gauge",
          "Bytes of the C heap in use: allocated and not yet freed (glibc's arenas and mmapped blocks).",
          (double)(mi.uordblks + mi.hblkhd));
    gauge(b, "moonsched_heap_free_bytes", "gauge",
          "Bytes free inside the C heap's arenas for later allocations, resident or not (malloc_trim gives back their pages but keeps them counted).",
          (double)mi.fordblks);
#endif
    long fds = open_fds();
    if (fds >= 0) gauge(b, "process_open_fds", "gauge", "Number of open file descriptors.", (double)fds);
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
        gauge(b, "process_max_fds", "gauge", "Maximum number of open file descriptors.",
              rl.rlim_cur == RLIM_INFINITY ? -1 : (double)rl.rlim_cur);
}
