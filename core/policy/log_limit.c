#include "policy/log_limit.h"

#include <string.h>

void ms_log_limit_init(ms_log_limit *l) {
    memset(l, 0, sizeof *l);
    pthread_mutex_init(&l->mu, NULL);
    l->start = -MS_LOG_LIMIT_WINDOW;
}

void ms_log_limit_destroy(ms_log_limit *l) { pthread_mutex_destroy(&l->mu); }

/* FNV-1a over the policy, a separator and the message; never 0 (a free
 * slot). */
static uint64_t key_of(const char *policy, const char *msg) {
    uint64_t h = 14695981039346656037ull;
    for (const char *p = policy; *p; p++) h = (h ^ (uint8_t)*p) * 1099511628211ull;
    h = (h ^ 0xffu) * 1099511628211ull;
    for (const char *p = msg; *p; p++) h = (h ^ (uint8_t)*p) * 1099511628211ull;
    return h ? h : 1;
}

static ms_log_limit_slot *slot_for(ms_log_limit *l, uint64_t key, double now) {
    ms_log_limit_slot *oldest = &l->slot[0];
    for (uint32_t i = 0; i < MS_LOG_LIMIT_SLOTS; i++) {
        ms_log_limit_slot *s = &l->slot[i];
        if (s->key == key) return s;
        if (s->key == 0 || (oldest->key != 0 && s->last < oldest->last)) oldest = s;
    }
    *oldest = (ms_log_limit_slot){.key = key, .start = now, .last = now};
    return oldest;
}

bool ms_log_limit_pass(ms_log_limit *l, const char *policy, const char *msg, double now,
                       uint64_t *held) {
    *held = 0;
    uint64_t key = key_of(policy, msg);
    pthread_mutex_lock(&l->mu);
    ms_log_limit_slot *s = slot_for(l, key, now);
    s->last = now;
    if (now - s->start >= MS_LOG_LIMIT_WINDOW) {
        s->start = now;
        s->lines = 0;
    }
    if (now - l->start >= MS_LOG_LIMIT_WINDOW) {
        l->start = now;
        l->lines = 0;
    }
    bool pass = s->lines < MS_LOG_LIMIT_BURST && l->lines < MS_LOG_LIMIT_TOTAL;
    if (pass) {
        s->lines++;
        l->lines++;
        *held = s->held;
        s->held = 0;
    } else {
        s->held++;
    }
    pthread_mutex_unlock(&l->mu);
    return pass;
}
