/* Label selectors (metav1.LabelSelector), node selectors (v1.NodeSelector)
 * and the text form of label selectors (labels.Parse), compiled once into
 * integer requirements.
 *
 * Semantics follow upstream exactly:
 * - LabelSelector: nil matches nothing, empty ({}) matches everything;
 *   matchLabels and matchExpressions are ANDed.
 * - NodeSelector: terms are ORed; within a term matchExpressions and
 *   matchFields are ANDed; a term with neither matches nothing; a term with an
 *   invalid requirement matches nothing (the other terms still count).
 * - In/NotIn need >= 1 value, Exists/DoesNotExist none, Gt/Lt exactly one
 *   integer; a label value that is not an integer never satisfies Gt/Lt.
 * - NotIn and DoesNotExist match when the key is absent. */
#ifndef MOONSCHED_SELECTOR_H
#define MOONSCHED_SELECTOR_H

#include <stdbool.h>
#include <stdint.h>

#include "moonsched/arena.h"
#include "moonsched/error.h"
#include "moonsched/intern.h"
#include "moonsched/labels.h"

#pragma GCC visibility push(default)

typedef struct cJSON cJSON;

typedef enum ms_selector_op {
    MS_OP_IN = 0,
    MS_OP_NOT_IN,
    MS_OP_EXISTS,
    MS_OP_DOES_NOT_EXIST,
    MS_OP_GT,
    MS_OP_LT,
    MS_OP_EQUALS,       /* text form "=" / "==" (same as In with one value) */
    MS_OP_NOT_EQUALS,   /* text form "!=" (same as NotIn with one value) */
} ms_selector_op;

typedef struct ms_requirement {
    ms_str key;
    uint8_t op;          /* ms_selector_op */
    uint32_t nvalues;
    ms_str *values;      /* sorted by id */
    int64_t number;      /* Gt/Lt operand; in a matchFields requirement, 1 when
                            the key is metadata.name (other keys read as "") */
} ms_requirement;

typedef struct ms_label_selector {
    bool nothing;        /* nil selector, or one that failed to compile */
    uint32_t n;
    ms_requirement *reqs;
} ms_label_selector;

typedef struct ms_node_selector_term {
    bool invalid;        /* matches nothing */
    uint32_t nexpr;
    ms_requirement *expr;      /* against node labels */
    uint32_t nfields;
    ms_requirement *fields;    /* matchFields: only key metadata.name */
} ms_node_selector_term;

typedef struct ms_node_selector {
    uint32_t n;
    ms_node_selector_term *terms;
} ms_node_selector;

bool ms_requirement_matches(const ms_requirement *r, const ms_labels *labels,
                            const ms_interner *in);
bool ms_label_selector_matches(const ms_label_selector *s, const ms_labels *labels,
                               const ms_interner *in);
bool ms_node_selector_term_matches(const ms_node_selector_term *t, const ms_labels *node_labels,
                                   ms_str node_name, const ms_interner *in);
bool ms_node_selector_matches(const ms_node_selector *s, const ms_labels *node_labels,
                              ms_str node_name, const ms_interner *in);

/* From JSON. A NULL or JSON-null `j` gives the nil selector. A structurally
 * malformed value (wrong JSON type) returns MS_EINVAL naming `field`; a
 * semantically invalid requirement (e.g. In with no values) compiles to a
 * selector/term that matches nothing, as upstream does at match time.
 * Everything is allocated in `a`. */
ms_rc ms_label_selector_from_json(const cJSON *j, ms_interner *in, ms_arena *a,
                                  ms_label_selector *out, const char *field, ms_error *err);
ms_rc ms_node_selector_from_json(const cJSON *j, ms_interner *in, ms_arena *a,
                                 ms_node_selector *out, const char *field, ms_error *err);
ms_rc ms_node_selector_term_from_json(const cJSON *j, ms_interner *in, ms_arena *a,
                                      ms_node_selector_term *out, const char *field,
                                      ms_error *err);

/* labels.Parse text syntax: "a=b,c!=d,e in (x,y),f notin (z),g,!h,i>3".
 * "" (or NULL) selects everything; on MS_EINVAL `out` selects nothing. */
ms_rc ms_label_selector_parse(const char *text, ms_interner *in, ms_arena *a,
                              ms_label_selector *out, ms_error *err);

#pragma GCC visibility pop

#endif
