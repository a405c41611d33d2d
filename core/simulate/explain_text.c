/* Explain as text. See simulate/explain_text.h. */
#include "simulate/explain_text.h"

#include <string.h>

#include "moonsched/lua_policy.h"

void ms_explain_add_policies(cJSON *explain, const ms_policy_set *ps) {
    cJSON *arr = cJSON_AddArrayToObject(explain, "policies");
    uint32_t n = ps ? ms_policy_set_count(ps) : 0;
    for (uint32_t i = 0; arr && i < n; i++) {
        ms_policy_info info;
        ms_policy_set_info(ps, i, &info);
        cJSON *p = cJSON_CreateObject();
        cJSON_AddStringToObject(p, "profile", info.profile ? info.profile : "");
        cJSON_AddStringToObject(p, "plugin", info.plugin ? info.plugin : "");
        cJSON_AddStringToObject(p, "file", info.file ? info.file : "");
        cJSON_AddNumberToObject(p, "version", info.load_error ? 0 : (double)(info.stats.reloads_ok + 1));
        cJSON_AddBoolToObject(p, "disabled", info.disabled);
        if (info.load_error) cJSON_AddStringToObject(p, "loadError", info.load_error);
        cJSON_AddItemToArray(arr, p);
    }
}

static const char *str(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double num(const cJSON *o, const char *key) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

static const cJSON *get(const cJSON *o, const char *key) { return cJSON_GetObjectItemCaseSensitive(o, key); }

/* "Plugin A 12, Plugin B 3" */
static void print_scores(FILE *out, const cJSON *scores) {
    const cJSON *s;
    bool first = true;
    cJSON_ArrayForEach(s, scores) {
        fprintf(out, "%s%s %.0f", first ? "" : ", ", s->string, s->valuedouble);
        first = false;
    }
}

static void print_status(FILE *out, const cJSON *st) {
    const char *plugin = str(st, "plugin");
    fprintf(out, "%s%s%s", plugin ? plugin : "", plugin ? ": " : "", str(st, "code") ? str(st, "code") : "");
    const cJSON *r;
    bool first = true;
    cJSON_ArrayForEach(r, get(st, "reasons")) {
        if (cJSON_IsString(r)) fprintf(out, "%s%s", first ? ": " : ", ", r->valuestring);
        first = false;
    }
}

static void print_preemption(FILE *out, const cJSON *p) {
    const char *nom = str(p, "nominatedNode");
    fprintf(out, "  preemption: nominated node %s; %.0f candidate(s)", nom ? nom : "(none)", num(p, "candidates"));
    const cJSON *c;
    bool first = true;
    cJSON_ArrayForEach(c, get(p, "candidateNodes")) {
        fprintf(out, "%s%s (%.0f victims, %.0f PDB violations)", first ? ": " : ", ", str(c, "node"),
                num(c, "victims"), num(c, "pdbViolations"));
        first = false;
    }
    fprintf(out, "\n  victims: %.0f", num(p, "victims"));
    first = true;
    cJSON_ArrayForEach(c, get(p, "victimPods")) {
        fprintf(out, "%s%s", first ? ": " : ", ", c->valuestring);
        first = false;
    }
    fputc('\n', out);
}

static void print_last_cycle(FILE *out, const cJSON *lc, double generation) {
    if (!lc) {
        fprintf(out, "Last cycle: none among the recorded ones\n");
        return;
    }
    if (str(lc, "time"))
        fprintf(out, "Last cycle: #%.0f at %s, attempt %.0f, profile %s\n", num(lc, "cycle"), str(lc, "time"),
                num(lc, "attempt"), str(lc, "profile"));
    else
        fprintf(out, "Last cycle: #%.0f at %gs of virtual time, attempt %.0f, profile %s\n", num(lc, "cycle"),
                num(lc, "virtualTime"), num(lc, "attempt"), str(lc, "profile"));
    fprintf(out, "  result: %s\n", str(lc, "result"));
    const char *node = str(lc, "selectedNode");
    if (node) {
        fprintf(out, "  selected node: %s (%.0f feasible of %.0f evaluated, %.0f nodes)", node,
                num(lc, "feasibleNodes"), num(lc, "evaluatedNodes"), num(lc, "nodes"));
        if (cJSON_IsTrue(get(lc, "scored"))) fprintf(out, ", total score %.0f", num(lc, "totalScore"));
        else fprintf(out, ", not scored (the only feasible node)");
        fputc('\n', out);
    }
    if (get(lc, "scores")) {
        fprintf(out, "  scores: ");
        print_scores(out, get(lc, "scores"));
        fputc('\n', out);
    }
    if (str(lc, "message")) fprintf(out, "  message: %s\n", str(lc, "message"));
    if (get(lc, "preemption")) print_preemption(out, get(lc, "preemption"));
    const cJSON *b = get(lc, "binding");
    if (b) {
        fprintf(out, "  binding: %s", str(b, "result"));
        if (str(b, "message")) fprintf(out, ": %s", str(b, "message"));
        fputc('\n', out);
    }
    if (num(lc, "policyGeneration") != generation)
        fprintf(out, "  policies: reloaded since this cycle (generation %.0f then, %.0f now)\n",
                num(lc, "policyGeneration"), generation);
}

static void print_recomputed(FILE *out, const cJSON *rn) {
    fprintf(out, "Recomputed now, over the current snapshot (%.0f nodes", num(rn, "nodes"));
    if (get(rn, "feasibleNodes")) fprintf(out, ", %.0f feasible", num(rn, "feasibleNodes"));
    fprintf(out, "):\n");
    if (get(rn, "preFilter")) {
        fprintf(out, "  every node: PreFilter ");
        print_status(out, get(rn, "preFilter"));
        fputc('\n', out);
    }
    if (get(rn, "error")) {
        fprintf(out, "  scoring failed: ");
        print_status(out, get(rn, "error"));
        fputc('\n', out);
    }
    const cJSON *e;
    cJSON_ArrayForEach(e, get(rn, "nodeResults")) {
        fprintf(out, "  %-24s ", str(e, "node"));
        if (get(e, "filter")) {
            print_status(out, get(e, "filter"));
        } else if (get(e, "scores")) {
            fprintf(out, "feasible, total %.0f: ", num(e, "total"));
            print_scores(out, get(e, "scores"));
        } else {
            fprintf(out, "feasible");
        }
        fputc('\n', out);
    }
}

static void print_policies(FILE *out, const cJSON *arr) {
    if (cJSON_GetArraySize(arr) == 0) return;
    fprintf(out, "Policies in effect:\n");
    const cJSON *p;
    cJSON_ArrayForEach(p, arr) {
        fprintf(out, "  %s (profile %s, %s): version %.0f%s%s%s\n", str(p, "plugin"), str(p, "profile"),
                str(p, "file"), num(p, "version"), cJSON_IsTrue(get(p, "disabled")) ? ", disabled" : "",
                str(p, "loadError") ? ", not loaded: " : "", str(p, "loadError") ? str(p, "loadError") : "");
    }
}

void ms_explain_print(FILE *out, const cJSON *e) {
    fprintf(out, "Pod %s: %s", str(e, "pod"), str(e, "state"));
    if (str(e, "queue")) fprintf(out, " (%s)", str(e, "queue"));
    if (str(e, "node")) fprintf(out, " on %s", str(e, "node"));
    if (str(e, "nominatedNode")) fprintf(out, ", nominated to %s", str(e, "nominatedNode"));
    fputc('\n', out);
    print_last_cycle(out, get(e, "lastCycle"), num(e, "policyGeneration"));
    if (!get(e, "lastCycle") && num(e, "recordedCycles") > 0)
        fprintf(out, "  (the scheduler keeps the last %.0f cycles)\n", num(e, "recordedCycles"));
    if (get(e, "recomputedNow")) print_recomputed(out, get(e, "recomputedNow"));
    print_policies(out, get(e, "policies"));
}
