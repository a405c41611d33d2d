/* CEL text to a tree: a lexer and a recursive-descent parser with CEL's
 * precedence (?: below ||, below &&, below relations and `in`, below + -,
 * below * / %, below unary ! -, below member access, index and calls).
 * Identifiers are checked here: `device` is the only variable, and only
 * known functions may be called. */
#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cel/cel.h"
#include "cel/cel_node.h"

typedef enum tok {
    T_EOF = 0, T_INT, T_UINT, T_DOUBLE, T_STRING, T_IDENT, T_TRUE, T_FALSE, T_NULL,
    T_LP, T_RP, T_LB, T_RB, T_DOT, T_COMMA, T_Q, T_COLON, T_NOT, T_MINUS, T_PLUS, T_STAR, T_SLASH, T_PCT,
    T_LT, T_LE, T_GT, T_GE, T_EQ, T_NE, T_AND, T_OR, T_IN,
} tok;

typedef struct parser {
    const char *src;
    size_t len, at;
    ms_arena *a;
    ms_error *err;
    bool failed;
    /* the current token */
    tok t;
    size_t tpos;
    const char *text;              /* T_IDENT, T_STRING (decoded, NUL-terminated) */
    uint32_t ntext;
    int64_t i;
    uint64_t u;
    double d;
    int depth;
} parser;

/* cel-go's recursion limit for parsing */
#define MAX_DEPTH 250

static void position(const parser *p, size_t pos, int *line, int *col) {
    *line = 1;
    *col = 1;
    for (size_t k = 0; k < pos && k < p->len; k++) {
        if (p->src[k] == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

__attribute__((format(printf, 3, 4))) static void fail(parser *p, size_t pos, const char *fmt, ...) {
    if (p->failed) return;
    p->failed = true;
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    int line, col;
    position(p, pos, &line, &col);
    ms_error_set(p->err, MS_EINVAL, "<input>:%d:%d: %s", line, col, msg);
}

static bool ident_start(char c) { return isalpha((unsigned char)c) || c == '_'; }
static bool ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

static void lex_string(parser *p) {
    char q = p->src[p->at];
    bool triple = p->at + 2 < p->len && p->src[p->at + 1] == q && p->src[p->at + 2] == q;
    size_t start = p->at;
    p->at += triple ? 3 : 1;
    char *out = ms_arena_alloc(p->a, p->len - p->at + 1);
    if (!out) {
        fail(p, start, "out of memory");
        return;
    }
    uint32_t n = 0;
    for (;;) {
        if (p->at >= p->len) {
            fail(p, start, "Syntax error: unterminated string");
            return;
        }
        char c = p->src[p->at];
        if (c == q && (!triple || (p->at + 2 < p->len && p->src[p->at + 1] == q && p->src[p->at + 2] == q))) {
            p->at += triple ? 3 : 1;
            break;
        }
        if (c == '\n' && !triple) {
            fail(p, start, "Syntax error: unterminated string");
            return;
        }
        if (c == '\\') {
            if (p->at + 1 >= p->len) {
                fail(p, start, "Syntax error: unterminated string");
                return;
            }
            char e = p->src[p->at + 1];
            p->at += 2;
            switch (e) {
            case 'n': out[n++] = '\n'; break;
            case 't': out[n++] = '\t'; break;
            case 'r': out[n++] = '\r'; break;
            case '\\': case '"': case '\'': case '`': case '?': out[n++] = e; break;
            default: fail(p, p->at - 2, "Syntax error: invalid escape sequence"); return;
            }
            continue;
        }
        out[n++] = c;
        p->at++;
    }
    out[n] = '\0';
    p->text = out;
    p->ntext = n;
    p->t = T_STRING;
}

static void lex_number(parser *p) {
    const char *s = p->src + p->at;
    size_t k = 0;
    bool hex = s[0] == '0' && (s[1] == 'x' || s[1] == 'X'), dbl = false;
    if (hex) {
        k = 2;
        while (isxdigit((unsigned char)s[k])) k++;
    } else {
        while (isdigit((unsigned char)s[k])) k++;
        if (s[k] == '.' && isdigit((unsigned char)s[k + 1])) {
            dbl = true;
            k++;
            while (isdigit((unsigned char)s[k])) k++;
        }
        if (s[k] == 'e' || s[k] == 'E') {
            size_t e = k + 1;
            if (s[e] == '+' || s[e] == '-') e++;
            if (isdigit((unsigned char)s[e])) {
                dbl = true;
                k = e;
                while (isdigit((unsigned char)s[k])) k++;
            }
        }
    }
    char buf[64];
    size_t n = k < sizeof buf - 1 ? k : sizeof buf - 1;
    memcpy(buf, s, n);
    buf[n] = '\0';
    errno = 0;
    if (dbl) {
        p->d = strtod(buf, NULL);
        p->t = T_DOUBLE;
    } else if (s[k] == 'u' || s[k] == 'U') {
        p->u = strtoull(buf, NULL, hex ? 16 : 10);
        p->t = T_UINT;
        k++;
    } else {
        unsigned long long v = strtoull(buf, NULL, hex ? 16 : 10);
        /* -9223372036854775808 is folded by the unary minus */
        if (errno || v > (unsigned long long)INT64_MAX + 1) fail(p, p->at, "Syntax error: invalid int literal");
        p->u = v;
        p->i = (int64_t)(v > (unsigned long long)INT64_MAX ? (unsigned long long)INT64_MAX : v);
        p->t = T_INT;
    }
    if (errno) fail(p, p->at, "Syntax error: invalid number literal");
    p->at += k;
}

static void next(parser *p) {
    while (p->at < p->len && isspace((unsigned char)p->src[p->at])) p->at++;
    /* comments: // to the end of the line */
    while (p->at + 1 < p->len && p->src[p->at] == '/' && p->src[p->at + 1] == '/') {
        while (p->at < p->len && p->src[p->at] != '\n') p->at++;
        while (p->at < p->len && isspace((unsigned char)p->src[p->at])) p->at++;
    }
    p->tpos = p->at;
    if (p->at >= p->len) {
        p->t = T_EOF;
        return;
    }
    char c = p->src[p->at], d = p->at + 1 < p->len ? p->src[p->at + 1] : '\0';
    if (c == '"' || c == '\'') return lex_string(p);
    if (isdigit((unsigned char)c) || (c == '.' && isdigit((unsigned char)d))) return lex_number(p);
    if (ident_start(c)) {
        size_t k = p->at;
        while (k < p->len && ident_char(p->src[k])) k++;
        size_t n = k - p->at;
        const char *w = p->src + p->at;
        p->at = k;
        if (n == 4 && memcmp(w, "true", 4) == 0) p->t = T_TRUE;
        else if (n == 5 && memcmp(w, "false", 5) == 0) p->t = T_FALSE;
        else if (n == 4 && memcmp(w, "null", 4) == 0) p->t = T_NULL;
        else if (n == 2 && memcmp(w, "in", 2) == 0) p->t = T_IN;
        else {
            char *s = ms_arena_alloc(p->a, n + 1);
            if (!s) return fail(p, p->tpos, "out of memory");
            memcpy(s, w, n);
            s[n] = '\0';
            p->text = s;
            p->ntext = (uint32_t)n;
            p->t = T_IDENT;
        }
        return;
    }
    static const struct {
        char a, b;
        tok t;
    } ops[] = {
        {'&', '&', T_AND}, {'|', '|', T_OR}, {'=', '=', T_EQ}, {'!', '=', T_NE}, {'<', '=', T_LE}, {'>', '=', T_GE},
        {'(', 0, T_LP},    {')', 0, T_RP},   {'[', 0, T_LB},   {']', 0, T_RB},   {'.', 0, T_DOT},    {',', 0, T_COMMA},
        {'?', 0, T_Q},     {':', 0, T_COLON}, {'!', 0, T_NOT}, {'-', 0, T_MINUS}, {'+', 0, T_PLUS},  {'*', 0, T_STAR},
        {'/', 0, T_SLASH}, {'%', 0, T_PCT},  {'<', 0, T_LT},   {'>', 0, T_GT},
    };
    for (size_t k = 0; k < sizeof ops / sizeof ops[0]; k++) {
        if (ops[k].a != c || (ops[k].b && ops[k].b != d)) continue;
        p->at += ops[k].b ? 2 : 1;
        p->t = ops[k].t;
        return;
    }
    fail(p, p->at, "Syntax error: token recognition error at: '%c'", c);
    p->t = T_EOF;
}

static ms_cel_node *node(parser *p, cel_kind k, size_t pos) {
    ms_cel_node *n = ms_arena_alloc(p->a, sizeof *n);
    if (!n) {
        fail(p, pos, "out of memory");
        return NULL;
    }
    memset(n, 0, sizeof *n);
    n->kind = (uint8_t)k;
    n->pos = (uint32_t)pos;
    return n;
}

static const ms_cel_node *expr(parser *p);

static bool expect(parser *p, tok t, const char *what) {
    if (p->t == t) {
        next(p);
        return true;
    }
    fail(p, p->tpos, "Syntax error: missing %s", what);
    return false;
}

/* Arguments up to ')' (the '(' consumed). */
static bool args(parser *p, tok close, const ms_cel_node ***out, uint32_t *n) {
    const ms_cel_node *buf[64];
    *n = 0;
    if (p->t != close) {
        for (;;) {
            if (*n == 64) {
                fail(p, p->tpos, "Syntax error: too many arguments");
                return false;
            }
            buf[(*n)++] = expr(p);
            if (p->failed) return false;
            if (p->t != T_COMMA) break;
            next(p);
        }
    }
    if (!expect(p, close, close == T_RP ? "')'" : "']'")) return false;
    *out = *n ? ms_arena_alloc(p->a, *n * sizeof **out) : NULL;
    if (*n && !*out) {
        fail(p, p->tpos, "out of memory");
        return false;
    }
    if (*n) memcpy(*out, buf, *n * sizeof *buf);
    return true;
}

/* The functions and methods the evaluator knows, with their arity
 * (-1: any; a method's arity excludes its target). */
static const struct {
    const char *name;
    bool method;
    int nargs;
} functions[] = {
    {"size", false, 1},       {"size", true, 0},        {"startsWith", true, 1}, {"endsWith", true, 1},
    {"contains", true, 1},    {"lowerAscii", true, 0},  {"upperAscii", true, 0}, {"quantity", false, 1},
    {"isQuantity", false, 1}, {"semver", false, 1},     {"isSemver", false, 1},  {"compareTo", true, 1},
    {"isGreaterThan", true, 1}, {"isLessThan", true, 1}, {"sign", true, 0},      {"asInteger", true, 0},
    {"major", true, 0},       {"minor", true, 0},       {"patch", true, 0},      {"int", false, 1},
    {"uint", false, 1},       {"double", false, 1},     {"string", false, 1},
};

static bool known_function(const char *name, bool method, uint32_t nargs) {
    for (size_t k = 0; k < sizeof functions / sizeof functions[0]; k++)
        if (functions[k].method == method && strcmp(functions[k].name, name) == 0 &&
            (functions[k].nargs < 0 || (uint32_t)functions[k].nargs == nargs))
            return true;
    return false;
}

static const ms_cel_node *primary(parser *p) {
    size_t pos = p->tpos;
    ms_cel_node *n;
    switch (p->t) {
    case T_INT: case T_UINT: case T_DOUBLE: case T_STRING: case T_TRUE: case T_FALSE: case T_NULL:
        if (!(n = node(p, CN_LIT, pos))) return NULL;
        switch (p->t) {
        case T_INT:
            if (p->u > (uint64_t)INT64_MAX) fail(p, pos, "Syntax error: invalid int literal");
            n->lit = (cel_val){.t = CV_INT, .u.i = p->i};
            break;
        case T_UINT: n->lit = (cel_val){.t = CV_UINT, .u.u = p->u}; break;
        case T_DOUBLE: n->lit = (cel_val){.t = CV_DOUBLE, .u.d = p->d}; break;
        case T_STRING: n->lit = (cel_val){.t = CV_STRING, .u.str = {p->text, p->ntext}}; break;
        case T_TRUE: n->lit = (cel_val){.t = CV_BOOL, .u.b = true}; break;
        case T_FALSE: n->lit = (cel_val){.t = CV_BOOL, .u.b = false}; break;
        default: n->lit = (cel_val){.t = CV_NULL}; break;
        }
        next(p);
        return n;
    case T_LP:
        next(p);
        n = (ms_cel_node *)expr(p);
        expect(p, T_RP, "')'");
        return n;
    case T_LB:
        next(p);
        if (!(n = node(p, CN_LIST, pos))) return NULL;
        args(p, T_RB, &n->args, &n->nargs);
        return n;
    case T_IDENT: {
        const char *name = p->text;
        next(p);
        if (p->t == T_LP) {
            next(p);
            if (!(n = node(p, strcmp(name, "has") == 0 ? CN_HAS : CN_CALL, pos))) return NULL;
            n->name = name;
            if (!args(p, T_RP, &n->args, &n->nargs)) return NULL;
            if (n->kind == CN_HAS) {
                if (n->nargs != 1 || n->args[0]->kind != CN_SELECT) {
                    fail(p, pos, "invalid argument to has() macro");
                    return NULL;
                }
                n->a = n->args[0];
            } else if (!known_function(name, false, n->nargs)) {
                fail(p, pos, "undeclared reference to '%s' (in container '')", name);
            }
            return n;
        }
        if (strcmp(name, "device") != 0) {
            fail(p, pos, "undeclared reference to '%s' (in container '')", name);
            return NULL;
        }
        if (!(n = node(p, CN_IDENT, pos))) return NULL;
        n->name = name;
        return n;
    }
    case T_EOF: fail(p, pos, "Syntax error: mismatched input '<EOF>'"); return NULL;
    default: fail(p, pos, "Syntax error: extraneous input '%.*s'", (int)(p->at - pos), p->src + pos); return NULL;
    }
}

static const ms_cel_node *member(parser *p) {
    const ms_cel_node *n = primary(p);
    while (!p->failed && (p->t == T_DOT || p->t == T_LB)) {
        size_t pos = p->tpos;
        if (p->t == T_LB) {
            next(p);
            ms_cel_node *x = node(p, CN_INDEX, pos);
            if (!x) return NULL;
            x->a = n;
            x->b = expr(p);
            expect(p, T_RB, "']'");
            n = x;
            continue;
        }
        next(p);
        if (p->t != T_IDENT) {
            fail(p, p->tpos, "Syntax error: mismatched input, expecting IDENTIFIER");
            return NULL;
        }
        const char *name = p->text;
        next(p);
        ms_cel_node *x = node(p, p->t == T_LP ? CN_CALL : CN_SELECT, pos);
        if (!x) return NULL;
        x->a = n;
        x->name = name;
        if (x->kind == CN_CALL) {
            next(p);
            if (!args(p, T_RP, &x->args, &x->nargs)) return NULL;
            if (!known_function(name, true, x->nargs))
                fail(p, pos, "undeclared reference to '%s' (in container '')", name);
        }
        n = x;
    }
    return n;
}

static const ms_cel_node *unary(parser *p) {
    size_t pos = p->tpos;
    if (p->t != T_NOT && p->t != T_MINUS) return member(p);
    bool neg = p->t == T_MINUS;
    next(p);
    if (++p->depth > MAX_DEPTH) {
        fail(p, pos, "expression recursion limit exceeded: %d", MAX_DEPTH);
        return NULL;
    }
    /* -9223372036854775808 is one literal */
    if (neg && p->t == T_INT && p->u == (uint64_t)INT64_MAX + 1) {
        ms_cel_node *n = node(p, CN_LIT, pos);
        if (!n) return NULL;
        n->lit = (cel_val){.t = CV_INT, .u.i = INT64_MIN};
        next(p);
        p->depth--;
        return n;
    }
    ms_cel_node *n = node(p, neg ? CN_NEG : CN_NOT, pos);
    if (!n) return NULL;
    n->a = unary(p);
    p->depth--;
    return n;
}

/* The binary operators by precedence level: relations (and `in`), then
 * + -, then * / %; each level's operands are the next level's. */
static const struct {
    tok t;
    cel_op op;
    int level;
} binary_ops[] = {
    {T_LT, CO_LT, 0}, {T_LE, CO_LE, 0}, {T_GT, CO_GT, 0},   {T_GE, CO_GE, 0},   {T_EQ, CO_EQ, 0},
    {T_NE, CO_NE, 0}, {T_IN, CO_IN, 0}, {T_PLUS, CO_ADD, 1}, {T_MINUS, CO_SUB, 1}, {T_STAR, CO_MUL, 2},
    {T_SLASH, CO_DIV, 2}, {T_PCT, CO_MOD, 2},
};

static const ms_cel_node *operand(parser *p, int level);

static const ms_cel_node *binary_level(parser *p, int level) {
    const ms_cel_node *n = operand(p, level + 1);
    for (;;) {
        size_t k = 0;
        while (k < sizeof binary_ops / sizeof binary_ops[0] && (binary_ops[k].t != p->t || binary_ops[k].level != level))
            k++;
        if (p->failed || k == sizeof binary_ops / sizeof binary_ops[0]) return n;
        ms_cel_node *x = node(p, CN_BINARY, p->tpos);
        if (!x) return NULL;
        next(p);
        x->op = (uint8_t)binary_ops[k].op;
        x->a = n;
        x->b = operand(p, level + 1);
        n = x;
    }
}

static const ms_cel_node *operand(parser *p, int level) { return level > 2 ? unary(p) : binary_level(p, level); }

static const ms_cel_node *logical(parser *p, bool is_or) {
    const ms_cel_node *n = is_or ? logical(p, false) : binary_level(p, 0);
    while (!p->failed && p->t == (is_or ? T_OR : T_AND)) {
        size_t pos = p->tpos;
        next(p);
        ms_cel_node *x = node(p, is_or ? CN_OR : CN_AND, pos);
        if (!x) return NULL;
        x->a = n;
        x->b = is_or ? logical(p, false) : binary_level(p, 0);
        n = x;
    }
    return n;
}

static const ms_cel_node *expr(parser *p) {
    if (++p->depth > MAX_DEPTH) {
        fail(p, p->tpos, "expression recursion limit exceeded: %d", MAX_DEPTH);
        return NULL;
    }
    const ms_cel_node *n = logical(p, true);
    if (!p->failed && p->t == T_Q) {
        size_t pos = p->tpos;
        next(p);
        ms_cel_node *x = node(p, CN_COND, pos);
        if (!x) return NULL;
        x->a = n;
        x->b = logical(p, true);
        expect(p, T_COLON, "':'");
        x->c = expr(p);
        n = x;
    }
    p->depth--;
    return n;
}

/* The type cel-go's checker gives a node, where it is statically known
 * (CV_ERROR: dyn, as attribute and capacity values are). Only what the
 * result check needs: scalars, not lists or the Kubernetes types. */
static cel_type static_type(const ms_cel_node *n) {
    static const char *const bools[] = {"startsWith", "endsWith", "contains", "isQuantity", "isSemver",
                                        "isGreaterThan", "isLessThan"};
    static const char *const ints[] = {"size", "compareTo", "sign", "asInteger", "major", "minor", "patch", "int"};
    switch ((cel_kind)n->kind) {
    case CN_LIT:
        return n->lit.t == CV_NULL || n->lit.t == CV_LIST ? CV_ERROR : (cel_type)n->lit.t;
    case CN_SELECT:
        return strcmp(n->name, "driver") == 0 && n->a->kind == CN_IDENT && strcmp(n->a->name, "device") == 0
                   ? CV_STRING
                   : CV_ERROR;
    case CN_NOT: case CN_AND: case CN_OR: case CN_HAS:
        return CV_BOOL;
    case CN_NEG: {
        cel_type t = static_type(n->a);
        return t == CV_INT || t == CV_DOUBLE ? t : CV_ERROR;
    }
    case CN_BINARY: {
        if (n->op >= CO_LT) return CV_BOOL;
        cel_type x = static_type(n->a), y = static_type(n->b);
        if (x != y) return CV_ERROR;
        if (x == CV_INT || x == CV_UINT || x == CV_DOUBLE) return x;
        return x == CV_STRING && n->op == CO_ADD ? CV_STRING : CV_ERROR;
    }
    case CN_COND: {
        cel_type x = static_type(n->b);
        return x == static_type(n->c) ? x : CV_ERROR;
    }
    case CN_CALL:
        for (size_t i = 0; i < sizeof bools / sizeof bools[0]; i++)
            if (strcmp(n->name, bools[i]) == 0) return CV_BOOL;
        for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
            if (strcmp(n->name, ints[i]) == 0) return CV_INT;
        if (strcmp(n->name, "lowerAscii") == 0 || strcmp(n->name, "upperAscii") == 0 || strcmp(n->name, "string") == 0)
            return CV_STRING;
        if (strcmp(n->name, "double") == 0) return CV_DOUBLE;
        if (strcmp(n->name, "uint") == 0) return CV_UINT;
        return CV_ERROR;
    default:
        return CV_ERROR;
    }
}

static const char *type_name(cel_type t) {
    switch (t) {
    case CV_INT: return "int";
    case CV_UINT: return "uint";
    case CV_DOUBLE: return "double";
    case CV_STRING: return "string";
    default: return "dyn";
    }
}

ms_rc ms_cel_compile(const char *src, ms_arena *a, ms_cel_program *out, ms_error *err) {
    out->root = NULL;
    size_t len = strlen(src);
    if (len > MS_CEL_MAX_LENGTH)
        return ms_error_set(err, MS_EINVAL, "must not be longer than %d bytes", MS_CEL_MAX_LENGTH);
    parser p = {.src = src, .len = len, .a = a, .err = err};
    next(&p);
    const ms_cel_node *root = expr(&p);
    if (!p.failed && p.t != T_EOF)
        fail(&p, p.tpos, "Syntax error: extraneous input '%.*s' expecting <EOF>", (int)(p.at - p.tpos),
             p.src + p.tpos);
    if (p.failed) return MS_EINVAL;
    /* upstream's check at validation, before any device is seen */
    cel_type t = static_type(root);
    if (t != CV_ERROR && t != CV_BOOL)
        return ms_error_set(err, MS_EINVAL, "must evaluate to bool or the unknown type, not %s", type_name(t));
    out->root = root;
    return MS_OK;
}
