/* The informer's watch-event handling without its thread or a server:
 * what the fuzz target of watch streams drives. The scheduler never uses
 * it; ms_informer_start is the only way it runs informers. */
#ifndef MOONSCHED_INFORMER_INTERNAL_H
#define MOONSCHED_INFORMER_INTERNAL_H

#include <stddef.h>

#include "client/informer.h"

/* An informer that never lists nor watches (o->client may be NULL): lines
 * reach it through ms_informer_watch_line only. Freed by ms_informer_stop. */
ms_rc ms_informer_new_detached(const ms_informer_options *o, ms_informer **out, ms_error *err);
/* One line of a watch stream ({"type":"ADDED","object":{...}}), handled as
 * a running watch handles it; non-zero when the watch would end there (an
 * ERROR event, or the queue closed). */
int ms_informer_watch_line(ms_informer *inf, char *line, size_t len);

#endif
