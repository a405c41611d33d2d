/* One command-line flag's value, as every subcommand reads it. */
#ifndef MOONSCHED_CMD_FLAG_VALUE_H
#define MOONSCHED_CMD_FLAG_VALUE_H

#include <stdbool.h>

/* "--name=value" or "--name value" at argv[*i] (*i moves past a separate
 * value): the value, or NULL when argv[*i] is not that flag. A flag given
 * last without its value answers "" and sets *missing (when not NULL). */
const char *ms_flag_value(int argc, char **argv, int *i, const char *name, bool *missing);

#endif
