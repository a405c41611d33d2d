/* apimachinery's name validation: the one place that knows DNS-1123,
 * qualified names and label values. */
#ifndef MOONSCHED_API_VALIDATION_H
#define MOONSCHED_API_VALIDATION_H

#include <stdbool.h>
#include <stddef.h>

#define MS_DNS1123_LABEL_MAX 63
#define MS_DNS1123_SUBDOMAIN_MAX 253
#define MS_QUALIFIED_NAME_MAX 63
#define MS_LABEL_VALUE_MAX 63

/* [a-z0-9]([-a-z0-9]*[a-z0-9])?, at most 63 characters. */
bool ms_is_dns1123_label(const char *s, size_t n);
/* Dot-separated DNS-1123 labels, at most 253 characters. */
bool ms_is_dns1123_subdomain(const char *s, size_t n);

/* NULL when s[0..n) is a DNS-1123 label (subdomain), else upstream's first
 * reason (the length, then the characters), for "Invalid value" errors. */
const char *ms_dns1123_label_problem(const char *s, size_t n);
const char *ms_dns1123_subdomain_problem(const char *s, size_t n);
/* validation.IsQualifiedName ([DNS subdomain "/"] name, as label keys and
 * extended resource names are written): NULL when s[0..n) is one, else
 * upstream's first reason ("name part must be non-empty", ...). */
const char *ms_qualified_name_problem(const char *s, size_t n);

/* A label value: empty, or a qualified name's name part. NULL when valid,
 * else the reason labels.NewRequirement gives. */
const char *ms_label_value_problem(const char *s, size_t n);

#endif
