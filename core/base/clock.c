/* Clock reads and timestamp text, so no file keeps its own. */
#include "base/clock.h"

#include <stdio.h>
#include <time.h>

double ms_clock_monotonic(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double ms_clock_wall(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double ms_clock_thread_cpu(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

char *ms_time_rfc3339(double wall, int digits, char *buf, size_t n) {
    if (!n) return buf;
    time_t s = (time_t)wall;
    double frac = wall - (double)s;
    if (frac < 0) frac = 0;
    struct tm tm;
    gmtime_r(&s, &tm);
    size_t k = strftime(buf, n, "%Y-%m-%dT%H:%M:%S", &tm);
    if (digits <= 0) {
        snprintf(buf + k, n - k, "Z");
        return buf;
    }
    if (digits > 9) digits = 9;
    long scale = 1;
    for (int i = 0; i < digits; i++) scale *= 10;
    long f = (long)(frac * (double)scale);   /* truncated, as Go formats */
    if (f >= scale) f = scale - 1;
    snprintf(buf + k, n - k, ".%0*ldZ", digits, f);
    return buf;
}
