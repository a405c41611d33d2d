/* The Lua policies of one scheduler (docs/policies.md): loaded from the
 * "lua:NAME" plugins of the configuration's profiles and from policy files
 * given on the command line, watched, and hot-reloaded.
 *
 * Each (profile, policy plugin) pair is one ms_policy with its own Lua
 * state, args and limits. The scheduler gets them as per-profile
 * out-of-tree plugins.
 *
 * Hot reload. A watcher thread (ms_watch) notices that a policy file
 * changed (edited, replaced, or swapped in by a ConfigMap's ..data
 * symlink), reads it and, when its content is new, loads it for every
 * plugin that uses it into a fresh state and runs init there: the
 * scheduler thread never waits for a compile or an init. The results go
 * through a channel; ms_policy_set_poll, called by the scheduler thread
 * between cycles, swaps each new version in. A version whose hooks no
 * longer fit the configuration (a hook missing at a point the profile
 * names explicitly, a second QueueSort) is refused like one that failed to
 * load: the running version stays and the failure is reported. After a
 * swap the profile's extension points follow the new hooks, and pods that
 * the previous version left unschedulable move (MS_EV_POLICY_RELOAD).
 * Replaced states are freed on the watcher thread.
 *
 * Threads: everything here is called on the scheduler thread, except the
 * `ready` callback (watcher thread). */
#ifndef MOONSCHED_POLICY_SET_H
#define MOONSCHED_POLICY_SET_H

#include <stdbool.h>
#include <stdint.h>

#include "moonsched/config.h"
#include "moonsched/error.h"
#include "moonsched/intern.h"
#include "moonsched/lua_policy.h"
#include "moonsched/plugin.h"
#include "moonsched/scheduler.h"

#pragma GCC visibility push(default)

typedef struct ms_policy_set ms_policy_set;

typedef enum ms_policy_event_kind {
    MS_POLICY_RELOADED = 0,        /* a new version runs */
    MS_POLICY_RELOAD_FAILED,       /* a new version was refused; the running one stays */
    MS_POLICY_DISABLED,            /* too many consecutive failures */
    MS_POLICY_LOAD_FAILED,         /* did not load at start (tolerate_load_failures) */
} ms_policy_event_kind;

typedef struct ms_policy_event {
    ms_policy_event_kind kind;
    const char *profile;           /* schedulerName */
    const char *plugin;            /* "lua:gpu-binpack" */
    const char *file;              /* the policy file as configured */
    const char *message;           /* one line: what happened and why */
    double latency;                /* RELOADED: seconds from the file's last write to the swap */
} ms_policy_event;

typedef struct ms_policy_set_options {
    /* The runtime's defaults (budget, memory, failures, log, now). Its
     * permit and disabled callbacks are the set's own. */
    ms_lua_options lua;
    /* Policy files added to every profile (`--policy FILE`), as plugin
     * "lua:NAME" (NAME: the policy's `name`) with weight 1 at every
     * extension point, and as the profiles' QueueSort when they define
     * `less`. */
    const char *const *files;
    /* Beside files: each file's init args (`--policy-args`), a JSON
     * object's text, or NULL for none; the array may be NULL. */
    const char *const *file_args;
    uint32_t nfiles;
    /* Policy files added to every profile in shadow mode (`simulate
     * --shadow FILE`): as above, with "mode": "shadow" (named
     * lua:NAME.shadow where the profile has a lua:NAME already). */
    const char *const *shadow_files;
    const char *const *shadow_file_args;   /* as file_args */
    uint32_t nshadow_files;
    bool watch;                    /* reload changed files (from ms_policy_set_attach on) */
    /* Reads a policy file's text (malloc'd) in place of the disk when the
     * set loads (`deschedule`: the last version that loaded). NULL: the
     * disk. */
    ms_rc (*read_file)(void *ctx, const char *path, char **text, size_t *len, ms_error *err);
    void *read_ctx;
    /* `run`: a policy file that does not load at start is no error. Its
     * plugin stays in the profile without a version (ms_policy_new_unloaded):
     * fail closed, the profile placing no pod, unless its onLoadError is
     * "skip" (pluginConfig args, or `--policy FILE,onLoadError=skip`); the
     * watcher loads the file again when it changes, as any reload. Reported
     * (MS_POLICY_LOAD_FAILED) from ms_policy_set_attach on. A --policy file
     * that does not load is named lua:<its file name without .lua>. */
    bool tolerate_load_failures;
    double watch_settle;           /* ms_watch_options.settle; 0: its default */
    /* Reloads, refused versions, disabled policies. On the scheduler thread.
     * NULL: a log line through lua.log. */
    void (*report)(void *ctx, const ms_policy_event *ev);
    void *report_ctx;
    /* Something waits for ms_policy_set_poll (a loop that sleeps may wake).
     * On the watcher thread. May be NULL. */
    void (*ready)(void *ctx);
    void *ready_ctx;
} ms_policy_set_options;

void ms_policy_set_options_default(ms_policy_set_options *o);

/* Loads the policies of cfg's profiles and o->files (which it adds to
 * cfg's profiles; a file may end in ",onLoadError=skip" or
 * ",onLoadError=reject"). Errors name the profile, the plugin and the file, or
 * the file given on the command line ("--policy FILE: ..."). A set with
 * no policy is valid (and does nothing). `in` must outlive the set. */
ms_rc ms_policy_set_new(ms_config *cfg, const ms_policy_set_options *o, ms_interner *in,
                        ms_policy_set **out, ms_error *err);
/* Frees every policy and stops the watcher. Free the scheduler first. */
void ms_policy_set_free(ms_policy_set *ps);

/* For ms_scheduler_options.profile_out_of_tree / n_profile_out_of_tree
 * (indexed like cfg->profiles; valid while the set lives). */
const ms_plugin_ops *const *const *ms_policy_set_profile_plugins(const ms_policy_set *ps);
const uint32_t *ms_policy_set_profile_counts(const ms_policy_set *ps);

/* Connects the set to the scheduler made with its plugins: sched.permit
 * releases the scheduler's waiting pods, each profile's DefaultPreemption
 * consults the policies' select_victims and pick_preemption (in the
 * profile's plugin order; the first that does not defer decides). Then
 * starts the watcher when o->watch. Call it on the scheduler thread. */
ms_rc ms_policy_set_attach(ms_policy_set *ps, ms_scheduler *s, ms_error *err);

/* Between cycles: swaps in the versions loaded since the last call and
 * reports what happened. Returns the number of policies replaced. An
 * atomic load when nothing is pending. */
uint32_t ms_policy_set_poll(ms_policy_set *ps, double now);

uint32_t ms_policy_set_count(const ms_policy_set *ps);

typedef struct ms_policy_info {
    const char *profile;
    const char *plugin;
    const char *file;
    const ms_policy *policy;
    ms_policy_stats stats;
    bool disabled;
    const char *load_error;        /* no version loaded yet: why; NULL: one runs */
    bool fail_open;                /* onLoadError "skip" */
} ms_policy_info;

/* The i-th policy (i < ms_policy_set_count), for metrics and reports. */
void ms_policy_set_info(const ms_policy_set *ps, uint32_t i, ms_policy_info *out);

/* Over every policy; latencies over the reloads swapped in. */
typedef struct ms_policy_set_totals {
    uint32_t policies;
    uint64_t calls, failures, reloads_ok, reloads_failed, disabled;
    double reload_latency_max, reload_latency_last;
} ms_policy_set_totals;

void ms_policy_set_get_totals(const ms_policy_set *ps, ms_policy_set_totals *out);

#pragma GCC visibility pop

#endif
