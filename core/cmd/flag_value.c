/* The value of "--name=value" or "--name value", and boolean flags as
 * pflag reads them, shared by run, simulate, deschedule and the other
 * subcommands' flag parsers. */
#include "cmd/flag_value.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

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
