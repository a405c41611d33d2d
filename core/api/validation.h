/* apimachinery's name validation: the one place that knows DNS-1123 and
 * qualified names. */
#ifndef MOONSCHED_API_VALIDATION_H
#define MOONSCHED_API_VALIDATION_H

#include <stdbool.h>
#include <stddef.h>

#define MS_DNS1123_LABEL_MAX 63
#define MS_DNS1123_SUBDOMAIN_MAX 253

/* [a-z0-9]([-a-z0-9]*[a-z0-9])?, at most 63 characters. */
bool ms_is_dns1123_label(const char *s, size_t n);
/* Dot-separated DNS-1123 labels, at most 253 characters. */
bool ms_is_dns1123_subdomain(const char *s, size_t n);

#endif
