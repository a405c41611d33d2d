/* Clocks and the one RFC 3339 formatter. */
#ifndef MOONSCHED_BASE_CLOCK_H
#define MOONSCHED_BASE_CLOCK_H

#include <stddef.h>

/* Seconds on CLOCK_MONOTONIC (durations, deadlines). */
double ms_clock_monotonic(void);
/* Seconds since the epoch on CLOCK_REALTIME (timestamps sent to the API). */
double ms_clock_wall(void);
/* CPU seconds the calling thread used (0 when unknown). */
double ms_clock_thread_cpu(void);

/* `wall` (seconds since the epoch) as RFC 3339 in UTC with `digits`
 * fractional digits (0: "2006-01-02T15:04:05Z", 3: ".000Z", 6: ".000000Z",
 * as metav1.Time and metav1.MicroTime write them). Returns buf. */
char *ms_time_rfc3339(double wall, int digits, char *buf, size_t n);

/* Enough for ms_time_rfc3339 with 9 digits. */
#define MS_RFC3339_MAX 40

#endif
