/* IsDNS1123Label, IsDNS1123Subdomain, IsQualifiedName and label values, as
 * apimachinery's validation checks them. */
#include "api/validation.h"

#include <string.h>

/* upstream's qualifiedNameErrMsg with its examples and regex */
#define QNAME_RULE                                                                                 \
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "  \
    "alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "        \
    "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"

static bool label_ok(const char *s, size_t n) {
    if (n == 0 || n > MS_DNS1123_LABEL_MAX) return false;
    for (size_t k = 0; k < n; k++) {
        char c = s[k];
        bool lower_alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (!lower_alnum && (c != '-' || k == 0 || k == n - 1)) return false;
    }
    return true;
}

bool ms_is_dns1123_label(const char *s, size_t n) { return label_ok(s, n); }

bool ms_is_dns1123_subdomain(const char *s, size_t n) {
    if (n == 0 || n > MS_DNS1123_SUBDOMAIN_MAX) return false;
    size_t start = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i < n && s[i] != '.') continue;
        /* a subdomain's labels are not limited to 63 characters, only the whole */
        if (i == start) return false;
        for (size_t k = start; k < i; k++) {
            char c = s[k];
            bool lower_alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
            if (!lower_alnum && (c != '-' || k == start || k == i - 1)) return false;
        }
        start = i + 1;
    }
    return true;
}

#define SUBDOMAIN_RULE                                                                             \
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or "  \
    "'.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used " \
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"

/* upstream checks the length first, then the characters */
const char *ms_dns1123_label_problem(const char *s, size_t n) {
    if (n > MS_DNS1123_LABEL_MAX) return "must be no more than 63 characters";
    if (label_ok(s, n)) return NULL;
    return "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
           "and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', "
           "regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
}

const char *ms_dns1123_subdomain_problem(const char *s, size_t n) {
    if (n > MS_DNS1123_SUBDOMAIN_MAX) return "must be no more than 253 characters";
    return ms_is_dns1123_subdomain(s, n) ? NULL : SUBDOMAIN_RULE;
}

static bool is_alnum(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], non-empty. */
static bool qname_chars(const char *s, size_t n) {
    if (n == 0 || !is_alnum(s[0]) || !is_alnum(s[n - 1])) return false;
    for (size_t i = 1; i + 1 < n; i++)
        if (!is_alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.') return false;
    return true;
}

const char *ms_qualified_name_problem(const char *s, size_t n) {
    const char *slash = memchr(s, '/', n);
    const char *name = s;
    size_t nn = n;
    if (slash) {
        size_t pn = (size_t)(slash - s);
        name = slash + 1;
        nn = n - pn - 1;
        if (memchr(name, '/', nn))
            return "a qualified name " QNAME_RULE
                   " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')";
        if (pn == 0) return "prefix part must be non-empty";
        if (pn > MS_DNS1123_SUBDOMAIN_MAX) return "prefix part must be no more than 253 characters";
        if (!ms_is_dns1123_subdomain(s, pn))
            return "prefix part " SUBDOMAIN_RULE;
    }
    if (nn == 0) return "name part must be non-empty";
    if (nn > MS_QUALIFIED_NAME_MAX) return "name part must be no more than 63 characters";
    if (!qname_chars(name, nn)) return "name part " QNAME_RULE;
    return NULL;
}

const char *ms_label_value_problem(const char *s, size_t n) {
    if (n == 0) return NULL;
    if (n > MS_LABEL_VALUE_MAX) return "must be no more than 63 characters";
    if (!qname_chars(s, n)) return "a valid label " QNAME_RULE;
    return NULL;
}
