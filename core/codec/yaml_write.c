/* A JSON document as YAML text: see codec/yaml_write.h. */
#include "codec/yaml_write.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Would YAML (1.2 core schema, as our reader and kubectl's follow, or 1.1
 * as older readers do) read this plain scalar as a string equal to s? */
static bool plain_ok(const char *s) {
    size_t n = strlen(s);
    if (n == 0 || s[0] == ' ' || s[n - 1] == ' ') return false;
    if (strchr("-?:,[]{}#&*!|>'\"%@`~", s[0])) {
        /* "-x" style starts are fine when not followed by a space, except
         * where they mean something on their own */
        if (!(s[0] == '-' && n > 1 && s[1] != ' ' && !((s[1] >= '0' && s[1] <= '9') || s[1] == '.')))
            return false;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f) return false;
        if (c == ':' && (i + 1 == n || s[i + 1] == ' ')) return false;
        if (c == '#' && i > 0 && s[i - 1] == ' ') return false;
    }
    static const char *const reserved[] = {"null", "Null", "NULL", "true", "True", "TRUE", "false", "False",
                                           "FALSE", "yes", "Yes", "YES", "no", "No", "NO", "on", "On",
                                           "ON", "off", "Off", "OFF", "y", "Y", "n", "N", NULL};
    for (const char *const *r = reserved; *r; r++)
        if (strcmp(s, *r) == 0) return false;
    /* anything that reads as a number */
    char *end = NULL;
    (void)strtod(s, &end);
    if (end && *end == '\0') return false;
    if (s[0] == '.' || ((s[0] == '+' || s[0] == '-') && s[1] == '.')) return false;   /* .inf, .nan */
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'o' || s[1] == 'X')) return false;
    return true;
}

static void put_string(FILE *f, const char *s) {
    if (plain_ok(s)) {
        fputs(s, f);
        return;
    }
    bool simple = true;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f) simple = false;
    if (simple) {
        fputc('\'', f);
        for (const char *p = s; *p; p++) {
            if (*p == '\'') fputc('\'', f);
            fputc(*p, f);
        }
        fputc('\'', f);
        return;
    }
    /* a JSON string is a YAML double-quoted scalar */
    cJSON *tmp = cJSON_CreateString(s);
    char *text = tmp ? cJSON_PrintUnformatted(tmp) : NULL;
    fputs(text ? text : "\"\"", f);
    free(text);
    cJSON_Delete(tmp);
}

static void put_scalar(FILE *f, const cJSON *v) {
    if (cJSON_IsString(v)) {
        put_string(f, v->valuestring);
    } else if (cJSON_IsBool(v)) {
        fputs(cJSON_IsTrue(v) ? "true" : "false", f);
    } else if (cJSON_IsNumber(v)) {
        double d = v->valuedouble;
        if (d == floor(d) && fabs(d) < 9e15) fprintf(f, "%.0f", d);
        else fprintf(f, "%.17g", d);
    } else {
        fputs("null", f);
    }
}

static bool is_empty_container(const cJSON *v) {
    return (cJSON_IsObject(v) || cJSON_IsArray(v)) && !v->child;
}

static void put_mapping(FILE *f, const cJSON *obj, int indent, bool first_inline);

static void put_sequence(FILE *f, const cJSON *arr, int indent, bool first_inline) {
    for (const cJSON *c = arr->child; c; c = c->next) {
        fprintf(f, "%*s- ", c == arr->child && first_inline ? 0 : indent, "");
        if (cJSON_IsObject(c) && c->child) {
            put_mapping(f, c, indent + 2, true);
        } else if (cJSON_IsArray(c) && c->child) {
            put_sequence(f, c, indent + 2, true);
        } else if (is_empty_container(c)) {
            fputs(cJSON_IsObject(c) ? "{}\n" : "[]\n", f);
        } else {
            put_scalar(f, c);
            fputc('\n', f);
        }
    }
}

static void put_mapping(FILE *f, const cJSON *obj, int indent, bool first_inline) {
    for (const cJSON *c = obj->child; c; c = c->next) {
        if (c != obj->child || !first_inline) fprintf(f, "%*s", indent, "");
        put_string(f, c->string ? c->string : "");
        fputc(':', f);
        if (is_empty_container(c)) {
            fputs(cJSON_IsObject(c) ? " {}\n" : " []\n", f);
        } else if (cJSON_IsObject(c)) {
            fputc('\n', f);
            put_mapping(f, c, indent + 2, false);
        } else if (cJSON_IsArray(c)) {
            fputc('\n', f);
            put_sequence(f, c, indent, false);
        } else {
            fputc(' ', f);
            put_scalar(f, c);
            fputc('\n', f);
        }
    }
}

ms_rc ms_yaml_write(const cJSON *doc, bool json, FILE *out) {
    if (json) {
        char *text = cJSON_Print(doc);
        if (!text) return MS_ENOMEM;
        fputs(text, out);
        fputc('\n', out);
        free(text);
    } else if (cJSON_IsObject(doc)) {
        put_mapping(out, doc, 0, false);
    } else {
        put_scalar(out, doc);
        fputc('\n', out);
    }
    return ferror(out) ? MS_EIO : MS_OK;
}
