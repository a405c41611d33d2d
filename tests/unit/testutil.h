/* Common includes for the cmocka unit tests. */
#ifndef MOONSCHED_TESTUTIL_H
#define MOONSCHED_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

/* prefix, then n copies of c, then suffix, in a malloc'd string: the huge
 * values the error-message tests feed the readers. */
static inline char *tu_repeat(const char *prefix, char c, size_t n, const char *suffix) {
    size_t lp = strlen(prefix), ls = strlen(suffix);
    char *s = malloc(lp + n + ls + 1);
    assert_non_null(s);
    memcpy(s, prefix, lp);
    memset(s + lp, c, n);
    memcpy(s + lp + n, suffix, ls + 1);
    return s;
}

/* The process's resident anonymous memory in KiB (RssAnon): what the
 * allocator holds, wherever it mapped it, without the pages of the binary
 * and the libraries, which the kernel reclaims and faults back on its own
 * time when the machine is short of memory. */
static inline long tu_anon_rss_kib(void) {
    FILE *f = fopen("/proc/self/status", "r");
    assert_non_null(f);
    char line[256];
    long kib = -1;
    while (kib < 0 && fgets(line, sizeof line, f))
        if (sscanf(line, "RssAnon: %ld kB", &kib) != 1) kib = -1;
    fclose(f);
    assert_true(kib >= 0);
    return kib;
}

/* The value of the series `key` (name and labels, as rendered) in a
 * Prometheus text exposition, or -1 when absent. */
static inline double tu_series(const char *text, const char *key) {
    size_t n = strlen(key);
    for (const char *p = text; p && *p;) {
        if (strncmp(p, key, n) == 0 && p[n] == ' ') return strtod(p + n + 1, NULL);
        p = strchr(p, '\n');
        if (p) p++;
    }
    return -1;
}

/* Writes text to path (a test's temporary file), replacing it. */
static inline void tu_put(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Replaces path by a file holding text, at once (written beside it, then
 * renamed over it), as an editor or a certificate rotation does. */
static inline void tu_replace(const char *path, const char *text) {
    char tmp[600];
    snprintf(tmp, sizeof tmp, "%s.new", path);
    tu_put(tmp, text);
    assert_int_equal(rename(tmp, path), 0);
}

/* A fresh directory /tmp/PREFIX-XXXXXX into buf, and its removal with
 * everything in it, for the tests that write files. */
static inline void tu_mkdtemp(char *buf, size_t n, const char *prefix) {
    snprintf(buf, n, "/tmp/%s-XXXXXX", prefix);
    assert_non_null(mkdtemp(buf));
}

static inline void tu_rmtree(const char *dir) {
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

#endif
