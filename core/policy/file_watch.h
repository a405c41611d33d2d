/* File watching for hot reload: one thread that watches files with
 * inotify and says when one of them changed.
 *
 * A path is watched through the directory it is in and the directory of
 * the file it resolves to (after symlinks), so that both an edit in place
 * and a replacement are seen: a rename over the file (editors, `mv`), and
 * the atomic symlink swap of a Kubernetes ConfigMap volume, where
 * DIR/policy.lua -> ..data/policy.lua and ..data -> ..2024_01_01_00_00_00.1
 * is replaced by a rename of a new ..data. After each burst of events the
 * paths are resolved again, the watches follow the new directories, and a
 * path whose file differs (device, inode, size, modification or change
 * time) is reported. A path that resolves to nothing for the moment (a
 * file being replaced by delete and create) is not reported until it
 * exists again. Without events, the paths are checked every few seconds
 * anyway (file systems without inotify, directories that did not exist). */
#ifndef MOONSCHED_WATCH_H
#define MOONSCHED_WATCH_H

#include <stdint.h>

#include "moonsched/error.h"

typedef struct ms_watch ms_watch;

typedef struct ms_watch_options {
    /* The file at path `index` (as returned by ms_watch_add) changed.
     * Called on the watcher thread. */
    void (*changed)(void *ctx, uint32_t index);
    /* ms_watch_wake was called: work other threads hand to the watcher
     * thread. Called on the watcher thread. May be NULL. */
    void (*wake)(void *ctx);
    void *ctx;
    double settle;                 /* seconds without events before looking; 0: 0.01 */
    double rescan;                 /* seconds between checks without events; 0: 2 */
} ms_watch_options;

ms_rc ms_watch_new(const ms_watch_options *o, ms_watch **out, ms_error *err);
/* Adds a path before ms_watch_start and records what it resolves to now:
 * a change after this call is reported, even one made before the start. */
ms_rc ms_watch_add(ms_watch *w, const char *path, uint32_t *index, ms_error *err);
ms_rc ms_watch_start(ms_watch *w, ms_error *err);
/* From any thread: the watcher thread calls o->wake soon. */
void ms_watch_wake(ms_watch *w);
/* Stops the thread (waiting for a callback in progress) and frees. */
void ms_watch_free(ms_watch *w);

#endif
