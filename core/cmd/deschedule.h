/* `moonsched deschedule`'s flags, upstream descheduler's names. */
#ifndef MOONSCHED_CMD_DESCHEDULE_H
#define MOONSCHED_CMD_DESCHEDULE_H

#include <stdbool.h>

#include "moonsched/error.h"
#include "run/deschedule.h"

/* Parses `moonsched deschedule` arguments (policies: room for argc
 * entries). *help is set for --help. MS_EINVAL with the message. */
ms_rc ms_deschedule_parse_args(int argc, char **argv, ms_deschedule_options *o, const char **policies,
                               bool *help, ms_error *err);

#endif
