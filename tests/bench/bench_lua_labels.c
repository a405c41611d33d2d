/* What reading labels, annotations and extended resources costs a Lua
 * policy, per node, at 5000 nodes shaped like a real cluster's (kubelet and
 * cloud labels, a few annotations, a quarter of them with GPUs): each
 * policy below runs its Filter and Score over every node for a pod, through
 * the same plugin ops the framework calls, and the cost of a policy that
 * reads nothing (pod_count) is the baseline. Also runs the shipped
 * policies/gpu-binpack.lua for a GPU pod and for a pod without GPUs. */
#include <cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "moonsched/decode.h"
#include "moonsched/lua_policy.h"
#include "moonsched/plugin.h"

#define NODES 5000
#define ROUNDS 60
#define TRIALS 9

static double cpu_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void quiet(void *ctx, ms_lua_log_level l, const char *p, const char *m) {
    (void)ctx, (void)l, (void)p, (void)m;
}

typedef struct bench_policy {
    const char *label;
    const char *src;               /* NULL: file */
    const char *file;
} bench_policy;

/* score(): a number per node; each reads one thing more than the baseline. */
static const bench_policy policies[] = {
    {"baseline (pod_count)", "local p = {name = 'base'}\n"
     "function p.score(_, node) return node.pod_count end\nreturn p", NULL},
    {"label == value", "local p = {name = 'label'}\n"
     "function p.score(_, node)\n"
     "  if node.labels['topology.kubernetes.io/zone'] == 'zone-1' then return 100 end\n"
     "  return node.pod_count\nend\nreturn p", NULL},
    {"label absent", "local p = {name = 'absent'}\n"
     "function p.score(_, node)\n"
     "  if node.labels['example.com/nowhere'] ~= nil then return 100 end\n"
     "  return node.pod_count\nend\nreturn p", NULL},
    {"tonumber(label)", "local p = {name = 'price'}\n"
     "function p.score(_, node)\n"
     "  return tonumber(node.labels['moonsched.io/price']) or node.pod_count\nend\nreturn p", NULL},
    {"two labels", "local p = {name = 'two'}\n"
     "function p.score(_, node)\n"
     "  local l = node.labels\n"
     "  if l['moonsched.io/pool'] == 'a' and l['kubernetes.io/arch'] == 'amd64' then return 100 end\n"
     "  return node.pod_count\nend\nreturn p", NULL},
    {"annotation read", "local p = {name = 'ann'}\n"
     "function p.score(_, node)\n"
     "  if node.annotations['moonsched.io/load'] == '0.01' then return 100 end\n"
     "  return node.pod_count\nend\nreturn p", NULL},
    {"tonumber(annotation)", "local p = {name = 'load'}\n"
     "function p.score(_, node)\n"
     "  return tonumber(node.annotations['moonsched.io/load']) or node.pod_count\nend\nreturn p",
     NULL},
    {"requested[extended]", "local p = {name = 'ext'}\n"
     "function p.score(_, node)\n"
     "  return node.allocatable['nvidia.com/gpu'] - node.requested['nvidia.com/gpu']\nend\n"
     "return p", NULL},
    {"gpu-binpack, GPU pod", NULL, "policies/gpu-binpack.lua"},
    {"gpu-binpack, no-GPU pod", NULL, "policies/gpu-binpack.lua"},
};

static cJSON *node_json(int i) {
    char buf[2048];
    static const char *const types[] = {"m5.xlarge", "m5.2xlarge", "c5.4xlarge", "p3.8xlarge"};
    bool gpu = i % 4 == 3;
    snprintf(buf, sizeof buf,
             "{\"kind\":\"Node\",\"metadata\":{\"name\":\"node-%05d\",\"labels\":{"
             "\"kubernetes.io/hostname\":\"node-%05d\",\"kubernetes.io/os\":\"linux\","
             "\"kubernetes.io/arch\":\"amd64\",\"beta.kubernetes.io/os\":\"linux\","
             "\"beta.kubernetes.io/arch\":\"amd64\",\"node.kubernetes.io/instance-type\":\"%s\","
             "\"topology.kubernetes.io/zone\":\"zone-%d\",\"topology.kubernetes.io/region\":\"r1\","
             "\"moonsched.io/pool\":\"%c\",\"moonsched.io/price\":\"%d.%02d\"},"
             "\"annotations\":{\"moonsched.io/load\":\"0.%02d\","
             "\"moonsched.io/load-timestamp\":\"1700000000\","
             "\"node.alpha.kubernetes.io/ttl\":\"0\"}},"
             "\"status\":{\"allocatable\":{\"cpu\":\"%d\",\"memory\":\"%dGi\",\"pods\":\"110\"%s}}}",
             i, i, types[i % 4], i % 3, 'a' + i % 3, 1 + i % 7, i % 100, i % 100, 4 + 4 * (i % 8),
             16 * (1 + i % 4), gpu ? ",\"nvidia.com/gpu\":\"8\"" : "");
    return cJSON_Parse(buf);
}

static ms_pod *pod_from(const ms_decoder *d, const char *json) {
    cJSON *j = cJSON_Parse(json);
    ms_pod *p = NULL;
    ms_error err = {0};
    if (!j || ms_pod_decode(d, j, &p, &err) != MS_OK) {
        fprintf(stderr, "pod: %s\n", err.msg);
        exit(2);
    }
    cJSON_Delete(j);
    return p;
}

int main(int argc, char **argv) {
    /* An argument: run only the policies whose label contains it. */
    const char *only = argc > 1 ? argv[1] : NULL;
    ms_interner *in = ms_interner_new();
    ms_decoder d;
    ms_decoder_init(&d, in);
    ms_handle h = {.in = in, .rn = &d.rn};
    ms_error err = {0};

    static ms_node_info *nodes[NODES];
    for (int i = 0; i < NODES; i++) {
        cJSON *j = node_json(i);
        ms_node *n = NULL;
        if (!j || ms_node_decode(&d, j, &n, &err) != MS_OK) {
            fprintf(stderr, "node %d: %s\n", i, err.msg);
            return 2;
        }
        cJSON_Delete(j);
        nodes[i] = ms_node_info_new(n->meta.name);
        ms_node_info_set_node(nodes[i], n);
        ms_node_unref(n);
    }
    /* Some GPUs in use: on every other GPU node a pod holds two. */
    ms_pod *user = pod_from(&d, "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"u\",\"namespace\":\"d\"},"
                                "\"spec\":{\"nodeName\":\"x\",\"containers\":[{\"name\":\"c\","
                                "\"resources\":{\"requests\":{\"cpu\":\"1\",\"nvidia.com/gpu\":\"2\"},"
                                "\"limits\":{\"nvidia.com/gpu\":\"2\"}}}]}}");
    for (int i = 3; i < NODES; i += 8) ms_node_info_add_pod(nodes[i], ms_pod_ref(user), in);
    ms_pod *gpu_pod = pod_from(&d, "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"g\",\"namespace\":\"d\"},"
                                   "\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{"
                                   "\"requests\":{\"cpu\":\"1\",\"nvidia.com/gpu\":\"1\"},"
                                   "\"limits\":{\"nvidia.com/gpu\":\"1\"}}}]}}");
    ms_pod *cpu_pod = pod_from(&d, "{\"kind\":\"Pod\",\"metadata\":{\"name\":\"c\",\"namespace\":\"d\"},"
                                   "\"spec\":{\"containers\":[{\"name\":\"c\",\"resources\":{"
                                   "\"requests\":{\"cpu\":\"1\"}}}]}}");

    ms_lua_options o;
    ms_lua_options_default(&o);
    o.log = quiet;
    /* BUDGET=seconds: a larger budget per call, e.g. under valgrind. */
    if (getenv("BUDGET")) o.budget = atof(getenv("BUDGET"));
    ms_lua_runtime *rt = NULL;
    if (ms_lua_runtime_new(&o, in, &rt, &err) != MS_OK) {
        fprintf(stderr, "%s\n", err.msg);
        return 2;
    }
    ms_arena arena;
    ms_arena_init(&arena, 1 << 20);
    static int64_t scores[NODES];
    static ms_status statuses[NODES];
    static ms_node_info *feasible[NODES];

    double base = 0;
    printf("%-26s %12s %14s\n", "policy (5000 nodes)", "ns/node", "over baseline");
    for (size_t k = 0; k < sizeof policies / sizeof policies[0]; k++) {
        const bench_policy *bp = &policies[k];
        if (only && k > 0 && !strstr(bp->label, only)) continue;
        ms_lua_state *s = NULL;
        ms_policy *p = NULL;
        ms_rc rc = bp->src ? ms_lua_state_load(rt, "=bench", bp->src, strlen(bp->src), NULL, &s, &err)
                           : ms_lua_state_load_file(rt, bp->file, NULL, &s, &err);
        if (rc != MS_OK || ms_policy_new(rt, s, &p, &err) != MS_OK) {
            fprintf(stderr, "%s: %s\n", bp->label, err.msg);
            return 2;
        }
        const ms_plugin_ops *ops = ms_policy_ops(p);
        ms_pod *pod = strstr(bp->label, "no-GPU") ? cpu_pod : gpu_pod;
        ms_cycle c = {.pod = pod, .arena = &arena, .h = &h, .cycle = 1};
        double best = 1e30;
        for (int t = 0; t < TRIALS; t++) {
            double t0 = cpu_s();
            for (int r = 0; r < ROUNDS; r++) {
                ms_arena_reset(&arena);
                c.cycle++;
                ms_status st;
                ms_status_ok(&st);
                uint32_t nf = NODES;
                if (ops->pre_filter && ops->pre_filter(p, &c, &st) == MS_UNSCHEDULABLE) {
                    fprintf(stderr, "%s: pre_filter rejected\n", bp->label);
                    return 1;
                }
                if (ops->filter_batch) {
                    ops->filter_batch(p, &c, nodes, NODES, statuses);
                    nf = 0;
                    for (int i = 0; i < NODES; i++)
                        if (statuses[i].code == MS_SUCCESS) feasible[nf++] = nodes[i];
                } else {
                    memcpy(feasible, nodes, sizeof nodes);
                }
                if (ops->score(p, &c, feasible, nf, scores, &st) != MS_SUCCESS) {
                    fprintf(stderr, "%s: score failed: %s\n", bp->label,
                            st.nreasons ? st.reasons[0] : "");
                    return 1;
                }
            }
            double ns = (cpu_s() - t0) * 1e9 / ROUNDS / NODES;
            if (ns < best) best = ns;
        }
        if (k == 0) base = best;
        printf("%-26s %12.1f %14.1f\n", bp->label, best, best - base);
        ms_policy_free(p);
    }
    ms_lua_runtime_free(rt);
    for (int i = 0; i < NODES; i++) ms_node_info_free(nodes[i]);
    ms_pod_unref(user);
    ms_pod_unref(gpu_pod);
    ms_pod_unref(cpu_pod);
    ms_arena_free(&arena);
    ms_interner_free(in);
    return 0;
}
