/* Evaluation of a compiled CEL selector against one device, with CEL's
 * rules: errors are values that && and || absorb when the other side
 * decides, numbers of different types compare by value, values of other
 * different types are never equal, int arithmetic reports overflow. Each
 * node evaluated costs one unit, string work one more per 10 bytes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/quantity.h"
#include "cel/cel.h"
#include "cel/cel_node.h"

typedef struct ev {
    const ms_cel_device *d;
    ms_arena *a;
    int64_t cost, limit;
    bool over;
} ev;

static cel_val err_val(const char *msg) { return (cel_val){.t = CV_ERROR, .u.err = msg}; }
static cel_val bool_val(bool b) { return (cel_val){.t = CV_BOOL, .u.b = b}; }
static cel_val int_val(int64_t i) { return (cel_val){.t = CV_INT, .u.i = i}; }
static cel_val str_val(const char *s, uint32_t n) { return (cel_val){.t = CV_STRING, .u.str = {s, n}}; }

#define NO_OVERLOAD "no such overload"

static void charge(ev *e, int64_t units) {
    e->cost += units;
    if (e->cost > e->limit) e->over = true;
}

static bool is_num(const cel_val *v) { return v->t == CV_INT || v->t == CV_UINT || v->t == CV_DOUBLE; }

/* -1, 0, 1; 2 when not comparable (NaN). */
static int cmp_num(const cel_val *x, const cel_val *y) {
    if (x->t == y->t) {
        switch (x->t) {
        case CV_INT: return (x->u.i > y->u.i) - (x->u.i < y->u.i);
        case CV_UINT: return (x->u.u > y->u.u) - (x->u.u < y->u.u);
        default:
            if (isnan(x->u.d) || isnan(y->u.d)) return 2;
            return (x->u.d > y->u.d) - (x->u.d < y->u.d);
        }
    }
    if (x->t == CV_INT && y->t == CV_UINT) return x->u.i < 0 ? -1 : ((uint64_t)x->u.i > y->u.u) - ((uint64_t)x->u.i < y->u.u);
    if (x->t == CV_UINT && y->t == CV_INT) return -cmp_num(y, x);
    double a = x->t == CV_DOUBLE ? x->u.d : x->t == CV_INT ? (double)x->u.i : (double)x->u.u;
    double b = y->t == CV_DOUBLE ? y->u.d : y->t == CV_INT ? (double)y->u.i : (double)y->u.u;
    if (isnan(a) || isnan(b)) return 2;
    return (a > b) - (a < b);
}

static int cmp_str(const cel_val *x, const cel_val *y) {
    uint32_t n = x->u.str.n < y->u.str.n ? x->u.str.n : y->u.str.n;
    int c = memcmp(x->u.str.s, y->u.str.s, n);
    if (c) return c < 0 ? -1 : 1;
    return (x->u.str.n > y->u.str.n) - (x->u.str.n < y->u.str.n);
}

/* semver precedence: numbers, then a pre-release sorts before none, then
 * its dot-separated identifiers (numeric ones by value, below others). */
static int cmp_semver(const cel_val *x, const cel_val *y) {
    for (int k = 0; k < 3; k++)
        if (x->u.sv.v[k] != y->u.sv.v[k]) return x->u.sv.v[k] < y->u.sv.v[k] ? -1 : 1;
    if (!x->u.sv.pre || !y->u.sv.pre) return (!x->u.sv.pre) - (!y->u.sv.pre);
    const char *a = x->u.sv.pre, *b = y->u.sv.pre, *ae = a + x->u.sv.npre, *be = b + y->u.sv.npre;
    while (a < ae && b < be) {
        const char *ad = memchr(a, '.', (size_t)(ae - a)), *bd = memchr(b, '.', (size_t)(be - b));
        size_t an = (size_t)((ad ? ad : ae) - a), bn = (size_t)((bd ? bd : be) - b);
        bool anum = strspn(a, "0123456789") >= an, bnum = strspn(b, "0123456789") >= bn;
        int c;
        if (anum && bnum) c = an != bn ? (an < bn ? -1 : 1) : memcmp(a, b, an);
        else if (anum != bnum) c = anum ? -1 : 1;
        else {
            c = memcmp(a, b, an < bn ? an : bn);
            if (!c) c = (an > bn) - (an < bn);
        }
        if (c) return c < 0 ? -1 : 1;
        a += an + 1;
        b += bn + 1;
    }
    return (a < ae) - (b < be);
}

static bool equal(const cel_val *x, const cel_val *y);

static bool list_equal(const cel_val *x, const cel_val *y) {
    if (x->u.list.n != y->u.list.n) return false;
    for (uint32_t i = 0; i < x->u.list.n; i++)
        if (!equal(&x->u.list.items[i], &y->u.list.items[i])) return false;
    return true;
}

/* CEL's heterogeneous equality. */
static bool equal(const cel_val *x, const cel_val *y) {
    if (is_num(x) && is_num(y)) return cmp_num(x, y) == 0;
    if (x->t != y->t) return false;
    switch (x->t) {
    case CV_NULL: return true;
    case CV_BOOL: return x->u.b == y->u.b;
    case CV_STRING: return cmp_str(x, y) == 0;
    case CV_LIST: return list_equal(x, y);
    case CV_QUANTITY: return x->u.milli == y->u.milli;
    case CV_SEMVER: return cmp_semver(x, y) == 0;
    case CV_DOMAIN: return x->capacity == y->capacity && strcmp(x->u.domain, y->u.domain) == 0;
    default: return x->capacity == y->capacity;
    }
}

static bool parse_semver(const char *s, size_t n, cel_val *out);

/* ---- the device ---- */

/* The attribute or capacity `id` of `domain`, as a value; CV_ERROR
 * "no such key" when the device has none. */
static cel_val device_entry(ev *e, bool capacity, const char *domain, const char *id, uint32_t idn) {
    const ms_device *dev = e->d->device;
    const ms_interner *in = e->d->in;
    uint32_t n = capacity ? dev->ncapacity : dev->nattributes;
    for (uint32_t i = 0; i < n; i++) {
        ms_str dom = capacity ? dev->capacity[i].domain : dev->attributes[i].domain;
        ms_str key = capacity ? dev->capacity[i].id : dev->attributes[i].id;
        const char *k = ms_str_get(in, key);
        if (strlen(k) != idn || memcmp(k, id, idn) != 0 || strcmp(ms_str_get(in, dom), domain) != 0) continue;
        if (capacity) return (cel_val){.t = CV_QUANTITY, .u.milli = dev->capacity[i].milli};
        const ms_device_attribute *at = &dev->attributes[i];
        switch (at->type) {
        case MS_ATTR_INT: return int_val(at->i);
        case MS_ATTR_BOOL: return bool_val(at->b);
        case MS_ATTR_STRING: {
            const char *s = ms_str_get(in, at->s);
            return str_val(s, (uint32_t)strlen(s));
        }
        default: {
            const char *s = ms_str_get(in, at->s);
            cel_val v;
            if (parse_semver(s, strlen(s), &v)) return v;
            return err_val("invalid semver");
        }
        }
    }
    char *msg = ms_arena_alloc(e->a, idn + 16);
    if (!msg) return err_val("no such key");
    snprintf(msg, idn + 16, "no such key: %.*s", (int)idn, id);
    return err_val(msg);
}

/* Does the device have an attribute (capacity) in `domain`? */
static bool has_domain_entry(ev *e, bool capacity, const char *domain, const char *id, uint32_t idn) {
    return device_entry(e, capacity, domain, id, idn).t != CV_ERROR;
}

/* ---- semver and quantities ---- */

static bool number(const char **p, const char *end, int64_t *out) {
    const char *s = *p;
    if (s >= end || *s < '0' || *s > '9') return false;
    if (*s == '0' && s + 1 < end && s[1] >= '0' && s[1] <= '9') return false;   /* no leading zeros */
    int64_t v = 0;
    while (s < end && *s >= '0' && *s <= '9') {
        if (v > (INT64_MAX - (*s - '0')) / 10) return false;
        v = v * 10 + (*s++ - '0');
    }
    *p = s;
    *out = v;
    return true;
}

/* MAJOR.MINOR.PATCH[-PRERELEASE][+BUILD], strictly (semver 2.0.0). */
static bool parse_semver(const char *s, size_t n, cel_val *out) {
    const char *p = s, *end = s + n;
    *out = (cel_val){.t = CV_SEMVER};
    for (int k = 0; k < 3; k++) {
        if (!number(&p, end, &out->u.sv.v[k])) return false;
        if (k < 2 && (p >= end || *p++ != '.')) return false;
    }
    const char *build = memchr(p, '+', (size_t)(end - p));
    const char *pre_end = build ? build : end;
    if (p < pre_end) {
        if (*p != '-' || p + 1 >= pre_end) return false;
        p++;
        for (const char *q = p; q < pre_end; q++)
            if (!((*q >= '0' && *q <= '9') || (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || *q == '-' ||
                  *q == '.'))
                return false;
        out->u.sv.pre = p;
        out->u.sv.npre = (uint32_t)(pre_end - p);
    }
    return !build || build + 1 < end;
}

static bool parse_quantity(const cel_val *s, cel_val *out) {
    ms_quantity q;
    ms_error err;
    if (ms_quantity_parse(s->u.str.s, s->u.str.n, &q, &err) != MS_OK) return false;
    *out = (cel_val){.t = CV_QUANTITY, .u.milli = q.milli};
    return true;
}

/* ---- calls ---- */

static cel_val eval(ev *e, const ms_cel_node *n);

static uint32_t code_points(const cel_val *s) {
    uint32_t k = 0;
    for (uint32_t i = 0; i < s->u.str.n; i++) k += ((unsigned char)s->u.str.s[i] & 0xc0) != 0x80;
    return k;
}

static cel_val ascii_case(ev *e, const cel_val *s, bool upper) {
    char *out = ms_arena_alloc(e->a, s->u.str.n + 1);
    if (!out) return err_val("out of memory");
    for (uint32_t i = 0; i < s->u.str.n; i++) {
        char c = s->u.str.s[i];
        out[i] = upper && c >= 'a' && c <= 'z' ? (char)(c - 32) : !upper && c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
    }
    out[s->u.str.n] = '\0';
    return str_val(out, s->u.str.n);
}

static cel_val compare(const cel_val *x, const cel_val *y, const char *fn) {
    if (x->t != y->t || (x->t != CV_QUANTITY && x->t != CV_SEMVER)) return err_val(NO_OVERLOAD);
    int c = x->t == CV_QUANTITY ? (x->u.milli > y->u.milli) - (x->u.milli < y->u.milli) : cmp_semver(x, y);
    if (strcmp(fn, "compareTo") == 0) return int_val(c);
    return bool_val(strcmp(fn, "isGreaterThan") == 0 ? c > 0 : c < 0);
}

static cel_val to_int(const cel_val *v) {
    switch (v->t) {
    case CV_INT: return *v;
    case CV_UINT: return v->u.u > INT64_MAX ? err_val("integer overflow") : int_val((int64_t)v->u.u);
    case CV_DOUBLE:
        if (!(v->u.d > -9223372036854775808.0 && v->u.d < 9223372036854775808.0)) return err_val("integer overflow");
        return int_val((int64_t)v->u.d);
    case CV_STRING: {
        char buf[32];
        if (v->u.str.n == 0 || v->u.str.n >= sizeof buf) return err_val("invalid integer");
        memcpy(buf, v->u.str.s, v->u.str.n);
        buf[v->u.str.n] = '\0';
        char *end;
        long long x = strtoll(buf, &end, 10);
        return *end ? err_val("invalid integer") : int_val(x);
    }
    default: return err_val(NO_OVERLOAD);
    }
}

static cel_val to_string(ev *e, const cel_val *v) {
    char buf[64];
    switch (v->t) {
    case CV_STRING: return *v;
    case CV_INT: snprintf(buf, sizeof buf, "%lld", (long long)v->u.i); break;
    case CV_UINT: snprintf(buf, sizeof buf, "%llu", (unsigned long long)v->u.u); break;
    case CV_BOOL: snprintf(buf, sizeof buf, "%s", v->u.b ? "true" : "false"); break;
    case CV_DOUBLE: snprintf(buf, sizeof buf, "%.17g", v->u.d); break;
    default: return err_val(NO_OVERLOAD);
    }
    size_t n = strlen(buf);
    char *s = ms_arena_alloc(e->a, n + 1);
    if (!s) return err_val("out of memory");
    memcpy(s, buf, n + 1);
    return str_val(s, (uint32_t)n);
}

static cel_val call(ev *e, const ms_cel_node *n) {
    cel_val target = {0}, arg = {0};
    if (n->a) {
        target = eval(e, n->a);
        if (target.t == CV_ERROR) return target;
    }
    if (n->nargs) {
        arg = eval(e, n->args[0]);
        if (arg.t == CV_ERROR) return arg;
    }
    const char *fn = n->name;
    if (!n->a) {
        /* global functions */
        if (strcmp(fn, "size") == 0) {
            if (arg.t == CV_STRING) return int_val(code_points(&arg));
            if (arg.t == CV_LIST) return int_val(arg.u.list.n);
            return err_val(NO_OVERLOAD);
        }
        if (strcmp(fn, "quantity") == 0 || strcmp(fn, "isQuantity") == 0 || strcmp(fn, "semver") == 0 ||
            strcmp(fn, "isSemver") == 0) {
            if (arg.t != CV_STRING) return err_val(NO_OVERLOAD);
            charge(e, arg.u.str.n / 10);
            cel_val v;
            bool q = fn[0] == 'q' || fn[2] == 'Q';
            bool ok = q ? parse_quantity(&arg, &v) : parse_semver(arg.u.str.s, arg.u.str.n, &v);
            if (fn[0] == 'i') return bool_val(ok);
            if (!ok) return err_val(q ? "quantities must match the regular expression "
                                        "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
                                      : "invalid semver");
            return v;
        }
        if (strcmp(fn, "int") == 0) return to_int(&arg);
        if (strcmp(fn, "string") == 0) return to_string(e, &arg);
        if (strcmp(fn, "double") == 0) {
            if (arg.t == CV_DOUBLE) return arg;
            if (arg.t == CV_INT) return (cel_val){.t = CV_DOUBLE, .u.d = (double)arg.u.i};
            if (arg.t == CV_UINT) return (cel_val){.t = CV_DOUBLE, .u.d = (double)arg.u.u};
            return err_val(NO_OVERLOAD);
        }
        if (strcmp(fn, "uint") == 0) {
            if (arg.t == CV_UINT) return arg;
            if (arg.t == CV_INT) return arg.u.i < 0 ? err_val("unsigned integer overflow") : (cel_val){.t = CV_UINT, .u.u = (uint64_t)arg.u.i};
            if (arg.t == CV_DOUBLE) {
                if (!(arg.u.d >= 0 && arg.u.d < 18446744073709551616.0)) return err_val("unsigned integer overflow");
                return (cel_val){.t = CV_UINT, .u.u = (uint64_t)arg.u.d};
            }
            return err_val(NO_OVERLOAD);
        }
        return err_val(NO_OVERLOAD);
    }
    /* methods */
    if (strcmp(fn, "size") == 0) {
        if (target.t == CV_STRING) return int_val(code_points(&target));
        if (target.t == CV_LIST) return int_val(target.u.list.n);
        return err_val(NO_OVERLOAD);
    }
    if (strcmp(fn, "startsWith") == 0 || strcmp(fn, "endsWith") == 0 || strcmp(fn, "contains") == 0) {
        if (target.t != CV_STRING || arg.t != CV_STRING) return err_val(NO_OVERLOAD);
        charge(e, (target.u.str.n + arg.u.str.n) / 10);
        const char *s = target.u.str.s, *x = arg.u.str.s;
        uint32_t sn = target.u.str.n, xn = arg.u.str.n;
        if (xn > sn) return bool_val(false);
        if (fn[0] == 's') return bool_val(memcmp(s, x, xn) == 0);
        if (fn[0] == 'e') return bool_val(memcmp(s + sn - xn, x, xn) == 0);
        for (uint32_t i = 0; i + xn <= sn; i++)
            if (memcmp(s + i, x, xn) == 0) return bool_val(true);
        return bool_val(false);
    }
    if (strcmp(fn, "lowerAscii") == 0 || strcmp(fn, "upperAscii") == 0) {
        if (target.t != CV_STRING) return err_val(NO_OVERLOAD);
        charge(e, target.u.str.n / 10);
        return ascii_case(e, &target, fn[0] == 'u');
    }
    if (strcmp(fn, "compareTo") == 0 || strcmp(fn, "isGreaterThan") == 0 || strcmp(fn, "isLessThan") == 0)
        return compare(&target, &arg, fn);
    if (target.t == CV_QUANTITY && strcmp(fn, "sign") == 0) return int_val((target.u.milli > 0) - (target.u.milli < 0));
    if (target.t == CV_QUANTITY && strcmp(fn, "asInteger") == 0) {
        if (target.u.milli % 1000) return err_val("cannot convert value to integer");
        return int_val(target.u.milli / 1000);
    }
    if (target.t == CV_SEMVER && (strcmp(fn, "major") == 0 || strcmp(fn, "minor") == 0 || strcmp(fn, "patch") == 0))
        return int_val(target.u.sv.v[fn[1] == 'a' ? 0 : fn[1] == 'i' ? 1 : 2]);
    return err_val(NO_OVERLOAD);
}

/* ---- operators ---- */

static cel_val arith(ev *e, cel_op op, const cel_val *x, const cel_val *y) {
    if (op == CO_ADD && x->t == CV_STRING && y->t == CV_STRING) {
        uint32_t n = x->u.str.n + y->u.str.n;
        charge(e, n / 10);
        char *s = ms_arena_alloc(e->a, n + 1);
        if (!s) return err_val("out of memory");
        memcpy(s, x->u.str.s, x->u.str.n);
        memcpy(s + x->u.str.n, y->u.str.s, y->u.str.n);
        s[n] = '\0';
        return str_val(s, n);
    }
    if (op == CO_ADD && x->t == CV_LIST && y->t == CV_LIST) {
        uint32_t n = x->u.list.n + y->u.list.n;
        cel_val *items = n ? ms_arena_alloc(e->a, n * sizeof *items) : NULL;
        if (n && !items) return err_val("out of memory");
        if (x->u.list.n) memcpy(items, x->u.list.items, x->u.list.n * sizeof *items);
        if (y->u.list.n) memcpy(items + x->u.list.n, y->u.list.items, y->u.list.n * sizeof *items);
        return (cel_val){.t = CV_LIST, .u.list = {items, n}};
    }
    if (x->t != y->t || !is_num(x)) return err_val(NO_OVERLOAD);
    if (x->t == CV_DOUBLE) {
        double a = x->u.d, b = y->u.d, r;
        switch (op) {
        case CO_ADD: r = a + b; break;
        case CO_SUB: r = a - b; break;
        case CO_MUL: r = a * b; break;
        case CO_DIV: r = a / b; break;
        default: return err_val(NO_OVERLOAD);
        }
        return (cel_val){.t = CV_DOUBLE, .u.d = r};
    }
    if (x->t == CV_UINT) {
        uint64_t a = x->u.u, b = y->u.u, r;
        switch (op) {
        case CO_ADD: if (__builtin_add_overflow(a, b, &r)) return err_val("unsigned integer overflow"); break;
        case CO_SUB: if (__builtin_sub_overflow(a, b, &r)) return err_val("unsigned integer overflow"); break;
        case CO_MUL: if (__builtin_mul_overflow(a, b, &r)) return err_val("unsigned integer overflow"); break;
        case CO_DIV: if (!b) return err_val("division by zero"); r = a / b; break;
        default: if (!b) return err_val("modulus by zero"); r = a % b; break;
        }
        return (cel_val){.t = CV_UINT, .u.u = r};
    }
    int64_t a = x->u.i, b = y->u.i, r;
    switch (op) {
    case CO_ADD: if (__builtin_add_overflow(a, b, &r)) return err_val("integer overflow"); break;
    case CO_SUB: if (__builtin_sub_overflow(a, b, &r)) return err_val("integer overflow"); break;
    case CO_MUL: if (__builtin_mul_overflow(a, b, &r)) return err_val("integer overflow"); break;
    case CO_DIV:
        if (!b) return err_val("division by zero");
        if (a == INT64_MIN && b == -1) return err_val("integer overflow");
        r = a / b;
        break;
    default:
        if (!b) return err_val("modulus by zero");
        if (a == INT64_MIN && b == -1) return err_val("integer overflow");
        r = a % b;
        break;
    }
    return int_val(r);
}

static cel_val relation(cel_op op, const cel_val *x, const cel_val *y) {
    int c;
    if (is_num(x) && is_num(y)) c = cmp_num(x, y);
    else if (x->t != y->t) return err_val(NO_OVERLOAD);
    else if (x->t == CV_STRING) c = cmp_str(x, y);
    else if (x->t == CV_BOOL) c = (x->u.b > y->u.b) - (x->u.b < y->u.b);
    else return err_val(NO_OVERLOAD);
    if (c == 2) return bool_val(false);   /* NaN */
    switch (op) {
    case CO_LT: return bool_val(c < 0);
    case CO_LE: return bool_val(c <= 0);
    case CO_GT: return bool_val(c > 0);
    default: return bool_val(c >= 0);
    }
}

static cel_val in_op(ev *e, const cel_val *x, const cel_val *y) {
    if (y->t == CV_LIST) {
        for (uint32_t i = 0; i < y->u.list.n; i++)
            if (equal(x, &y->u.list.items[i])) return bool_val(true);
        return bool_val(false);
    }
    if (y->t == CV_DOMAIN) {
        if (x->t != CV_STRING) return bool_val(false);
        return bool_val(has_domain_entry(e, y->capacity, y->u.domain, x->u.str.s, x->u.str.n));
    }
    if (y->t == CV_DOMAINS) {
        if (x->t != CV_STRING) return bool_val(false);
        const ms_device *dev = e->d->device;
        uint32_t n = y->capacity ? dev->ncapacity : dev->nattributes;
        for (uint32_t i = 0; i < n; i++) {
            const char *dom = ms_str_get(e->d->in, y->capacity ? dev->capacity[i].domain : dev->attributes[i].domain);
            if (strlen(dom) == x->u.str.n && memcmp(dom, x->u.str.s, x->u.str.n) == 0) return bool_val(true);
        }
        return bool_val(false);
    }
    return err_val(NO_OVERLOAD);
}

/* x.name */
static cel_val select_field(ev *e, const cel_val *x, const char *name) {
    if (x->t == CV_DEVICE) {
        if (strcmp(name, "driver") == 0) return str_val(e->d->driver, (uint32_t)strlen(e->d->driver));
        if (strcmp(name, "attributes") == 0) return (cel_val){.t = CV_DOMAINS};
        if (strcmp(name, "capacity") == 0) return (cel_val){.t = CV_DOMAINS, .capacity = true};
    }
    if (x->t == CV_DOMAIN) return device_entry(e, x->capacity, x->u.domain, name, (uint32_t)strlen(name));
    if (x->t == CV_DOMAINS) {
        char *dom = ms_arena_alloc(e->a, strlen(name) + 1);
        if (!dom) return err_val("out of memory");
        strcpy(dom, name);
        return (cel_val){.t = CV_DOMAIN, .capacity = x->capacity, .u.domain = dom};
    }
    char *msg = ms_arena_alloc(e->a, strlen(name) + 16);
    if (!msg) return err_val("no such key");
    sprintf(msg, "no such key: %s", name);
    return err_val(msg);
}

static cel_val index_value(ev *e, const cel_val *x, const cel_val *k) {
    if (x->t == CV_LIST) {
        int64_t i;
        if (k->t == CV_INT) i = k->u.i;
        else if (k->t == CV_UINT) i = k->u.u > INT64_MAX ? -1 : (int64_t)k->u.u;
        else if (k->t == CV_DOUBLE && k->u.d == floor(k->u.d) && fabs(k->u.d) < 9e18) i = (int64_t)k->u.d;
        else return err_val(NO_OVERLOAD);
        if (i < 0 || i >= x->u.list.n) {
            char *msg = ms_arena_alloc(e->a, 48);
            if (!msg) return err_val("index out of range");
            snprintf(msg, 48, "index out of range: %lld", (long long)i);
            return err_val(msg);
        }
        return x->u.list.items[i];
    }
    if (x->t == CV_DOMAINS || x->t == CV_DOMAIN || x->t == CV_DEVICE) {
        if (k->t != CV_STRING) return err_val(NO_OVERLOAD);
        if (x->t == CV_DOMAIN) return device_entry(e, x->capacity, x->u.domain, k->u.str.s, k->u.str.n);
        return select_field(e, x, k->u.str.s);
    }
    return err_val(NO_OVERLOAD);
}

static cel_val eval(ev *e, const ms_cel_node *n) {
    charge(e, 1);
    if (e->over) return err_val("operation cancelled: actual cost limit exceeded");
    switch ((cel_kind)n->kind) {
    case CN_LIT: return n->lit;
    case CN_IDENT: return (cel_val){.t = CV_DEVICE};
    case CN_SELECT: {
        cel_val x = eval(e, n->a);
        return x.t == CV_ERROR ? x : select_field(e, &x, n->name);
    }
    case CN_HAS: {
        const ms_cel_node *sel = n->a;
        cel_val x = eval(e, sel->a);
        if (x.t == CV_ERROR) return x;
        if (x.t == CV_DOMAIN)
            return bool_val(has_domain_entry(e, x.capacity, x.u.domain, sel->name, (uint32_t)strlen(sel->name)));
        if (x.t == CV_DEVICE)
            return bool_val(strcmp(sel->name, "driver") == 0 || strcmp(sel->name, "attributes") == 0 ||
                            strcmp(sel->name, "capacity") == 0);
        if (x.t == CV_DOMAINS) {
            cel_val key = str_val(sel->name, (uint32_t)strlen(sel->name));
            return in_op(e, &key, &x);
        }
        return err_val(NO_OVERLOAD);
    }
    case CN_INDEX: {
        cel_val x = eval(e, n->a);
        if (x.t == CV_ERROR) return x;
        cel_val k = eval(e, n->b);
        return k.t == CV_ERROR ? k : index_value(e, &x, &k);
    }
    case CN_CALL: return call(e, n);
    case CN_NOT: {
        cel_val x = eval(e, n->a);
        if (x.t == CV_ERROR) return x;
        return x.t == CV_BOOL ? bool_val(!x.u.b) : err_val(NO_OVERLOAD);
    }
    case CN_NEG: {
        cel_val x = eval(e, n->a);
        if (x.t == CV_ERROR) return x;
        if (x.t == CV_INT) return x.u.i == INT64_MIN ? err_val("integer overflow") : int_val(-x.u.i);
        if (x.t == CV_DOUBLE) return (cel_val){.t = CV_DOUBLE, .u.d = -x.u.d};
        return err_val(NO_OVERLOAD);
    }
    case CN_AND: case CN_OR: {
        bool is_or = n->kind == CN_OR;
        cel_val x = eval(e, n->a);
        if (x.t == CV_BOOL && x.u.b == is_or) return x;
        cel_val y = eval(e, n->b);
        if (y.t == CV_BOOL && y.u.b == is_or) return y;
        if (x.t == CV_ERROR) return x;
        if (y.t == CV_ERROR) return y;
        if (x.t != CV_BOOL || y.t != CV_BOOL) return err_val(NO_OVERLOAD);
        return bool_val(!is_or);
    }
    case CN_COND: {
        cel_val c = eval(e, n->a);
        if (c.t == CV_ERROR) return c;
        if (c.t != CV_BOOL) return err_val(NO_OVERLOAD);
        return eval(e, c.u.b ? n->b : n->c);
    }
    case CN_LIST: {
        cel_val *items = n->nargs ? ms_arena_alloc(e->a, n->nargs * sizeof *items) : NULL;
        if (n->nargs && !items) return err_val("out of memory");
        for (uint32_t i = 0; i < n->nargs; i++) {
            items[i] = eval(e, n->args[i]);
            if (items[i].t == CV_ERROR) return items[i];
        }
        return (cel_val){.t = CV_LIST, .u.list = {items, n->nargs}};
    }
    case CN_BINARY: {
        cel_val x = eval(e, n->a);
        if (x.t == CV_ERROR) return x;
        cel_val y = eval(e, n->b);
        if (y.t == CV_ERROR) return y;
        switch ((cel_op)n->op) {
        case CO_EQ: return bool_val(equal(&x, &y));
        case CO_NE: return bool_val(!equal(&x, &y));
        case CO_LT: case CO_LE: case CO_GT: case CO_GE: return relation((cel_op)n->op, &x, &y);
        case CO_IN: return in_op(e, &x, &y);
        default: return arith(e, (cel_op)n->op, &x, &y);
        }
    }
    }
    return err_val(NO_OVERLOAD);
}

ms_cel_result ms_cel_eval(const ms_cel_program *p, const ms_cel_device *d, int64_t cost_limit, ms_arena *scratch,
                          int64_t *cost, ms_error *err) {
    ev e = {.d = d, .a = scratch, .limit = cost_limit};
    cel_val v = eval(&e, p->root);
    if (cost) *cost = e.cost;
    if (e.over) {
        ms_error_set(err, MS_EINVAL, "operation cancelled: actual cost limit exceeded");
        return MS_CEL_ERROR;
    }
    if (v.t == CV_ERROR) {
        ms_error_set(err, MS_EINVAL, "%s", v.u.err);
        return MS_CEL_ERROR;
    }
    if (v.t != CV_BOOL) {
        ms_error_set(err, MS_EINVAL, "must evaluate to bool");
        return MS_CEL_ERROR;
    }
    return v.u.b ? MS_CEL_TRUE : MS_CEL_FALSE;
}
