/* Months of pod churn in minutes: pods created, scheduled, bound and
 * deleted on a cluster of fixed size, fed through the scheduler's event
 * handlers as the informers would (each pod decoded from its JSON, so its
 * strings are interned as in `run`), at a virtual 100 pods per second.
 *
 * A scheduler that runs for months must hold memory for the live cluster,
 * not for every pod it ever saw: after the warm-up the resident set must
 * stay within RSS_SLACK_KIB, and the interner's ids must be reused (there
 * are 2^28 ids: 268,435,456 pods, 31 days at 100 pods/s).
 *
 *   churn [cycles [nodes [live]]]
 *     cycles  pods created, scheduled, bound and deleted (default:
 *             270,000,000, 31.25 days at 100 pods/s, past 2^28)
 *     nodes   nodes in the cluster (default 10)
 *     live    pods alive at once (default 100)
 *
 * Prints the resident set at the end of the warm-up (the first tenth of the
 * cycles, at most 2 million) and then ten times along the way, and exits 1
 * when a pod fails to decode or to schedule, the resident set grows by more
 * than RSS_SLACK_KIB after the warm-up, or the interner keeps handing out
 * new ids. */
#include <cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "moonsched/config.h"
#include "moonsched/decode.h"
#include "moonsched/scheduler.h"

#define PODS_PER_SECOND 100.0
#define DEFAULT_CYCLES 270000000ull
#define RSS_SLACK_KIB 4096
/* New ids the interner may hand out after the warm-up: the ids a released
 * name waits behind before reuse, and room for the others. */
#define ID_SLACK 8192

typedef struct churn {
    ms_interner *in;
    ms_decoder dec;
    ms_scheduler *s;
    ms_pod *bound;          /* the pod the last cycle bound */
    ms_str node;
    uint64_t unschedulable;
} churn;

static ms_rc on_bind(void *ctx, const ms_pod *pod, ms_str node) {
    churn *c = ctx;
    c->bound = ms_pod_ref((ms_pod *)pod);
    c->node = node;
    return MS_OK;
}

static void on_unschedulable(void *ctx, const ms_pod *pod, const char *message, uint32_t attempts) {
    (void)pod, (void)attempts;
    churn *c = ctx;
    if (c->unschedulable++ == 0) fprintf(stderr, "churn: unschedulable: %s\n", message);
}

static long rss_kib(void) {
    FILE *f = fopen("/proc/self/statm", "r");
    long size = 0, resident = 0;
    if (!f) return -1;
    if (fscanf(f, "%ld %ld", &size, &resident) != 2) resident = -1;
    fclose(f);
    return resident < 0 ? -1 : resident * (sysconf(_SC_PAGESIZE) / 1024);
}

static double cpu_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static cJSON *node_json(uint32_t i) {
    char text[512];
    snprintf(text, sizeof text,
             "{\"metadata\": {\"name\": \"node-%u\", \"uid\": \"node-uid-%u\","
             " \"labels\": {\"kubernetes.io/hostname\": \"node-%u\", \"topology.kubernetes.io/zone\": \"z%u\"}},"
             " \"status\": {\"allocatable\": {\"cpu\": \"64\", \"memory\": \"256Gi\", \"pods\": \"250\"}}}",
             i, i, i, i % 3);
    return cJSON_Parse(text);
}

/* A ReplicaSet's pod, as the API server returns it: a generated name and a
 * UID of its own for every pod. */
static cJSON *pod_template(void) {
    return cJSON_Parse(
        "{\"metadata\": {\"name\": \"\", \"namespace\": \"churn\", \"uid\": \"\","
        " \"resourceVersion\": \"1\", \"labels\": {\"app\": \"churn\", \"pod-template-hash\": \"7d9f8b6c5d\"},"
        " \"ownerReferences\": [{\"apiVersion\": \"apps/v1\", \"kind\": \"ReplicaSet\","
        " \"name\": \"churn-7d9f8b6c5d\", \"uid\": \"6a1c2e10-0000-4000-8000-000000000001\", \"controller\": true}]},"
        " \"spec\": {\"containers\": [{\"name\": \"app\", \"image\": \"registry.k8s.io/pause:3.9\","
        " \"resources\": {\"requests\": {\"cpu\": \"10m\", \"memory\": \"16Mi\"}}}]},"
        " \"status\": {\"phase\": \"Pending\"}}");
}

static ms_pod *new_pod(churn *c, cJSON *tmpl, uint64_t i) {
    static const char digits[] = "bcdfghjklmnpqrstvwxz2456789";
    char name[64], uid[64], suffix[16];
    uint64_t v = i;
    size_t n = 0;
    do {
        suffix[n++] = digits[v % 27];
        v /= 27;
    } while (v);
    suffix[n] = '\0';
    snprintf(name, sizeof name, "churn-7d9f8b6c5d-%s", suffix);
    snprintf(uid, sizeof uid, "%08llx-0000-4000-8000-%012llx", (unsigned long long)(i >> 32),
             (unsigned long long)(i & 0xffffffffffffull));
    cJSON *meta = cJSON_GetObjectItemCaseSensitive(tmpl, "metadata");
    cJSON_SetValuestring(cJSON_GetObjectItemCaseSensitive(meta, "name"), name);
    cJSON_SetValuestring(cJSON_GetObjectItemCaseSensitive(meta, "uid"), uid);
    ms_pod *p = NULL;
    ms_error err = {0};
    if (ms_pod_decode(&c->dec, tmpl, &p, &err) != MS_OK) {
        fprintf(stderr, "churn: pod %llu: %s\n", (unsigned long long)i, err.msg);
        return NULL;
    }
    return p;
}

int main(int argc, char **argv) {
    uint64_t cycles = argc > 1 ? strtoull(argv[1], NULL, 10) : DEFAULT_CYCLES;
    uint32_t nnodes = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 10;
    uint32_t live = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 100;
    if (cycles == 0 || nnodes == 0 || live == 0) {
        fprintf(stderr, "usage: churn [cycles [nodes [live]]]\n");
        return 2;
    }
    uint64_t warmup = cycles / 10 < 2000000 ? cycles / 10 : 2000000;

    churn c = {0};
    c.in = ms_interner_new();
    ms_decoder_init(&c.dec, c.in);
    ms_config cfg;
    ms_error err = {0};
    if (!c.in || ms_config_default(&cfg) != MS_OK) return 1;
    ms_scheduler_options o = {
        .config = &cfg,
        .in = c.in,
        .binder = {&c, on_bind},
        .reporter = {.ctx = &c, .unschedulable = on_unschedulable},
        .seed = 1,
    };
    if (ms_scheduler_new(&o, &c.s, &err) != MS_OK) {
        fprintf(stderr, "churn: %s\n", err.msg);
        return 1;
    }
    for (uint32_t i = 0; i < nnodes; i++) {
        cJSON *j = node_json(i);
        ms_node *node = NULL;
        if (!j || ms_node_decode(&c.dec, j, &node, &err) != MS_OK) return 1;
        ms_scheduler_node_add(c.s, node, 0);
        ms_node_unref(node);
        cJSON_Delete(j);
    }

    cJSON *tmpl = pod_template();
    ms_pod **ring = calloc(live, sizeof *ring);
    if (!tmpl || !ring) return 1;
    int rc = 0;
    long rss_warm = 0, rss_max = 0;
    uint32_t ids_warm = 0;
    double t0 = cpu_s(), next_tick = 1;
    uint64_t step = cycles / 10 ? cycles / 10 : 1;
    printf("churn: %llu cycles, %u nodes, %u live pods, warm-up %llu cycles\n", (unsigned long long)cycles,
           nnodes, live, (unsigned long long)warmup);
    for (uint64_t i = 0; i < cycles; i++) {
        double now = (double)i / PODS_PER_SECOND;
        ms_pod **slot = &ring[i % live];
        if (*slot) {   /* the oldest pod goes */
            ms_scheduler_pod_delete(c.s, *slot, now);
            ms_pod_unref(*slot);
            *slot = NULL;
        }
        ms_pod *p = new_pod(&c, tmpl, i);
        if (!p) {
            rc = 1;
            break;
        }
        ms_scheduler_pod_add(c.s, p, now);
        ms_pod_unref(p);
        c.bound = NULL;
        while (ms_scheduler_schedule_one(c.s, now) && !c.bound) {}
        if (!c.bound) {
            fprintf(stderr, "churn: pod %llu was not bound\n", (unsigned long long)i);
            rc = 1;
            break;
        }
        /* the bind succeeds and the informer brings the bound pod */
        ms_scheduler_bind_done(c.s, c.bound, true, false, NULL, now);
        ms_pod *b = ms_pod_with_node(c.bound, c.node);
        ms_pod_unref(c.bound);
        if (!b) {
            rc = 1;
            break;
        }
        ms_scheduler_pod_update(c.s, b, now);
        *slot = b;
        if (now >= next_tick) {
            ms_scheduler_tick(c.s, now);
            next_tick = now + 1;
        }
        uint64_t done = i + 1;
        if (done == warmup) {
            rss_warm = rss_max = rss_kib();
            ids_warm = ms_interner_count(c.in);
        } else if (done > warmup && (done & 0xffff) == 0) {
            long r = rss_kib();
            if (r > rss_max) rss_max = r;
        }
        if (done % step == 0 || done == warmup) {
            double t = cpu_s() - t0;
            printf("churn: %11llu cycles  %7.1f days  RSS %6ld KiB  ids %10u  %6.0f s CPU  %5.2f us/cycle\n",
                   (unsigned long long)done, now / 86400, rss_kib(), ms_interner_count(c.in), t,
                   t / (double)done * 1e6);
            fflush(stdout);
        }
    }
    if (rc == 0 && c.unschedulable) rc = 1;
    uint32_t ids_end = ms_interner_count(c.in);
    long rss_end = rss_kib();
    if (rss_end > rss_max) rss_max = rss_end;
    if (rc == 0) {
        printf("churn: RSS after warm-up %ld KiB, highest since %ld KiB (+%ld), at the end %ld KiB; "
               "ids %u after warm-up, %u at the end\n",
               rss_warm, rss_max, rss_max - rss_warm, rss_end, ids_warm, ids_end);
        if (rss_max - rss_warm > RSS_SLACK_KIB) {
            printf("churn: FAIL: the resident set grew by %ld KiB after the warm-up (allowed %d)\n",
                   rss_max - rss_warm, RSS_SLACK_KIB);
            rc = 1;
        }
        if (ids_end > ids_warm + ID_SLACK) {
            printf("churn: FAIL: %u new ids after the warm-up: names are not reused\n", ids_end - ids_warm);
            rc = 1;
        }
    }
    printf("churn: %s in %.1f s CPU\n", rc ? "FAIL" : "ok", cpu_s() - t0);
    for (uint32_t k = 0; k < live; k++) ms_pod_unref(ring[k]);
    free(ring);
    cJSON_Delete(tmpl);
    ms_scheduler_free(c.s);
    ms_config_free(&cfg);
    ms_interner_free(c.in);
    return rc;
}
