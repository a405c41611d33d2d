/* The value of "--name=value" or "--name value", shared by run, simulate,
 * deschedule and the other subcommands' flag parsers. */
#include "cmd/flag_value.h"

#include <string.h>

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
