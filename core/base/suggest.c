/* Optimal string alignment distance over three rows, bounded. */
#include "base/suggest.h"

#include <stdlib.h>
#include <string.h>

/* Names this is asked about (fields, flags, plugins) are short; longer
 * words are never a typo of one another here. */
#define MAX_WORD 128

size_t ms_edit_distance(const char *a, const char *b, size_t max) {
    size_t la = strlen(a), lb = strlen(b);
    if (la > MAX_WORD || lb > MAX_WORD) return strcmp(a, b) == 0 ? 0 : max + 1;
    if ((la > lb ? la - lb : lb - la) > max) return max + 1;
    size_t rows[3][MAX_WORD + 1];
    size_t *prev2 = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= lb; j++) prev[j] = j;
    for (size_t i = 1; i <= la; i++) {
        cur[0] = i;
        size_t best = cur[0];
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            size_t d = prev[j] + 1;
            if (cur[j - 1] + 1 < d) d = cur[j - 1] + 1;
            if (prev[j - 1] + cost < d) d = prev[j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && prev2[j - 2] + 1 < d)
                d = prev2[j - 2] + 1;
            cur[j] = d;
            if (d < best) best = d;
        }
        if (best > max) return max + 1;   /* every later row only grows */
        size_t *t = prev2;
        prev2 = prev;
        prev = cur;
        cur = t;
    }
    return prev[lb] <= max ? prev[lb] : max + 1;
}

const char *ms_suggest(const char *word, const char *const *candidates, size_t n) {
    size_t len = strlen(word);
    size_t max = len <= 4 ? 1 : len <= 8 ? 2 : 3;
    const char *best = NULL;
    size_t best_d = max + 1;
    for (size_t i = 0; i < n; i++) {
        if (!candidates[i] || strcmp(candidates[i], word) == 0) continue;
        size_t d = ms_edit_distance(word, candidates[i], best_d - 1 < max ? best_d - 1 : max);
        if (d < best_d) {
            best_d = d;
            best = candidates[i];
        }
    }
    return best_d <= max ? best : NULL;
}
