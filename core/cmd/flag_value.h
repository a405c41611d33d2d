/* One command-line flag's value, as every subcommand reads it. */
#ifndef MOONSCHED_CMD_FLAG_VALUE_H
#define MOONSCHED_CMD_FLAG_VALUE_H

#include <stdbool.h>
#include <stdint.h>

#include "moonsched/error.h"

/* "--name=value" or "--name value" at argv[*i] (*i moves past a separate
 * value): the value, or NULL when argv[*i] is not that flag. A flag given
 * last without its value answers "" and sets *missing (when not NULL). */
const char *ms_flag_value(int argc, char **argv, int *i, const char *name, bool *missing);

/* A boolean flag as pflag reads it: bare is true, else "--name=B" with B
 * one of Go's strconv.ParseBool words; never the next argument. 0: a is
 * not that flag, 1: read, -1: a bad value (err says which). */
int ms_flag_bool(const char *a, const char *name, bool *out, ms_error *err);

/* A Go duration ("15s", "1m30s") in seconds: positive, or with allow_zero
 * also 0 ("0s": off). */
ms_rc ms_flag_duration(const char *name, const char *v, bool allow_zero, double *out, ms_error *err);

/* A port, 0 to 65535 (0: off). */
ms_rc ms_flag_port(const char *name, const char *v, int32_t *out, ms_error *err);

/* -v N: a level, 0 and up; *debug for 4 and up (klog's request logging). */
ms_rc ms_flag_verbosity(const char *v, bool *debug, ms_error *err);

/* --seed's value (run's and simulate's): a non-negative integer, decimal,
 * 0x hex or 0 octal as strtoull reads it. */
ms_rc ms_flag_seed(const char *v, uint64_t *out, ms_error *err);

#endif
