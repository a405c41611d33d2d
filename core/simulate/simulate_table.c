/* `simulate --output table` (the default): each pending pod's fate, the
 * preemptions, the nodes' requests, the shadow policies' counts. */
#include "simulate/simulate_internal.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scheduler/shadow.h"

static void print_placements(sim *m) {
    char key[512], why[2048], vols[1024], devs[1024];
    for (uint32_t i = 0; i < m->npl; i++) {
        const placement *p = &m->pl[i];
        ms_pod_key(p->pod, m->in, key, sizeof key);
        if (p->node != MS_STR_NONE) {
            ms_sim_format_score(p, why, sizeof why);
            ms_sim_volumes_describe(&m->vols, p->pod, vols, sizeof vols);
            ms_sim_dra_describe(m->sched, m->in, p->pod, devs, sizeof devs);
            fprintf(m->out, "%s -> %s  (%s)%s%s%s%s\n", key, ms_str_get(m->in, p->node), why,
                    *vols ? "  volumes: " : "", vols, *devs ? "  devices: " : "", devs);
        } else if (p->preempted) {
            /* the message starts with "preempted " */
            const char *msg = p->message && strlen(p->message) > 10 ? p->message + 10 : "";
            fprintf(m->out, "%s -> (preempted) %s\n", key, msg);
        } else if (p->gated) {
            fprintf(m->out, "%s -> (gated) %s: %s (%s)\n", key, GATED_REASON, GATED_MESSAGE,
                    p->message ? p->message : "");
        } else {
            fprintf(m->out, "%s -> (unschedulable) %s\n", key, p->message ? p->message : "");
        }
    }
}

static void print_preemptions(sim *m) {
    if (m->npre == 0) return;
    char v[512], p[512];
    fprintf(m->out, "\npreemptions:\n");
    for (uint32_t i = 0; i < m->npre; i++) {
        const preemption *e = &m->pre[i];
        ms_pod_key(e->victim, m->in, v, sizeof v);
        ms_pod_key(e->preemptor, m->in, p, sizeof p);
        fprintf(m->out, "  preempted %s on %s by %s (priority %d > %d)\n", v,
                ms_str_get(m->in, e->node), p, (int)e->preemptor->priority, (int)e->victim->priority);
    }
}

static int percent(int64_t used, int64_t total) {
    if (total <= 0) return used > 0 ? 100 : 0;
    return (int)(used * 100 / total);
}

static void print_node_table(sim *m) {
    uint32_t n = 0;
    const ms_node_info **v = ms_sim_sorted_nodes(m, &n);
    if (!v) {
        m->oom = true;
        return;
    }
    /* Rows first, to size the columns. */
    typedef struct row {
        char name[160], pods[48], cpu[96], mem[96], ext[256];
    } row;
    row *rows = calloc(n ? n : 1, sizeof *rows);
    if (!rows) {
        free(v);
        m->oom = true;
        return;
    }
    size_t w[4] = {4, 4, 3, 6};
    for (uint32_t i = 0; i < n; i++) {
        const ms_node_info *ni = v[i];
        const ms_resources *alloc = &ni->node->allocatable, *req = &ni->requested;
        row *r = &rows[i];
        char a[32], b[32];
        snprintf(r->name, sizeof r->name, "%s%s", ms_str_get(m->in, ni->name),
                 ni->node->unschedulable ? " (cordoned)" : "");
        snprintf(r->pods, sizeof r->pods, "%u/%lld", ni->npods, (long long)alloc->v[MS_RES_PODS]);
        /* One unit for both sides: cores when both are whole, else millicores. */
        int64_t rc = req->v[MS_RES_CPU], ac = alloc->v[MS_RES_CPU];
        bool whole = rc % 1000 == 0 && ac % 1000 == 0;
        if (whole)
            snprintf(r->cpu, sizeof r->cpu, "%lld/%lld (%d%%)", (long long)(rc / 1000),
                     (long long)(ac / 1000), percent(rc, ac));
        else
            snprintf(r->cpu, sizeof r->cpu, "%lld%s/%lldm (%d%%)", (long long)rc, rc ? "m" : "",
                     (long long)ac, percent(rc, ac));
        ms_sim_format_quantity(MS_RES_MEMORY, NULL, req->v[MS_RES_MEMORY], a, sizeof a);
        ms_sim_format_quantity(MS_RES_MEMORY, NULL, alloc->v[MS_RES_MEMORY], b, sizeof b);
        snprintf(r->mem, sizeof r->mem, "%s/%s (%d%%)", a, b,
                 percent(req->v[MS_RES_MEMORY], alloc->v[MS_RES_MEMORY]));
        size_t len = 0;
        for (uint32_t k = 0; k < alloc->nscalar && len < sizeof r->ext; k++) {
            const char *name = ms_str_get(m->in, alloc->scalar[k].name);
            ms_sim_format_quantity(-1, name, ms_resources_scalar(req, alloc->scalar[k].name), a, sizeof a);
            ms_sim_format_quantity(-1, name, alloc->scalar[k].value, b, sizeof b);
            int wr = snprintf(r->ext + len, sizeof r->ext - len, "%s%s %s/%s", len ? ", " : "",
                              name, a, b);
            if (wr > 0) len += (size_t)wr;
        }
        if (!len) snprintf(r->ext, sizeof r->ext, "-");
        size_t l[4] = {strlen(r->name), strlen(r->pods), strlen(r->cpu), strlen(r->mem)};
        for (int k = 0; k < 4; k++)
            if (l[k] > w[k]) w[k] = l[k];
    }
    fprintf(m->out, "\n%-*s  %-*s  %-*s  %-*s  %s\n", (int)w[0], "NODE", (int)w[1], "PODS",
            (int)w[2], "CPU", (int)w[3], "MEMORY", "EXTENDED");
    for (uint32_t i = 0; i < n; i++)
        fprintf(m->out, "%-*s  %-*s  %-*s  %-*s  %s\n", (int)w[0], rows[i].name, (int)w[1],
                rows[i].pods, (int)w[2], rows[i].cpu, (int)w[3], rows[i].mem, rows[i].ext);
    free(rows);
    free(v);
}

/* The shadow policies' counts and disagreements, after the placements. */
static void print_shadow(sim *m) {
    cJSON *sh = ms_scheduler_shadow_json(m->sched);
    const cJSON *p;
    fprintf(m->out, "\nshadow policies:\n");
    cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(sh, "policies")) {
        fprintf(m->out, "  %s beside profile %s: %d decisions, %d agree, %d disagree, %d errors (CPU %.3f s)\n",
                cJSON_GetObjectItem(p, "policy")->valuestring, cJSON_GetObjectItem(p, "profile")->valuestring,
                cJSON_GetObjectItem(p, "decisions")->valueint, cJSON_GetObjectItem(p, "agree")->valueint,
                cJSON_GetObjectItem(p, "disagree")->valueint, cJSON_GetObjectItem(p, "errors")->valueint,
                cJSON_GetObjectItem(p, "cpuSeconds")->valuedouble);
        int skipped = cJSON_GetObjectItem(p, "skipped")->valueint;
        if (skipped > 0)
            fprintf(m->out, "    %d cycles skipped while the policy was disabled or not loaded (not decisions)\n",
                    skipped);
        const cJSON *d;
        cJSON_ArrayForEach(d, cJSON_GetObjectItemCaseSensitive(p, "disagreements")) {
            const cJSON *l = cJSON_GetObjectItem(d, "live"), *w = cJSON_GetObjectItem(d, "shadow");
            const cJSON *why = cJSON_GetObjectItem(d, "liveNodeRejected");
            fprintf(m->out, "    %s: profile %s (%d + %d), shadow ", cJSON_GetObjectItem(d, "pod")->valuestring,
                    cJSON_GetObjectItem(l, "node")->valuestring, cJSON_GetObjectItem(l, "profileScore")->valueint,
                    cJSON_GetObjectItem(l, "shadowScore")->valueint);
            if (cJSON_IsObject(w))
                fprintf(m->out, "%s (%d + %d)", cJSON_GetObjectItem(w, "node")->valuestring,
                        cJSON_GetObjectItem(w, "profileScore")->valueint,
                        cJSON_GetObjectItem(w, "shadowScore")->valueint);
            else
                fprintf(m->out, "(no node)");
            if (cJSON_IsString(why)) fprintf(m->out, "; refused %s", why->valuestring);
            fputc('\n', m->out);
        }
    }
    cJSON_Delete(sh);
}

void ms_sim_print_table(sim *m) {
    print_placements(m);
    print_preemptions(m);
    print_node_table(m);
    if (ms_scheduler_shadow_count(m->sched)) print_shadow(m);
}
