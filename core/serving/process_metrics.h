/* The process collector's families, as client_golang exposes them for
 * every Go component (process_cpu_seconds_total,
 * process_resident_memory_bytes, process_virtual_memory_bytes,
 * process_open_fds, process_max_fds, process_start_time_seconds), and
 * moonsched_threads, the OS threads of the process (what go_goroutines
 * tells of a Go scheduler). Read from /proc/self at each scrape: no state
 * is kept. */
#ifndef MOONSCHED_SERVING_PROCESS_METRICS_H
#define MOONSCHED_SERVING_PROCESS_METRICS_H

#include "base/buf.h"

/* ms_metrics_collector (ctx unused): appends the families; a figure /proc
 * does not give is left out. */
void ms_process_metrics_collect(void *ctx, ms_buf *b);

#endif
