/* The value of "--name=value" or "--name value", and boolean flags as
 * pflag reads them, shared by run, simulate, deschedule and the other
 * subcommands' flag parsers. */
#include "cmd/flag_value.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "moonsched/config.h"
#include "moonsched/error.h"

const char *ms_flag_value(int argc, char **argv, int *i, const char *name, bool *missing) {
    size_t n = strlen(name);
    const char *a = argv[*i];
    if (missing) *missing = false;
    if (strncmp(a, name, n) == 0 && a[n] == '=') return a + n + 1;
    if (strcmp(a, name) != 0) return NULL;
    if (*i + 1 >= argc) {
        if (missing) *missing = true;
        return "";
    }
    return argv[++*i];
}

/* Go's strconv.ParseBool. */
static bool parse_go_bool(const char *s, bool *out) {
    static const char *const yes[] = {"1", "t", "T", "TRUE", "true", "True"};
    static const char *const no[] = {"0", "f", "F", "FALSE", "false", "False"};
    for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
        if (strcmp(s, yes[i]) == 0) return *out = true, true;
        if (strcmp(s, no[i]) == 0) return *out = false, true;
    }
    return false;
}

int ms_flag_bool(const char *a, const char *name, bool *out, ms_error *err) {
    size_t n = strlen(name);
    if (strcmp(a, name) == 0) return *out = true, 1;
    if (strncmp(a, name, n) != 0 || a[n] != '=') return 0;
    if (parse_go_bool(a + n + 1, out)) return 1;
    ms_error_set(err, MS_EINVAL, "%s: expected true or false, got \"%s\"", name, a + n + 1);
    return -1;
}

ms_rc ms_flag_seed(const char *v, uint64_t *out, ms_error *err) {
    char *end;
    errno = 0;
    unsigned long long seed = strtoull(v, &end, 0);
    if (!*v || *end || errno || *v == '-')
        return ms_error_set(err, MS_EINVAL, "--seed: expected a non-negative integer, got \"%s\"", v);
    *out = seed;
    return MS_OK;
}

ms_rc ms_flag_duration(const char *name, const char *v, bool allow_zero, double *out, ms_error *err) {
    double d;
    if (!ms_parse_go_duration(v, &d) || d < 0 || (!allow_zero && d == 0))
        return ms_error_set(err, MS_EINVAL, "%s: expected a %s, got \"%s\"", name,
                            allow_zero ? "duration such as 5m" : "positive duration such as 15s", v);
    *out = d;
    return MS_OK;
}

ms_rc ms_flag_port(const char *name, const char *v, int32_t *out, ms_error *err) {
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (!*v || *end || errno || n < 0 || n > 65535)
        return ms_error_set(err, MS_EINVAL, "%s: expected a port (0-65535), got \"%s\"", name, v);
    *out = (int32_t)n;
    return MS_OK;
}

ms_rc ms_flag_verbosity(const char *v, bool *debug, ms_error *err) {
    char *end;
    long n = strtol(v, &end, 10);
    if (!*v || *end || n < 0) return ms_error_set(err, MS_EINVAL, "-v: expected a level, got \"%s\"", v);
    *debug = n >= 4;
    return MS_OK;
}
