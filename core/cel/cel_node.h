/* The tree of a compiled CEL expression and the values it computes:
 * shared by the parser and the evaluator only. */
#ifndef MOONSCHED_CEL_NODE_H
#define MOONSCHED_CEL_NODE_H

#include <stdbool.h>
#include <stdint.h>

#include "moonsched/intern.h"

typedef enum cel_type {
    CV_ERROR = 0, CV_NULL, CV_BOOL, CV_INT, CV_UINT, CV_DOUBLE, CV_STRING, CV_LIST,
    CV_QUANTITY, CV_SEMVER,
    CV_DEVICE,                     /* `device` */
    CV_DOMAINS,                    /* device.attributes / device.capacity: domain -> map */
    CV_DOMAIN,                     /* one domain's map: id -> value */
} cel_type;

typedef struct cel_val {
    uint8_t t;                     /* cel_type */
    bool capacity;                 /* CV_DOMAINS, CV_DOMAIN: capacity, not attributes */
    union {
        bool b;
        int64_t i;
        uint64_t u;
        double d;
        struct {
            const char *s;
            uint32_t n;
        } str;
        struct {
            const struct cel_val *items;
            uint32_t n;
        } list;
        int64_t milli;             /* CV_QUANTITY, in thousandths */
        struct {
            int64_t v[3];
            const char *pre;       /* pre-release, without '-'; NULL: none */
            uint32_t npre;
        } sv;
        const char *domain;        /* CV_DOMAIN: the domain's name */
        const char *err;           /* CV_ERROR */
    } u;
} cel_val;

typedef enum cel_kind {
    CN_LIT = 0, CN_IDENT, CN_SELECT, CN_INDEX, CN_CALL, CN_NOT, CN_NEG, CN_BINARY, CN_AND, CN_OR, CN_COND,
    CN_LIST, CN_HAS,
} cel_kind;

typedef enum cel_op {
    CO_MUL = 0, CO_DIV, CO_MOD, CO_ADD, CO_SUB, CO_LT, CO_LE, CO_GT, CO_GE, CO_EQ, CO_NE, CO_IN,
} cel_op;

struct ms_cel_node {
    uint8_t kind;                  /* cel_kind */
    uint8_t op;                    /* cel_op of CN_BINARY */
    uint32_t pos;                  /* byte offset in the expression, for errors */
    const char *name;              /* CN_IDENT, CN_SELECT's field, CN_CALL's function */
    cel_val lit;                   /* CN_LIT */
    const struct ms_cel_node *a, *b, *c;   /* operands; CN_CALL: a is the target (NULL: global) */
    const struct ms_cel_node **args;       /* CN_CALL, CN_LIST */
    uint32_t nargs;
};

#endif
