/* The watcher thread: inotify on the directories of the watched paths,
 * an eventfd to wake or stop it, and a periodic check as a fallback. */
#include "policy/file_watch.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/array.h"
#include "base/mailbox.h"

/* What a path resolves to; `ok` false when it resolves to nothing. */
typedef struct identity {
    bool ok;
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime, ctime;
    char real[PATH_MAX];
} identity;

typedef struct wpath {
    char *path;
    identity last;                 /* the last existing file seen */
} wpath;

typedef struct wdir {
    int wd;
    char *path;
    bool needed;
} wdir;

struct ms_watch {
    ms_watch_options o;
    int ifd;
    ms_mailbox wake;               /* ms_watch_wake, and the stop */
    wpath *paths;
    uint32_t npaths, pathcap;
    wdir *dirs;
    uint32_t ndirs, dircap;
    pthread_t thread;
    bool started;
    _Atomic bool stop;
};

/* Directories watched: entries created, renamed in or out, written,
 * deleted, touched; and the directory itself going away. */
#define DIR_MASK                                                                              \
    (IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_CLOSE_WRITE | IN_DELETE | IN_ATTRIB |       \
     IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

static void resolve(const char *path, identity *id) {
    struct stat st;
    id->ok = stat(path, &st) == 0 && realpath(path, id->real) != NULL;
    if (!id->ok) return;
    id->dev = st.st_dev;
    id->ino = st.st_ino;
    id->size = st.st_size;
    id->mtime = st.st_mtim;
    id->ctime = st.st_ctim;
}

static bool same(const identity *a, const identity *b) {
    return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
           a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec &&
           a->ctime.tv_sec == b->ctime.tv_sec && a->ctime.tv_nsec == b->ctime.tv_nsec &&
           strcmp(a->real, b->real) == 0;
}

/* The directory part of a path ("." when it has none). */
static void dir_of(const char *path, char *out, size_t n) {
    const char *slash = strrchr(path, '/');
    if (!slash) snprintf(out, n, ".");
    else if (slash == path) snprintf(out, n, "/");
    else snprintf(out, n, "%.*s", (int)(slash - path), path);
}

static void need_dir(ms_watch *w, const char *dir) {
    for (uint32_t i = 0; i < w->ndirs; i++)
        if (strcmp(w->dirs[i].path, dir) == 0) {
            w->dirs[i].needed = true;
            return;
        }
    int wd = inotify_add_watch(w->ifd, dir, DIR_MASK);
    if (wd < 0) return;   /* not there (yet): the periodic check covers it */
    if (!ms_array_grow((void **)&w->dirs, &w->dircap, w->ndirs + 1, sizeof *w->dirs)) {
        inotify_rm_watch(w->ifd, wd);
        return;
    }
    char *copy = strdup(dir);
    if (!copy) {
        inotify_rm_watch(w->ifd, wd);
        return;
    }
    /* inotify hands out one wd per directory inode: two names of one
     * directory share it, and only one entry may remove it. */
    for (uint32_t i = 0; i < w->ndirs; i++)
        if (w->dirs[i].wd == wd) {
            free(w->dirs[i].path);
            w->dirs[i].path = copy;
            w->dirs[i].needed = true;
            return;
        }
    w->dirs[w->ndirs++] = (wdir){wd, copy, true};
}

/* Watches exactly the directories the paths need now. */
static void sync_dirs(ms_watch *w) {
    for (uint32_t i = 0; i < w->ndirs; i++) w->dirs[i].needed = false;
    char dir[PATH_MAX];
    for (uint32_t i = 0; i < w->npaths; i++) {
        dir_of(w->paths[i].path, dir, sizeof dir);
        need_dir(w, dir);
        identity now;
        resolve(w->paths[i].path, &now);
        if (now.ok) {
            dir_of(now.real, dir, sizeof dir);
            need_dir(w, dir);
        }
    }
    for (uint32_t i = 0; i < w->ndirs;) {
        if (w->dirs[i].needed) {
            i++;
            continue;
        }
        if (w->dirs[i].wd >= 0) inotify_rm_watch(w->ifd, w->dirs[i].wd);
        free(w->dirs[i].path);
        w->dirs[i] = w->dirs[--w->ndirs];
    }
}

/* A watch the kernel dropped (its directory is gone). */
static void forget_wd(ms_watch *w, int wd) {
    for (uint32_t i = 0; i < w->ndirs; i++)
        if (w->dirs[i].wd == wd) {
            free(w->dirs[i].path);
            w->dirs[i] = w->dirs[--w->ndirs];
            return;
        }
}

/* Reads what inotify has; true when there was anything. */
static bool drain(ms_watch *w) {
    char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
    bool any = false;
    for (;;) {
        ssize_t n = read(w->ifd, buf, sizeof buf);
        if (n <= 0) break;
        any = true;
        for (char *p = buf; p < buf + n;) {
            const struct inotify_event *ev = (const struct inotify_event *)p;
            if (ev->mask & IN_IGNORED) forget_wd(w, ev->wd);
            p += sizeof *ev + ev->len;
        }
    }
    return any;
}

static void check_paths(ms_watch *w) {
    for (uint32_t i = 0; i < w->npaths; i++) {
        identity now;
        resolve(w->paths[i].path, &now);
        if (!now.ok || same(&now, &w->paths[i].last)) continue;
        w->paths[i].last = now;
        w->o.changed(w->o.ctx, i);
    }
}

static int ms_of(double s) { return (int)(s * 1000 + 0.5); }

static void *watch_main(void *arg) {
    ms_watch *w = arg;
    struct pollfd fds[2] = {{w->ifd, POLLIN, 0}, {ms_mailbox_fd(&w->wake), POLLIN, 0}};
    /* Changes between ms_watch_add and the start. */
    check_paths(w);
    sync_dirs(w);
    while (!atomic_load(&w->stop)) {
        int r = poll(fds, 2, ms_of(w->o.rescan));
        if (r < 0 && errno != EINTR) break;
        if (atomic_load(&w->stop)) break;
        if (fds[1].revents & POLLIN) {
            ms_mailbox_drain(&w->wake);
            if (atomic_load(&w->stop)) break;
            if (w->o.wake) w->o.wake(w->o.ctx);
        }
        if (r > 0 && !(fds[0].revents & POLLIN)) continue;
        /* Events come in bursts (a ConfigMap swap makes several): look
         * once they have settled, at most a few rounds later. */
        if (r > 0) {
            drain(w);
            struct pollfd one = {w->ifd, POLLIN, 0};
            for (int round = 0; round < 20 && poll(&one, 1, ms_of(w->o.settle)) > 0; round++)
                drain(w);
        }
        check_paths(w);
        sync_dirs(w);
    }
    return NULL;
}

ms_rc ms_watch_new(const ms_watch_options *o, ms_watch **out, ms_error *err) {
    *out = NULL;
    if (!o || !o->changed) return ms_error_set(err, MS_EINVAL, "watch: a changed callback is needed");
    ms_watch *w = calloc(1, sizeof *w);
    if (!w) return ms_error_set(err, MS_ENOMEM, "watch: out of memory");
    w->o = *o;
    if (!(w->o.settle > 0)) w->o.settle = 0.01;
    if (!(w->o.rescan > 0)) w->o.rescan = 2;
    w->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    int wake_ok = ms_mailbox_init(&w->wake);
    if (w->ifd < 0 || wake_ok != 0) {
        int e = errno;
        ms_watch_free(w);
        return ms_error_set(err, MS_EIO, "watch: %s", strerror(e));
    }
    *out = w;
    return MS_OK;
}

ms_rc ms_watch_add(ms_watch *w, const char *path, uint32_t *index, ms_error *err) {
    if (w->started) return ms_error_set(err, MS_ESTATE, "watch: paths are added before the start");
    if (!ms_array_grow((void **)&w->paths, &w->pathcap, w->npaths + 1, sizeof *w->paths))
        return ms_error_set(err, MS_ENOMEM, "watch: out of memory");
    wpath *p = &w->paths[w->npaths];
    memset(p, 0, sizeof *p);
    if (!(p->path = strdup(path))) return ms_error_set(err, MS_ENOMEM, "watch: out of memory");
    resolve(path, &p->last);
    if (index) *index = w->npaths;
    w->npaths++;
    return MS_OK;
}

ms_rc ms_watch_start(ms_watch *w, ms_error *err) {
    if (w->started) return MS_OK;
    int e = pthread_create(&w->thread, NULL, watch_main, w);
    if (e != 0) return ms_error_set(err, MS_ENOMEM, "watch: cannot start the thread: %s", strerror(e));
    w->started = true;
    return MS_OK;
}

void ms_watch_wake(ms_watch *w) { ms_mailbox_wake(&w->wake); }

void ms_watch_free(ms_watch *w) {
    if (!w) return;
    if (w->started) {
        atomic_store(&w->stop, true);
        ms_watch_wake(w);
        pthread_join(w->thread, NULL);
    }
    for (uint32_t i = 0; i < w->ndirs; i++) free(w->dirs[i].path);
    free(w->dirs);
    for (uint32_t i = 0; i < w->npaths; i++) free(w->paths[i].path);
    free(w->paths);
    if (w->ifd >= 0) close(w->ifd);
    ms_mailbox_destroy(&w->wake, NULL);
    free(w);
}
